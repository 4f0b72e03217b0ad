"""Shared drawing helpers: the Agg backend, one colour per arm across every figure, time units, and a
figure turned into an embedded <img> (base64 PNG, so the report needs no network and no side files)."""
import base64
import html
import io
from collections.abc import Iterable
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

plt.rcParams.update({
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.fonttype": "none",
})

# Fixed colours for the five placement arms (docs/placement.md), so an arm looks the same everywhere.
ARM_COLOURS = {
    "local": "#1b9e77",
    "remote": "#d95f02",
    "unpinned": "#7570b3",
    "cpu-local-mem-remote": "#e7298a",
    "cpu-remote-mem-local": "#66a61e",
}
_EXTRA = ["#e6ab02", "#a6761d", "#666666", "#1f78b4", "#b15928"]

VERDICT_COLOURS = {
    "faster": "#1b9e77",
    "slower": "#d95f02",
    "equivalent": "#1f78b4",
    "inconclusive": "#888888",
    "baseline": "#333333",
    "control": "#9a9a9a",
    "unrealised": "#9a9a9a",
}

# Arms that measured no placement of their own (summary.json v2 `role`): "control" ran on the baseline's
# node (a degenerate placement, an A/A control), "unrealised" could not be placed. Every figure draws them
# grey and hatched with the role in the label, so they are never read as a comparison.
NOT_COMPARED = ("control", "unrealised")
NOT_COMPARED_COLOUR = "#9a9a9a"
NOT_COMPARED_HATCH = "///"


def arm_colour(arm: object, role: str | None = None) -> str:
    if role in NOT_COMPARED:
        return NOT_COMPARED_COLOUR
    if arm in ARM_COLOURS:
        return ARM_COLOURS[arm]
    return _EXTRA[sum(map(ord, str(arm))) % len(_EXTRA)]


def arm_label(arm: object, role: str | None = None) -> str:
    """The arm's name, with "(control)" or "(unrealised)" for an arm that is no comparison."""
    return f"{arm} ({role})" if role in NOT_COMPARED else str(arm)


def time_unit(values_ns: Iterable[float | None]) -> tuple[str, float]:
    """A readable unit for times given in ns: (name, divisor)."""
    vals = [v for v in values_ns if v is not None]
    top = max(vals) if vals else 0
    for name, div in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if top >= div:
            return name, div
    return "ns", 1.0


def human_bytes(n: float) -> str:
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if n == int(n) else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def figure(width: float = 7.5, height: float = 3.2, ncols: int = 1, nrows: int = 1, **kw: Any) -> tuple[Figure, Any]:
    """plt.subplots: (the figure, its axes: one Axes, or an array of them)."""
    return plt.subplots(nrows, ncols, figsize=(width, height), **kw)


def to_img(fig: Figure, alt: str) -> str:
    """The figure as an <img> with a base64 PNG; closes the figure."""
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img class="fig" alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'
