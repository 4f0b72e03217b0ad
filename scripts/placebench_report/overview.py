"""The one-screen summary at the top of the report: per class of every run, how the sequential plan
stopped, each compared arm's verdict and ratio, the `placebench decide` recommendation when a decide result
for the class is among the inputs, and below it every warning the summaries carry: the class's own
warnings, flagged trials, rounds that look dependent, a stop at max rounds, control and unrealised arms."""
import os

from . import fig_interference, first_screen, interference, roles
from .fig_decisions import recommendation_badge
from .htmlkit import Markup, ci_pct, esc, note, num, pct, table
from .load import Doc, Inputs
from .verdicts import stop_words, verdict_cell


def recommendation_for(decide_docs: list[Doc], run_name: str, class_name: object) -> tuple[Doc, dict] | None:
    """(decide doc, its class) for this class, or None; a decide result read from a run of the same name as
    this one wins over one from another run."""
    found = [(doc, c) for doc in decide_docs for c in doc.data.get("classes", []) if c.get("name") == class_name]
    own = [(doc, c) for doc, c in found
           if os.path.basename(os.path.normpath(str(doc.data.get("source", "")))) == run_name]
    return (own or found or [None])[0]


def arms_cell(cls: dict, arm_roles: dict[object, roles.Role]) -> Markup:
    lines = []
    for a in cls.get("arms", []):
        role = arm_roles.get(a.get("arm"))
        if a.get("arm") == cls.get("baseline") or (role and role.name == "baseline"):
            continue
        badge_html = verdict_cell(a, role or roles.Role("compared"))[1]
        ratio = "" if a.get("ratio_pct") is None else f" {esc(pct(a['ratio_pct']))} {esc(ci_pct(a.get('ratio_ci_pct')))}"
        lines.append(f"<b>{esc(a.get('arm'))}</b> {badge_html}{ratio}")
    lines += [m for _, m in fig_interference.arms_lines(cls)]
    return ("html", "<br>".join(lines) or "no compared arm")


def class_warnings(cls: dict, arm_roles: dict[object, roles.Role]) -> list[str]:
    """Every warning of one class, as plain sentences (escaped when shown)."""
    name = cls.get("name")
    out = [f"{name}: {w}" for w in cls.get("warnings") or []]
    reason = cls.get("stop_reason")
    words = cls.get("stop_words") or stop_words(reason)
    if reason == "max_rounds":
        out.append(f"{name}: stopped at max rounds, not by the plan: {words}")
    elif reason in ("continue", "before_first_look"):
        out.append(f"{name}: not decided yet ({words}); the verdicts are provisional")
    own = cls.get("warnings") or []

    def said(arm: object, *words: str) -> bool:
        """placebench's own list already says this of the arm (so it is not said twice)."""
        return any(str(w).startswith(f"{arm} ") or str(w).startswith(f"{arm}:") for w in own
                   if any(word in str(w) for word in words))

    if cls.get("noise_floor_pct") is not None and not any("identical placements differ" in str(w) for w in own):
        out.append(f"{name}: identical placements differ by up to {num(cls['noise_floor_pct'], 3)}% here (A/A control)")
    for a in cls.get("arms", []):
        where = f"{name} / {a.get('arm')}"
        role = arm_roles.get(a.get("arm"))
        if role and not role.compared and not said(a.get("arm"), "degenerate", "unrealised"):
            out.append(f"{where}: {roles.role_words(role)}; not a comparison")
        if a.get("flagged_trials") and not said(a.get("arm"), "flagged trial"):
            out.append(f"{where}: {a['flagged_trials']} flagged trials (kept in every statistic; see Placement "
                       "verification)")
        if a.get("dependence_flagged") and not said(a.get("arm"), "dependent"):
            out.append(f"{where}: its rounds look dependent (lag-1 autocorrelation {num(a.get('lag1'), 2)}); "
                       f"its CI is widened x{num(a.get('ci_inflation'), 3)}")
    return out


def summary_section(inputs: Inputs, first: list[str] | None = None) -> str:
    """`first`: sentences said before the classes' (the History sentence)."""
    several = len(inputs.runs) > 1
    rows, warnings, sentences = [], [], list(first or [])
    for run in inputs.runs:
        prefix = f"{run.name}: " if several else ""
        if run.summary is None:
            warnings.append(f"{run.name}: no summary.json, so no verdicts (write it with "
                            f"`placebench compare --write-summary {run.path}`)")
            continue
        if run.summary.get("complete") is False:
            warnings.append(f"{run.name}: interrupted (complete: false): the verdicts cover the trials so far")
        all_roles = roles.of_run(run)
        for cls in run.classes():
            arm_roles = {arm: r for (c, arm), r in all_roles.items() if c == cls.get("name")}
            row = [f"{prefix}{cls.get('name')} (vs {cls.get('baseline')})",
                   cls.get("stop_words") or stop_words(cls.get("stop_reason")), arms_cell(cls, arm_roles)]
            rec = recommendation_for(inputs.decide, run.name, cls.get("name")) if inputs.decide else None
            name = f"{prefix}{cls.get('name')}"
            sentences.append(first_screen.from_decide(name, rec[1]) if rec
                             else first_screen.from_summary(name, cls, arm_roles))
            if interference.has_conditions(cls):
                sentences.append(interference.sentence(name, cls, run.trials, rec[1] if rec else None))
            if inputs.decide:
                row.append(("html", recommendation_badge(rec[1])[1] + " " + esc(f"({rec[0].name})")) if rec else "-")
            rows.append(row)
            warnings += [prefix + w for w in class_warnings(cls, arm_roles) + interference.warnings(cls, run.trials)]
    headers = ["class", "stop", "arms against the baseline: verdict, ratio [CI]"]
    if inputs.decide:
        headers.append("recommendation (placebench decide)")
    parts = [first_screen.sentences_html(sentences)] if sentences else []
    parts.append(table(headers, rows, "summary") if rows else note("No run with a summary.json among the inputs."))
    if warnings:
        parts.append(first_screen.warnings_html(warnings))
    else:
        parts.append(note("No warnings."))
    return "".join(parts)
