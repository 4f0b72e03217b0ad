"""The Interference section (issue 32; scripts/placebench_report/interference.py, fig_interference.py) on
tests/fixtures/results/interference-run, a run with a quiet and loaded conditions written by `placebench run`
(tests/fixtures/results/interference.yaml) with `placebench decide --json` beside it: the section and its
figures, the sentence computed from the data (and changed by changed data), starved hogs counted and never
drawn as a dose, slopes read in words that agree with their signs, the forest and summary table naming the
conditions, and damaged interference records refused in one line (exit 2).
Run: .venv/bin/python tests/report/test_report_interference.py (PLACEBENCH_BINARY: the built placebench)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_v2 import FIX, ROOT, read_json, read_trials, write_json  # noqa: E402
from test_report_written_fields import missing_keys  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from placebench_report import (  # noqa: E402
    fig_forest,
    fig_interference,
    first_screen,
    interference,
    load,
    overview,
    validate,
)
from placebench_report.page import build_page  # noqa: E402

RUN = os.path.join(FIX, "interference-run")
REPORT = os.path.join(ROOT, "scripts", "report.py")
BINARY = os.environ.get("PLACEBENCH_BINARY", os.path.join(ROOT, "build", "placebench"))


def fixture():
    """(summary's class, trials, decide's class) of the fixture, as the report reads them."""
    run = load.load_run(RUN)
    decide = read_json(os.path.join(RUN, "decide.json"))["classes"][0]
    return run.classes()[0], run.trials, decide


def set_verdicts(cls, verdicts):
    """Each entry's compared arm gets the verdict of its condition (verdicts: {condition: verdict}), with a
    ratio and CI of the sign that verdict has (time statistic: slower is positive)."""
    sign = {"slower": 1, "faster": -1, "equivalent": 0}
    for e in interference.entries(cls):
        v = verdicts.get(e["condition"])
        for a in interference.compared_arms(e):
            if v is None:
                continue
            s = sign.get(v, 0)
            a.update(verdict=v, ratio_pct=8.0 * s, ratio_ci_pct=[8.0 * s - 2, 8.0 * s + 2], stop_reason="decided")


class Sentence(unittest.TestCase):
    def setUp(self):
        self.cls, self.trials, self.decide = fixture()

    def test_the_fixture_is_undecided_and_says_why_from_its_own_figures(self):
        s = interference.sentence("c", self.cls, self.trials, self.decide)
        arm = interference.compared_arms(self.cls["conditions"][0])[0]
        self.assertEqual(arm["verdict"], "inconclusive")  # what the run measured; the sentence must follow it
        self.assertIn("does local still win when the device's node is busy? unknown (under membw-device-1", s)
        self.assertIn(f"{arm['ratio_pct']:+.2f}%", s)
        self.assertIn("would the policy change under load? unknown (quiet: unpinned against local is undecided", s)

    def test_starved_hogs_are_counted_from_the_trials(self):
        loaded = [t for t in self.trials if t["condition"] != "quiet"]
        starved = sum(any(p.startswith("hog starved") for p in t["interference"]["problems"]) for t in loaded)
        self.assertGreater(starved, 0, "the fixture was meant to hold starved hogs (a busy 2-core machine)")
        s = interference.sentence("c", self.cls, self.trials)
        self.assertIn(f"; {starved} of {len(loaded)} loaded trials had a starved hog", s)

    def test_one_numa_node_other_is_not_measured_and_decide_names_its_condition(self):
        s = interference.sentence("c", self.cls, self.trials, self.decide)
        self.assertIn("the aggressor on the other node is not measured (one NUMA node", s)
        drove = self.decide["inputs"]["condition"]
        self.assertIn(f"`placebench decide` (under_load: {self.decide['inputs']['under_load']}) took the figures of "
                      f"{drove}, recommendation {self.decide['recommendation']}", s)
        self.assertNotIn("placebench decide", interference.sentence("c", self.cls, self.trials, None))

    def test_local_still_wins_and_the_policy_stays(self):
        set_verdicts(self.cls, dict.fromkeys([e["condition"] for e in interference.entries(self.cls)], "slower"))
        s = interference.sentence("c", self.cls, self.trials)
        self.assertRegex(s, r"busy\? yes \(under membw-device-1 \([\d.]+ GB/s measured\), membw-device-2 \([\d.]+ GB/s "
                            r"measured\), cpu-device-1 \([\d.]+ cores measured\); under cpu-device-1: unpinned is slower "
                            r"than local \(\+8\.00% \[\+6\.00, \+10\.00\]%\)\)")
        self.assertIn("would the policy change under load? no (quiet and under load, local wins)", s)

    def test_local_ties_under_load_while_it_wins_quiet(self):
        verdicts = dict.fromkeys([e["condition"] for e in interference.entries(self.cls)], "equivalent")
        verdicts["quiet"] = "slower"
        set_verdicts(self.cls, verdicts)
        s = interference.sentence("c", self.cls, self.trials)
        self.assertIn("busy? it ties (under membw-device-1", s)
        self.assertIn("unpinned is equivalent to local (+0.00% [-2.00, +2.00]%)", s)
        self.assertIn("would the policy change under load? yes (quiet, local wins; under membw-device-1 it ties", s)

    def test_local_loses_under_load_and_the_policy_would_change(self):
        verdicts = dict.fromkeys([e["condition"] for e in interference.entries(self.cls)], "slower")
        verdicts["membw-device-2"] = "faster"
        set_verdicts(self.cls, verdicts)
        s = interference.sentence("c", self.cls, self.trials)
        self.assertIn("busy? no (under membw-device-2", s)
        self.assertIn("unpinned is faster than local (-8.00% [-10.00, -6.00]%)", s)
        self.assertIn("would the policy change under load? yes (quiet, local wins; under membw-device-2 it loses", s)

    def test_a_condition_whose_hogs_starved_answers_nothing(self):
        set_verdicts(self.cls, dict.fromkeys([e["condition"] for e in interference.entries(self.cls)], "slower"))
        for t in self.trials:
            if t["condition"] != "quiet" and t["interference"]["hog"] in ("membw", "cpu"):
                t["interference"]["problems"] = ["hog starved: 0.10 core(s) for 1 thread(s) over 0.01 s"]
        s = interference.sentence("c", self.cls, self.trials)
        self.assertIn("busy? unknown (membw-device-1: its hog was starved in 8 of 8 trials;", s)
        self.assertIn("would the policy change under load? unknown (no load was measured: membw-device-1: its hog "
                      "was starved in 8 of 8 trials;", s)

    def test_no_device_condition_and_no_compared_arm(self):
        self.cls["conditions"] = [e for e in self.cls["conditions"] if e["hog_node"] != "device"]
        self.assertIn("busy? not measured (no condition loads the device's node)",
                      interference.sentence("c", self.cls, self.trials))
        for e in interference.entries(self.cls):
            for a in e["arms"]:
                if a["role"] == "compared":
                    a["role"] = "control"
        self.assertIn("would the policy change under load? unknown (quiet: no arm is placed apart from local)",
                      interference.sentence("c", self.cls, self.trials))


class Doses(unittest.TestCase):
    def test_a_starved_trial_has_no_dose_and_is_drawn_apart(self):
        cls, trials, _ = fixture()
        starved = [t for t in trials if interference.is_starved(t)]
        self.assertTrue(starved)
        self.assertTrue(all(interference.trial_dose(t) is None for t in starved))
        pts = fig_interference.points(trials, cls, "membw", "device", "median_ns")
        for arm, p in pts.items():
            quiet = sum(t["arm"] == arm and t["condition"] == "quiet" for t in trials)
            zero = sum(d == 0 for d, _ in p["dots"])
            self.assertEqual(zero, quiet, f"{arm}: only quiet trials sit at dose 0")
            series = [t for t in trials if t["arm"] == arm and t["condition"].startswith("membw-device")]
            self.assertEqual(len(p["starved"]), sum(interference.is_starved(t) for t in series))

    def test_slope_words_agree_with_the_sign(self):
        time_cls, tput_cls = {"statistic": "median", "statistic_unit": "ns"}, {"statistic": "throughput"}
        up, down, spans = ({"slope_ci_lo_pct": lo, "slope_ci_hi_pct": hi} for lo, hi in ((0.1, 2), (-2, -0.1), (-1, 1)))
        self.assertEqual(fig_interference.slope_words(up, False), "slower as the dose grows")
        self.assertEqual(fig_interference.slope_words(down, False), "faster as the dose grows")
        self.assertEqual(fig_interference.slope_words(up, fig_interference.higher_is_faster(tput_cls)),
                         "faster as the dose grows")
        self.assertFalse(fig_interference.higher_is_faster(time_cls))
        self.assertIn("no trend shown", fig_interference.slope_words(spans, False))


class Page(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inputs = load.load_inputs([RUN])
        cls.html = build_page(cls.inputs)

    def test_the_section_its_figures_and_slopes(self):
        self.assertIn('<h4 class="interference">Interference</h4>', self.html)
        cls = self.inputs.runs[0].classes()[0]
        alts = re.findall(r'alt="(Dose-response of class [^"]*)"', self.html)
        self.assertEqual(len(alts), len(fig_interference.series_of(cls)), alts)
        self.assertEqual(len(alts), 3)  # membw on the device's node, membw on the other, cpu on the device's
        for d in cls["dose_response"]:
            self.assertIn(f"{d['slope_pct']:+.3g} [{d['slope_ci_lo_pct']:+.3g}, {d['slope_ci_hi_pct']:+.3g}]", self.html)
        self.assertIn("degenerate, one NUMA node", self.html)

    def test_a_run_past_the_drawn_ones_keeps_its_tables_and_sentence(self):
        run = self.inputs.runs[0]
        html = fig_interference.section(run.trials, run.classes()[0], {}, None, draw=False)
        self.assertNotIn("<img", html)
        self.assertIn("does local still win", html)
        self.assertIn("slope of the class statistic", html)

    def test_the_first_screen_and_the_multi_run_views_name_the_conditions(self):
        first = re.search(r'<ul class="first-screen">(.*?)</ul>', self.html).group(1)
        self.assertIn("staging-noisy under interference: does local still win", first)
        self.assertIn("took the figures of membw-other-1", first)
        labels = [r["label"] for r in fig_forest.forest_rows(self.inputs.runs * 2)]
        self.assertIn("interference-run: staging-noisy [membw-device-2] / unpinned vs local", labels)
        self.assertEqual(len(labels), 2 * 5)  # one compared arm under 5 conditions, per run
        summary = overview.summary_section(self.inputs)
        self.assertIn("<i>under membw-device-1</i>: <b>unpinned</b>", summary)


    def test_starved_hogs_and_a_degenerate_hog_node_are_warnings_of_their_own_kind(self):
        run = self.inputs.runs[0]
        ws = interference.warnings(run.classes()[0], run.trials)
        starved = {k: c for k, c in interference.counts(run.trials, "staging-noisy").items() if c.starved}
        for cond, c in starved.items():
            self.assertIn(f"staging-noisy [{cond}]: hog starved in {c.starved} of {c.trials} trials", "\n".join(ws))
        group = dict(first_screen.grouped_warnings(ws))["interference conditions (starved hogs, a hog node that is the device's)"]
        self.assertEqual(len(group), len(starved) + 1, group)  # and membw-other-1's degenerate node
        self.assertIn("interference conditions (starved hogs", overview.summary_section(self.inputs))


class Damaged(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pb-report-interference-")
        self.run = os.path.join(self.tmp, "run")
        shutil.copytree(RUN, self.run)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def refused(self, needle):
        r = subprocess.run([sys.executable, REPORT, self.run, "-o", os.path.join(self.tmp, "r.html")],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn(needle, r.stderr)

    def edit_trial(self, edit):
        path = os.path.join(self.run, "trials.jsonl")
        trials = read_trials(path)
        i = next(i for i, t in enumerate(trials) if t["condition"] != "quiet")
        edit(trials[i])
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(t) + "\n" for t in trials))
        return i + 1

    def edit_json(self, name, edit):
        path = os.path.join(self.run, name)
        obj = read_json(path)
        edit(obj)
        write_json(path, obj)

    def test_a_hog_dose_that_is_not_a_number(self):
        line = self.edit_trial(lambda t: t["interference"].update(gbps="12 GB/s"))
        self.refused(f"trials.jsonl:{line}: interference.gbps: expected a number or null, got \"12 GB/s\"")

    def test_a_record_of_another_condition(self):
        line = self.edit_trial(lambda t: t["interference"].update(condition="quiet"))
        self.refused(f"trials.jsonl:{line}: interference.condition: is 'quiet', but condition is")

    def test_problems_that_are_not_a_list(self):
        self.edit_trial(lambda t: t["interference"].update(problems="hog starved"))
        self.refused("interference.problems: expected a list")

    def test_a_load_ratio_and_a_slope_ci_damaged_in_summary_json(self):
        self.edit_json("summary.json", lambda s: s["classes"][0]["conditions"][0]["arms"][1].update(load_ratio_pct="x"))
        self.refused('summary.json: classes[0].conditions[0].arms[1].load_ratio_pct: expected a number or null, got "x"')
        shutil.copy(os.path.join(RUN, "summary.json"), os.path.join(self.run, "summary.json"))
        self.edit_json("summary.json", lambda s: s["classes"][0]["dose_response"][0].update(slope_ci_lo_pct=1e9))
        self.refused("summary.json: classes[0].dose_response[0].slope_ci_lo_pct: is 1000000000.0, above slope_ci_hi_pct")

    def test_decide_that_names_a_condition_with_a_list(self):
        self.edit_json("decide.json", lambda d: d["classes"][0]["inputs"].update(condition=["quiet"]))
        self.refused("decide.json: classes[0].inputs.condition: expected a string or a number or null, got a list")


class WrittenByPlacebench(unittest.TestCase):
    def test_the_fixture_has_every_key_the_report_checks(self):
        self.assertEqual(missing_keys(read_json(os.path.join(RUN, "summary.json")), validate.SUMMARY_CONDITIONS), [])
        self.assertEqual(missing_keys(read_json(os.path.join(RUN, "decide.json")), validate.DECIDE_UNDER_LOAD), [])
        first = next(t for t in read_trials(os.path.join(RUN, "trials.jsonl")) if t["condition"] != "quiet")
        self.assertEqual(missing_keys(first["interference"], validate.INTERFERENCE), [])

    def test_decide_still_writes_what_the_fixture_holds(self):
        if not os.access(BINARY, os.X_OK):
            self.skipTest(f"no built placebench at {BINARY}")
        r = subprocess.run([BINARY, "decide", RUN, "--json"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        written = json.loads(r.stdout)["classes"][0]["inputs"]
        held = read_json(os.path.join(RUN, "decide.json"))["classes"][0]["inputs"]
        self.assertEqual({k: written.get(k) for k in ("condition", "under_load")},
                         {k: held[k] for k in ("condition", "under_load")})


if __name__ == "__main__":
    unittest.main()
