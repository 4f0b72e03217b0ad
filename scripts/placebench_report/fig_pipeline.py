"""Dataloader pipeline runs: each arm's step split into data wait, host-to-device copy and compute, and the
input-bound share (docs/pipeline.md). From a run's pipeline trials (their summaries) or from
`placebench pipeline --json` files (their per-step split).

The split is of the mean step: means add (mean(step) = mean(wait) + mean(copy) + mean(compute) + mean(rest)
over the same steps), medians do not, so stacked medians would not reach the median step. What the step
spends outside the three parts is drawn as its own "other" part, never hidden. Trial summaries that give
only medians of the parts (wait_ns_median, ...) are drawn as the median step split into the median wait
and the rest of that step, and marked so."""
from dataclasses import dataclass
from statistics import median

import numpy as np

from .load import Doc
from .plotting import NOT_COMPARED, NOT_COMPARED_HATCH, arm_colour, arm_label, figure, time_unit, to_img

PARTS = [("wait", "#d95f02"), ("copy", "#e6ab02"), ("compute", "#1f78b4"), ("other", "#cab2d6"),
         ("rest of the median step", "#7fa7c9")]
MEAN_PARTS = (("wait", "wait_ns_mean"), ("copy", "h2d_ns_mean"), ("compute", "compute_ns_mean"))


@dataclass
class SplitRow:
    arm: str
    label: str
    parts: dict            # part -> ns; they add up to step_ns (but for `excess_ns`)
    bound: list            # input-bound share of each trial (or file), %
    step_ns: float         # the step the parts split: the mean step, or the median step for basis "median"
    basis: str = "mean"    # "mean" or "median"
    role: str | None = None
    excess_ns: float = 0.0  # how far the parts' means exceed the mean step (beyond rounding), else 0


def rounding_ns(step_ns: float) -> float:
    """A residual this small is the float rounding of the means, not time spent elsewhere."""
    return max(0.5, abs(step_ns) * 1e-9)


def with_other(parts: dict, step_ns: float) -> tuple[dict, float]:
    """The parts plus an explicit "other" part (step minus the parts) when that is more than rounding;
    and the excess of the parts over the step when they exceed it."""
    residual = step_ns - sum(parts.values())
    if residual > rounding_ns(step_ns):
        return {**parts, "other": residual}, 0.0
    return dict(parts), (-residual if -residual > rounding_ns(step_ns) else 0.0)


def _number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def mean_split(trials: list[dict]) -> tuple[dict, float, float] | None:
    """(parts, mean step, excess) from trial summaries with the parts' means, weighted by each trial's
    number of steps; None when a trial lacks one of them."""
    sums = [t.get("summary") or {} for t in trials]
    if not sums or not all(_number(s.get(key)) for s in sums for _, key in MEAN_PARTS):
        return None
    steps = [t.get("step_ns") or [] for t in trials]
    weights = [len(st) or (s.get("n") if _number(s.get("n")) else 0) for st, s in zip(steps, sums)]
    total = sum(weights)
    if total <= 0:
        return None
    parts = {name: sum(w * s[key] for w, s in zip(weights, sums)) / total for name, key in MEAN_PARTS}
    pooled = [x for st in steps for x in st]
    if pooled:
        step = float(np.mean(pooled))
    elif all(_number(s.get("mean_ns")) for s in sums):
        step = sum(w * s["mean_ns"] for w, s in zip(weights, sums)) / total
    else:
        step = sum(parts.values())
    parts, excess = with_other(parts, step)
    return parts, step, excess


def split_from_trials(trials: list[dict], class_name: object, arm_order: list,
                      roles: dict | None = None) -> list[SplitRow]:
    """[SplitRow] from the pipeline trials of one class: by means when the trial summaries carry
    wait_ns_mean, h2d_ns_mean and compute_ns_mean, else the median step split into the median wait
    (wait_ns_median) and the rest. roles: {arm: role name} (roles.of_class)."""
    roles = roles or {}
    by_arm = {}
    for t in trials:
        if t.get("class") == class_name and t.get("workload") == "pipeline":
            by_arm.setdefault(t.get("arm"), []).append(t)
    out = []
    for arm in [a for a in arm_order if a in by_arm] + sorted((a for a in by_arm if a not in arm_order), key=str):
        arm_trials = by_arm[arm]
        sums = [t.get("summary") or {} for t in arm_trials]
        bound = [s["input_bound_pct"] for s in sums if _number(s.get("input_bound_pct"))]
        role = roles.get(arm)
        split = mean_split(arm_trials)
        if split:
            parts, step, excess = split
            out.append(SplitRow(arm, arm_label(arm, role), parts, bound, step, "mean", role, excess))
            continue
        steps = [s["median_ns"] for s in sums if _number(s.get("median_ns"))]
        waits = [s["wait_ns_median"] for s in sums if _number(s.get("wait_ns_median"))]
        if not steps or not waits:
            continue
        step, wait = median(steps), median(waits)
        parts = {"wait": wait, "rest of the median step": max(step - wait, 0.0)}
        out.append(SplitRow(arm, arm_label(arm, role) + " (medians)", parts, bound, step, "median", role))
    return out


