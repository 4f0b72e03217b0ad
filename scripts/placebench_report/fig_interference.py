"""A class's Interference section (issue 32, docs/interference.md): the answer sentence, a table of its
conditions (the dose as set and as measured, trials whose hog was starved, each arm's verdict against the
baseline and its change against quiet), and per hog series (one hog on one node over its doses, quiet at
dose 0) the dose-response: the class statistic against the hog's MEASURED dose per arm -- each trial a
faint dot, each condition the statistic over rounds with its CI (summary.json) at the median measured dose,
the dose range as a horizontal bar -- beside the slope per arm with its CI over rounds. A trial whose hog
was starved has no dose: it is drawn in a strip of its own, never at 0 GB/s, and counted."""
from statistics import median

from . import interference
from .htmlkit import Markup, badge, ci_pct, esc, note, num, pct, table
from .plotting import arm_colour, arm_label, figure, time_unit, to_img

# The trial's own figure of each class statistic (its `summary`), as placebench computes the class's.
TRIAL_STATISTIC = {"median": "median_ns", "p99": "p99_ns", "throughput": "throughput_steps_s"}
NODE_WORDS = {"device": "the device's node", "other": "the other node"}


def higher_is_faster(cls: dict) -> bool:
    return cls.get("statistic") == "throughput" or cls.get("statistic_unit") == "steps/s"


def series_of(cls: dict) -> list[tuple[object, object]]:
    """(hog, node) of each hog series, in the order of the class's conditions."""
    out = []
    for e in interference.entries(cls)[1:]:
        key = (e.get("hog"), e.get("hog_node"))
        if e.get("hog") in interference.DOSE_UNIT and key not in out:
            out.append(key)
    return out


def in_series(entry: dict, hog: object, node: object) -> bool:
    return entry.get("hog") in (None, "quiet") or (entry.get("hog"), entry.get("hog_node")) == (hog, node)


def slope_words(d: dict, faster_up: bool) -> str:
    """What the slope's CI says, in words that agree with its sign and the statistic's direction."""
    lo, hi = d.get("slope_ci_lo_pct"), d.get("slope_ci_hi_pct")
    if lo is None or hi is None:
        return "unknown (no CI)"
    if lo > 0:
        return "faster as the dose grows" if faster_up else "slower as the dose grows"
    if hi < 0:
        return "slower as the dose grows" if faster_up else "faster as the dose grows"
    return "no trend shown (the CI spans 0)"


def slope_table(cls: dict) -> str:
    faster_up = higher_is_faster(cls)
    rows = []
    for d in cls.get("dose_response") or []:
        ci = f"[{d.get('slope_ci_lo_pct'):+.3g}, {d.get('slope_ci_hi_pct'):+.3g}]"
        rows.append([d.get("arm"), f"{d.get('hog')} on {NODE_WORDS.get(d.get('node'), d.get('node'))}",
                     f"{d.get('slope_pct'):+.3g} {ci} {d.get('unit')}", num(d.get("confidence"), 3), d.get("rounds"),
                     num(d.get("max_dose"), 3), slope_words(d, faster_up)])
    if not rows:
        return note("No dose-response slope: fewer than two distinct measured doses in every round.")
    return table(["arm", "hog", "slope of the class statistic [CI] per unit of measured dose", "CI level",
                  "rounds", "largest dose", "reading"], rows)


def condition_row(e: dict, c: interference.Counts | None, quiet: bool) -> list[object]:
    arms = []
    for a in e.get("arms") or []:
        if a.get("arm") == e.get("baseline") or a.get("role") == "baseline":
            continue
        verdict = a.get("verdict") if a.get("role") in (None, "compared") else a.get("role")
        arms.append(f"{esc(a.get('arm'))} {badge(verdict, verdict)[1]} {esc(pct(a.get('ratio_pct')))} "
                    f"{esc(ci_pct(a.get('ratio_ci_pct')))}")
    loads = []
    for a in e.get("arms") or []:
        if a.get("load_ratio_pct") is not None or a.get("load_verdict") is not None:
            v = a.get("load_verdict") or "inconclusive"
            loads.append(f"{esc(a.get('arm'))} {badge(v, v)[1]} {esc(pct(a.get('load_ratio_pct')))} "
                         f"{esc(ci_pct(a.get('load_ratio_ci_pct')))}")
    starved: object = "-" if c is None or quiet else f"{c.starved} of {c.trials}"
    measured = "-" if quiet else interference.dose_words(e, c)
    node = "-" if quiet else NODE_WORDS.get(e.get("hog_node"), e.get("hog_node"))
    if c is not None and c.degenerate and not quiet:
        node = f"{node}: degenerate, one NUMA node, it loaded the device's node"
    return [e.get("condition"), e.get("hog"), node, e.get("hog_threads"), measured,
            "-" if c is None else c.trials, starved, ("html", "<br>".join(arms) or "no compared arm"),
            ("html", "<br>".join(loads) or "-")]


