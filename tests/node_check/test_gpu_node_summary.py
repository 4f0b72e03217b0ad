"""The GPU node check's CPU-side parts (issue 16): the summary of step outputs on fixtures, its steps'
verdict (the H100/H200 references are `placebench check`'s: tests/cli/node_check_cli_test.cpp), and the script's --dry-run. Run by ctest (tests/CMakeLists.txt)."""
import json
import os
import re
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


def read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_json(path: str, doc: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


class Summary(unittest.TestCase):
    def test_figures_and_ratio(self) -> None:
        s = gpu_node_summary.summarise(FIXTURE)
        self.assertEqual(s["kind"], "gpu-node-check")
        gpu = s["gpus"]["0"]
        self.assertEqual(gpu["staging"]["h2d_pinned"]["local"]["bytes"], 268435456)  # the largest size
        self.assertAlmostEqual(gpu["staging"]["h2d_pinned"]["local"]["gbps_median"], 50.2)
        self.assertAlmostEqual(gpu["ratio_to_reference"], 50.2 / 51.0)
        self.assertTrue(gpu["ratio_target_met"])  # 0.984 >= 0.98
        self.assertAlmostEqual(s["collective"]["busbw_gbps"], 470.1)  # 16 GiB, better of the two modes
        self.assertEqual(s["gang"], "complete")
        self.assertEqual(s["failed_steps"], [])

    def test_committed_summary_fixture_is_in_step(self) -> None:
        # tests/cli/node_check_cli_test.cpp runs `placebench check` on this file with the H100/H200 references.
        committed = read_json(os.path.join(ROOT, "tests", "fixtures", "gpu-node-check-summaries", "pass", "summary.json"))
        self.assertEqual(gpu_node_summary.summarise(FIXTURE), committed)

    def test_below_tolerance_is_the_ratio_target_only(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            for f in os.listdir(FIXTURE):
                shutil.copy(os.path.join(FIXTURE, f), d)
            write_json(os.path.join(d, "reference-h2d-gpu0.json"), {"gpu": 0, "bytes": 268435456, "gbps_median": 60.0})
            s = gpu_node_summary.summarise(d)
            self.assertFalse(s["gpus"]["0"]["ratio_target_met"])
            self.assertNotIn("checks", s)  # the tolerances are `placebench check`'s

    def test_missing_steps_are_incomplete(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            s = gpu_node_summary.summarise(d)
            self.assertEqual(s["verdict"], "incomplete")

    def test_failed_step_fails(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "steps.jsonl"), "w") as f:
                f.write('{"step": "gang", "status": "failed (exit 124, timed out)", "seconds": 60, "detail": ""}\n')
            s = gpu_node_summary.summarise(d)
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
            self.assertRegex(p.stdout, r"\[dry-run\] check: .* check .* --reference .*h100\.yaml")
            # One GPU (or none, as here): one rank on purpose, which collective and gang refuse unless asked.
            if re.search(r"-np 1 ", p.stdout):
                for name in ("collective", "gang"):
                    self.assertRegex(p.stdout, rf"\[dry-run\] {name} \(.*--allow-single-rank")

    def test_help_is_the_header_only(self) -> None:
        p = subprocess.run([os.path.join(ROOT, "scripts", "gpu-node-check.sh"), "--help"], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Usage: scripts/gpu-node-check.sh", p.stdout)
        self.assertNotIn("set -", p.stdout)

    def test_bad_option_is_exit_2(self) -> None:
        p = subprocess.run([os.path.join(ROOT, "scripts", "gpu-node-check.sh"), "--bogus"], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown option '--bogus'", p.stderr)


if __name__ == "__main__":
    unittest.main()
