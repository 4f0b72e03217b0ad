"""The History section (`placebench history changes --json`, docs/reports.md): the first-screen sentence (how
many series changed, on which nodes), the change points with what changed on the node, the fleet changes,
a chart per series (fig_history.py) and the series too short to judge, which are listed and never drawn:
a chart without a change would read as "stable", and the detector has not judged them."""
from .fig_history import NO_EVIDENCE, scale, series_figure, when
from .htmlkit import note, num, table
from .load import Doc

# Series drawn (about 0.15 s each); the others keep their rows in the tables, as MAX_DRAWN_RUNS does for runs.
MAX_DRAWN_SERIES = 24
NODES_NAMED = 6
DEFAULT_NEEDED = 6  # 2 x the detector's min_segment (docs/statistics.md, "Change points")


def all_series(docs: list[Doc]) -> list[dict]:
    return [s for d in docs for s in d.data.get("series", [])]


def judged(series: dict) -> bool:
    return series.get("status") == "ok"


def changed(series: dict) -> bool:
    return judged(series) and bool(series.get("changes"))


def _names(nodes: list[str]) -> str:
    shown = nodes[:NODES_NAMED]
    more = f" and {len(nodes) - len(shown)} more" if len(nodes) > len(shown) else ""
    if len(shown) > 1 and not more:
        return ", ".join(shown[:-1]) + " and " + shown[-1]
    return ", ".join(shown) + more


def sentence(docs: list[Doc]) -> str | None:
    """One sentence for the first screen, None without a history file."""
    if not docs:
        return None
    series = all_series(docs)
    ok = [s for s in series if judged(s)]
    moved = [s for s in ok if changed(s)]
    short = len(series) - len(ok)
    fleet = sum(len(d.data.get("fleet_changes", [])) for d in docs)
    rest = (f"; {fleet} fleet change(s), seen on most nodes at once" if fleet else "") + \
           (f"; {short} series not judged (too few runs)" if short else "") + "; details under History."
    if moved:
        nodes = sorted({str(s.get("node")) for s in moved})
        return f"History: {len(moved)} of {len(ok)} series judged changed level, on {_names(nodes)}{rest}"
    if ok:
        return f"History: no change of level found in the {len(ok)} series judged{rest}"
    if not series:
        return "History: the history file holds no series (no run in the store matched its filters)."
    return f"History: no series has enough runs to judge yet ({len(series)} series){rest}"


def name(series: dict) -> str:
    return f"{series.get('class')} / {series.get('arm')} / {series.get('metric')}"


def changes_table(series: list[dict]) -> str:
    rows = []
    for s in series:
        unit, div = scale(s)
        for c in sorted(s["changes"], key=lambda c: c["index"]):
            p = s["points"][c["index"]]
            rows.append([s.get("node"), name(s), f"{when(p['start']):%Y-%m-%d %H:%M} (run {c['index'] + 1})",
                         f"{c['relative'] * 100:+.1f}%", f"{num(c['before'] / div)} -> {num(c['after'] / div)} {unit}",
                         num(c.get("p_value"), 2), c.get("attribution") or NO_EVIDENCE,
                         "yes" if c.get("fleet") else "no"])
    return table(["node", "series", "from run (UTC)", "change", "level before -> after", "p", "what changed on the node",
                  "fleet"], rows)


def fleet_table(docs: list[Doc]) -> str:
    rows = [[f"{when(f['start']):%Y-%m-%d %H:%M}", f"{f.get('class')} / {f.get('arm')} / {f.get('metric')}",
             f.get("nodes")] for d in docs for f in d.data.get("fleet_changes", [])]
    if not rows:
        return note("No fleet change: no change was seen on most nodes at once.")
    return ("<h3>Fleet changes</h3>" + table(["from (UTC)", "series", "nodes"], rows)
            + note("A change seen on most nodes with the series at once: the fleet moved (a new placebench, "
                   "driver or image), not one node. Drawn dashed, in purple."))


def needed(series: dict, doc: Doc) -> tuple[int, bool]:
    """(runs needed to judge, whether the file says so)."""
    for where in (series, doc.data):
        if where.get("runs_needed") is not None:
            return where["runs_needed"], True
    return DEFAULT_NEEDED, False


def not_judged_table(docs: list[Doc]) -> str:
    rows = []
    for d in docs:
        for s in d.data.get("series", []):
            if judged(s):
                continue
            n = len(s.get("points", []))
            if s.get("status") == "too-short":
                m, stated = needed(s, d)
                why = f"not enough runs to judge ({n} of {m} needed{'' if stated else ', the detector default'})"
            else:
                why = f"not judged (status {s.get('status')!r}): unknown"
            rows.append([s.get("node"), name(s), n, why])
    if not rows:
        return ""
    return ("<h3>Series not judged</h3>" + table(["node", "series", "runs", "why"], rows)
            + note("These are not drawn: with too few runs no change can be found, which is not stability."))


def charts(docs: list[Doc]) -> str:
    fleet = [f for d in docs for f in d.data.get("fleet_changes", [])]
    series = [s for s in all_series(docs) if judged(s) and s.get("points")]
    series.sort(key=lambda s: (not changed(s), str(s.get("node")), name(s)))
    parts = [series_figure(s, fleet) for s in series[:MAX_DRAWN_SERIES]]
    if len(series) > MAX_DRAWN_SERIES:
        parts.append(note(f"{len(series) - MAX_DRAWN_SERIES} more series are not drawn (the first "
                          f"{MAX_DRAWN_SERIES}, changed ones first, are); their changes are in the table above."))
    return "<h3>Series</h3>" + "".join(parts) if parts else ""


def section(docs: list[Doc]) -> str:
    series = all_series(docs)
    moved = [s for s in series if changed(s)]
    moved.sort(key=lambda s: (str(s.get("node")), name(s)))
    parts = ["<h3>Change points</h3>" + changes_table(moved) if moved
                 else note("No change point in the series judged.")]
    parts.append(fleet_table(docs))
    parts.append(charts(docs))
    parts.append(not_judged_table(docs))
    parts.append(note(f"From {', '.join(d.name for d in docs)} (placebench history changes --json). Each point is one "
                      "run's statistic, the band its CI over rounds; a solid orange line is a change on this node, "
                      "labelled with the change of level and what changed in the node's evidence; the method and "
                      "its false-alarm rate: docs/statistics.md."))
    return "".join(parts)
