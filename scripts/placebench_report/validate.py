"""Type checks of the fields this report reads, per kind of result (docs/results-schema.md, docs/cli.md).

A damaged or hand-edited file is refused with one line naming the file (and line), the key, what was
expected and what was found (InputProblem, exit 2), never a traceback from deep inside a figure. Only
the fields the report reads are checked, with the types its code relies on: a key may be absent (the
report shows "-" or skips it) unless marked required; null only where the report handles it.
"""
import datetime
import json
import math
from collections.abc import Callable, Iterable
from typing import NoReturn


class Problem(Exception):
    """A field of the wrong type: `key` (a path such as rows[0].bytes) and the message without place."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def describe(value: object) -> str:
    if isinstance(value, dict):
        return "a map"
    if isinstance(value, list):
        return "a list"
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:36] + '..."'


class Spec:
    what = "?"

    def ok(self, value: object) -> bool:
        return True

    def check(self, value: object, key: str) -> None:
        if not self.ok(value):
            self.fail(value, key)

    def fail(self, value: object, key: str) -> NoReturn:
        raise Problem(key, f"{key + ': ' if key else ''}expected {self.what}, got {describe(value)}")


class Scalar(Spec):
    def __init__(self, what: str, test: Callable[[object], bool]) -> None:
        self.what, self.ok = what, test


def _is_number(v: object) -> bool:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    return isinstance(v, int) or math.isfinite(v)


ANY = Spec()
NUMBER = Scalar("a number", _is_number)
INT = Scalar("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool))
STR = Scalar("a string", lambda v: isinstance(v, str))
BOOL = Scalar("true or false", lambda v: isinstance(v, bool))


def _is_iso_time(v: object) -> bool:
    if not isinstance(v, str):
        return False
    try:
        datetime.datetime.fromisoformat(v)
    except ValueError:
        return False
    return True


ISO_TIME = Scalar("an ISO 8601 time", _is_iso_time)
# A fleet change's nodes: their names (what history changes writes) or their count.
NODES = Scalar("a list of node names or a count",
               lambda v: (isinstance(v, int) and not isinstance(v, bool) and v >= 0)
               or (isinstance(v, list) and all(not isinstance(x, (list, dict)) for x in v)))
# A value used as a dictionary key or a label: anything but a list or a map.
KEY = Scalar("a string or a number", lambda v: not isinstance(v, (list, dict)))


class Opt(Spec):
    """null, or what `inner` accepts."""

    def __init__(self, inner: Spec) -> None:
        self.inner = inner
        self.what = f"{inner.what} or null"

    def check(self, value: object, key: str) -> None:
        if value is not None:
            try:
                self.inner.check(value, key)
            except Problem as p:
                if p.key != key:
                    raise
                self.fail(value, key)


class List(Spec):
    what = "a list"

    def __init__(self, item: Spec = ANY, length: int | None = None) -> None:
        self.item, self.length = item, length
        if length:
            self.what = f"a list of {length}"

    def check(self, value: object, key: str) -> None:
        if not isinstance(value, list) or (self.length and len(value) != self.length):
            self.fail(value, key)
        for i, v in enumerate(value):
            self.item.check(v, f"{key}[{i}]")


class Map(Spec):
    """A JSON object; `fields`: key -> Spec, checked when present. Keys in `required` must be present."""
    what = "a map"

    def __init__(self, fields: dict[str, Spec], required: Iterable[str] = ()) -> None:
        self.fields, self.required = fields, set(required)

    def check(self, value: object, key: str) -> None:
        if not isinstance(value, dict):
            self.fail(value, key)
        for name, spec in self.fields.items():
            sub = f"{key}.{name}" if key else name
            if name not in value:
                if name in self.required:
                    raise Problem(sub, f"{sub}: missing")
                continue
            spec.check(value[name], sub)


PAIR = List(Opt(NUMBER), length=2)          # a CI whose ends may be null
CONFIG_ARM = Opt(Map({"arm": Opt(KEY)}))     # staging/pipeline/collective files' config

RUN = Map({
    "config": Map({
        "rounds": Map({"looks": Opt(INT)}),
        "classes": List(Map({"name": Opt(KEY), "arms": Opt(Map({"baseline": Opt(KEY), "compare": List(Opt(KEY))})),
                             "workload": Opt(Map({}))})),
    }),
    "versions": Map({}),
    "topology": Opt(Map({
        "packages": List(),
        "numa_nodes": List(Map({"memory_bytes": NUMBER})),
        "gpus": List(Map({})),
        "allowed": Opt(Map({})),
    })),
})

# summary.json, schema_version 2 (docs/results-schema.md): every key of placebench's field table
# (harness/src/runner/summary_table.h), each of its kind; tests/report/test_report_summary_fields.py compares
# the two. Lenient where the report copes: a key may be absent, and null.
SUMMARY = Map({
    "complete": Opt(BOOL), "trials": Opt(INT),
    "classes": List(Map({
        "name": Opt(KEY), "baseline": Opt(KEY), "statistic": Opt(KEY), "statistic_unit": Opt(KEY), "unit": Opt(STR),
        "margin_pct": Opt(NUMBER), "rounds_done": Opt(INT), "looks": List(INT),
        "look_confidence": Opt(NUMBER), "boundary_z": Opt(NUMBER), "comparisons": Opt(INT),
        "family_confidence": Opt(NUMBER), "stop": Opt(BOOL), "stop_reason": Opt(KEY), "stop_words": Opt(STR),
        "holm_adjusted_p": Opt(NUMBER), "noise_floor_pct": Opt(NUMBER), "warnings": List(STR),
        "arms": List(Map({
            "arm": Opt(KEY), "role": Opt(KEY), "realised": Opt(BOOL), "unrealised_reason": Opt(STR), "n_rounds": Opt(INT),
            "flagged_trials": Opt(INT),
            "statistic_value": Opt(NUMBER), "statistic_ci": Opt(PAIR), "statistic_ci_confidence": Opt(NUMBER),
            "statistic_ci_method": Opt(STR),
            "median": Opt(NUMBER), "p90": Opt(NUMBER), "p99": Opt(NUMBER), "mean": Opt(NUMBER),
            "within_run_median_ci": Opt(PAIR),
            "ratio_pct": Opt(NUMBER), "ratio_ci_pct": Opt(PAIR), "confidence": Opt(NUMBER), "p_value": Opt(NUMBER),
            "repeated_p": Opt(NUMBER), "holm_adjusted_p": Opt(NUMBER), "verdict": Opt(KEY), "stop_reason": Opt(KEY),
            "detectable_pct": Opt(NUMBER), "lag1": Opt(NUMBER), "dependence_flagged": Opt(BOOL),
            "ci_inflation": Opt(NUMBER), "statistic_rounds": Opt(INT), "decided_look": Opt(INT),
            "verdict_warnings": Opt(List(STR)), "held": Opt(BOOL), "detectable_below_pct": Opt(NUMBER),
            "effective_rounds": Opt(NUMBER), "aa_check": Opt(KEY),
        })),
    })),
})

# A trial's interference record (docs/interference.md, "Records"): what the hog did, measured.
INTERFERENCE = Map({
    "condition": Opt(KEY), "hog": Opt(KEY), "threads": Opt(INT), "seconds": Opt(NUMBER), "gbps": Opt(NUMBER),
    "cores": Opt(NUMBER), "degenerate": Opt(BOOL), "problems": List(STR), "notes": List(STR),
})

TRIAL = Map({
    "class": KEY, "arm": KEY, "round": INT, "position": NUMBER, "condition": Opt(KEY), "interference": Opt(INTERFERENCE),
    "placement": Opt(Map({"status": Opt(KEY), "requested_pages_pct": Opt(NUMBER), "degenerate": Opt(BOOL)})),
    "flags": List(STR),
    "step_ns": Opt(List(NUMBER)),
    "summary": Opt(Map({})),
}, required=("class", "arm", "round"))

KINDS = {
    "staging": Map({
        "backend": KEY,
        "rows": List(Map({"arm": STR, "direction": KEY, "memory": KEY, "bytes": NUMBER, "gbps_median": Opt(NUMBER),
                          "gbps_p10": Opt(NUMBER), "gbps_p90": Opt(NUMBER)}, required=("arm", "bytes"))),
    }),
    "pipeline": Map({
        "config": CONFIG_ARM,
        "steps": List(Map({"wait_ns": NUMBER, "h2d_ns": NUMBER, "compute_ns": NUMBER, "step_ns": NUMBER})),
        "summary": Opt(Map({"stage_rates": Opt(Map({}))})),
    }),
    "collective": Map({
        "config": CONFIG_ARM,
        "rows": List(Map({"size": Opt(NUMBER), "op": STR})),
        "wrong_total": Opt(NUMBER),
    }),
    "gang": Map({
        "ranks": List(Map({
            "process_start_s": NUMBER,
            "attempts": List(Map({k: Opt(NUMBER) for k in ("ready_s", "joined_s", "first_step_s", "released_s")})),
        })),
        "config": Opt(Map({"deadline_s": Opt(NUMBER), "backoff_s": NUMBER, "retries": INT})),
        "group_ready_s": Opt(NUMBER),
        "schedule_start_s": Opt(NUMBER),
        "stranded_gpu_s": NUMBER,
    }),
    # queue --json, feasible --json and fleet --json (docs/queue-replay.md, docs/decisions.md, docs/fleet.md):
    # the report lists them with the fields below.
    "queue": Map({"jobs": Opt(NUMBER), "total_gpus": Opt(NUMBER), "combinations": List(Map({}))}),
    "feasible": Map({"job_runnable": Opt(BOOL), "free_gpus": Opt(NUMBER), "nodes": List(Map({"name": Opt(KEY)}))}),
    "fleet": Map({"nodes": List(Map({})), "suspects": List(Map({"host": Opt(KEY), "severity_pct": Opt(NUMBER)})),
                  "warnings": Opt(List(STR))}),
    # placebench history changes --json (docs/reports.md, "History"): every key the History section reads.
    "history": Map({
        "series": List(Map({
            "node": KEY, "class": KEY, "arm": KEY, "metric": KEY, "status": KEY, "unit": Opt(STR),
            "min_runs": Opt(INT),
            "points": List(Map({"run_key": KEY, "start": Opt(ISO_TIME), "value": NUMBER, "ci_low": Opt(NUMBER),
                                "ci_high": Opt(NUMBER)}, required=("run_key", "start", "value", "ci_low", "ci_high"))),
            "changes": List(Map({"index": INT, "run_key": KEY, "start": Opt(ISO_TIME), "before": Opt(NUMBER),
                                 "after": Opt(NUMBER), "relative": Opt(NUMBER), "p_value": Opt(NUMBER), "attribution": Opt(STR), "fleet": BOOL},
                                required=("index", "before", "after", "relative", "attribution", "fleet"))),
        }, required=("node", "class", "arm", "metric", "status", "points", "changes"))),
        "fleet_changes": List(Map({"start": Opt(ISO_TIME), "class": KEY, "arm": KEY, "metric": KEY, "nodes": NODES},
                                  required=("start", "class", "arm", "metric", "nodes"))),
        "min_runs": Opt(INT),
    }, required=("series", "fleet_changes")),
    "admission": Map({
        "observed_until": Opt(STR),
        "jobs": List(Map({
            "first_created": Opt(STR), "full_gang_at": Opt(STR), "stranded_gpu_s": NUMBER,
            "pods": List(Map({"created": Opt(STR), "scheduled": Opt(STR), "gpus": NUMBER})),
        })),
    }),
    "decide": Map({
        "classes": List(Map({
            "rationale": Opt(STR), "reason": Opt(STR), "settle": Opt(STR),
            "policies": Opt(List(Map({
                "policy": Opt(KEY), "turnaround_min": Opt(NUMBER), "gpu_min_per_job": Opt(NUMBER),
                "turnaround_min_ci": Opt(PAIR), "gpu_min_per_job_ci": Opt(PAIR),
            }))),
        })),
    }),
}


# summary.json's keys of a class run under interference conditions (docs/results-schema.md, "Interference
# conditions"; summary_table.h: class_condition_fields, arm_load_fields, dose_response_fields). Checked apart
# from SUMMARY, which test_report_summary_fields.py holds to the field table that lists a class's keys without
# them; each condition entry is a class entry of its own, its arms with their load comparison.
_CONDITION = {"condition": Opt(KEY), "hog": Opt(KEY), "hog_node": Opt(KEY), "hog_threads": Opt(INT),
              "aggressor_gbps": Opt(NUMBER), "aggressor_cores": Opt(NUMBER)}
_CLASS, _ARM = SUMMARY.fields["classes"].item, SUMMARY.fields["classes"].item.fields["arms"].item
_LOAD_ARM = Map({**_ARM.fields, "load_ratio_pct": Opt(NUMBER), "load_ratio_ci_pct": Opt(PAIR),
                 "load_confidence": Opt(NUMBER), "load_rounds": Opt(INT), "load_verdict": Opt(KEY)})
DOSE_RESPONSE = Map({"arm": KEY, "hog": KEY, "node": KEY, "unit": STR, "rounds": Opt(INT), "slope_pct": NUMBER,
                     "slope_ci_lo_pct": NUMBER, "slope_ci_hi_pct": NUMBER, "confidence": Opt(NUMBER),
                     "max_dose": Opt(NUMBER)},
                    required=("arm", "hog", "node", "unit", "slope_pct", "slope_ci_lo_pct", "slope_ci_hi_pct"))
SUMMARY_CONDITIONS = Map({"classes": List(Map({
    **_CONDITION, "dose_response": List(DOSE_RESPONSE),
    "conditions": List(Map({**_CLASS.fields, **_CONDITION, "arms": List(_LOAD_ARM)}, required=("condition",))),
}))})
# decide --json's keys of a class with interference conditions (docs/decisions.md, "Under load"): apart from
# KINDS["decide"], whose every key test_report_written_fields.py finds in what decide writes for any run.
DECIDE_UNDER_LOAD = Map({"classes": List(Map({"inputs": Opt(Map({"condition": Opt(KEY), "under_load": Opt(KEY)}))}))})


def interference_contradiction(trial: dict) -> str | None:
    """"KEY: problem" when a trial's interference record names another condition than the trial."""
    load = trial.get("interference")
    if load is None:
        return None
    if "condition" in load and load["condition"] != trial.get("condition"):
        return (f"interference.condition: is {load['condition']!r}, but condition is {trial.get('condition')!r} "
                "(the two are written together)")
    return None


