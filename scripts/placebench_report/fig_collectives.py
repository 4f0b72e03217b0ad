"""Collectives: bus bandwidth vs message size, one panel per operation, one line per arm (from
`placebench collective --json` files; busbw as nccl-tests defines it, docs/cli.md)."""
from collections import defaultdict

from .load import Doc
from .plotting import arm_colour, figure, human_bytes, to_img


def collective_series(docs: list[Doc]) -> dict[str, dict[tuple, list[tuple]]]:
    """{op: {(label, arm): [(size, busbw, variant)]}}; variant = type and in-place/out-of-place, which
    nccl-tests reports as separate rows of one size."""
    ops = defaultdict(lambda: defaultdict(list))
    for d in docs:
        cfg = d.data.get("config") or {}
        arm = cfg.get("arm", "?")
        label = f"{arm} {d.data.get('backend', '')} x{d.data.get('nranks', '?')}".strip()
        for r in d.data.get("rows", []):
            if isinstance(r.get("busbw"), (int, float)) and r.get("size") is not None:
                mode = "in-place" if r.get("in_place") else "out-of-place"
                ops[r.get("op", "?")][(label, arm)].append((r["size"], r["busbw"], f"{r.get('type', '')} {mode}".strip()))
    return ops


def collectives_figure(docs: list[Doc]) -> str | None:
    ops = collective_series(docs)
    if not ops:
        return None
    names = sorted(ops)
    ncols = min(2, len(names))
    nrows = (len(names) + ncols - 1) // ncols
    fig, axes = figure(5 * ncols, 3.0 * nrows, ncols=ncols, nrows=nrows, squeeze=False)
    for idx, op in enumerate(names):
        ax = axes[idx // ncols][idx % ncols]
        sizes = set()
        for (label, arm), pts in sorted(ops[op].items()):
            types = sorted({p[2] for p in pts if p[2]})
            for ty in types or [None]:
                sel = sorted((p[0], p[1]) for p in pts if p[2] == ty)
                sizes.update(s for s, _ in sel)
                ax.plot([s for s, _ in sel], [b for _, b in sel], marker="o", markersize=3, color=arm_colour(arm),
                        linestyle="--" if ty and "in-place" in ty.split() else "-",
                        label=label + (f" {ty}" if len(types) > 1 else ""))
        ax.set_xscale("log", base=2)
        ticks = sorted(sizes)
        if len(ticks) > 6:
            ticks = ticks[:: max(1, len(ticks) // 6)]
        ax.set_xticks(ticks, [human_bytes(t) for t in ticks])
        ax.set_title(f"{op}: bus bandwidth")
        ax.set_xlabel("message size")
        ax.set_ylabel("busbw (GB/s)")
        ax.legend(fontsize=7)
    for idx in range(len(names), nrows * ncols):
        axes[idx // ncols][idx % ncols].set_visible(False)
    return to_img(fig, "Collective bus bandwidth vs size per arm")
