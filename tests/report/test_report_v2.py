"""What the report shows from summary.json schema 2 (docs/results-schema.md): a schema 1 summary refused
in one line, control and unrealised arms never shown as verified and drawn apart in every figure, the
one-screen summary with every warning, the verdict table with the class statistic over rounds, and a
pipeline step split whose parts add up to the mean step. Inputs: the committed run fixtures at schema 2
(results_v2.py), with the fields under test set explicitly. Run: .venv/bin/python tests/report/test_report_v2.py"""
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_v2 import FIX, ROOT, edit_summary, find, read_json, read_trials, v2_copy, write_json  # noqa: E402
from test_report import read, report  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts"))


def rows_of(html, *cells):
    """The <tr> rows of `html` whose first cells are exactly `cells`."""
    start = "".join(f"<td>{c}</td>" for c in cells)
    return [r for r in re.findall(r"<tr>(.*?)</tr>", html, re.S) if r.startswith(start)]


def section(html, anchor):
    m = re.search(rf'<section id="{anchor}">(.*?)</section>', html, re.S)
    assert m, f"no section {anchor}"
    return m.group(1)


def captured_figures(module):
    """Patches module.to_img to keep each figure (undrawn) in a list; returns (list, restore)."""
    from placebench_report.plotting import plt
    figs, original = [], module.to_img

    def keep(fig, alt):
        figs.append(fig)
        return '<img class="fig" alt="">'

    module.to_img = keep

    def restore():
        module.to_img = original
        for f in figs:
            plt.close(f)
    return figs, restore


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pb-report-v2-")
        self.out = os.path.join(self.tmp, "r.html")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def build(self, *inputs):
        r = report(list(inputs), self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        return read(self.out)


class SchemaVersion(Base):
    def assert_refused(self, run, needles):
        r = report([run], self.out)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        for n in needles:
            self.assertIn(n, lines[0])
        self.assertFalse(os.path.exists(self.out))

    def test_the_schema_2_run_is_read(self):
        run = v2_copy("tiny-run", self.tmp)
        self.assertEqual(read_json(os.path.join(run, "summary.json"))["schema_version"], 2)
        self.assertIn("Class tiny", self.build(run))

    def test_a_schema_1_summary_is_refused_in_one_line(self):
        run = v2_copy("tiny-run", self.tmp)
        edit_summary(run, lambda s: s.update(schema_version=1))
        self.assert_refused(run, [os.path.join(run, "summary.json") + ": schema_version 1 is not one this report "
                                  "reads (2)", f"rebuild it with `placebench compare --write-summary {run}`"])

    def test_a_schema_1_run_is_refused_in_one_line(self):
        run = v2_copy("tiny-run", self.tmp)
        path = os.path.join(run, "run.json")
        write_json(path, dict(read_json(path), schema_version=1))
        self.assert_refused(run, [path + ": schema_version 1 is not one this report reads (2)",
                                  "use the report of the placebench version that wrote it"])


    def test_a_trial_whose_placement_record_contradicts_its_flags_is_refused(self):
        # Issue 26: placement.degenerate true without the trial's "degenerate" flag made the arm an
        # "A/A control" here while placebench compared it; both readers now refuse the line.
        run = v2_copy("tiny-run", self.tmp)
        path = os.path.join(run, "trials.jsonl")
        trials = read_trials(path)
        trials[0]["placement"] = dict(trials[0].get("placement") or {}, degenerate=True)
        trials[0]["flags"] = [f for f in trials[0].get("flags", []) if not f.startswith("degenerate")]
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(t) + "\n" for t in trials))
        self.assert_refused(run, [path + ":1: placement.degenerate: is true, but flags has no \"degenerate\""])

    def test_a_summary_arm_that_contradicts_itself_is_refused(self):
        run = v2_copy("tiny-run", self.tmp)

        def decided_but_continuing(summary):
            arm = next(a for a in summary["classes"][0]["arms"] if a.get("role") == "compared")
            arm.update(verdict="slower", stop_reason="continue")
        edit_summary(run, decided_but_continuing, consistent=False)
        self.assert_refused(run, [os.path.join(run, "summary.json") + ": classes[0].arms[",
                                  '].stop_reason: is "continue" for verdict slower'])


