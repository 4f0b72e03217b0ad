"""scripts/report.py on the committed result fixtures (tests/fixtures/results; run directories at results
schema 2, results_v2.py): one self-contained HTML file with every section, schema versions it does not
know refused (every field damaged in turn: test_report_damage.py; what schema 2 shows: test_report_v2.py),
-o never replacing a recorded file, and the page rendered by headless Chromium with every image decoded
and no console message. Run: .venv/bin/python tests/report/test_report.py"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_v2 import FIX, ROOT, RUNS, v2_copy  # noqa: E402

REPORT = os.path.join(ROOT, "scripts", "report.py")
DOCS = ("staging-host.json", "pipeline-local.json", "pipeline-unpinned.json", "collective-mpi.json",
        "gang-missing.json", "gang-late.json", "decide-basic.json")


def all_inputs(tmp):
    """Every fixture: the run directories copied into tmp at schema 2, the result files as committed."""
    return [v2_copy(n, tmp) for n in RUNS] + [os.path.join(FIX, n) for n in DOCS]


def report(inputs, out, *extra):
    return subprocess.run([sys.executable, REPORT, *inputs, "-o", out, *extra], capture_output=True, text=True, timeout=240)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class FullReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="pb-report-")
        cls.out = os.path.join(cls.tmp, "report.html")
        cls.result = report(all_inputs(cls.tmp), cls.out)
        cls.html = read(cls.out) if os.path.exists(cls.out) else ""

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_writes_one_file_with_every_section(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        for anchor in ("summary", "run-0", "run-1", "forest-all", "pipeline", "staging", "collectives", "gang", "decisions"):
            self.assertIn(f'id="{anchor}"', self.html, anchor)
        for text in ("Placement verification", "Class tiny", "Class staging-64k", "Class pipeline-small",
                     "Stranded GPU-seconds", "recommendation", "seed, order", "Schedule: arm order per round"):
            self.assertIn(text, self.html, text)
        absent = re.search(r"Not in these inputs: ([^<]*)", self.html)
        self.assertEqual(absent.group(1) if absent else "", "admission, queue replays, feasibility, fleet, history.")

    def test_images_are_embedded_pngs(self):
        srcs = re.findall(r'<img[^>]*src="([^"]*)"', self.html)
        # tiny: forest + distribution; mixed: forest + 2 distributions + pipeline split; across runs: forest;
        # pipeline files, staging, collectives, gang, decisions: one each.
        self.assertGreaterEqual(len(srcs), 13)
        for s in srcs:
            self.assertTrue(s.startswith("data:image/png;base64,"), s[:40])
            self.assertEqual(base64.b64decode(s.split(",", 1)[1])[:8], b"\x89PNG\r\n\x1a\n")

    def test_needs_no_network(self):
        self.assertIsNone(re.search(r'(src|href)="(https?:)?//', self.html))
        self.assertNotIn("<link", self.html)
        self.assertIsNone(re.search(r"<script[^>]*src=", self.html))

    def test_headless_chromium_renders_every_image_without_console_messages(self):
        browser = chromium()
        if not browser:
            self.skipTest("chromium not installed (scripts/setup.sh installs Debian's chromium); render check skipped")
        url = "file://" + self.out
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
        r = subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        body = re.search(r"<body([^>]*)>", r.stdout)
        self.assertIsNotNone(body, r.stdout[:500])
        images = re.search(r'data-images="(\d+)"', body.group(1))
        broken = re.search(r'data-images-broken="(\d+)"', body.group(1))
        self.assertIsNotNone(images, "the page's load handler did not run: " + body.group(0))
        self.assertEqual(int(images.group(1)), len(re.findall(r"<img", self.html)))
        self.assertEqual(broken.group(1), "0")
        console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
        self.assertEqual(console, [], "console messages while rendering")
        shot = os.path.join(self.tmp, "report.png")
        r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--window-size=1200,2400", f"--screenshot={shot}", url], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertGreater(os.path.getsize(shot), 50_000)


class BadInput(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pb-report-bad-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def copy_run(self, name="tiny-run"):
        return v2_copy(name, self.tmp)

    def rewrite(self, path, **fields):
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
        obj.update(fields)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(obj, f)

    def assert_refused(self, r, *needles):
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        for n in needles:
            self.assertIn(n, lines[0])

    def test_unknown_schema_version_of_a_run_is_refused(self):
        run = self.copy_run()
        self.rewrite(os.path.join(run, "run.json"), schema_version=99)
        r = report([run], os.path.join(self.tmp, "r.html"))
        self.assert_refused(r, "run.json: schema_version 99 is not one this report reads (2)")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "r.html")))

    def test_unknown_schema_version_of_a_summary_or_json_file_is_refused(self):
        run = self.copy_run()
        self.rewrite(os.path.join(run, "summary.json"), schema_version=3)
        self.assert_refused(report([run], os.path.join(self.tmp, "r.html")), "summary.json: schema_version 3")
        gang = os.path.join(self.tmp, "gang.json")
        shutil.copy(os.path.join(FIX, "gang-missing.json"), gang)
        self.rewrite(gang, schema_version="2")
        self.assert_refused(report([gang], os.path.join(self.tmp, "r.html")), "gang.json: schema_version '2'")

    def test_unknown_files_and_paths(self):
        other = os.path.join(self.tmp, "other.json")
        with open(other, "w") as f:
            json.dump({"hello": 1}, f)
        self.assert_refused(report([other], os.path.join(self.tmp, "r.html")), "not a result this report reads")
        self.assert_refused(report([os.path.join(self.tmp, "nope")], os.path.join(self.tmp, "r.html")), "no such file")
        broken = os.path.join(self.tmp, "broken.json")
        with open(broken, "w") as f:
            f.write('{"rows": [\n')
        self.assert_refused(report([broken], os.path.join(self.tmp, "r.html")), "broken.json:2: not valid JSON")

    def test_truncated_trial_line_and_missing_summary(self):
        run = self.copy_run()
        with open(os.path.join(run, "trials.jsonl"), "a") as f:
            f.write('{"class": "tiny", "arm": "lo')
        os.remove(os.path.join(run, "summary.json"))
        out = os.path.join(self.tmp, "r.html")
        r = report([run], out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("truncated last line ignored", r.stderr)
        html = read(out)
        self.assertIn("No summary.json", html)
        self.assertIn("Class tiny", html)

    def test_values_from_results_are_escaped(self):
        run = self.copy_run()
        self.rewrite(os.path.join(run, "run.json"), host="<b>evil</b>")
        out = os.path.join(self.tmp, "r.html")
        self.assertEqual(report([run], out).returncode, 0)
        html = read(out)
        self.assertIn("&lt;b&gt;evil&lt;/b&gt;", html)
        self.assertNotIn("<b>evil", html)

    def test_a_folder_of_results(self):
        folder = os.path.join(self.tmp, "collected")
        os.makedirs(folder)
        v2_copy("tiny-run", folder)
        shutil.copy(os.path.join(FIX, "gang-missing.json"), folder)
        with open(os.path.join(folder, "notes.json"), "w") as f:
            json.dump({"note": "not a result"}, f)
        out = os.path.join(self.tmp, "r.html")
        r = report([folder], out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("notes.json: skipped", r.stderr)
        html = read(out)
        self.assertIn('id="gang"', html)
        self.assertIn('id="run-0"', html)

    def test_an_empty_or_broken_file_in_a_folder_is_skipped(self):
        """`verify > file` that failed leaves an empty file: one warning, not a refused folder (per-node
        layout: runs/<node>/<run>/). Given by name, the same file is still refused."""
        folder = os.path.join(self.tmp, "collected")
        node = os.path.join(folder, "runs", "node-a")
        os.makedirs(node)
        v2_copy("tiny-run", node)
        shutil.copy(os.path.join(FIX, "gang-missing.json"), folder)
        open(os.path.join(folder, "verify-gpu0.json"), "w").close()
        with open(os.path.join(folder, "cut.json"), "w") as f:
            f.write('{"schema_version": 1, "ro')
        out = os.path.join(self.tmp, "r.html")
        r = report([folder], out)
        self.assertEqual(r.returncode, 0, r.stderr)
        warnings = [l for l in r.stderr.splitlines() if "skipped" in l]
        self.assertEqual(len([l for l in warnings if "verify-gpu0.json" in l]), 1, r.stderr)
        self.assertEqual(len([l for l in warnings if "cut.json" in l]), 1, r.stderr)
        html = read(out)
        self.assertIn('id="gang"', html)
        self.assertIn('id="run-0"', html)
        self.assert_refused(report([os.path.join(folder, "verify-gpu0.json")], out + "2"), "verify-gpu0.json")


class OutputNeverReplacesRecords(unittest.TestCase):
    """-o may not name an input, a file inside an input run directory, or an existing file this report did
    not write: refused in one line (exit 2), the file untouched. Its own earlier report is replaced."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pb-report-out-")
        self.run = v2_copy("tiny-run", self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def assert_refused(self, out, needle, inputs=None):
        before = read(out) if os.path.isfile(out) else None
        r = report(inputs or [self.run], out)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn(needle, r.stderr)
        if before is not None:
            self.assertEqual(read(out), before, f"{out} was changed")

    def test_the_runs_own_files_and_directory(self):
        self.assert_refused(os.path.join(self.run, "run.json"), "inside the run directory")
        self.assert_refused(os.path.join(self.run, "report.html"), "inside the run directory")
        self.assertFalse(os.path.exists(os.path.join(self.run, "report.html")))
        self.assert_refused(self.run, "is one of the inputs")
        gang = os.path.join(self.tmp, "gang.json")
        shutil.copy(os.path.join(FIX, "gang-late.json"), gang)
        self.assert_refused(gang, "is one of the inputs", [gang])
        # A run found inside a folder of results is protected as well.
        self.assert_refused(os.path.join(self.run, "x.html"), "inside the run directory", [self.tmp])

    def test_existing_files_it_did_not_write(self):
        notes = os.path.join(self.tmp, "notes.html")
        with open(notes, "w") as f:
            f.write("<!DOCTYPE html><p>my notes</p>")
        self.assert_refused(notes, "is not a report written by placebench report")
        self.assert_refused(self.tmp, "a directory; give the report a file name")

    def test_its_own_report_is_replaced(self):
        out = os.path.join(self.tmp, "report.html")
        for _ in range(2):
            r = report([self.tmp], out)
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('<meta name="generator" content="placebench report">', read(out))


class Wrapper(unittest.TestCase):
    """`placebench report` runs this script with the project's Python."""

    def setUp(self):
        self.binary = os.environ.get("PLACEBENCH_BINARY", os.path.join(ROOT, "build", "placebench"))
        if not os.access(self.binary, os.X_OK):
            self.skipTest(f"{self.binary} not built")
        self.tmp = tempfile.mkdtemp(prefix="pb-report-wrap-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_placebench_report(self):
        out = os.path.join(self.tmp, "r.html")
        env = dict(os.environ, PLACEBENCH_HOME=ROOT, PLACEBENCH_PYTHON=sys.executable)
        r = subprocess.run([self.binary, "report", v2_copy("tiny-run", self.tmp), "-o", out], capture_output=True,
                           text=True, timeout=240, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("wrote", r.stdout)
        self.assertTrue(os.path.getsize(out) > 10_000)

    def test_never_writes_over_the_runs_own_files(self):
        run = v2_copy("tiny-run", self.tmp)
        before = read(os.path.join(run, "run.json"))
        env = dict(os.environ, PLACEBENCH_HOME=ROOT, PLACEBENCH_PYTHON=sys.executable)
        r = subprocess.run([self.binary, "report", run, "-o", os.path.join(run, "run.json")], capture_output=True,
                           text=True, timeout=240, env=env)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        # The CLI's output rule refuses first (a run's record), before the Python report starts.
        self.assertRegex(r.stderr, "the record of the run|inside the run directory")
        self.assertEqual(read(os.path.join(run, "run.json")), before)

    def test_missing_home_is_a_clear_error(self):
        env = dict(os.environ, PLACEBENCH_HOME=os.path.join(self.tmp, "nowhere"))
        r = subprocess.run([self.binary, "report", os.path.join(FIX, "tiny-run")], capture_output=True, text=True,
                           timeout=60, env=env)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no scripts/report.py there; set it to the placebench checkout", r.stderr)


if __name__ == "__main__":
    unittest.main()
