"""The report's check of summary.json (scripts/placebench_report/validate.py, SUMMARY) against placebench's
own field table (harness/src/runner/summary_table.h, printed as JSON by placebench_summary_fields): the same
keys at every level, each of a kind that the C++ kind fits, and nullable in the report wherever placebench
writes null. Adding a field to the table without the report is a failure here.
Run: PLACEBENCH_SUMMARY_FIELDS=build/tests/report/placebench_summary_fields .venv/bin/python \\
     tests/report/test_report_summary_fields.py"""
import json
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from placebench_report import validate  # noqa: E402

# The report's specs that read each C++ kind (validate.py's names).
FITS = {
    "text": (validate.STR, validate.KEY),
    "choice": (validate.KEY, validate.STR),
    "boolean": (validate.BOOL,),
    "integer": (validate.INT,),
    "number": (validate.NUMBER,),
}


def inner(spec):
    return spec.inner if isinstance(spec, validate.Opt) else spec


def fits(kind, spec):
    """Whether the report's `spec` (without its Opt) reads a value of the C++ `kind`."""
    spec = inner(spec)
    if kind in FITS:
        return any(spec is s for s in FITS[kind])
    if kind == "pair":
        return isinstance(spec, validate.List) and spec.length == 2
    if kind in ("strings", "integers"):
        item = validate.STR if kind == "strings" else validate.INT
        return isinstance(spec, validate.List) and spec.item is item
    return kind == "list" and isinstance(spec, validate.List) and isinstance(spec.item, validate.Map)


class SummaryFieldsMatchTheTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        program = os.environ.get("PLACEBENCH_SUMMARY_FIELDS")
        if not program:
            raise unittest.SkipTest("PLACEBENCH_SUMMARY_FIELDS is not set (ctest sets it)")
        cls.table = json.loads(subprocess.run([program], check=True, capture_output=True, text=True).stdout)

    def levels(self):
        summary = validate.SUMMARY
        cls = inner(summary.fields["classes"]).item
        arm = inner(cls.fields["arms"]).item
        return {"summary": summary, "class": cls, "arm": arm}

    def test_the_same_keys_at_every_level(self):
        for level, spec in self.levels().items():
            with self.subTest(level=level):
                self.assertEqual(sorted(spec.fields), sorted(f["key"] for f in self.table[level]))

    def test_each_key_of_a_kind_that_fits(self):
        for level, spec in self.levels().items():
            for field in self.table[level]:
                with self.subTest(level=level, key=field["key"]):
                    got = spec.fields.get(field["key"])
                    self.assertIsNotNone(got)
                    self.assertTrue(fits(field["kind"], got), f"{field['kind']} read as {got.what}")
                    if field["nullable"]:
                        self.assertIsInstance(got, validate.Opt, "placebench writes null here")

    def test_the_table_lists_what_placebench_writes(self):
        kinds = {f["key"]: f["kind"] for f in self.table["arm"]}
        self.assertEqual(kinds["median"], "number")
        self.assertEqual(kinds["ratio_ci_pct"], "pair")
        added = [f["key"] for f in self.table["arm"] if f["may_be_absent"]]
        self.assertIn("decided_look", added)
        self.assertNotIn("role", added)


if __name__ == "__main__":
    unittest.main()
