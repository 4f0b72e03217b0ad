"""Gang runs (`placebench gang --json`): a per-rank timeline from process start to release. Each attempt
is drawn as waiting (ready -> joined: resources held while the gang is incomplete), initialising (joined ->
first step) and working (first step -> released); the stranded interval of every rank (own ready -> group
ready, or -> release for an abandoned attempt) is hatched red, and the attempt windows of the schedule
are shaded. Times are seconds since the earliest process start (docs/decisions.md, cost --from)."""
from .load import Doc
from .plotting import figure, to_img

STRANDED = "#d62728"


def _attempt_segments(a: dict, group_ready: float | None, completed: bool) -> list[tuple[str, float, float]]:
    ready, joined, first, released = a.get("ready_s"), a.get("joined_s"), a.get("first_step_s"), a.get("released_s")
    segs = []
    if ready is None:
        return segs
    end_stranded = group_ready if completed and group_ready is not None else released
    if end_stranded is not None and end_stranded > ready:
        segs.append(("stranded", ready, end_stranded))
    if completed and joined is not None and first is not None:
        segs.append(("init", joined, first))
    if completed and first is not None and released is not None:
        segs.append(("work", first, released))
    return segs


def gang_figure(doc: Doc) -> str | None:
    g = doc.data
    ranks = g.get("ranks") or []
    if not ranks:
        return None
    cfg = g.get("config") or {}
    completed_attempt = g.get("completed_attempt")
    group_ready = g.get("group_ready_s")
    fig, ax = figure(9, 1.3 + 0.38 * len(ranks))
    # The schedule's attempt windows [S_a, S_a + D], S_a = T0 + a (D + B).
    t0, d, b = g.get("schedule_start_s"), cfg.get("deadline_s"), cfg.get("backoff_s", 0)
    if t0 is not None and d:
        for a in range(int(cfg.get("retries", 0)) + 1):
            s = t0 + a * (d + b)
            ax.axvspan(s, s + d, color="#999999", alpha=0.10, linewidth=0)
            ax.text(s, len(ranks) - 0.35, f" attempt {a} window", fontsize=7, color="#555555")
    colours = {"init": "#e6ab02", "work": "#1b9e77"}
    labelled = set()
    xmax = 0.0
    for i, r in enumerate(ranks):
        start = r.get("process_start_s", 0.0)
        ax.plot([start], [i], marker="|", color="black", markersize=9)
        for a in r.get("attempts", []):
            done = completed_attempt is not None and a.get("attempt") == completed_attempt
            for kind, x0, x1 in _attempt_segments(a, group_ready, done):
                xmax = max(xmax, x1)
                label = {"stranded": "stranded (holds GPUs, gang incomplete)", "init": "initialising",
                         "work": "useful steps"}[kind] if kind not in labelled else None
                labelled.add(kind)
                if kind == "stranded":
                    ax.barh(i, x1 - x0, left=x0, height=0.5, color=STRANDED, alpha=0.35, hatch="///",
                            edgecolor=STRANDED, label=label)
                else:
                    ax.barh(i, x1 - x0, left=x0, height=0.5, color=colours[kind], label=label)
            if a.get("released_s") is not None:
                ax.plot([a["released_s"]], [i], marker="x", color="black", markersize=5)
                xmax = max(xmax, a["released_s"])
        if not r.get("attempts"):
            ax.text(start, i, "  never joined" if r.get("missing") else "  no timeline reported", va="center",
                    fontsize=8, color=STRANDED)
    if group_ready is not None:
        ax.axvline(group_ready, color="black", linestyle="--", linewidth=1)
        ax.text(group_ready, -0.6, " group ready", fontsize=8)
    roles = ["missing" if r.get("missing") else "late" if r.get("late") else "on time" for r in ranks]
    ax.set_yticks(range(len(ranks)), [f"rank {r.get('rank')} ({role}) {r.get('host', '')}" for r, role in zip(ranks, roles)])
    ax.set_ylim(len(ranks) - 0.2, -1.0)
    ax.set_xlim(0, max(xmax, (t0 or 0) + (d or 0)) * 1.04 or 1)
    ax.set_xlabel("seconds since the earliest process start  (|: process start, x: resources released)")
    ax.set_title(f"Gang {doc.name}: {g.get('outcome')}, stranded {g.get('stranded_gpu_s', 0):.2f} GPU-s "
                 f"({cfg.get('gpus_per_rank', 1)} GPU per rank), retries {g.get('retries', 0)}")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="y", alpha=0)
    return to_img(fig, f"Per-rank timeline of gang {doc.name} with the stranded interval")
