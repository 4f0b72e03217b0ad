"""Interference conditions (issue 32, docs/interference.md): a class's quiet and loaded conditions as
summary.json gives them (`condition`, `conditions`, `dose_response`; docs/results-schema.md), each trial's
measured dose (its `interference` record: the hog's achieved GB/s or cores), the trials whose hog was
starved, and the one-sentence answer to "does the baseline (local) still win when the device's node is
busy, and would the policy change under load". Data in, strings out: fig_interference.py draws, and the
first screen (overview.py) says the sentence. Nothing is re-derived that summary.json holds: the verdicts,
CIs and slopes are placebench's; the report only reads them and counts the trials' records.
"""
from collections import defaultdict
from dataclasses import dataclass, field
from statistics import median

from .htmlkit import ci_pct, num, pct

STARVED = "hog starved"  # the problem a trial's record carries when its hog got under half a core a thread
DOSE_UNIT = {"membw": "GB/s", "cpu": "cores"}
VERDICT_WORDS = {"faster": "faster than", "slower": "slower than", "equivalent": "equivalent to"}


def has_conditions(cls: dict) -> bool:
    """Whether summary.json ran the class under interference conditions."""
    return bool(cls.get("conditions")) or cls.get("condition") is not None


def entries(cls: dict) -> list[dict]:
    """The class's entry (its first condition, quiet) and one entry per other condition."""
    return [cls] + list(cls.get("conditions") or [])


def is_starved(trial: dict) -> bool:
    problems = (trial.get("interference") or {}).get("problems") or []
    return any(str(p).startswith(STARVED) for p in problems)


def trial_dose(trial: dict) -> float | None:
    """The hog's measured dose over the trial on its own axis (membw: GB/s, cpu: cores; quiet: 0), or None
    when it has none: a starved hog did not apply its dose, so its figure is no dose."""
    load = trial.get("interference") or {}
    hog = load.get("hog")
    if trial.get("condition") is not None and hog in (None, "quiet"):
        return 0.0
    if is_starved(trial):
        return None
    return load.get("gbps") if hog == "membw" else load.get("cores") if hog == "cpu" else None


@dataclass
class Counts:
    """A condition's trials: how many, how many with a starved hog, how many degenerate (one NUMA node)."""
    trials: int = 0
    starved: int = 0
    degenerate: int = 0
    doses: list[float] = field(default_factory=list)

    def starved_most(self) -> bool:
        """More than half the condition's trials ran under less load than it names: it measured no dose."""
        return self.trials > 0 and 2 * self.starved > self.trials


def counts(trials: list[dict], class_name: object) -> dict[object, Counts]:
    """{condition: Counts} over the class's trials."""
    out: dict[object, Counts] = defaultdict(Counts)
    for t in trials:
        if t.get("class") != class_name or t.get("condition") is None:
            continue
        c = out[t.get("condition")]
        c.trials += 1
        c.starved += is_starved(t)
        c.degenerate += bool((t.get("interference") or {}).get("degenerate"))
        dose = trial_dose(t)
        if dose is not None and (t.get("interference") or {}).get("hog") not in (None, "quiet"):
            c.doses.append(dose)
    return out


def dose_words(entry: dict, c: Counts | None) -> str:
    """The condition's measured dose in words: median over its trials whose hog was not starved."""
    unit = DOSE_UNIT.get(entry.get("hog"))
    if unit is None:
        return "no hog"
    if c is None or not c.doses:
        return "no measured dose"
    return f"{num(median(c.doses), 3)} {unit} measured"


def not_measured(entry: dict, c: Counts | None) -> str | None:
    """Why a loaded condition answers nothing, or None when it does."""
    if c is not None and c.starved_most():
        return f"its hog was starved in {c.starved} of {c.trials} trials"
    if c is not None and c.trials and not c.doses:
        return "no trial measured its hog's dose"
    return None


def compared_arms(entry: dict) -> list[dict]:
    """The arms of an entry compared with its baseline (not the baseline, not an A/A control or unrealised)."""
    out = []
    for a in entry.get("arms") or []:
        role = a.get("role")
        if a.get("arm") == entry.get("baseline") or role == "baseline":
            continue
        if role in ("control", "unrealised") or a.get("realised") is False:
            continue
        out.append(a)
    return out


def outcome(entry: dict) -> tuple[str, str]:
    """(wins | loses | ties | unknown, why) for the baseline against the compared arms of one condition,
    from placebench's verdicts (faster/slower are about speed whatever the statistic)."""
    base = entry.get("baseline")
    arms = compared_arms(entry)
    if not arms:
        return "unknown", f"no arm is placed apart from {base}"

    def said(a: dict) -> str:
        return f"{pct(a.get('ratio_pct'))} {ci_pct(a.get('ratio_ci_pct'))}"

    faster = [a for a in arms if a.get("verdict") == "faster"]
    if faster:
        return "loses", "; ".join(f"{a.get('arm')} is faster than {base} ({said(a)})" for a in faster)
    open_arms = [a for a in arms if a.get("verdict") not in VERDICT_WORDS]
    if open_arms:
        return "unknown", "; ".join(f"{a.get('arm')} against {base} is undecided ({said(a)})" for a in open_arms)
    words = "; ".join(f"{a.get('arm')} is {VERDICT_WORDS[a['verdict']]} {base} ({said(a)})" for a in arms)
    return ("wins" if all(a.get("verdict") == "slower" for a in arms) else "ties"), words


ANSWERS = {"wins": "yes", "loses": "no", "ties": "it ties", "unknown": "unknown"}


