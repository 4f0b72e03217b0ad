"""Staging bandwidth vs transfer size per arm (from `placebench staging --json` files): the median over
samples with the p10-p90 band, log-scaled sizes. 1 GB/s = 1e9 B/s, as placebench reports it."""
from collections import defaultdict

from .load import Doc
from .plotting import arm_colour, figure, human_bytes, to_img


def staging_series(docs: list[Doc]) -> dict[tuple, list[tuple]]:
    """{(arm, direction, memory, backend): [(bytes, median, p10, p90)]}"""
    series = defaultdict(list)
    for d in docs:
        backend = d.data.get("backend", "?")
        for r in d.data.get("rows", []):
            key = (r.get("arm"), r.get("direction"), r.get("memory"), backend)
            series[key].append((r.get("bytes"), r.get("gbps_median"), r.get("gbps_p10"), r.get("gbps_p90")))
    return {k: sorted(v, key=lambda p: p[0]) for k, v in series.items()}  # by size (a bandwidth may be null)


def staging_figure(docs: list[Doc]) -> str | None:
    series = staging_series(docs)
    if not series:
        return None
    fig, ax = figure(8, 3.6)
    # Label only what differs between series, so the legend stays short.
    varying = [i for i in range(1, 4) if len({k[i] for k in series}) > 1]
    sizes = set()
    for key, pts in series.items():
        x = [p[0] for p in pts]
        sizes.update(x)
        label = " ".join([key[0]] + [str(key[i]) for i in varying])
        ax.plot(x, [p[1] for p in pts], marker="o", markersize=3.5, color=arm_colour(key[0]), label=label)
        if all(p[2] is not None and p[3] is not None for p in pts):
            ax.fill_between(x, [p[2] for p in pts], [p[3] for p in pts], color=arm_colour(key[0]), alpha=0.15, linewidth=0)
    ax.set_xscale("log", base=2)
    ticks = sorted(sizes)
    if len(ticks) > 8:
        ticks = ticks[:: max(1, len(ticks) // 8)]
    ax.set_xticks(ticks, [human_bytes(t) for t in ticks])
    ax.set_xlabel("bytes per copy")
    ax.set_ylabel("GB/s (median; band p10-p90)")
    common = [f"{name} {next(iter(series))[i]}" for i, name in ((1, "direction"), (2, "memory"), (3, "backend")) if i not in varying]
    ax.set_title("Staging bandwidth vs size per arm" + (f" ({', '.join(common)})" if common else ""))
    ax.legend(fontsize=8)
    return to_img(fig, "Staging bandwidth vs size per arm")
