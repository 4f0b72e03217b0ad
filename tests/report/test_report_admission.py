"""The report's admission section (scripts/placebench_report/fig_admission.py) on `placebench admission --json`
of the three fixture cases (tests/fixtures/admission): one Gantt chart per job, the stranded interval of the
partial gang drawn for its whole wait, and a damaged admission file refused with one line.
Run: .venv/bin/python tests/report/test_report_admission.py (PLACEBENCH_BINARY: the built placebench)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from placebench_report.fig_admission import _t, pod_segments  # noqa: E402

REPORT = os.path.join(ROOT, "scripts", "report.py")
FIX = os.path.join(ROOT, "tests", "fixtures", "admission")
BINARY = os.environ.get("PLACEBENCH_BINARY", os.path.join(ROOT, "build", "placebench"))


def admission(case, *extra):
    out = subprocess.run([BINARY, "admission", os.path.join(FIX, case), "--json", *extra], capture_output=True, text=True,
                         timeout=60, check=True)
    return json.loads(out.stdout)


class AdmissionReport(unittest.TestCase):
    def test_partial_gang_is_stranded_for_its_whole_wait(self):
        doc = admission("partial-waiting")
        job = doc["jobs"][0]
        end = _t(doc["observed_until"])
        segs = pod_segments(job["pods"][0], job, end)
        self.assertEqual([k for k, _, _ in segs], ["pending", "waiting"])  # Ready, but the gang never whole
        self.assertEqual(segs[1][2] - segs[1][1], 720.0)
        self.assertEqual([k for k, _, _ in pod_segments(job["pods"][3], job, end)], ["pending"])

    def test_held_after_a_failure_is_stranded_and_a_recreated_pod_has_its_own_attempt(self):
        doc = admission("volcano-restart")
        job = doc["jobs"][0]
        end = _t(doc["observed_until"])
        old, new = job["pods"][0], job["pods"][1]  # trainer-worker-0, its two incarnations
        segs = pod_segments(old, job, end)
        self.assertEqual([k for k, _, _ in segs], ["pending", "starting", "running", "held"])
        self.assertEqual(segs[-1][2] - segs[-1][1], 85.0)
        self.assertEqual([k for k, _, _ in pod_segments(new, job, end)], ["pending"])

    def test_whole_gang_runs_after_binding(self):
        doc = admission("admitted-whole", "--gang", os.path.join(FIX, "admitted-whole-gang.json"))
        job = doc["jobs"][0]
        kinds = [k for k, _, _ in pod_segments(job["pods"][0], job, _t(doc["observed_until"]))]
        self.assertEqual(kinds, ["pending", "starting", "running"])

    def test_report_draws_one_chart_per_job_and_refuses_damage(self):
        with tempfile.TemporaryDirectory() as tmp:
            for case in ("admitted-whole", "partial-waiting", "never-ready"):
                with open(os.path.join(tmp, case + ".json"), "w") as f:
                    json.dump(admission(case), f)
            out = os.path.join(tmp, "report.html")
            r = subprocess.run([sys.executable, REPORT, tmp, "-o", out], capture_output=True, text=True, timeout=240)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out, encoding="utf-8") as f:
                html = f.read()
            self.assertIn("Admission timelines", html)
            self.assertEqual(html.count("Admission Gantt chart of"), 3)
            bad = admission("partial-waiting")
            bad["jobs"][0]["stranded_gpu_s"] = "lots"
            with open(os.path.join(tmp, "partial-waiting.json"), "w") as f:
                json.dump(bad, f)
            r = subprocess.run([sys.executable, REPORT, os.path.join(tmp, "partial-waiting.json"), "-o", os.path.join(tmp, "r2.html")],
                               capture_output=True, text=True, timeout=240)
            self.assertEqual(r.returncode, 2)
            self.assertIn("stranded_gpu_s", r.stderr)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)


if __name__ == "__main__":
    unittest.main()