class ArmsThatAreNoComparison(Base):
    """staging-64k/remote ran on the baseline's node in every trial (degenerate): an A/A control."""

    def setUp(self):
        super().setUp()
        self.run = v2_copy("mixed-run", self.tmp)

        def control(s):
            remote = find(s, "staging-64k", "remote")
            remote.update(role="control", verdict="faster")  # a verdict that would be green: never shown so
        edit_summary(self.run, control)

    def test_control_arm_is_labelled_and_never_verified(self):
        html = self.build(self.run)
        [row] = rows_of(html, "staging-64k", "remote", "8")  # the placement verification row
        self.assertIn("A/A control: same placement as baseline", row)
        self.assertNotIn("verified</span>", row)
        self.assertNotIn('class="badge ok"', row)
        # the other arms' placements were verified: the badge is there, so its absence above means something
        self.assertIn('<span class="badge ok">verified</span>', rows_of(html, "staging-64k", "local", "8")[0])
        verdict_rows = [r for r in rows_of(html, "remote") if "badge" in r]
        self.assertEqual(len(verdict_rows), 1, verdict_rows)
        self.assertIn('class="badge control">A/A control: same placement as baseline', verdict_rows[0])
        self.assertNotIn('badge faster', verdict_rows[0])
        self.assertNotIn('badge ok', verdict_rows[0])
        summary = section(html, "summary")
        self.assertIn("<b>remote</b> <span class=\"badge control\">A/A control", summary)
        self.assertNotIn("<b>remote</b> <span class=\"badge faster\"", summary)

    def test_degenerate_trials_are_not_verified_without_a_summary(self):
        os.remove(os.path.join(self.run, "summary.json"))
        path = os.path.join(self.run, "trials.jsonl")
        trials = read_trials(path)
        for t in trials:  # as on a single-node host, whatever host the fixture was made on
            if (t["class"], t["arm"]) == ("staging-64k", "remote"):
                t["placement"]["degenerate"] = True
                t["flags"] = sorted(set(t["flags"]) | {"degenerate"})
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(t) + "\n" for t in trials))
        [row] = rows_of(self.build(self.run), "staging-64k", "remote", "8")
        self.assertIn("same placement as baseline", row)
        self.assertNotIn('class="badge ok"', row)

    def test_unrealised_arm_shows_its_reason(self):
        reason = "placement_partial: 40% of the pages on node 1"

        def unrealised(s):
            a = find(s, "staging-64k", "unpinned")
            a.update(role="unrealised", realised=False, unrealised_reason=reason, verdict="unrealised",
                     ratio_pct=None, ratio_ci_pct=None)
        edit_summary(self.run, unrealised)
        html = self.build(self.run)
        [row] = rows_of(html, "staging-64k", "unpinned", "8")
        self.assertIn(f'class="badge unrealised">unrealised: {reason}', row)
        self.assertNotIn('class="badge ok"', row)
        self.assertIn(f"staging-64k / unpinned: unrealised: {reason}; not a comparison", section(html, "summary"))

    def test_every_figure_draws_them_grey_hatched_and_labelled(self):
        from placebench_report import fig_forest, fig_pipeline, fig_steps, load, roles
        from placebench_report.plotting import NOT_COMPARED_COLOUR, NOT_COMPARED_HATCH
        from matplotlib.colors import to_hex

        run = load.load_run(self.run)
        forest, restore = captured_figures(fig_forest)
        self.addCleanup(restore)
        fig_forest.forest_figure([run])
        labels = [t.get_text() for t in forest[0].axes[0].get_yticklabels()]
        self.assertIn("staging-64k / remote (control) vs local", labels)
        self.assertIn("staging-64k / unpinned vs local", labels)
        hatched = [c for c in forest[0].axes[0].collections if c.get_hatch() == NOT_COMPARED_HATCH]
        self.assertEqual(len(hatched), 1)

        steps, restore = captured_figures(fig_steps)
        self.addCleanup(restore)
        fig_steps.distribution_figure(run.trials, "staging-64k", ["local", "unpinned", "remote"], "median",
                                      roles.of_class(run, "staging-64k"))
        ax_cdf, ax_box = steps[0].axes
        lines = {ln.get_label(): ln for ln in ax_cdf.get_lines()}
        self.assertEqual(to_hex(lines["remote (control) (n=128)"].get_color()), NOT_COMPARED_COLOUR)
        self.assertNotEqual(to_hex(lines["unpinned (n=128)"].get_color()), NOT_COMPARED_COLOUR)
        self.assertEqual([t.get_text() for t in ax_box.get_yticklabels()], ["local", "unpinned", "remote (control)"])
        self.assertEqual([p.get_hatch() for p in ax_box.patches], [None, None, NOT_COMPARED_HATCH])

        split, restore = captured_figures(fig_pipeline)
        self.addCleanup(restore)
        rows = fig_pipeline.split_from_trials(run.trials, "pipeline-small", ["local", "unpinned"],
                                              {"unpinned": "control"})
        fig_pipeline.pipeline_figure(rows, "pipeline-small")
        ax_split = split[0].axes[0]
        labels = [t.get_text() for t in ax_split.get_yticklabels()]
        self.assertTrue(labels[1].startswith("unpinned (control)"), labels)
        self.assertNotIn("(control)", labels[0])
        by_row = {}
        for p in ax_split.patches:
            by_row.setdefault(round(p.get_y() + p.get_height() / 2), set()).add(p.get_hatch())
        self.assertEqual(by_row, {0: {None}, 1: {NOT_COMPARED_HATCH}})