def trial_contradiction(trial: dict) -> str | None:
    """"KEY: problem" when a trial's placement record and its flags disagree (placebench writes both from one
    record, and refuses such a line too: results_checks.cpp), or its interference record names another
    condition, else None."""
    problem = interference_contradiction(trial)
    if problem:
        return problem
    placement = trial.get("placement") or {}
    flags = [f.split(":")[0] for f in trial.get("flags") or []]
    if "degenerate" in placement and bool(placement["degenerate"]) != ("degenerate" in flags):
        return (f"placement.degenerate: is {'true' if placement['degenerate'] else 'false'}, but flags "
                f"{'has' if 'degenerate' in flags else 'has no'} \"degenerate\" (the two are written together)")
    status = placement.get("status")
    if status in ("partial", "failed") and not any(f.startswith("placement_") for f in flags):
        return f'placement.status: is "{status}", but flags has no "placement_{status}" (the two are written together)'
    return None


NO_VERDICT_FIELDS = ("detectable_pct", "detectable_below_pct", "repeated_p", "holm_adjusted_p", "decided_look")


def arm_contradiction(arm: dict, where: str) -> str | None:
    """"KEY: problem" when a summary arm's fields contradict each other (as summary_json's reader refuses)."""
    role, verdict, stop = arm.get("role"), arm.get("verdict"), arm.get("stop_reason")
    decisive = verdict in ("faster", "slower", "equivalent")
    if "realised" in arm and arm["realised"] != (role in ("baseline", "compared")):
        return f"{where}.realised: is {str(arm['realised']).lower()} for role {role}"
    if role == "compared" and decisive and stop != "decided":
        return f'{where}.stop_reason: is "{stop}" for verdict {verdict}'
    if role == "compared" and not decisive and stop == "decided":
        return f'{where}.stop_reason: is "decided" for verdict {verdict}'
    if arm.get("aa_check") is not None and role != "control":
        return f"{where}.aa_check: is set for role {role}"
    if role in ("control", "unrealised"):
        for key in NO_VERDICT_FIELDS:
            if arm.get(key) is not None:
                return f"{where}.{key}: is set for role {role}, which has no verdict"
    return None