def conditions_table(cls: dict, by_cond: dict) -> str:
    rows = [condition_row(e, by_cond.get(e.get("condition")), i == 0)
            for i, e in enumerate(interference.entries(cls))]
    return table(["condition", "hog", "on", "threads (set)", "dose (median of trials not starved)", "trials",
                  "hog starved", f"arms against {cls.get('baseline')}: verdict, ratio [CI]",
                  "arm under this load against itself quiet"], rows)


def points(trials: list[dict], cls: dict, hog: object, node: object, key: str) -> dict:
    """{arm: {"dots": [(dose, y)], "starved": [y], "by_cond": {condition: [dose]}}} of one hog series."""
    names = {e.get("condition") for e in interference.entries(cls) if in_series(e, hog, node)}
    out: dict = {}
    for t in trials:
        if t.get("class") != cls.get("name") or t.get("condition") not in names:
            continue
        y = (t.get("summary") or {}).get(key)
        if y is None:
            continue
        p = out.setdefault(t.get("arm"), {"dots": [], "starved": [], "by_cond": {}})
        dose = interference.trial_dose(t)
        if dose is None:
            p["starved"].append(float(y))
            continue
        p["dots"].append((float(dose), float(y)))
        p["by_cond"].setdefault(t.get("condition"), []).append(float(dose))
    return out


def draw_arm(ax: object, cls: dict, hog: object, node: object, arm: object, p: dict, div: float,
             role: str | None) -> None:
    colour = arm_colour(arm, role)
    if p["dots"]:
        ax.scatter([d for d, _ in p["dots"]], [y / div for _, y in p["dots"]], s=9, color=colour, alpha=0.35,
                   linewidths=0)
    line = []
    for e in interference.entries(cls):
        doses = p["by_cond"].get(e.get("condition"))
        a = next((a for a in e.get("arms") or [] if a.get("arm") == arm), None)
        if not in_series(e, hog, node) or not doses or a is None or a.get("statistic_value") is None:
            continue  # no measured dose (every hog starved) or no statistic: nothing to place
        x, y = median(doses), a["statistic_value"] / div
        ci = a.get("statistic_ci")
        yerr = [[y - ci[0] / div], [ci[1] / div - y]] if ci and None not in ci else None
        ax.errorbar([x], [y], xerr=[[x - min(doses)], [max(doses) - x]], yerr=yerr, fmt="o", color=colour,
                    markeredgecolor="black", markeredgewidth=0.4, capsize=3, elinewidth=1.2)
        line.append((x, y))
    line.sort()
    ax.plot([x for x, _ in line], [y for _, y in line], color=colour, linewidth=1.2, label=arm_label(arm, role))