class OneScreenSummary(Base):
    WARNING = "rounds 3 to 5 ran while another job held node 0"

    def setUp(self):
        super().setUp()
        self.run = v2_copy("mixed-run", self.tmp)

        def edit(s):
            staging = find(s, "staging-64k")
            staging.update(stop_reason="decided", stop_words="decided at look 1 of 1 (8 rounds)",
                           warnings=[self.WARNING], noise_floor_pct=3.25)
            find(s, "staging-64k", "remote").update(role="control", verdict="control", flagged_trials=8)
            find(s, "staging-64k", "unpinned").update(statistic_value=6847.0, statistic_ci=[6775.0, 7308.0],
                                                      statistic_ci_confidence=0.95, detectable_pct=18.0,
                                                      holm_adjusted_p=0.391, stop_reason="max_rounds", n_rounds=8,
                                                      statistic_rounds=8, detectable_below_pct=-15.3,
                                                      verdict="inconclusive", ratio_pct=7.876,
                                                      ratio_ci_pct=[-8.42, 15.6], dependence_flagged=False)
            pipeline = find(s, "pipeline-small")
            pipeline.update(stop_reason="max_rounds", stop_words="max rounds spent (8), undecided", warnings=[])
            find(s, "pipeline-small", "unpinned").update(dependence_flagged=True, lag1=0.62, ci_inflation=1.7,
                                                         verdict="faster", role="compared")
        edit_summary(self.run, edit)
        decide = read_json(os.path.join(FIX, "decide-basic.json"))
        decide["classes"][0]["name"] = "pipeline-small"  # strict
        self.decide = os.path.join(self.tmp, "decide.json")
        write_json(self.decide, decide)

    def warnings(self, summary):
        return re.findall(r"<li>(.*?)</li>", summary)

    def test_summary_comes_first_with_verdicts_stop_and_recommendation(self):
        html = self.build(self.run, self.decide)
        self.assertLess(html.index('<section id="summary">'), html.index('<section id="run-0">'))
        summary = section(html, "summary")
        [pipeline] = rows_of(summary, "pipeline-small (vs local)", "max rounds spent (8), undecided")
        self.assertIn('<span class="badge faster">faster</span>', pipeline)
        self.assertIn('<span class="badge ok">strict</span> (decide.json)', pipeline)
        [staging] = rows_of(summary, "staging-64k (vs local)", "decided at look 1 of 1 (8 rounds)")
        self.assertIn('<b>unpinned</b> <span class="badge inconclusive">inconclusive</span> +7.88%', staging)
        self.assertTrue(staging.endswith("<td>-</td>"), staging)  # decide has no staging-64k

    def test_summary_lists_every_warning(self):
        warnings = self.warnings(section(self.build(self.run), "summary"))
        for w in (f"staging-64k: {self.WARNING}",
                  "pipeline-small: stopped at max rounds, not by the plan: max rounds spent (8), undecided",
                  "pipeline-small / unpinned: its rounds look dependent (lag-1 autocorrelation 0.62); its CI is "
                  "widened x1.7",
                  "staging-64k / remote: 8 flagged trials (kept in every statistic; see Placement verification)",
                  "staging-64k / remote: A/A control: same placement as baseline; not a comparison",
                  "staging-64k: identical placements differ by up to 3.25% here (A/A control)"):
            self.assertIn(w, warnings)
        self.assertFalse([w for w in warnings if w.startswith("staging-64k: stopped at max rounds")], warnings)
        self.assertFalse([w for w in warnings if "staging-64k / unpinned: its rounds look dependent" in w])
        self.assertNotIn("recommendation", section(self.build(self.run), "summary"))  # no decide input

    def test_verdict_table_shows_the_class_statistic_over_rounds(self):
        html = self.build(self.run)
        block = html[html.index('>Class staging-64k</h3>'):html.index('>Class pipeline-small</h3>')]
        for header in ("<th>median (us)</th>", "<th>CI over rounds (us)</th>", "<th>detectable effect (90% power, each side)</th>",
                       "<th>Holm-adjusted p</th>", "within-run median, pooled steps (us)"):
            self.assertIn(header, block)
        [row] = [r for r in rows_of(block, "unpinned", "8") if "badge" in r]
        cells = re.findall(r"<td>(.*?)</td>", row)
        self.assertEqual(cells[2:4], ["6.847", "[6.775, 7.308] (95%)"])
        self.assertEqual(cells[1], "8")  # rounds behind the value
        self.assertEqual(cells[4], "8")  # rounds behind the ratio and verdict
        self.assertEqual(cells[9:12], ["max rounds spent", "-15.3% / +18%", "0.391"])  # one-sided detectable effects
        self.assertIn("Identical placements differ by up to 3.25% here (A/A control).", block)
        self.assertIn(f"warning: {self.WARNING}", block)
        self.assertIn("Stop: decided at look 1 of 1 (8 rounds).", block)
        pipeline = html[html.index('>Class pipeline-small</h3>'):]
        self.assertIn("<th>throughput (steps/s)</th>", pipeline)
        self.assertIn("max rounds spent", pipeline)
        self.assertIn('class="badge warn">dependent: lag-1 0.62, CI x1.7', pipeline)


