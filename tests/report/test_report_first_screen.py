"""The report's first screen and loader (issue 30): one sentence per class saying the policy or what would
settle it, warnings grouped by kind with counts in <details>, and results found beside a run's record
(decide.json where the sbatch and MPIJob recipes write it), queue, feasible and fleet JSON read and counted.
Run: .venv/bin/python tests/report/test_report_first_screen.py"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_v2 import ROOT, v2_copy  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from placebench_report import first_screen, load, roles  # noqa: E402

GOLDEN = os.path.join(ROOT, "tests", "golden", "cli")


class Sentences(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pb-first-screen-")
        self.run = load.load_run(v2_copy("mixed-run", self.tmp))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def sentence(self, name):
        cls = next(c for c in self.run.classes() if c["name"] == name)
        arm_roles = {arm: r for (c, arm), r in roles.of_run(self.run).items() if c == name}
        return first_screen.from_summary(name, cls, arm_roles)

    def test_undecided_class_says_more_rounds_and_two_numa_nodes(self):
        s = self.sentence("staging-64k")
        self.assertIn("settle it with more rounds", s)
        self.assertIn("remote could not be placed apart from local", s)
        self.assertIn("a node with two NUMA nodes", s)

    def test_decided_class_names_the_verdict_and_decide(self):
        s = self.sentence("pipeline-small")
        self.assertIn("unpinned is faster than local", s)
        self.assertIn("placebench decide", s)

    def test_decide_result_gives_the_policy_or_what_settles_it(self):
        with open(os.path.join(GOLDEN, "decide-run-basic.json")) as f:
            classes = {c["name"]: c for c in json.load(f)["classes"]}
        self.assertTrue(first_screen.from_decide("long-training", classes["long-training"]).startswith(
            "long-training: use strict."))
        self.assertIn("settle it with more rounds", first_screen.from_decide("eval", classes["eval"]))
        self.assertIn("no decision block", first_screen.from_decide("interactive", classes["interactive"]))


class GroupedWarnings(unittest.TestCase):
    def test_kinds_counted_and_details_folded(self):
        ws = ["a / x: 3 flagged trials (kept)", "b / y: 2 flagged trials (kept)",
              "c: remote is degenerate here (same placement as local): an A/A control; identical placements differ",
              "c: stopped at max rounds, not by the plan", "something else"]
        groups = dict(first_screen.grouped_warnings(ws))
        self.assertEqual(len(groups["flagged trials"]), 2)
        self.assertEqual(len(groups["arms not placed apart (A/A controls, unrealised)"]), 1)
        self.assertNotIn("noise floor", groups)
        self.assertEqual(groups["other"], ["something else"])
        html = first_screen.warnings_html(ws)
        self.assertIn("5 warning(s): 1 arms not placed apart", html)
        self.assertIn("<details><summary>flagged trials (2)</summary>", html)


class ResultsBesideARun(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pb-first-screen-load-")
        self.folder = os.path.join(self.tmp, "results")
        os.makedirs(self.folder)
        self.run = v2_copy("tiny-run", self.folder)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def copy_golden(self, name, where):
        # Goldens carry {{ANY}} placeholders in strings only: still valid JSON.
        shutil.copy(os.path.join(GOLDEN, name), where)

    def test_decide_json_inside_a_run_directory_is_read(self):
        # Before: the loader stopped at run.json and said "Not in these inputs: decisions".
        self.copy_golden("decide-run-basic.json", os.path.join(self.run, "decide.json"))
        for given in (self.folder, self.run):
            inputs = load.load_inputs([given])
            self.assertEqual(len(inputs.runs), 1)
            self.assertEqual([d.name for d in inputs.decide], ["decide.json"], given)

    def test_feasible_and_admission_are_known_kinds_and_counted(self):
        # Before: feasible JSON was "not a placebench result of a known kind".
        self.copy_golden("feasible-cluster-stranded.json", self.folder)
        self.copy_golden("admission-never-ready.json", self.folder)
        inputs = load.load_inputs([self.folder])
        self.assertEqual(len(inputs.feasible), 1)
        self.assertEqual(len(inputs.admission), 1)
        self.assertEqual(len(inputs.docs()), 2)
        self.assertFalse([w for w in inputs.warnings if "known kind" in w], inputs.warnings)

    def test_queue_and_fleet_are_classified(self):
        self.assertEqual(load.classify({"kind": "queue-replay", "combinations": []}), "queue")
        self.assertEqual(load.classify({"kind": "placebench-fleet", "nodes": []}), "fleet")


class TerminalAgrees(unittest.TestCase):
    """`placebench compare` and `decide` open with the same sentences as the report's first screen (the C++
    class_sentence / decision_sentence and first_screen.py follow one set of rules)."""

    def setUp(self):
        self.binary = os.environ.get("PLACEBENCH_BINARY", os.path.join(ROOT, "build", "placebench"))
        if not os.access(self.binary, os.X_OK):
            self.skipTest(f"no placebench binary at {self.binary}")
        self.tmp = tempfile.mkdtemp(prefix="pb-first-screen-cli-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def in_short(self, *args):
        out = subprocess.run([self.binary, *args], capture_output=True, text=True, check=True).stdout.splitlines()
        start = out.index("In short:") + 1
        end = out.index("", start)
        return [line.strip() for line in out[start:end]]

    def test_compare_says_what_the_report_says(self):
        for name in ("mixed-run", "tiny-run"):
            run_dir = os.path.join(self.tmp, name)
            shutil.copytree(os.path.join(ROOT, "tests", "fixtures", "results", name), run_dir)
            # The summary placebench itself writes from the trials (the fixture's is older than the analysis).
            subprocess.run([self.binary, "compare", run_dir, "--write-summary"], capture_output=True, check=True)
            run = load.load_run(run_dir)
            expected = []
            for cls in run.classes():
                arm_roles = {arm: r for (c, arm), r in roles.of_run(run).items() if c == cls["name"]}
                expected.append(first_screen.from_summary(cls["name"], cls, arm_roles))
            self.assertEqual(self.in_short("compare", run_dir), expected)

    def test_decide_says_what_the_report_says(self):
        run_dir = os.path.join(ROOT, "tests", "fixtures", "decisions", "run-basic")
        decided = json.loads(subprocess.run([self.binary, "decide", run_dir, "--json"], capture_output=True, text=True,
                                            check=True).stdout)
        expected = [first_screen.from_decide(c["name"], c) for c in decided["classes"]]
        self.assertEqual(self.in_short("decide", run_dir), expected)


if __name__ == "__main__":
    unittest.main()
