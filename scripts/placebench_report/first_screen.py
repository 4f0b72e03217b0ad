"""The report's first screen (issue 30): one sentence per workload class saying the policy and why, or why
there is none and exactly what would settle it (more rounds, a node with two NUMA nodes, a decision block
for `placebench decide`), and for a class run under interference conditions the sentence of interference.py
(does local still win under load, would the policy change, which condition drove decide's policy); and the
warnings grouped by kind with counts, the details one click away.
Data in, strings out: overview.py places them on the page."""
import re

from . import roles
from .htmlkit import esc, pct

POLICIES = ("strict", "prefer", "any")
VERDICT_WORDS = {"faster": "faster than", "slower": "slower than", "equivalent": "equivalent to"}


def _arms_apart(cls: dict, arm_roles: dict[object, roles.Role]) -> tuple[list[dict], list[dict]]:
    """(compared arms, arms that could not be placed apart from the baseline: A/A controls by degeneracy and
    unrealised arms)."""
    compared, not_apart = [], []
    for a in cls.get("arms", []):
        role = arm_roles.get(a.get("arm"))
        if a.get("arm") == cls.get("baseline") or (role and role.name == "baseline"):
            continue
        if a.get("realised") is False or (role and role.name == "unrealised"):
            not_apart.append(a)
        elif role is None or role.compared:
            compared.append(a)
    return compared, not_apart


def from_decide(name: object, rec: dict) -> str:
    """The sentence from a `placebench decide` class (docs/decisions.md)."""
    what = rec.get("recommendation")
    if what in POLICIES:
        return f"{name}: use {what}. {rec.get('rationale') or ''}".rstrip()
    if what == "inconclusive":
        return f"{name}: no policy yet; settle it with {rec.get('settle') or 'more rounds'}."
    return f"{name}: no policy: {rec.get('reason') or rec.get('rationale') or 'placebench decide gave none'}."


def from_summary(name: object, cls: dict, arm_roles: dict[object, roles.Role]) -> str:
    """The sentence from a run's summary alone (no decide result for the class among the inputs)."""
    compared, not_apart = _arms_apart(cls, arm_roles)
    baseline = cls.get("baseline")
    apart = ""
    if not_apart:
        arms = ", ".join(str(a.get("arm")) for a in not_apart)
        apart = (f"{arms} could not be placed apart from {baseline} on this node; a node with two NUMA nodes "
                 "would measure it")
    if not compared:
        return f"{name}: no policy: {apart or 'no arm is compared with the baseline'}."
    if cls.get("stop_reason") in ("continue", "before_first_look"):
        return f"{name}: no policy yet: the run stopped before its plan decided; let it run to its last look."
    open_arms = [a for a in compared if a.get("verdict") not in VERDICT_WORDS]
    if open_arms:
        detect = [a.get("detectable_pct") for a in open_arms if isinstance(a.get("detectable_pct"), (int, float))]
        seen = f" (this run detects only effects beyond ±{max(detect):.1f}%)" if detect else ""
        arms = ", ".join(str(a.get("arm")) for a in open_arms)
        out = f"{name}: no policy: {arms} against {baseline} is undecided{seen}; settle it with more rounds"
        return out + (f"; {apart}." if apart else ".")
    said = "; ".join(f"{a.get('arm')} is {VERDICT_WORDS[a['verdict']]} {baseline} ({pct(a.get('ratio_pct'))})"
                     for a in compared)
    out = (f"{name}: no policy yet, the measurement is decided: {said}; `placebench decide` turns it into a "
           "policy once the class's config has a decision block")
    return out + (f"; {apart}." if apart else ".")


# (kind, pattern): the first pattern a warning matches names its group; the order matters (a degenerate
# arm's warning also names the noise floor).
WARNING_KINDS = (
    ("interference conditions (starved hogs, a hog node that is the device's)",
     re.compile(r"hog starved|the hog's 'other' node")),
    ("arms not placed apart (A/A controls, unrealised)", re.compile(r"degenerate|unrealised|A/A control; not|not a comparison")),
    ("undecided at max rounds", re.compile(r"max rounds")),
    ("flagged trials", re.compile(r"flagged trial")),
    ("rounds that look dependent", re.compile(r"dependent")),
    ("noise floor", re.compile(r"identical placements differ")),
    ("not finished", re.compile(r"not decided yet|interrupted")),
    ("missing summaries", re.compile(r"no summary\.json")),
)


def warning_kind(warning: str) -> str:
    for kind, pattern in WARNING_KINDS:
        if pattern.search(warning):
            return kind
    return "other"


def grouped_warnings(warnings: list[str]) -> list[tuple[str, list[str]]]:
    """[(kind, warnings of that kind)] in the order of WARNING_KINDS, "other" last; empty groups left out."""
    groups: dict[str, list[str]] = {}
    for w in warnings:
        groups.setdefault(warning_kind(w), []).append(w)
    order = [k for k, _ in WARNING_KINDS] + ["other"]
    return [(k, groups[k]) for k in order if k in groups]


def warnings_html(warnings: list[str]) -> str:
    """A count line, then one <details> per kind: the kind and its count shown, the warnings one click away."""
    groups = grouped_warnings(warnings)
    counts = ", ".join(f"{len(ws)} {k}" for k, ws in groups)
    out = [f'<div class="warnings"><p class="note">{len(warnings)} warning(s): {esc(counts)}</p>']
    for kind, ws in groups:
        out.append(f"<details><summary>{esc(kind)} ({len(ws)})</summary><ul>"
                   + "".join(f"<li>{esc(w)}</li>" for w in ws) + "</ul></details>")
    out.append("</div>")
    return "".join(out)


def sentences_html(sentences: list[str]) -> str:
    return '<ul class="first-screen">' + "".join(f"<li>{esc(s)}</li>" for s in sentences) + "</ul>"
