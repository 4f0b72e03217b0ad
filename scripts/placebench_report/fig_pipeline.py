"""Dataloader pipeline runs: each arm's step split into data wait, host-to-device copy and compute
(stacked, medians), and the input-bound share (docs/pipeline.md). From a run's pipeline trials (their
summaries) or from `placebench pipeline --json` files (their per-step split)."""
from statistics import median

import numpy as np

from .plotting import arm_colour, figure, time_unit, to_img

PARTS = [("wait", "#d95f02"), ("copy", "#e6ab02"), ("compute", "#1f78b4"), ("copy + compute", "#7fa7c9")]


def split_from_trials(trials, class_name, arm_order):
    """[(arm, {part: ns}, [input_bound_pct per trial], note)] from trial summaries. Trial summaries carry
    wait_ns_median; h2d_ns_median and compute_ns_median are used when present, else the rest of the
    median step is shown as one 'copy + compute' part."""
    by_arm = {}
    for t in trials:
        if t.get("class") == class_name and t.get("workload") == "pipeline":
            by_arm.setdefault(t.get("arm"), []).append(t.get("summary") or {})
    out = []
    for arm in [a for a in arm_order if a in by_arm] + sorted(a for a in by_arm if a not in arm_order):
        sums = by_arm[arm]

        def med(key):
            vals = [s[key] for s in sums if isinstance(s.get(key), (int, float))]
            return median(vals) if vals else None

        step, wait = med("median_ns"), med("wait_ns_median")
        copy, compute = med("h2d_ns_median"), med("compute_ns_median")
        if step is None or wait is None:
            continue
        if copy is not None and compute is not None:
            parts = {"wait": wait, "copy": copy, "compute": compute}
        else:
            parts = {"wait": wait, "copy + compute": max(step - wait, 0.0)}
        bound = [s["input_bound_pct"] for s in sums if isinstance(s.get("input_bound_pct"), (int, float))]
        out.append((arm, parts, bound))
    return out


def split_from_docs(docs):
    out = []
    seen = set()
    for d in docs:
        data = d.data
        steps = data.get("steps") or []
        if not steps:
            continue
        arm = (data.get("config") or {}).get("arm", "?")
        label = arm if arm not in seen else f"{arm} ({d.name})"
        seen.add(arm)
        parts = {"wait": float(np.median([s.get("wait_ns", 0) for s in steps])),
                 "copy": float(np.median([s.get("h2d_ns", 0) for s in steps])),
                 "compute": float(np.median([s.get("compute_ns", 0) for s in steps]))}
        bound = (data.get("summary") or {}).get("input_bound_pct")
        out.append((label, parts, [bound] if isinstance(bound, (int, float)) else []))
    return out


def pipeline_figure(rows, title):
    """rows as split_from_*; an <img> or None."""
    if not rows:
        return None
    unit, div = time_unit([sum(p.values()) for _, p, _ in rows])
    fig, (ax, ax_b) = figure(10, 1.6 + 0.5 * len(rows), ncols=2, gridspec_kw={"width_ratios": [3, 2]})
    labels = [r[0] for r in rows]
    used = set()
    for i, (_, parts, _) in enumerate(rows):
        left = 0.0
        for name, colour in PARTS:
            if name not in parts:
                continue
            w = parts[name] / div
            ax.barh(i, w, left=left, color=colour, edgecolor="white", label=name if name not in used else None)
            used.add(name)
            left += w
        ax.text(left, i, f" {left:.3g} {unit}", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"median time per step ({unit})")
    ax.set_title(f"{title}: step split (medians)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=4, frameon=False)
    ax.margins(x=0.15)
    for i, (label, _, bound) in enumerate(rows):
        base = label.split(" (")[0]
        if bound:
            ax_b.barh(i, median(bound), color=arm_colour(base), alpha=0.45)
            ax_b.scatter(bound, [i] * len(bound), s=10, color=arm_colour(base), edgecolors="black", linewidths=0.3, zorder=3)
            ax_b.text(max(bound) + 1, i, f" median {median(bound):.1f}%", va="center", fontsize=8)
    ax_b.set_yticks(range(len(rows)), labels)
    ax_b.invert_yaxis()
    ax_b.set_xlim(0, 125)
    ax_b.set_xticks([0, 20, 40, 60, 80, 100])
    ax_b.set_xlabel("input-bound share of step time (%)")
    ax_b.set_title("input-bound share (bar: median; dots: trials)")
    return to_img(fig, f"Pipeline step split and input-bound share: {title}")
