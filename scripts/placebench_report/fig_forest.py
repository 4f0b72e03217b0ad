"""Forest plot: every compared arm's paired ratio against its class's baseline, with its CI, one row per
(class, arm), over the equivalence band [-margin, +margin] of each class (docs/statistics.md, verdicts)."""
import math

from .plotting import VERDICT_COLOURS, figure, to_img


def forest_rows(runs):
    rows = []
    for run in runs:
        for c in run.classes():
            for a in c.get("arms", []):
                if a.get("arm") == c.get("baseline"):
                    continue
                label = f"{c.get('name')} / {a.get('arm')} vs {c.get('baseline')}"
                if len(runs) > 1:
                    label = f"{run.name}: {label}"
                rows.append({"label": label, "margin": c.get("margin_pct") or 0.0, "ratio": a.get("ratio_pct"),
                             "ci": a.get("ratio_ci_pct"), "verdict": a.get("verdict", "inconclusive"),
                             "statistic": c.get("statistic", "median")})
    return rows


def finite_ci(ci):
    return bool(ci) and all(v is not None and math.isfinite(v) for v in ci)


def forest_figure(runs):
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
        colour = VERDICT_COLOURS.get(r["verdict"], "#888888")
        if r["ratio"] is None:
            ax.text(0, i, "  no ratio yet (fewer than 2 paired rounds)", va="center", fontsize=8, color="#666666")
            continue
        if finite_ci(r["ci"]):
            ax.plot(r["ci"], [i, i], color=colour, linewidth=2.2)
            span += list(r["ci"])
        ax.plot(r["ratio"], i, "o", color=colour, markersize=6, markeredgecolor="black", markeredgewidth=0.4)
        span.append(r["ratio"])
        ax.text(1.01, i, r["verdict"], transform=ax.get_yaxis_transform(), va="center", fontsize=8, color=colour)
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
