"""Run directories in results schema 2 for the report tests, made from the committed fixtures.

The fixtures in tests/fixtures/results/*-run are written by `placebench run`; until they are regenerated
with a placebench that writes schema 2 they are schema 1. `v2_copy` copies one into a temporary folder and,
when its run.json or summary.json is still schema 1, rewrites it as schema 2 would say it: every v2 field
derived from the run's own trials (the class statistic of each trial over rounds, the planned looks, the
arm roles: an arm whose every trial was degenerate is the A/A control). A file already at schema 2 is
left as it is, so the tests pass unchanged once the fixtures are regenerated.
"""
import json
import math
import os
import shutil
from statistics import median

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(ROOT, "tests", "fixtures", "results")
RUNS = ("tiny-run", "mixed-run")

TRIAL_STATISTIC = {"median": "median_ns", "p99": "p99_ns", "throughput": "throughput_steps_s"}


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)


def read_trials(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def planned_looks(rounds):
    lo, hi = rounds.get("min", 1), rounds.get("max", 1)
    k = min(3, hi - lo + 1)
    return sorted({round(lo + (hi - lo) * i / (k - 1)) for i in range(k)}) if k > 1 else [hi]


def degenerate(trial):
    return bool((trial.get("placement") or {}).get("degenerate")) or "degenerate" in trial.get("flags", [])


def lag1(values):
    """Lag-1 autocorrelation of a series; None below 3 values or with no spread."""
    if len(values) < 3:
        return None
    m = sum(values) / len(values)
    var = sum((v - m) ** 2 for v in values)
    if var == 0:
        return None
    return sum((a - m) * (b - m) for a, b in zip(values, values[1:])) / var


def arm_v2(arm, cls, trials, role, looks):
    stat_key = TRIAL_STATISTIC.get(cls.get("statistic"), "median_ns")
    by_round = {t["round"]: t["summary"][stat_key] for t in trials}
    values = sorted(by_round.values())
    out = {k: v for k, v in arm.items() if k != "median_ci"}
    out.update({
        "role": role, "realised": True, "unrealised_reason": None,
        "statistic_value": median(values) if values else None,
        "statistic_ci": ([values[1], values[-2]] if len(values) >= 4 else [values[0], values[-1]]) if values else None,
        "statistic_ci_confidence": 0.95 if values else None,
        "statistic_ci_method": "distribution-free, order statistics of the trials' values" if values else None,
        "within_run_median_ci": arm.get("median_ci"),
        "repeated_p": arm.get("p_value"),
        "holm_adjusted_p": None if arm.get("p_value") is None else min(1.0, arm["p_value"] * 2),
        "detectable_pct": None, "lag1": None, "dependence_flagged": False, "ci_inflation": 1.0,
    })
    if role != "baseline" and arm.get("ratio_ci_pct"):
        lo, hi = arm["ratio_ci_pct"]
        out["detectable_pct"] = round((hi - lo) / 2 * 1.5, 3)
    if role == "control":
        out["verdict"] = "control"
    out["stop_reason"] = "" if role == "baseline" else "max_rounds" if out.get("stop_reason") == "max_rounds" else (
        out.get("stop_reason") or "continue")
    return consistent_arm(out)


def consistent_arm(arm):
    """The arm's fields made to agree as placebench writes them (the readers refuse contradictions): a
    decided verdict stops "decided", anything else does not; a control or unrealised arm has no verdict
    fields. Returns the arm, changed in place."""
    if arm.get("role") in ("control", "unrealised"):
        arm.update(detectable_pct=None, repeated_p=None, holm_adjusted_p=None, stop_reason="")
        arm["realised"] = False
    elif arm.get("verdict") in ("faster", "slower", "equivalent"):
        arm["stop_reason"] = "decided"
    elif arm.get("stop_reason") == "decided":
        arm["stop_reason"] = "continue"
    return arm


def summary_v2(summary, run, trials):
    """summary.json schema 1 -> 2, the new fields derived from the run's trials."""
    if summary.get("schema_version") == 2:
        return summary
    cfg = run.get("config", {})
    looks = planned_looks(cfg.get("rounds", {}))
    out = dict(summary, schema_version=2)
    classes = []
    roles = {}
    for c in summary["classes"]:
        for a in c["arms"]:
            ts = [t for t in trials if t["class"] == c["name"] and t["arm"] == a["arm"]]
            roles[(c["name"], a["arm"])] = ("baseline" if a["arm"] == c["baseline"]
                                            else "control" if ts and all(degenerate(t) for t in ts) else "compared")
    comparisons = sum(r == "compared" for r in roles.values())
    for c in summary["classes"]:
        arms = []
        for a in c["arms"]:
            ts = sorted((t for t in trials if t["class"] == c["name"] and t["arm"] == a["arm"]), key=lambda t: t["round"])
            arms.append(arm_v2(a, c, ts, roles[(c["name"], a["arm"])], looks))
        base = {t["round"]: t["summary"][TRIAL_STATISTIC.get(c["statistic"], "median_ns")]
                for t in trials if t["class"] == c["name"] and t["arm"] == c["baseline"]}
        for a, src in zip(arms, c["arms"]):
            if a["role"] == "compared":
                ts = sorted((t for t in trials if t["class"] == c["name"] and t["arm"] == src["arm"]),
                            key=lambda t: t["round"])
                key = TRIAL_STATISTIC.get(c["statistic"], "median_ns")
                logs = [math.log(t["summary"][key] / base[t["round"]]) for t in ts if t["round"] in base]
                a["lag1"] = lag1(logs)
        compared = [a for a in arms if a["role"] == "compared"]
        controls = [a for a in arms if a["role"] == "control"]
        max_rounds = any(a["stop_reason"] == "max_rounds" for a in compared)
        stop_reason = "max_rounds" if max_rounds else "decided" if c.get("stop") else "continue"
        floor = None
        if controls and controls[0].get("ratio_ci_pct"):
            floor = max(abs(v) for v in controls[0]["ratio_ci_pct"])
        classes.append(dict(
            {k: v for k, v in c.items() if k != "arms"},
            statistic_unit="steps/s" if c.get("statistic") == "throughput" else "ns",
            looks=looks, look_confidence=next((a["confidence"] for a in compared if a.get("confidence")), None),
            boundary_z=2.2414, comparisons=comparisons, family_confidence=cfg.get("confidence", 0.95),
            stop_reason=stop_reason,
            stop_words=(f"max rounds spent ({c.get('rounds_done')}), undecided" if stop_reason == "max_rounds"
                        else f"decided at look {len(looks)} of {len(looks)} ({c.get('rounds_done')} rounds)"
                        if stop_reason == "decided" else f"running ({c.get('rounds_done')} rounds)"),
            noise_floor_pct=floor,
            warnings=[f"{a['arm']}: its placement was degenerate (the baseline's node), kept as an A/A control"
                      for a in controls],
            arms=arms))
    out["classes"] = classes
    return out


def upgrade_run_dir(path):
    """Rewrites path/run.json and path/summary.json as schema 2 where they are schema 1."""
    run_path, summary_path = os.path.join(path, "run.json"), os.path.join(path, "summary.json")
    run = read_json(run_path)
    v1_run = dict(run)
    if run.get("schema_version") == 1:
        run["schema_version"] = 2
        rounds = run.setdefault("config", {}).setdefault("rounds", {})
        rounds.setdefault("looks", len(planned_looks(rounds)))
        write_json(run_path, run)
    if os.path.exists(summary_path):
        summary = read_json(summary_path)
        if summary.get("schema_version") == 1:
            write_json(summary_path, summary_v2(summary, v1_run, read_trials(os.path.join(path, "trials.jsonl"))))
    return path


def v2_copy(name, parent):
    """A copy of fixture run directory `name` under `parent`, at schema 2; its path."""
    dst = os.path.join(parent, name)
    shutil.copytree(os.path.join(FIX, name), dst)
    return upgrade_run_dir(dst)


def edit_summary(run_dir, edit, consistent=True):
    """Applies edit(summary) to run_dir/summary.json (edit changes it in place), then (unless told not to)
    makes every arm's fields agree as placebench writes them (consistent_arm)."""
    path = os.path.join(run_dir, "summary.json")
    summary = read_json(path)
    edit(summary)
    if consistent:
        for c in summary.get("classes") or []:
            for a in c.get("arms") or []:
                consistent_arm(a)
    write_json(path, summary)


def find(summary, class_name, arm=None):
    cls = next(c for c in summary["classes"] if c["name"] == class_name)
    return cls if arm is None else next(a for a in cls["arms"] if a["arm"] == arm)