class StepSplitAddsUp(Base):
    """The split's parts are means, which add up to the mean step; the rest is an explicit "other"."""

    def test_pipeline_files_split_by_means(self):
        from placebench_report import fig_pipeline, load
        inputs = load.load_inputs([os.path.join(FIX, "pipeline-local.json"), os.path.join(FIX, "pipeline-unpinned.json")])
        rows = fig_pipeline.split_from_docs(inputs.pipeline)
        self.assertEqual(len(rows), 2)
        for row, doc in zip(rows, inputs.pipeline):
            mean_step = float(np.mean([s["step_ns"] for s in doc.data["steps"]]))
            self.assertEqual(row.basis, "mean")
            self.assertAlmostEqual(row.step_ns, mean_step, delta=1e-6 * mean_step)
            self.assertAlmostEqual(sum(row.parts.values()), mean_step, delta=1e-6 * mean_step)
            for part in ("wait", "copy", "compute"):
                self.assertGreater(row.parts[part], 0, part)
            self.assertAlmostEqual(row.parts["wait"], float(np.mean([s["wait_ns"] for s in doc.data["steps"]])))

    def test_time_outside_the_parts_is_drawn_as_other(self):
        from placebench_report import fig_pipeline, load
        doc = read_json(os.path.join(FIX, "pipeline-local.json"))
        for i, s in enumerate(doc["steps"]):
            s["step_ns"] = s["wait_ns"] + s["h2d_ns"] + s["compute_ns"] + 1000 + 100 * i
        path = os.path.join(self.tmp, "pipeline-other.json")
        write_json(path, doc)
        [row] = fig_pipeline.split_from_docs(load.load_inputs([path]).pipeline)
        mean_step = float(np.mean([s["step_ns"] for s in doc["steps"]]))
        self.assertAlmostEqual(row.parts["other"], 1000 + 100 * (len(doc["steps"]) - 1) / 2, places=6)
        self.assertAlmostEqual(sum(row.parts.values()), mean_step, delta=1e-6 * mean_step)
        figs, restore = captured_figures(fig_pipeline)
        self.addCleanup(restore)
        fig_pipeline.pipeline_figure([row], "files")
        ax = figs[0].axes[0]
        self.assertIn("mean per step", ax.get_title())
        drawn = sum(p.get_width() for p in ax.patches)  # in the axis unit: ms here
        self.assertAlmostEqual(drawn * 1e6, mean_step, delta=1e-6 * mean_step)
        self.assertIn("other", [t.get_text() for t in ax.get_legend().get_texts()])
        html = self.build(path)
        self.assertIn("Mean per step: the means of the parts add up to the mean step time", html)
        self.assertIn("&quot;other&quot; is the time of the step outside data wait, copy and compute", html)

    def test_run_trials_with_the_parts_means(self):
        """Trial summaries with wait_ns_mean, h2d_ns_mean and compute_ns_mean are split by means."""
        from placebench_report import fig_pipeline
        run = v2_copy("mixed-run", self.tmp)
        trials = read_trials(os.path.join(run, "trials.jsonl"))
        for t in trials:
            if t["workload"] == "pipeline":
                mean = float(np.mean(t["step_ns"]))
                t["summary"].update(wait_ns_mean=0.1 * mean, h2d_ns_mean=0.2 * mean, compute_ns_mean=0.6 * mean)
        with open(os.path.join(run, "trials.jsonl"), "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(t) + "\n" for t in trials))
        rows = fig_pipeline.split_from_trials(trials, "pipeline-small", ["local", "unpinned"])
        self.assertEqual([r.arm for r in rows], ["local", "unpinned"])
        for r in rows:
            pooled = [x for t in trials if t["class"] == "pipeline-small" and t["arm"] == r.arm for x in t["step_ns"]]
            mean_step = float(np.mean(pooled))
            self.assertEqual(r.basis, "mean")
            self.assertAlmostEqual(r.step_ns, mean_step, delta=1e-9 * mean_step)
            self.assertAlmostEqual(sum(r.parts.values()), mean_step, delta=1e-6 * mean_step)
            self.assertAlmostEqual(r.parts["other"], 0.1 * mean_step, delta=1e-6 * mean_step)
        html = self.build(run)
        self.assertIn("Mean per step: the means of the parts add up to the mean step time", html)
        self.assertNotIn("Rows marked (medians)", html)


if __name__ == "__main__":
    unittest.main()
