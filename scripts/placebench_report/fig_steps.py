"""Step-time distributions per arm of one class: the empirical CDF of every pooled step, and a box plot
per arm with each trial's median over it (round-to-round spread is what the paired comparison sees).
A control or unrealised arm (roles.py) is drawn grey, dashed and hatched, with its role in the label."""
from collections import defaultdict

import numpy as np
from matplotlib.ticker import FuncFormatter

from .plotting import NOT_COMPARED, NOT_COMPARED_HATCH, arm_colour, arm_label, figure, time_unit, to_img


def steps_by_arm(trials: list[dict], class_name: object,
                 arm_order: list) -> tuple[list, dict[object, list[float]], dict[object, list[float]]]:
    steps, medians = defaultdict(list), defaultdict(list)
    for t in trials:
        if t.get("class") != class_name:
            continue
        s = t.get("step_ns") or []
        steps[t.get("arm")].extend(s)
        if s:
            medians[t.get("arm")].append(float(np.median(s)))
    arms = [a for a in arm_order if a in steps] + sorted(a for a in steps if a not in arm_order)
    return arms, steps, medians


def distribution_figure(trials: list[dict], class_name: object, arm_order: list, statistic: str | None = "median",
                        roles: dict | None = None) -> str | None:
    """An <img> with the ECDF and the box plot, or None when the class has no steps. roles: {arm: role
    name} (roles.of_class)."""
    roles = roles or {}
    arms, steps, medians = steps_by_arm(trials, class_name, arm_order)
    if not arms:
        return None
    unit, div = time_unit([max(steps[a]) for a in arms])
    fig, (ax_cdf, ax_box) = figure(10, 3.4, ncols=2, gridspec_kw={"width_ratios": [3, 2]})
    # The x range stops at the largest p99.5 so a few outliers do not squash every curve to a line.
    x_max = max(np.percentile(steps[a], 99.5) for a in arms) / div
    x_min = min(np.percentile(steps[a], 0.5) for a in arms) / div
    for a in arms:
        x = np.sort(np.asarray(steps[a], dtype=float)) / div
        y = np.arange(1, len(x) + 1) / len(x)
        role = roles.get(a)
        ax_cdf.step(x, y, where="post", color=arm_colour(a, role), linestyle={"control": "--", "unrealised": ":"}.get(role, "-"),
                    label=f"{arm_label(a, role)} (n={len(x)})")
    # Heavy tails (a spread over 8x) read better on a log axis.
    log_x = x_min > 0 and x_max / x_min > 8
    if log_x:
        ax_cdf.set_xscale("log")
        ax_cdf.set_xlim(x_min / 1.1, x_max * 1.1)
    else:
        pad = (x_max - x_min) * 0.05 or x_max * 0.05 or 1
        ax_cdf.set_xlim(x_min - pad, x_max + pad)
    ax_cdf.set_ylim(0, 1.01)
    ax_cdf.set_xlabel(f"step time ({unit}{', log scale' if log_x else ''}); x axis cut at p99.5")
    ax_cdf.set_ylabel("share of steps <= x")
    ax_cdf.set_title(f"{class_name}: empirical CDF of step times")
    ax_cdf.legend(loc="lower right", fontsize=8)

    data = [np.asarray(steps[a], dtype=float) / div for a in arms]
    box = ax_box.boxplot(data, vert=False, whis=(1, 99), showfliers=False, patch_artist=True, widths=0.55)
    for patch, a in zip(box["boxes"], arms):
        patch.set_facecolor(arm_colour(a, roles.get(a)))
        patch.set_alpha(0.35)
        if roles.get(a) in NOT_COMPARED:
            patch.set_hatch(NOT_COMPARED_HATCH)
    rng = np.random.default_rng(0)
    for i, a in enumerate(arms, 1):
        m = np.asarray(medians[a]) / div
        ax_box.scatter(m, i + rng.uniform(-0.15, 0.15, len(m)), s=12, color=arm_colour(a, roles.get(a)), zorder=3,
                       edgecolors="black", linewidths=0.3)
    if log_x:
        ax_box.set_xscale("log")
        for ax in (ax_cdf, ax_box):  # 0.2, 1, 10 rather than 10^0
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax_box.set_yticks(range(1, len(arms) + 1), [arm_label(a, roles.get(a)) for a in arms])
    ax_box.invert_yaxis()
    ax_box.set_xlabel(f"step time ({unit})")
    ax_box.set_title("box: p25-p75, whiskers p1-p99; dots: trial medians")
    return to_img(fig, f"Step-time distributions of class {class_name} per arm")
