"""The report's History section (issue 31, "See it") from `placebench history changes --json`
(tests/fixtures/results/history-changes.json, made by make_history_fixture.py: 3 nodes, a driver step on one,
a fleet change on two, a series too short to judge): the first-screen sentence says how many series changed
and on which nodes; each judged series is drawn with its CI band and its change points labelled with the
change and what changed on the node; a series too short to judge is listed, never drawn; the file is found
in folders and counted; a damaged file is refused in one line naming the file and the key, never drawn.
Run: .venv/bin/python tests/report/test_report_history.py"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_report_damage as damage  # noqa: E402
from results_v2 import FIX, ROOT, v2_copy  # noqa: E402
from test_report import read, report  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from placebench_report import fig_history, history, load, validate  # noqa: E402
from test_report_written_fields import BINARY, missing_keys  # noqa: E402

FIXTURE = os.path.join(FIX, "history-changes.json")


def fixture():
    with open(FIXTURE, encoding="utf-8") as f:
        return json.load(f)


def doc(data):
    return load.Doc("h.json", "history", data)


def first_screen(html):
    found = re.search(r'<ul class="first-screen">(.*?)</ul>', html, re.S)
    return re.findall(r"<li>(.*?)</li>", found.group(1)) if found else []


class Page(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="pb-report-history-")
        cls.out = os.path.join(cls.tmp, "report.html")
        cls.result = report([FIXTURE], cls.out)
        cls.html = read(cls.out) if os.path.exists(cls.out) else ""

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_first_screen_says_how_many_series_changed_and_where(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        sentences = first_screen(self.html)
        self.assertEqual(len(sentences), 1, sentences)
        self.assertIn("History: 3 of 4 series judged changed level, on gpu-001 and gpu-002", sentences[0])
        self.assertIn("1 fleet change", sentences[0])
        self.assertIn("1 series not judged (too few runs)", sentences[0])
        self.assertLess(self.html.index('class="first-screen"'), self.html.index('id="history"'))

    def test_each_judged_series_is_drawn_and_the_short_one_is_listed_not_drawn(self):
        alts = re.findall(r'<img class="fig" alt="([^"]*)" src="data:image/png;base64,', self.html)
        self.assertEqual(len(alts), 4, alts)
        self.assertTrue(all("gpu-003" not in a for a in alts), alts)
        self.assertIn("gpu-001 long-training local median: 30 runs, 1 change(s)", alts)
        self.assertIn("not enough runs to judge (4 of 6 needed)", self.html)
        self.assertIn("Series not judged", self.html)

    def test_change_points_carry_the_change_and_the_evidence(self):
        section = self.html[self.html.index('id="history"'):]
        self.assertIn("driver 550.54 -&gt; 560.28", section)
        self.assertIn("+6.7%", section)
        self.assertIn("placebench 0.9.0 -&gt; 0.10.0", section)
        self.assertIn("2026-11-07 02:17 (run 19)", section)
        self.assertIn("12.38 -&gt; 13.22 ms", section)  # levels in the series' unit (ns -> ms)
        self.assertIn("<h3>Fleet changes</h3>", section)

    def test_header_counts_the_file_and_no_longer_lists_history_as_absent(self):
        self.assertIn("from 0 run(s) and 1 result file(s)", self.html)
        absent = re.search(r"Not in these inputs: ([^<]*)", self.html).group(1)
        self.assertNotIn("history", absent)


class Sentence(unittest.TestCase):
    def test_no_change_says_so_without_calling_short_series_stable(self):
        data = fixture()
        for s in data["series"]:
            s["changes"] = []
        data["fleet_changes"] = []
        said = history.sentence([doc(data)])
        self.assertEqual(said, "History: no change of level found in the 4 series judged; 1 series not judged "
                               "(too few runs); details under History.")

    def test_nothing_judged(self):
        data = fixture()
        data["series"] = [s for s in data["series"] if s["status"] == "too-short"]
        data["fleet_changes"] = []
        self.assertEqual(history.sentence([doc(data)]), "History: no series has enough runs to judge yet (1 series); "
                                                        "1 series not judged (too few runs); details under History.")

    def test_no_series_at_all(self):
        said = history.sentence([doc({"kind": load.HISTORY_KIND, "schema_version": 1, "series": [], "fleet_changes": []})])
        self.assertEqual(said, "History: the history file holds no series (no run in the store matched its filters).")

    def test_many_nodes_are_named_up_to_six(self):
        data = fixture()
        base = data["series"][0]
        data["series"] = [dict(copy.deepcopy(base), node=f"gpu-{i:03d}") for i in range(9)]
        self.assertIn("on gpu-000, gpu-001, gpu-002, gpu-003, gpu-004, gpu-005 and 3 more;",
                      history.sentence([doc(data)]))

    def test_no_history_file_no_sentence(self):
        self.assertIsNone(history.sentence([]))


class Details(unittest.TestCase):
    def test_a_change_without_evidence_says_none_was_recorded(self):
        data = fixture()
        data["series"][0]["changes"][0]["attribution"] = None
        self.assertEqual(fig_history.change_label(data["series"][0]["changes"][0]),
                         "+6.7%: no evidence change recorded")
        self.assertIn("no evidence change recorded", history.changes_table([data["series"][0]]))

    def test_min_runs_of_the_series_or_the_file_or_the_default(self):
        data = fixture()
        data["series"][4]["min_runs"] = 8
        self.assertIn("not enough runs to judge (4 of 8 needed)", history.not_judged_table([doc(data)]))
        del data["series"][4]["min_runs"], data["min_runs"]
        self.assertIn("(4 of 6 needed, the detector default)", history.not_judged_table([doc(data)]))

    def test_a_run_without_start_time_and_a_change_without_relative_are_drawn_as_unknown(self):
        data = fixture()
        s = data["series"][0]
        s["points"][18]["start"] = None
        s["changes"][0]["start"] = None
        s["changes"][0]["relative"] = None
        data["fleet_changes"][0]["start"] = None
        self.assertIn("<img", fig_history.series_figure(s, data["fleet_changes"]))
        table = history.changes_table([s])
        self.assertIn("no start time (run 19)", table)
        self.assertIn("change ?", table)
        self.assertIn("<td>?</td>", history.fleet_table([doc(data)]))
        self.assertEqual(fig_history.fleet_positions(data["series"][1], data["fleet_changes"]), [])

    def test_an_unknown_status_is_unknown_and_not_drawn(self):
        data = fixture()
        data["series"][2]["status"] = "stale"  # gpu-002 local, no change
        self.assertIn("not judged (status &#x27;stale&#x27;): unknown", history.not_judged_table([doc(data)]))
        self.assertEqual(history.charts([doc(data)]).count("<img"), 3)

    def test_a_fleet_change_is_placed_before_the_first_run_after_it(self):
        data = fixture()
        fleet = data["fleet_changes"]
        remote = data["series"][1]
        self.assertEqual([x for x, _ in fig_history.fleet_positions(remote, fleet)], [9.5])
        self.assertEqual(fig_history.fleet_positions(data["series"][0], fleet), [])  # another arm

    def test_a_point_without_ci_gets_no_band_there(self):
        data = fixture()
        s = data["series"][2]
        s["points"][5]["ci_low"] = s["points"][5]["ci_high"] = None
        self.assertIn("<img", fig_history.series_figure(s, []))


class Loading(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pb-report-history-load-")
        self.folder = os.path.join(self.tmp, "ci", "nightly")
        os.makedirs(self.folder)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, obj, folder=None):
        path = os.path.join(folder or self.folder, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(obj if isinstance(obj, str) else json.dumps(obj))
        return path

    def test_found_in_a_folder_beside_a_run_and_counted(self):
        run = v2_copy("tiny-run", self.folder)
        shutil.copy(FIXTURE, os.path.join(run, "changes.json"))  # inside the run directory too
        inputs = load.load_inputs([os.path.join(self.tmp, "ci")])
        self.assertEqual(len(inputs.history), 1)
        self.assertEqual(len(inputs.runs), 1)
        out = os.path.join(self.tmp, "r.html")
        r = report([os.path.join(self.tmp, "ci")], out)
        self.assertEqual(r.returncode, 0, r.stderr)
        html = read(out)
        self.assertIn("from 1 run(s) and 1 result file(s)", html)
        sentences = first_screen(html)
        self.assertTrue(sentences[0].startswith("History: 3 of 4 series judged changed level"), sentences)
        self.assertTrue(any(s.startswith("tiny:") for s in sentences[1:]), sentences)

    def test_another_history_kind_is_skipped_in_a_folder_and_refused_by_name(self):
        shutil.copy(FIXTURE, self.folder)
        show = self.write("show.json", {"schema_version": 1, "kind": "history-show", "store": "h.db", "runs": []})
        inputs = load.load_inputs([self.folder])
        self.assertEqual(len(inputs.history), 1)
        self.assertEqual(inputs.warnings, [f"{show}: skipped, kind: 'history-show' is not one this report reads "
                                           "(placebench-history-changes, from placebench history changes --json)"])
        r = report([show], os.path.join(self.tmp, "r.html"))
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("show.json: kind: 'history-show' is not one this report reads", r.stderr)

    def refused(self, data, needle, in_folder=False):
        path = self.write("changes.json", data)
        out = os.path.join(self.tmp, "r.html")
        r = report([self.folder if in_folder else path], out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn(f"{path}: {needle}", r.stderr)
        self.assertFalse(os.path.exists(out), "a page was written from a damaged file")
        return r.stderr

    def test_damaged_files_are_refused_naming_the_file_and_the_key(self):
        cases = []
        d = fixture()
        d["schema_version"] = 2
        cases.append((d, "schema_version 2 is not one this report reads (1)"))
        d = fixture()
        del d["series"][1]["points"]
        cases.append((d, "series[1].points: missing"))
        d = fixture()
        del d["fleet_changes"]
        cases.append((d, "fleet_changes: missing"))
        d = fixture()
        d["series"][0]["points"][3]["value"] = "12.5 ms"
        cases.append((d, 'series[0].points[3].value: expected a number, got "12.5 ms"'))
        d = fixture()
        d["series"][0]["points"][4]["value"] = None
        cases.append((d, "series[0].points[4].value: expected a number, got null"))
        d = fixture()
        d["series"][0]["points"][2]["start"] = "yesterday"
        cases.append((d, 'series[0].points[2].start: expected an ISO 8601 time or null, got "yesterday"'))
        d = fixture()
        d["series"][0]["changes"][0]["index"] = 30
        cases.append((d, "series[0].changes[0].index: is 30, outside the series' 30 points"))
        d = fixture()
        d["series"][0]["changes"][0]["run_key"] = "0000000000000000"
        cases.append((d, "series[0].changes[0].run_key: is '0000000000000000', but points[18] is run"))
        d = fixture()
        d["series"][2]["status"] = "changed"
        cases.append((d, "series[2].status: is 'changed' with 0 changes"))
        d = fixture()
        d["fleet_changes"][0]["nodes"] = "gpu-001"
        cases.append((d, 'fleet_changes[0].nodes: expected a list of node names or a count, got "gpu-001"'))
        d = fixture()
        p = d["series"][3]["points"][7]
        p["ci_low"], p["ci_high"] = p["ci_high"], p["ci_low"]
        cases.append((d, "series[3].points[7].ci_low: is"))
        for data, needle in cases:
            with self.subTest(needle):
                said = self.refused(data, needle)
                self.refused(data, needle, in_folder=True)  # found in a folder: the same line
                if "schema_version" not in needle:
                    self.assertIn("write it again with `placebench history changes DB --json`", said)

    def test_each_nights_file_in_one_folder_shows_each_series_once_the_newest(self):
        older = fixture()
        for series in older["series"]:
            series["points"] = series["points"][:-3]
        older["series"][0].update(changes=[], status="no-change")  # the step at run 19 not found yet: 27 runs
        os.makedirs(os.path.join(self.folder, "night-27"))
        self.write("changes.json", older, os.path.join(self.folder, "night-27"))
        os.makedirs(os.path.join(self.folder, "night-30"))
        shutil.copy(FIXTURE, os.path.join(self.folder, "night-30", "changes.json"))
        inputs = load.load_inputs([self.folder])
        self.assertEqual(len(inputs.history), 2)
        shown, copies = history.merged(inputs.history)
        self.assertEqual(copies, 5)
        self.assertEqual([len(s["points"]) for s in shown], [30, 30, 30, 30, 4])  # night-30's
        self.assertTrue(history.sentence(inputs.history).startswith("History: 3 of 4 series judged changed level"))
        self.assertEqual(len(history.fleet_changes(inputs.history)), 1)
        self.assertIn("5 copies of series found in more than one file left out", history.section(inputs.history))

    def test_not_json_in_a_folder_is_skipped_and_not_counted(self):
        self.write("changes.json", '{"kind": "placebench-history-changes", "schema_version": 1, "series": [')
        v2_copy("tiny-run", self.folder)
        inputs = load.load_inputs([self.folder])
        self.assertEqual(inputs.history, [])
        self.assertEqual(len(inputs.warnings), 1, inputs.warnings)
        self.assertIn("changes.json:1: not valid JSON", inputs.warnings[0])


class WrittenByPlacebench(unittest.TestCase):
    """What the built placebench writes (`history add` of the committed runs, then `history changes --json`)
    has every key the report reads, and the report draws it. Skipped while the binary has no `history
    changes` (issue 31 part 2 adds it)."""

    def placebench(self, *args):
        return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=120, cwd=ROOT)

    def test_history_changes_json_is_read(self):
        if not os.path.exists(BINARY):
            self.skipTest(f"no {BINARY}")
        if not re.search(r"^\s+changes\s", self.placebench("history", "--help").stdout, re.M):
            self.skipTest(f"{BINARY} has no `history changes` yet")
        tmp = tempfile.mkdtemp(prefix="pb-report-history-cli-")
        self.addCleanup(shutil.rmtree, tmp, True)
        db = os.path.join(tmp, "h.db")
        r = self.placebench("history", "add", db, os.path.join(FIX, "tiny-run"), os.path.join(FIX, "mixed-run"))
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.placebench("history", "changes", db, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        written = json.loads(r.stdout)
        self.assertEqual(written.get("kind"), load.HISTORY_KIND)
        self.assertIsNone(validate.problem_in(written, validate.KINDS["history"]))
        self.assertIsNone(validate.history_contradiction(written))
        spec = validate.KINDS["history"]
        optional = {"$.series[].min_runs"}
        self.assertEqual(sorted(set(missing_keys(written, spec)) - optional), [],
                         "keys the report reads that placebench does not write")
        path = os.path.join(tmp, "changes.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(r.stdout)
        r = report([path], os.path.join(tmp, "r.html"))
        self.assertEqual(r.returncode, 0, r.stderr)


class EveryHistoryFieldDamaged(damage.EveryFieldDamaged):
    """test_report_damage's check on this fixture: every field the report reads set to a string, to null and
    to a list gives a page or one line with exit 2, never a traceback."""
    DOCS = ("history-changes.json",)
    test_run_directories = None
    test_cases_that_printed_tracebacks = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        from placebench_report.plotting import plt

        def no_raster(fig, alt):
            plt.close(fig)
            return '<img class="fig" alt="">'

        cls.patched.append((fig_history, fig_history.to_img))
        fig_history.to_img = no_raster


if __name__ == "__main__":
    unittest.main()
