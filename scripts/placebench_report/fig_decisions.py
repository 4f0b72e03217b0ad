"""Decisions (`placebench decide --json`, docs/decisions.md): the per-class policy table and, per class,
efficiency (GPU-minutes per job) against turnaround for strict, prefer and any, each with its CI carried
from the measured ratio; the recommended policy is ringed."""
from .htmlkit import Markup, badge, esc, note, num, table
from .load import Doc
from .plotting import figure, to_img

POLICY_COLOURS = {"strict": "#1b9e77", "prefer": "#e6ab02", "any": "#d95f02"}


def policy_table(cls: dict) -> str:
    rows = []
    for p in cls.get("policies", []):
        rows.append([p.get("policy"), num(p.get("remote_share"), 3), num(p.get("exec_min")), num(p.get("queue_min")),
                     num(p.get("turnaround_min")), num(p.get("gpu_min_per_job")),
                     f"{num(p.get('gpu_min_saved_vs_any'))} ({num(p.get('gpu_pct_saved_vs_any'), 3)}%)",
                     num(p.get("turnaround_delta_min_vs_any")), num(p.get("cost_per_job")), num(p.get("score"))])
    return table(["policy", "remote share", "exec (min)", "queue (min)", "turnaround (min)", "GPU-min / job",
                  "saved vs any (GPU-min)", "turnaround vs any (min)", "cost / job", "score"], rows)


def recommendation_badge(c: dict) -> Markup:
    """A class's recommendation as a badge: a policy green, inconclusive grey, none red."""
    rec = c.get("recommendation", "none")
    return badge(rec, "ok" if rec in ("strict", "prefer", "any") else "warn" if rec == "inconclusive" else "bad")


def summary_table(doc: Doc) -> str:
    rows = []
    for c in doc.data.get("classes", []):
        why = c.get("rationale") or c.get("reason") or ""
        if c.get("settle"):
            why += " Settle: " + c["settle"]
        rows.append([c.get("name"), recommendation_badge(c), c.get("leaning") or "-",
                     f"{num(c.get('break_even_ratio_pct'), 3)}%" if c.get("break_even_ratio_pct") is not None else "-", why])
    return table(["class", "recommendation", "leaning", "break-even ratio", "why"], rows)


def tradeoff_figure(doc: Doc) -> str | None:
    classes = [c for c in doc.data.get("classes", []) if c.get("decidable", True) and c.get("policies")]
    if not classes:
        return None
    ncols = min(3, len(classes))
    nrows = (len(classes) + ncols - 1) // ncols
    fig, axes = figure(4.2 * ncols, 3.2 * nrows, ncols=ncols, nrows=nrows, squeeze=False)
    for idx, c in enumerate(classes):
        ax = axes[idx // ncols][idx % ncols]
        for p in c["policies"]:
            x, y = p.get("turnaround_min"), p.get("gpu_min_per_job")
            if x is None or y is None:
                continue
            xci, yci = p.get("turnaround_min_ci"), p.get("gpu_min_per_job_ci")
            colour = POLICY_COLOURS.get(p.get("policy"), "#666666")
            # A CI end written as null (not finite) draws no bar.
            xerr = [[x - xci[0]], [xci[1] - x]] if xci and None not in xci else None
            yerr = [[y - yci[0]], [yci[1] - y]] if yci and None not in yci else None
            ax.errorbar([x], [y], xerr=xerr, yerr=yerr, fmt="o", color=colour, capsize=3, label=p.get("policy"))
            if p.get("policy") == c.get("recommendation"):
                ax.plot([x], [y], "o", markersize=14, markerfacecolor="none", markeredgecolor="black")
        ax.set_xlabel("turnaround (min)  ← better")
        ax.set_ylabel("GPU-min per job  ← better")
        ax.set_title(f"{c.get('name')}: {c.get('recommendation')}", fontsize=9)
        ax.legend(fontsize=7)
        ax.margins(0.15)
    for idx in range(len(classes), nrows * ncols):
        axes[idx // ncols][idx % ncols].set_visible(False)
    return to_img(fig, "Efficiency against turnaround per policy and class")


def decisions_section(doc: Doc) -> str:
    parts = [note(f"From {doc.path}: source {doc.data.get('source', '?')}."), summary_table(doc)]
    img = tradeoff_figure(doc)
    if img:
        parts.append(img)
        parts.append(note("Ringed: the recommendation. Bars: the CI of the measured ratio carried through "
                          "(docs/decisions.md). Lower-left is better on both axes."))
    for c in doc.data.get("classes", []):
        if c.get("policies"):
            parts.append(f"<h4>{esc(c.get('name'))}: policies</h4>" + policy_table(c))
    return "".join(parts)
