"""A class's verdict table from summary.json (schema_version 2, docs/results-schema.md): per arm the class
statistic over rounds with its CI over rounds, the paired ratio against the baseline with its CI, the
verdict, why the sequential plan stopped, the effect it could detect, the Holm-adjusted p and the
dependence between rounds. The pooled-step median is only in a fold-out, labelled within-run: it pools
steps of every round and says nothing about round-to-round spread, which is what decides."""
from .htmlkit import Markup, badge, ci_pct, esc, note, num, pct, table
from .plotting import time_unit
from .roles import Role, role_badge

# Each arm's stop_reason in words (docs/statistics.md, the sequential plan).
ARM_STOP_WORDS = {"decided": "decided", "max_rounds": "max rounds spent", "continue": "running",
                  "before_first_look": "before first look", "": "-"}


def stop_words(reason: str | None) -> str:
    if reason is None:
        return "-"
    return ARM_STOP_WORDS.get(reason, str(reason))


def statistic_scale(cls: dict) -> tuple[str, float]:
    """(unit shown, divisor) for the class's statistic_value and statistic_ci: times in ns are shown in a
    readable time unit, a throughput in steps/s as it is."""
    unit = cls.get("statistic_unit")
    if unit != "ns":
        return (str(unit) if unit is not None else "?"), 1.0
    values = []
    for a in cls.get("arms", []):
        values.append(a.get("statistic_value"))
        values += list(a.get("statistic_ci") or [])
    return time_unit(values)


def scaled(value: float | None, div: float) -> str:
    return "-" if value is None else num(value / div, 4)


def ci_over_rounds(arm: dict, div: float) -> str:
    ci = arm.get("statistic_ci")
    if not ci or ci[0] is None or ci[1] is None:
        return "-"
    level = arm.get("statistic_ci_confidence")
    return f"[{scaled(ci[0], div)}, {scaled(ci[1], div)}]" + (f" ({num(level * 100, 4)}%)" if level is not None else "")


def dependence(arm: dict) -> str | Markup:
    lag1 = arm.get("lag1")
    if arm.get("dependence_flagged"):
        return badge(f"dependent: lag-1 {num(lag1, 2)}, CI x{num(arm.get('ci_inflation'), 3)}", "warn")
    return "-" if lag1 is None else f"lag-1 {num(lag1, 2)}"


def verdict_cell(arm: dict, role: Role) -> Markup:
    if not role.compared:
        if arm.get("aa_check") == "failed":
            return ("html", role_badge(role)[1] + badge("failed A/A check: differs from the baseline", "warn")[1])
        return role_badge(role)
    verdict = arm.get("verdict", "?")
    return badge(verdict, verdict if verdict in ("faster", "slower", "equivalent", "inconclusive", "baseline") else "warn")


def value_rounds(arm: dict) -> object:
    """The rounds behind the value (statistic_rounds); summaries before it was kept: unknown."""
    if arm.get("statistic_value") is None:
        return 0
    return arm.get("statistic_rounds") or "?"


def detectable_text(arm: dict, role: Role) -> str:
    """One-sided detectable effects: each side its own (they differ in percent); none for a non-comparison."""
    above, below = arm.get("detectable_pct"), arm.get("detectable_below_pct")
    if not role.compared or above is None:
        return "-"
    if below is None:  # a summary from before the two sides were kept
        return f"+{num(above, 3)}%"
    return f"{num(below, 3)}% / +{num(above, 3)}%"


def verdict_table(cls: dict, arm_roles: dict[object, Role]) -> str:
    """arm_roles: {arm: Role} (roles.of_run for this class)."""
    unit, div = statistic_scale(cls)
    statistic = cls.get("statistic") or "statistic"
    rows = []
    for a in cls.get("arms", []):
        role = arm_roles.get(a.get("arm")) or Role(a.get("role") or "compared")
        rows.append([a.get("arm"), value_rounds(a), scaled(a.get("statistic_value"), div), ci_over_rounds(a, div),
                     "-" if a.get("ratio_pct") is None else a.get("n_rounds"),
                     pct(a.get("ratio_pct")), ci_pct(a.get("ratio_ci_pct")), num(a.get("confidence"), 4),
                     verdict_cell(a, role), "-" if not role.compared else stop_words(a.get("stop_reason")),
                     detectable_text(a, role), num(a.get("holm_adjusted_p"), 3),
                     dependence(a), a.get("flagged_trials", 0)])
    methods = sorted({str(a["statistic_ci_method"]) for a in cls.get("arms", []) if a.get("statistic_ci_method")})
    return (table(["arm", "rounds", f"{statistic} ({unit})", f"CI over rounds ({unit})", "ratio rounds", "ratio",
                   "ratio CI", "ratio CI level", "verdict", "stop",
                   "detectable effect (90% power, each side)", "Holm-adjusted p", "rounds' dependence",
                   "flagged trials"], rows)
            + note(f"{statistic} of each trial, over the {cls.get('rounds_done', '?')} rounds"
                   + (f"; CI over rounds: {', '.join(methods)}" if methods else "") + ".")
            + within_run_table(cls))


def within_run_table(cls: dict) -> str:
    """The pooled-step statistics, folded away: within-run figures, not what the verdict is judged on."""
    arms = cls.get("arms", [])
    unit, div = time_unit([a.get("median") for a in arms])
    rows = []
    for a in arms:
        ci = a.get("within_run_median_ci") or [None, None]
        rows.append([a.get("arm"), scaled(a.get("median"), div), f"[{scaled(ci[0], div)}, {scaled(ci[1], div)}]",
                     scaled(a.get("p90"), div), scaled(a.get("p99"), div), scaled(a.get("mean"), div)])
    return ("<details><summary>Within-run (pooled steps) statistics</summary>"
            + table(["arm", f"within-run median, pooled steps ({unit})", f"within-run median CI ({unit})",
                     f"p90 ({unit})", f"p99 ({unit})", f"mean ({unit})"], rows)
            + note("Every step of every round pooled: the spread within a run, not between rounds; "
                   "verdicts use the class statistic over rounds above.") + "</details>")


def class_heading_note(cls: dict, workload: str) -> str:
    looks = cls.get("looks") or []
    plan = (f"looks at rounds {', '.join(str(n) for n in looks)} (each look's CI at {num(cls.get('look_confidence'), 4)}, "
            f"boundary z {num(cls.get('boundary_z'), 4)}; {cls.get('comparisons', '?')} comparisons at family "
            f"confidence {num(cls.get('family_confidence'), 4)})") if looks else "no looks planned"
    return note(f"workload {workload}, baseline {cls.get('baseline')}, statistic {cls.get('statistic')} per trial "
                f"({cls.get('statistic_unit', '?')}), margin ±{num(cls.get('margin_pct'))}%, "
                f"{cls.get('rounds_done')} complete rounds; {plan}; Holm-adjusted p {num(cls.get('holm_adjusted_p'), 3)}. "
                f"Stop: {cls.get('stop_words') or stop_words(cls.get('stop_reason'))}.")


def noise_floor_note(cls: dict) -> str:
    floor = cls.get("noise_floor_pct")
    if floor is None:
        return ""
    return note(f"Identical placements differ by up to {num(floor, 3)}% here (A/A control).")


def class_warnings(cls: dict) -> str:
    return "".join(f'<p class="note warn">warning: {esc(w)}</p>' for w in cls.get("warnings") or [])
