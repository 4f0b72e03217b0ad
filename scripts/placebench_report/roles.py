"""Which arms of a run are comparisons: summary.json's arm `role` (docs/results-schema.md), in one place for
every table and figure. The rule that gives each arm its role lives in placebench (runner/analysis.cpp) and
is read here, never re-derived: "control" (every trial of the arm ran with the baseline's placement: an A/A
control that measures the noise, not a placement) or "unrealised" (its placement failed or was partial).
Only an arm the summary does not hold (a run without summary.json) is told from its trials: a control when
every one of its trials' placements was degenerate. Neither ever gets the green "verified" badge, and every
figure draws them grey and hatched (plotting.NOT_COMPARED).
"""
from collections import defaultdict
from dataclasses import dataclass

from .htmlkit import Markup, badge
from .load import Run
from .plotting import NOT_COMPARED


@dataclass(frozen=True)
class Role:
    name: str                  # baseline, compared, control or unrealised
    reason: str | None = None  # an unrealised arm's unrealised_reason

    @property
    def compared(self) -> bool:
        return self.name not in NOT_COMPARED


def trial_is_degenerate(trial: dict) -> bool:
    """The trial's placement was the baseline's (its record says degenerate, or it carries that flag)."""
    placement = trial.get("placement") or {}
    return bool(placement.get("degenerate")) or any(f.split(":")[0] == "degenerate" for f in trial.get("flags", []))


def of_run(run: Run) -> dict[tuple[object, object], Role]:
    """{(class, arm): Role} for every arm of the run's summary and trials."""
    trials = defaultdict(list)
    for t in run.trials:
        trials[(t.get("class"), t.get("arm"))].append(t)
    baselines = {c.get("name"): (c.get("arms") or {}).get("baseline") for c in run.config_classes()}
    recorded = {}
    for c in run.classes():
        baselines[c.get("name")] = c.get("baseline")
        for a in c.get("arms", []):
            recorded[(c.get("name"), a.get("arm"))] = a
    roles = {}
    for key in {**recorded, **trials}:
        arm = recorded.get(key, {})
        name = arm.get("role")
        if name is None and arm.get("realised") is False:
            name = "unrealised"
        if name is None and trials.get(key) and all(trial_is_degenerate(t) for t in trials[key]):
            name = "control"  # no role recorded (no summary.json): what the trials show
        if name is None:
            name = "baseline" if key[1] == baselines.get(key[0]) else "compared"
        roles[key] = Role(name, arm.get("unrealised_reason") if name == "unrealised" else None)
    return roles


def of_class(run: Run, class_name: object) -> dict[object, str]:
    """{arm: role name} of one class, what the figures take."""
    return {arm: r.name for (cls, arm), r in of_run(run).items() if cls == class_name}


def role_words(role: Role) -> str:
    if role.name == "control":
        return "A/A control: same placement as baseline"
    if role.name == "unrealised":
        return f"unrealised: {role.reason or 'the placement could not be made'}"
    return role.name


def role_badge(role: Role) -> Markup:
    """The distinct (grey, hatched) badge of an arm that is no comparison."""
    return badge(role_words(role), role.name)
