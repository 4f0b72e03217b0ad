"""The report's checks of placebench's JSON results (scripts/placebench_report/validate.py, KINDS) against
what placebench really writes: for each kind the report reads (admission, queue, feasible, fleet, decide),
the built binary writes it from a fixture, and every key the report's spec names must be in that output,
at the same place, with a value the spec accepts. The C++ writers walk their field tables
(admission_json.cpp, queue_json.cpp, ...), so a key renamed or dropped there without the report fails here,
where the report's optional keys would otherwise hide it. summary.json has its own, stricter test
(test_report_summary_fields.py: the same keys both ways).
Run: .venv/bin/python tests/report/test_report_written_fields.py (PLACEBENCH_BINARY: the built placebench)."""
import json
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from placebench_report import validate  # noqa: E402

BINARY = os.environ.get("PLACEBENCH_BINARY", os.path.join(ROOT, "build", "placebench"))
QUEUE = os.path.join(ROOT, "tests", "fixtures", "queue")

# Each kind the report reads, and a command that writes it from the repository's fixtures.
WRITERS = {
    "admission": ["admission", os.path.join(ROOT, "tests", "fixtures", "admission", "partial-waiting"), "--json"],
    "queue": ["queue", "--inventory", os.path.join(QUEUE, "article-cluster.yaml"),
              "--mix", os.path.join(QUEUE, "pairs-mix.yaml"), "--json"],
    "feasible": ["feasible", "--inventory", os.path.join(ROOT, "tests", "fixtures", "decisions", "cluster-stranded.yaml"),
                 "--json"],
    "fleet": ["fleet", os.path.join(ROOT, "tests", "fixtures", "results", "tiny-run"), "--json", "-"],
    "decide": ["decide", os.path.join(ROOT, "tests", "fixtures", "decisions", "run-basic"), "--json"],
}


def inner(spec):
    return spec.inner if isinstance(spec, validate.Opt) else spec


def missing_keys(value, spec, where="$"):
    """The places of keys that `spec` names and `value` lacks (in a list: keys no item has)."""
    spec = inner(spec)
    if isinstance(spec, validate.Map) and isinstance(value, dict):
        out = []
        for key, sub in spec.fields.items():
            if key not in value:
                out.append(f"{where}.{key}")
            else:
                out += missing_keys(value[key], sub, f"{where}.{key}")
        return out
    if isinstance(spec, validate.List) and isinstance(value, list) and value:
        # A key counts when any item has it (an optional key may be null or absent on some items).
        per_item = [set(missing_keys(v, spec.item, f"{where}[]")) for v in value]
        return sorted(set.intersection(*per_item))
    return []


class WrittenFieldsMatchTheReport(unittest.TestCase):
    def written(self, kind):
        r = subprocess.run([BINARY] + WRITERS[kind], capture_output=True, text=True, timeout=120, cwd=ROOT)
        self.assertIn(r.returncode, (0, 1, 3), f"{kind}: {' '.join(WRITERS[kind])} failed: {r.stderr}")
        return json.loads(r.stdout)

    def test_every_key_the_report_reads_is_written(self):
        if not os.path.exists(BINARY):
            self.skipTest(f"no {BINARY}")
        self.assertEqual(set(WRITERS), {"admission", "queue", "feasible", "fleet", "decide"} & set(validate.KINDS))
        for kind in WRITERS:
            with self.subTest(kind=kind):
                out = self.written(kind)
                spec = validate.KINDS[kind]
                self.assertIsNone(validate.problem_in(out, spec), kind)
                self.assertEqual(missing_keys(out, spec), [], f"{kind}: keys the report reads that placebench "
                                 "does not write (rename them in validate.py, or write them again)")

    def test_a_renamed_key_is_found(self):
        # The check itself: a written admission result with one key renamed is caught.
        if not os.path.exists(BINARY):
            self.skipTest(f"no {BINARY}")
        out = self.written("admission")
        for job in out["jobs"]:
            job["stranded_gpu_seconds"] = job.pop("stranded_gpu_s")
        self.assertIn("$.jobs[].stranded_gpu_s", missing_keys(out, validate.KINDS["admission"]))


if __name__ == "__main__":
    unittest.main()
