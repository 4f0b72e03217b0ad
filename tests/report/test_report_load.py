"""The report's loader (scripts/placebench_report/load.py) on trees with symlinks (issue 27): a run reached
by two paths (`latest -> run-1`) is one run, a link back up the tree is followed once, and the work is
linear in what the tree holds (a loop no longer multiplies it by the depth limit); a page of many runs
draws the figures of the first ones only; the run context names the kernel and GPU driver run.json records.
Run: .venv/bin/python tests/report/test_report_load.py"""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_v2 import ROOT, v2_copy  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from placebench_report import context, load  # noqa: E402


class SymlinksAreFollowedOnce(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pb-report-load-")
        self.folder = os.path.join(self.tmp, "results")
        os.makedirs(self.folder)
        self.run = v2_copy("tiny-run", self.folder)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_a_latest_link_to_a_run_is_the_same_run(self):
        # Before: the run was listed twice (its own name and `latest`).
        os.symlink(os.path.basename(self.run), os.path.join(self.folder, "latest"))
        inputs = load.load_inputs([self.folder])
        self.assertEqual([os.path.realpath(r.path) for r in inputs.runs], [os.path.realpath(self.run)])

    def test_a_link_back_up_the_tree_is_followed_once(self):
        # Before: results/loop -> .. re-read the tree at every depth up to 4 (the run counted 19 times here
        # with the other links below, 37 s over a larger tree).
        nested = os.path.join(self.folder, "a", "b")
        os.makedirs(nested)
        os.symlink(self.tmp, os.path.join(self.folder, "loop"))
        os.symlink(self.folder, os.path.join(nested, "up"))
        os.symlink(self.run, os.path.join(nested, "again"))
        inputs = load.load_inputs([self.folder])
        self.assertEqual(len(inputs.runs), 1, [r.path for r in inputs.runs])

    def test_a_run_given_twice_or_inside_a_folder_given_is_one_run(self):
        inputs = load.load_inputs([self.folder, self.run, os.path.join(self.folder, ".", os.path.basename(self.run))])
        self.assertEqual(len(inputs.runs), 1, [r.path for r in inputs.runs])

    def test_a_result_file_reached_twice_is_read_once(self):
        fixture = os.path.join(ROOT, "tests", "fixtures", "results", "gang-missing.json")
        shutil.copy(fixture, self.folder)
        os.symlink("gang-missing.json", os.path.join(self.folder, "gang-latest.json"))
        inputs = load.load_inputs([self.folder, os.path.join(self.folder, "gang-missing.json")])
        self.assertEqual(len(inputs.gang), 1, [d.path for d in inputs.gang])


class ManyRunsAreBounded(unittest.TestCase):
    """Before: every run's figures were drawn (about 0.2 s of CPU each), 2000 runs took minutes. Now the first
    MAX_DRAWN_RUNS runs are drawn and the others get their tables and a note saying so."""

    def test_runs_beyond_the_drawn_ones_have_tables_and_a_note(self):
        from placebench_report import page
        tmp = tempfile.mkdtemp(prefix="pb-report-many-")
        try:
            run = v2_copy("tiny-run", tmp)
            runs = [load.load_run(run) for _ in range(page.MAX_DRAWN_RUNS + 2)]
            drawn = page.run_section(runs[0], 0)
            undrawn = page.run_section(runs[-1], len(runs) - 1)
            self.assertIn('<img class="fig"', drawn)
            self.assertNotIn("<img", undrawn)
            self.assertIn(f"Figures are drawn for the first {page.MAX_DRAWN_RUNS} runs", undrawn)
            self.assertIn("<table", undrawn)  # the verdict table is still there
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class ContextNamesTheNodesVersions(unittest.TestCase):
    """run.json's kernel and GPU driver in the context table; null (no driver) as none; an older run.json
    without them lists what it has."""

    def versions_row(self, versions: dict) -> str:
        page = str(context.context_table(load.Run(path="/r/run", run={"versions": versions}, trials=[], summary=None)))
        return page[page.index("versions"):page.index("topology")]

    def test_kernel_and_driver_are_shown(self):
        row = self.versions_row({"kernel": "6.1.0-18-amd64", "gpu_driver": "550.54.15", "hwloc": "2.9.0"})
        self.assertIn("kernel 6.1.0-18-amd64, gpu_driver 550.54.15, hwloc 2.9.0", row)

    def test_no_driver_is_none_and_an_older_run_json_is_as_before(self):
        self.assertIn("gpu_driver none, hwloc 2.9.0", self.versions_row({"gpu_driver": None, "hwloc": "2.9.0"}))
        row = self.versions_row({"hwloc": "2.9.0", "cuda_driver": "no driver"})
        self.assertIn("hwloc 2.9.0, cuda_driver no driver", row)
        self.assertNotIn("kernel", row)


if __name__ == "__main__":
    unittest.main()
