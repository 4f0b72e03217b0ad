"""A byte-level fuzz of the report's loader (issue 27: the report loader as a fuzz target), beside the
field-by-field damage of test_report_damage.py: run.json, summary.json and trials.jsonl of the committed
runs, and the gang/admission fixtures, mutated by seeded random edits (bytes flipped, inserted, deleted,
spans cut or repeated, the file truncated). Every mutant is either loaded or refused with InputProblem in
one line naming the file; anything else (a traceback, a hang) fails. Deterministic: the seeds are fixed, and
a failing seed is printed so it can be kept as a regression input.
Run: .venv/bin/python tests/report/test_report_fuzz.py"""
import os
import random
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_v2 import FIX, ROOT, v2_copy  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from placebench_report import load  # noqa: E402

MUTANTS_PER_FILE = int(os.environ.get("PLACEBENCH_REPORT_FUZZ_MUTANTS", "60"))


def mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not b:
            b += bytes([rng.randrange(256)])
            continue
        op, i = rng.randrange(6), rng.randrange(len(b))
        if op == 0:
            b[i] = rng.randrange(256)
        elif op == 1:
            b.insert(i, rng.choice(b'{}[]",:0123456789-eE.\\\n\x00\xff'))
        elif op == 2:
            del b[i:i + rng.randint(1, 16)]
        elif op == 3:
            j = min(len(b), i + rng.randint(1, 64))
            b[i:i] = b[i:j] * rng.randint(1, 3)
        elif op == 4:
            b = b[:i]
        else:
            b[i:i] = rng.choice([b"1e999", b"-0", b"null", b"\"\"", b"[]", b"{}", b"010", b"NaN", "\u202e".encode()])
    return bytes(b)


class ReportLoaderFuzz(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pb-report-fuzz-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fuzz(self, make_input, target_name):
        """make_input(dir) -> (the input path to load, the file inside it to mutate)."""
        for seed in range(MUTANTS_PER_FILE):
            work = os.path.join(self.tmp, f"{target_name}-{seed}")
            path, victim = make_input(work)
            with open(victim, "rb") as f:
                original = f.read()
            with open(victim, "wb") as f:
                f.write(mutate(original, random.Random(f"{target_name}/{seed}")))
            try:
                load.load_inputs([path])
            except load.InputProblem as e:
                message = str(e)
                self.assertEqual(len(message.splitlines()), 1, f"{target_name} seed {seed}: {message!r}")
                self.assertTrue(message, f"{target_name} seed {seed}: an empty message")
            except Exception as e:  # noqa: BLE001 (any other exception is the finding)
                self.fail(f"{target_name} seed {seed}: {type(e).__name__}: {e}")
            shutil.rmtree(work, ignore_errors=True)

    def test_run_directory_files(self):
        for run in ("tiny-run", "mixed-run"):
            for name in ("run.json", "summary.json", "trials.jsonl"):
                def make(work, run=run, name=name):
                    os.makedirs(work)
                    d = v2_copy(run, work)
                    return d, os.path.join(d, name)
                with self.subTest(run=run, file=name):
                    self.fuzz(make, f"{run}-{name}")

    def test_result_files(self):
        for name in sorted(os.listdir(FIX)):
            if not name.endswith(".json"):
                continue
            def make(work, name=name):
                os.makedirs(work)
                dst = os.path.join(work, name)
                shutil.copy(os.path.join(FIX, name), dst)
                return dst, dst
            with self.subTest(file=name):
                self.fuzz(make, name)


if __name__ == "__main__":
    unittest.main()