def split_from_docs(docs: list[Doc]) -> list[SplitRow]:
    """[SplitRow] from `pipeline --json` files: the mean of each part over the file's steps beside the
    mean step time (step_ns; the parts' sum where a step has none)."""
    out = []
    seen = set()
    for d in docs:
        data = d.data
        steps = data.get("steps") or []
        if not steps:
            continue
        arm = (data.get("config") or {}).get("arm", "?")
        label = str(arm) if arm not in seen else f"{arm} ({d.name})"
        seen.add(arm)
        parts = {"wait": float(np.mean([s.get("wait_ns", 0) for s in steps])),
                 "copy": float(np.mean([s.get("h2d_ns", 0) for s in steps])),
                 "compute": float(np.mean([s.get("compute_ns", 0) for s in steps]))}
        if all(_number(s.get("step_ns")) for s in steps):
            step = float(np.mean([s["step_ns"] for s in steps]))
        else:
            step = sum(parts.values())
        parts, excess = with_other(parts, step)
        bound = (data.get("summary") or {}).get("input_bound_pct")
        out.append(SplitRow(arm, label, parts, [bound] if _number(bound) else [], step, "mean", None, excess))
    return out


def split_note(rows: list[SplitRow]) -> str:
    """What the split figure's bars are, for the note under it."""
    words = []
    if any(r.basis == "mean" for r in rows):
        words.append("Mean per step: the means of the parts add up to the mean step time (the black tick)"
                     + ("; \"other\" is the time of the step outside data wait, copy and compute."
                        if any("other" in r.parts for r in rows) else "."))
    if any(r.basis == "median" for r in rows):
        words.append("Rows marked (medians): the trials' summaries give only medians of the parts, which do not "
                     "add up; the bar is the median step, split into the median data wait and the rest of it.")
    over = [f"{r.label} by {r.excess_ns:.3g} ns" for r in rows if r.excess_ns]
    if over:
        words.append("The parts' means exceed the mean step: " + ", ".join(over) + ".")
    return " ".join(words)


def pipeline_figure(rows: list[SplitRow], title: str) -> str | None:
    """rows as split_from_*; an <img> or None."""
    if not rows:
        return None
    unit, div = time_unit([max(sum(r.parts.values()), r.step_ns) for r in rows])
    fig, (ax, ax_b) = figure(10, 1.6 + 0.5 * len(rows), ncols=2, gridspec_kw={"width_ratios": [3, 2]})
    labels = [r.label for r in rows]
    used = set()
    for i, r in enumerate(rows):
        hatch = NOT_COMPARED_HATCH if r.role in NOT_COMPARED else None
        left = 0.0
        for name, colour in PARTS:
            if name not in r.parts:
                continue
            w = r.parts[name] / div
            ax.barh(i, w, left=left, color=colour, edgecolor="#555555" if hatch else "white", hatch=hatch,
                    alpha=0.55 if hatch else 1.0, label=name if name not in used else None)
            used.add(name)
            left += w
        ax.plot([r.step_ns / div] * 2, [i - 0.42, i + 0.42], color="black", linewidth=1.2)
        ax.text(max(left, r.step_ns / div), i, f" {r.step_ns / div:.3g} {unit}", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), labels)
    ax.invert_yaxis()
    bases = {r.basis for r in rows}
    what = ("mean per step" if bases == {"mean"} else "median per step" if bases == {"median"}
            else "mean per step (medians where marked)")
    ax.set_xlabel(f"time per step ({unit}), {what}; tick: the step time")
    ax.set_title(f"{title}: step split ({what})")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=5, frameon=False)
    ax.margins(x=0.15)
    for i, r in enumerate(rows):
        if r.bound:
            colour = arm_colour(r.arm, r.role)
            hatch = NOT_COMPARED_HATCH if r.role in NOT_COMPARED else None
            ax_b.barh(i, median(r.bound), color=colour, alpha=0.45, hatch=hatch, edgecolor="#555555" if hatch else None)
            ax_b.scatter(r.bound, [i] * len(r.bound), s=10, color=colour, edgecolors="black", linewidths=0.3, zorder=3)
            ax_b.text(max(r.bound) + 1, i, f" median {median(r.bound):.1f}%", va="center", fontsize=8)
    ax_b.set_yticks(range(len(rows)), [label.removesuffix(" (medians)") for label in labels])
    ax_b.invert_yaxis()
    ax_b.set_xlim(0, 125)
    ax_b.set_xticks([0, 20, 40, 60, 80, 100])
    ax_b.set_xlabel("input-bound share of step time (%)")
    ax_b.set_title("input-bound share (bar: median; dots: trials)")
    return to_img(fig, f"Pipeline step split and input-bound share: {title}")
