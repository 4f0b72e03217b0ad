"""Forest plot: every compared arm's paired ratio against its class's baseline, with its CI, one row per
(class, arm), over the equivalence band [-margin, +margin] of each class (docs/statistics.md, verdicts).
A control arm (an A/A control on the baseline's placement) or an unrealised arm is no comparison: its row
is grey and hatched, with its role in the label."""
import math
from collections.abc import Sequence

from . import interference, roles
from .load import Run
from .plotting import NOT_COMPARED_COLOUR, NOT_COMPARED_HATCH, VERDICT_COLOURS, arm_label, figure, to_img


def forest_rows(runs: list[Run]) -> list[dict]:
    rows = []
    for run in runs:
        arm_roles = roles.of_run(run)
        for c in run.classes():
            # A class run under interference conditions: its first condition's rows, then each other
            # condition's (the arms compared with the baseline under that load), named by condition.
            for i, e in enumerate(interference.entries(c) if interference.has_conditions(c) else [c]):
                for a in e.get("arms", []):
                    recorded = roles.Role(a.get("role") or "compared")
                    role = (arm_roles.get((c.get("name"), a.get("arm"))) or recorded) if i == 0 else recorded
                    if a.get("arm") == e.get("baseline") or role.name == "baseline":
                        continue
                    name = f"{c.get('name')} [{e.get('condition')}]" if interference.has_conditions(c) else c.get("name")
                    label = f"{name} / {arm_label(a.get('arm'), role.name)} vs {e.get('baseline')}"
                    if len(runs) > 1:
                        label = f"{run.name}: {label}"
                    rows.append({"label": label, "margin": e.get("margin_pct") or 0.0, "ratio": a.get("ratio_pct"),
                                 "ci": a.get("ratio_ci_pct"), "verdict": a.get("verdict", "inconclusive"),
                                 "statistic": e.get("statistic", "median"), "role": role})
    return rows


def finite_ci(ci: Sequence[float | None] | None) -> bool:
    return bool(ci) and all(v is not None and math.isfinite(v) for v in ci)


def forest_figure(runs: list[Run]) -> str | None:
    rows = forest_rows(runs)
    if not rows:
        return None
    fig, ax = figure(9, 0.9 + 0.42 * len(rows))
    span = [0.0]
    for i, r in enumerate(rows):
        m = r["margin"]
        # Each class's own equivalence band, shaded behind its row.
        ax.fill_betweenx([i - 0.4, i + 0.4], -m, m, color="#1f78b4", alpha=0.12, linewidth=0)
        span += [-m, m]
        compared = r["role"].compared
        colour = VERDICT_COLOURS.get(r["verdict"], "#888888") if compared else NOT_COMPARED_COLOUR
        if not compared:
            ax.fill_betweenx([i - 0.4, i + 0.4], 0, 1, transform=ax.get_yaxis_transform(), facecolor="none",
                             edgecolor=NOT_COMPARED_COLOUR, hatch=NOT_COMPARED_HATCH, linewidth=0)
        verdict = r["verdict"] if compared else r["role"].name
        if r["ratio"] is None:
            why = roles.role_words(r["role"]) if not compared else "no ratio yet (fewer than 2 paired rounds)"
            ax.text(0, i, f"  {why}", va="center", fontsize=8, color="#666666")
            continue
        if finite_ci(r["ci"]):
            ax.plot(r["ci"], [i, i], color=colour, linewidth=2.2)
            span += list(r["ci"])
        ax.plot(r["ratio"], i, "o", color=colour, markersize=6, markeredgecolor="black", markeredgewidth=0.4)
        span.append(r["ratio"])
        ax.text(1.01, i, verdict, transform=ax.get_yaxis_transform(), va="center", fontsize=8, color=colour)
    lo, hi = min(span), max(span)
    pad = (hi - lo) * 0.08 or 1
    ax.set_xlim(lo - pad, hi + pad)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)), [r["label"] for r in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("arm against baseline, % change of the class statistic (Hodges-Lehmann estimate, CI)")
    ax.set_title("Paired ratios with their CIs; shaded: each class's equivalence band (±margin)")
    ax.grid(axis="y", alpha=0)
    return to_img(fig, "Forest plot of the paired ratios against the baseline per class")