def series_figure(trials: list[dict], cls: dict, hog: object, node: object, roles: dict) -> str | None:
    key = TRIAL_STATISTIC.get(cls.get("statistic"), "median_ns")
    pts = points(trials, cls, hog, node, key)
    if not pts:
        return None
    ys = [y for p in pts.values() for _, y in p["dots"]] + [y for p in pts.values() for y in p["starved"]]
    unit, div = time_unit(ys) if cls.get("statistic_unit", "ns") == "ns" else (str(cls.get("statistic_unit")), 1.0)
    starved = sum(len(p["starved"]) for p in pts.values())
    ratios = [5, 1, 3] if starved else [5, 3]
    fig, axes = figure(10, 3.4, ncols=len(ratios), gridspec_kw={"width_ratios": ratios})
    ax, ax_slope = axes[0], axes[-1]
    arms = list(pts)
    for arm in arms:
        draw_arm(ax, cls, hog, node, arm, pts[arm], div, roles.get(arm))
    dose_unit = interference.DOSE_UNIT.get(hog, "?")
    where = NODE_WORDS.get(node, node)
    ax.set_xlabel(f"hog's measured dose ({dose_unit}; quiet = 0)")
    better = "higher is faster" if higher_is_faster(cls) else "lower is faster"
    ax.set_ylabel(f"{cls.get('statistic')} ({unit}; {better})")
    degenerate = any(c.degenerate for k, c in interference.counts(trials, cls.get("name")).items()
                     if any(e.get("condition") == k and e.get("hog") == hog and e.get("hog_node") == node
                            for e in interference.entries(cls)))
    ax.set_title(f"{cls.get('name')}: {hog} hog on {where}"
                 + (" (degenerate: one NUMA node, it ran on the device's node)" if degenerate else ""), fontsize=9)
    ax.legend(fontsize=7)
    if starved:
        ax_starved = axes[1]
        for i, arm in enumerate(arms):
            ys_arm = [y / div for y in pts[arm]["starved"]]
            ax_starved.scatter([i] * len(ys_arm), ys_arm, marker="x", color=arm_colour(arm, roles.get(arm)))
        ax_starved.set_xticks(range(len(arms)), [str(a) for a in arms], fontsize=7)
        ax_starved.set_xlim(-0.7, len(arms) - 0.3)
        ax_starved.sharey(ax)
        ax_starved.set_title(f"hog starved ({starved}):\nno dose", fontsize=8)
    draw_slopes(ax_slope, cls, hog, node, arms, roles)
    return to_img(fig, f"Dose-response of class {cls.get('name')} to the {hog} hog on {where}, per arm")


def draw_slopes(ax: object, cls: dict, hog: object, node: object, arms: list, roles: dict) -> None:
    rows = [d for d in cls.get("dose_response") or [] if (d.get("hog"), d.get("node")) == (hog, node)]
    for i, d in enumerate(rows):
        colour = arm_colour(d.get("arm"), roles.get(d.get("arm")))
        ax.plot([d.get("slope_ci_lo_pct"), d.get("slope_ci_hi_pct")], [i, i], color=colour, linewidth=2.2)
        ax.plot([d.get("slope_pct")], [i], "o", color=colour, markeredgecolor="black", markeredgewidth=0.4)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)), [str(d.get("arm")) for d in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    unit = rows[0].get("unit") if rows else ""
    ax.set_xlabel(f"slope ({unit}), median over rounds, CI")
    ax.set_title("slope per arm" if rows else "no slope (too few doses)", fontsize=9)
    ax.grid(axis="y", alpha=0)


def section(trials: list[dict], cls: dict, roles: dict, decide_class: dict | None, draw: bool = True) -> str:
    """The Interference block of one class (empty for a class without conditions)."""
    if not interference.has_conditions(cls):
        return ""
    by_cond = interference.counts(trials, cls.get("name"))
    parts = ['<h4 class="interference">Interference</h4>',
             note(interference.sentence(cls.get("name"), cls, trials, decide_class)),
             conditions_table(cls, by_cond)]
    if draw:
        parts += [img for hog, node in series_of(cls)
                  if (img := series_figure(trials, cls, hog, node, roles))]
    parts.append(slope_table(cls))
    parts.append(note("Dose: what the hog achieved over each trial (its `interference` record), not its setting. "
                      "Each condition's point is the class statistic over rounds with its CI (summary.json, every "
                      "trial of the condition) at the median dose of its trials; the horizontal bar spans their "
                      "doses. A trial whose hog was starved (under half a core a thread: it ran under less load "
                      "than its condition names) has no dose: it is counted and drawn apart, never at 0. The slope: "
                      "placebench's, the change of the class statistic per unit of measured dose in % of the "
                      "unloaded value, median of the per-round slopes with its CI over rounds."))
    return "".join(parts)


def arms_lines(cls: dict) -> list[Markup]:
    """For the summary table: each loaded condition's compared arms, one line each."""
    out = []
    for e in interference.entries(cls)[1:]:
        for a in interference.compared_arms(e):
            v = a.get("verdict") or "inconclusive"
            out.append(("html", f"<i>under {esc(e.get('condition'))}</i>: <b>{esc(a.get('arm'))}</b> "
                                f"{badge(v, v)[1]} {esc(pct(a.get('ratio_pct')))} {esc(ci_pct(a.get('ratio_ci_pct')))}"))
    return out