def summary_contradiction(summary: dict) -> str | None:
    for i, cls in enumerate(summary.get("classes") or []):
        entries = [(f"classes[{i}]", cls)] + [(f"classes[{i}].conditions[{k}]", e)
                                             for k, e in enumerate(cls.get("conditions") or [])]
        for where, entry in entries:
            for j, arm in enumerate(entry.get("arms") or []):
                problem = arm_contradiction(arm, f"{where}.arms[{j}]")
                if problem:
                    return problem
        for j, d in enumerate(cls.get("dose_response") or []):
            if d["slope_ci_lo_pct"] > d["slope_ci_hi_pct"]:
                return (f"classes[{i}].dose_response[{j}].slope_ci_lo_pct: is {d['slope_ci_lo_pct']}, above "
                        f"slope_ci_hi_pct {d['slope_ci_hi_pct']}")
    return None


def history_contradiction(doc: dict) -> str | None:
    """"KEY: problem" when a history changes file contradicts itself: a change outside its series' points,
    naming another run than the point it indexes, or a run's CI with its ends swapped."""
    for i, series in enumerate(doc.get("series") or []):
        points, status = series.get("points") or [], series.get("status")
        if (status == "changed") != bool(series.get("changes")) and status in ("changed", "no-change", "too-short"):
            return f"series[{i}].status: is {status!r} with {len(series.get('changes') or [])} changes"
        for k, p in enumerate(points):
            low, high = p.get("ci_low"), p.get("ci_high")
            if low is not None and high is not None and low > high:
                return f"series[{i}].points[{k}].ci_low: is {low}, above ci_high {high}"
        for j, c in enumerate(series.get("changes") or []):
            where, index = f"series[{i}].changes[{j}]", c.get("index")
            if not 0 < index < len(points):
                return f"{where}.index: is {index}, outside the series' {len(points)} points (1 to {len(points) - 1})"
            if "run_key" in c and c["run_key"] != points[index].get("run_key"):
                return f"{where}.run_key: is {c['run_key']!r}, but points[{index}] is run {points[index].get('run_key')!r}"
    return None


def problem_in(value: object, spec: Spec) -> str | None:
    """"KEY: expected X, got Y" when `value` does not fit `spec`, else None."""
    try:
        spec.check(value, "")
    except Problem as p:
        return str(p)
    return None