def busy_answer(loaded: list[tuple[dict, Counts | None]]) -> str:
    """Does the baseline still win under the device-node conditions: "yes (...)", "no (...)", "unknown (...)"."""
    device = [(e, c) for e, c in loaded if e.get("hog_node") == "device"]
    if not device:
        return "not measured (no condition loads the device's node)"
    usable, skipped = [], []
    for e, c in device:
        why = not_measured(e, c)
        (skipped if why else usable).append((e, c, why))
    if not usable:
        return "unknown (" + "; ".join(f"{e.get('condition')}: {why}" for e, _, why in skipped) + ")"
    results = [(outcome(e), e, c) for e, c, _ in usable]
    for kind in ("loses", "unknown"):  # the first condition that shows a loss, else an open question
        hit = [(o, e, c) for o, e, c in results if o[0] == kind]
        if hit:
            (_, why), e, c = hit[0]
            return f"{ANSWERS[kind]} (under {e.get('condition')}, {dose_words(e, c)}: {why})"
    # Every condition decided, none lost: a win only when it won under each; the last tie or win says how.
    kind = "ties" if any(o[0] == "ties" for o, _, _ in results) else "wins"
    (_, why), e, _ = [r for r in results if r[0][0] == kind][-1]
    every = ", ".join(f"{x.get('condition')} ({dose_words(x, c)})" for _, x, c in results)
    return f"{ANSWERS[kind]} (under {every}; under {e.get('condition')}: {why})"


def policy_answer(quiet: dict, loaded: list[tuple[dict, Counts | None]]) -> str:
    """Would the placement verdicts (what a policy rests on) change from quiet to load."""
    q, q_why = outcome(quiet)
    if q == "unknown":
        return f"unknown (quiet: {q_why})"
    changed, unknown = [], []
    measured = [(e, c) for e, c in loaded if not not_measured(e, c)]
    if not measured:
        why = "; ".join(f"{e.get('condition')}: {not_measured(e, c)}" for e, c in loaded) or "no loaded condition"
        return f"unknown (no load was measured: {why})"
    for e, _ in measured:
        o, why = outcome(e)
        if o == "unknown":
            unknown.append(f"under {e.get('condition')}: {why}")
        elif o != q:
            changed.append(f"quiet, {quiet.get('baseline')} {q}; under {e.get('condition')} it {o}: {why}")
    if changed:
        return f"yes ({changed[0]})"
    if unknown:
        return f"unknown ({unknown[0]})"
    return f"no (quiet and under load, {quiet.get('baseline')} {q})"


def decide_clause(decide_class: dict | None, by_name: dict[object, tuple[dict, Counts | None]]) -> str:
    """Which condition drove `placebench decide`'s policy, when its result says so."""
    inputs = (decide_class or {}).get("inputs") or {}
    drove = inputs.get("condition")
    if drove is None:
        return ""
    out = (f"; `placebench decide` (under_load: {inputs.get('under_load') or 'quiet'}) took the figures of "
           f"{drove}, recommendation {decide_class.get('recommendation')}")
    # "membw-device-2", or a share: "quiet x 0.7 + membw-device-2 x 0.3" (docs/decisions.md, "Under load").
    named = {part.split(" x ")[0].strip() for part in str(drove).split(" + ")}
    for name, (e, c) in by_name.items():
        if str(name) not in named or e.get("hog") in (None, "quiet"):
            continue
        if c is not None and c.degenerate:
            out += f" ({name} loaded the device's node: one NUMA node)"
        if not_measured(e, c):
            out += f" ({name}: {not_measured(e, c)})"
    return out


def sentence(name: object, cls: dict, trials: list[dict], decide_class: dict | None = None) -> str:
    """The first screen's sentence about a class's interference conditions."""
    by_cond = counts(trials, cls.get("name"))
    by_name = {e.get("condition"): (e, by_cond.get(e.get("condition"))) for e in entries(cls)}
    loaded = [(e, c) for k, (e, c) in by_name.items() if e is not cls and e.get("hog") not in (None, "quiet")]
    base = cls.get("baseline")
    out = (f"{name} under interference: does {base} still win when the device's node is busy? "
           f"{busy_answer(loaded)}; would the policy change under load? {policy_answer(cls, loaded)}")
    others = [e for e, c in loaded if e.get("hog_node") == "other"]
    if others and all(by_name[e.get("condition")][1] and by_name[e.get("condition")][1].degenerate for e in others):
        out += "; the aggressor on the other node is not measured (one NUMA node: it loaded the device's node)"
    starved = sum(c.starved for _, c in loaded if c)
    total = sum(c.trials for _, c in loaded if c)
    if starved:
        out += f"; {starved} of {total} loaded trials had a starved hog (no dose; left out of the doses)"
    return out + decide_clause(decide_class, by_name) + "."


def warnings(cls: dict, trials: list[dict]) -> list[str]:
    """The class's warnings under its loaded conditions (summary.json's, each named by its condition), and
    per condition the trials whose hog was starved."""
    by_cond = counts(trials, cls.get("name"))
    out = []
    for e in entries(cls)[1:]:
        where = f"{cls.get('name')} [{e.get('condition')}]"
        out += [f"{where}: {w}" for w in e.get("warnings") or []]
        c = by_cond.get(e.get("condition"))
        if c is not None and c.starved:
            out.append(f"{where}: {STARVED} in {c.starved} of {c.trials} trials (under half a core a thread: they "
                       "ran under less load than the condition names; no dose)")
    return out
