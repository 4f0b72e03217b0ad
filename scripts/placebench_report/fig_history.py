"""One series of a node's history (`placebench history changes --json`): its value per run with the run's CI
as a band, in run order with the runs' dates under the axis; each change point a vertical line between the
last run before and the first run after it, labelled with the relative change and what changed on the node
(or "no evidence change recorded"); a fleet change (the node's own change flagged `fleet`, or one of the
file's `fleet_changes` for the same class, arm and metric) drawn dashed in another colour; the level of each
segment (the file's `before`/`after`) as a thin line."""
import datetime

from matplotlib.axes import Axes

from .plotting import figure, time_unit, to_img

VALUE = "#1f4e79"
BAND = "#9ecae1"
NODE_CHANGE = "#b54f00"
FLEET_CHANGE = "#6a3d9a"
NO_EVIDENCE = "no evidence change recorded"

# The unit of a series whose file gives none: the history store's (docs/history.md: the class statistic,
# median, p99, ... in ns or throughput in steps/s, and ratio_pct in percent).
METRIC_UNITS = {"median": "ns", "p90": "ns", "p99": "ns", "mean": "ns", "throughput": "steps/s", "ratio_pct": "%"}


def when(text: str | None) -> datetime.datetime | None:
    """A point's start (ISO 8601; UTC when it names no zone); None for a run without a start time."""
    if text is None:
        return None
    t = datetime.datetime.fromisoformat(text)
    return t if t.tzinfo else t.replace(tzinfo=datetime.UTC)


def unit_of(series: dict) -> str | None:
    return series.get("unit") or METRIC_UNITS.get(str(series.get("metric")))


def scale(series: dict) -> tuple[str, float]:
    """(axis unit, divisor): times in a readable unit, anything else as written."""
    unit = unit_of(series)
    if unit == "ns":
        return time_unit(p["value"] for p in series["points"])
    return unit or "", 1.0


def change_label(change: dict) -> str:
    """"+6.0%: driver 550.54 -> 560.28" (what the marker says)."""
    what = change.get("attribution") or NO_EVIDENCE
    return f"{relative_text(change)}: {what}"


def relative_text(change: dict) -> str:
    """"+6.0%", or "change ?" where the file has none (a level of 0 before it)."""
    rel = change.get("relative")
    return "change ?" if rel is None else f"{rel * 100:+.1f}%"


def node_count(fleet_change: dict) -> int:
    nodes = fleet_change.get("nodes")
    return len(nodes) if isinstance(nodes, list) else nodes


def fleet_positions(series: dict, fleet_changes: list[dict]) -> list[tuple[float, dict]]:
    """(x, fleet change) for the file's fleet changes of this series' class, arm and metric: placed before
    the first run of this node that started at or after the fleet change; none when no run did."""
    points = series["points"]
    key = (series.get("class"), series.get("arm"), series.get("metric"))
    out = []
    for f in fleet_changes:
        at = when(f.get("start"))
        if (f.get("class"), f.get("arm"), f.get("metric")) != key or at is None:
            continue
        later = [i for i, p in enumerate(points) if p.get("start") is not None and when(p["start"]) >= at]
        if later and later[0] > 0:
            out.append((later[0] - 0.5, f))
    return out


def _band(ax: Axes, xs: list[int], points: list[dict], div: float) -> None:
    """The CI band where a run has both ends (a run without a CI gets no band, not an invented one)."""
    have = [(x, p) for x, p in zip(xs, points) if p.get("ci_low") is not None and p.get("ci_high") is not None]
    if have:
        ax.fill_between([x for x, _ in have], [p["ci_low"] / div for _, p in have],
                        [p["ci_high"] / div for _, p in have], color=BAND, alpha=0.6, linewidth=0,
                        label="CI over rounds")


def _levels(ax: Axes, series: dict, div: float) -> None:
    changes = sorted(series["changes"], key=lambda c: c["index"])
    edges = [0] + [c["index"] for c in changes] + [len(series["points"])]
    for k, c in enumerate(changes):
        if c.get("before") is None or c.get("after") is None:
            continue
        ax.hlines(c["before"] / div, edges[k] - 0.4, c["index"] - 0.5, colors="#555555", linewidth=0.8)
        ax.hlines(c["after"] / div, c["index"] - 0.5, edges[k + 2] - 0.6, colors="#555555", linewidth=0.8)


def _markers(ax: Axes, series: dict, fleet: list[tuple[float, dict]]) -> None:
    own = {c["index"] for c in series["changes"] if c.get("fleet")}
    for n, c in enumerate(sorted(series["changes"], key=lambda c: c["index"])):
        colour, style = (FLEET_CHANGE, "--") if c.get("fleet") else (NODE_CHANGE, "-")
        x = c["index"] - 0.5
        ax.axvline(x, color=colour, linestyle=style, linewidth=1.6)
        label = change_label(c) + (" (fleet)" if c.get("fleet") else "")
        ax.annotate(label, (x, 1 - 0.1 * (n % 3)), xycoords=("data", "axes fraction"), xytext=(4, -2),
                    textcoords="offset points", va="top", fontsize=8, color=colour,
                    bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85})
    for x, f in fleet:
        if round(x + 0.5) in own:
            continue  # the node's own change already says fleet
        ax.axvline(x, color=FLEET_CHANGE, linestyle=":", linewidth=1.6)
        ax.annotate(f"fleet change ({node_count(f)} nodes)", (x, 0.02), xycoords=("data", "axes fraction"),
                    xytext=(4, 2), textcoords="offset points", fontsize=8, color=FLEET_CHANGE)


def _date_ticks(ax: Axes, points: list[dict]) -> None:
    n = len(points)
    step = max(1, -(-n // 8))
    ticks = list(range(0, n, step))
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{when(points[i]['start']):%m-%d}" if points[i].get("start") else "?" for i in ticks])
    ax.set_xlim(-0.6, n - 0.4)


def series_figure(series: dict, fleet_changes: list[dict]) -> str:
    """The chart of one series with points (an <img>)."""
    points = series["points"]
    unit, div = scale(series)
    xs = list(range(len(points)))
    fig, ax = figure(7.5, 2.5)
    _band(ax, xs, points, div)
    ax.plot(xs, [p["value"] / div for p in points], "o-", color=VALUE, markersize=3, linewidth=1, label="value")
    _levels(ax, series, div)
    _markers(ax, series, fleet_positions(series, fleet_changes))
    _date_ticks(ax, points)
    dated = [when(p["start"]) for p in points if p.get("start")]
    span = f"; {dated[0]:%Y-%m-%d} to {dated[-1]:%Y-%m-%d}" if dated else "; no start times"
    unknown = "; ?: a run without a start time" if len(dated) < len(points) else ""
    ax.set_xlabel(f"run, in order (month-day, UTC{span}{unknown})")
    ax.set_ylabel(f"{series.get('metric')}" + (f" ({unit})" if unit else ""))
    ax.set_title(f"{series.get('node')}: {series.get('class')} / {series.get('arm')} / {series.get('metric')}")
    ax.margins(y=0.25)
    ax.legend(loc="lower left", fontsize=7, frameon=False)
    alt = (f"{series.get('node')} {series.get('class')} {series.get('arm')} {series.get('metric')}: "
           f"{len(points)} runs, {len(series['changes'])} change(s)")
    return to_img(fig, alt)
