"""The GPU node check's CPU-side parts (issue 16): the summary of step outputs on fixtures, its verdicts
against the H100/H200 references, and the script's --dry-run. Run by ctest (tests/CMakeLists.txt)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gpu_node_summary  # noqa: E402

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "gpu-node-check")
H100 = os.path.join(ROOT, "configs", "references", "h100.yaml")
H200 = os.path.join(ROOT, "configs", "references", "h200.yaml")


def read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_json(path: str, doc: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


class Summary(unittest.TestCase):
    def test_figures_and_ratio(self) -> None:
        s = gpu_node_summary.summarise(FIXTURE, None)
        self.assertEqual(s["kind"], "gpu-node-check")
        gpu = s["gpus"]["0"]
        self.assertEqual(gpu["staging"]["h2d_pinned"]["local"]["bytes"], 268435456)  # the largest size
        self.assertAlmostEqual(gpu["staging"]["h2d_pinned"]["local"]["gbps_median"], 50.2)
        self.assertAlmostEqual(gpu["ratio_to_reference"], 50.2 / 51.0)
        self.assertTrue(gpu["ratio_target_met"])  # 0.984 >= 0.98
        self.assertAlmostEqual(s["collective"]["busbw_gbps"], 470.1)  # 16 GiB, better of the two modes
        self.assertEqual(s["gang"], "complete")
        self.assertEqual(s["failed_steps"], [])

    def test_h100_reference_passes(self) -> None:
        s = gpu_node_summary.summarise(FIXTURE, H100)
        self.assertEqual(len(s["checks"]), 3)
        self.assertTrue(all(c["pass"] for c in s["checks"]), s["checks"])
        self.assertEqual(s["verdict"], "pass")

    def test_below_tolerance_fails(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            for f in os.listdir(FIXTURE):
                shutil.copy(os.path.join(FIXTURE, f), d)
            c = read_json(os.path.join(d, "collective.json"))
            for r in c["rows"]:
                r["busbw"] = 300.0
            write_json(os.path.join(d, "collective.json"), c)
            write_json(os.path.join(d, "reference-h2d-gpu0.json"), {"gpu": 0, "bytes": 268435456, "gbps_median": 60.0})
            s = gpu_node_summary.summarise(d, H200)
            self.assertFalse(s["gpus"]["0"]["ratio_target_met"])
            failed = [c["metric"] for c in s["checks"] if c["pass"] is False]
            self.assertEqual(failed, ["nccl_allreduce_busbw_gbps"])
            self.assertEqual(s["verdict"], "fail")

    def test_missing_figures_are_incomplete(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            s = gpu_node_summary.summarise(d, H100)
            self.assertEqual(s["verdict"], "incomplete")

    def test_failed_step_fails(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "steps.jsonl"), "w") as f:
                f.write('{"step": "gang", "status": "failed (exit 124, timed out)", "seconds": 60, "detail": ""}\n')
            s = gpu_node_summary.summarise(d, None)
            self.assertEqual(s["failed_steps"], ["gang"])
            self.assertEqual(s["verdict"], "fail")


class DryRun(unittest.TestCase):
    def test_dry_run_lists_every_step_with_a_timeout(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "check")
            p = subprocess.run([os.path.join(ROOT, "scripts", "gpu-node-check.sh"), "--dry-run", "--out", out,
                                "--reference", H100], capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            for name in ("device-tests", "reference-h2d-gpu0", "staging-gpu0-bidir-pinned", "staging-gpu0-h2d-pageable",
                         "pipeline", "collective", "gang"):
                self.assertRegex(p.stdout, rf"\[dry-run\] {name} \(timeout \d+s\)")
            s = read_json(os.path.join(out, "summary.json"))
            self.assertEqual(s["kind"], "gpu-node-check")
            self.assertTrue(any(st["step"] == "gang" and st["status"] == "skipped" for st in s["steps"]))

    def test_bad_option_is_exit_2(self) -> None:
        p = subprocess.run([os.path.join(ROOT, "scripts", "gpu-node-check.sh"), "--bogus"], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown option '--bogus'", p.stderr)


if __name__ == "__main__":
    unittest.main()
