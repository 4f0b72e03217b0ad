"""The History section (`placebench history changes --json`, docs/reports.md): the first-screen sentence (how
many series changed, on which nodes), the change points with what changed on the node, the fleet changes,
a chart per series (fig_history.py) and the series too short to judge, which are listed and never drawn:
a chart without a change would read as "stable", and the detector has not judged them."""
from .fig_history import NO_EVIDENCE, node_count, relative_text, scale, series_figure, when
from .htmlkit import note, num, table
from .load import Doc

# Series drawn (about 0.15 s each); the others keep their rows in the tables, as MAX_DRAWN_RUNS does for runs.
MAX_DRAWN_SERIES = 24
NODES_NAMED = 6
FOLDED_ROWS = 20  # a longer list of series not judged is one click away
DEFAULT_NEEDED = 6  # 2 x the detector's min_segment (docs/statistics.md, "Change points")


def series_key(series: dict) -> tuple[str, ...]:
    return tuple(str(series.get(k)) for k in ("node", "class", "arm", "metric"))


def _newest(series: dict) -> tuple[object, int]:
    """Which of two copies of a series to show: the one whose last run is latest, then the longer."""
    starts = [when(p["start"]) for p in series.get("points") or [] if p.get("start")]
    return (max(starts) if starts else when("0001-01-01T00:00:00"), len(series.get("points") or []))


def merged(docs: list[Doc]) -> tuple[list[dict], int]:
    """(every series once, how many copies were left out): a CI job that keeps each night's changes file has
    the same series in several; the copy with the latest run is shown. A series carries its file's
    `min_runs` when it has none of its own."""
    chosen: dict[tuple[str, ...], dict] = {}
    copies = 0
    for d in docs:
        for s in d.data.get("series", []):
            if s.get("min_runs") is None and d.data.get("min_runs") is not None:
                s = dict(s, min_runs=d.data["min_runs"])
            key = series_key(s)
            if key in chosen:
                copies += 1
                if _newest(s) <= _newest(chosen[key]):
                    continue
            chosen[key] = s
    return list(chosen.values()), copies


def all_series(docs: list[Doc]) -> list[dict]:
    return merged(docs)[0]


def fleet_changes(docs: list[Doc]) -> list[dict]:
    """The files' fleet changes, each once (the same one in several files)."""
    seen: dict[tuple[str, ...], dict] = {}
    for f in (f for d in docs for f in d.data.get("fleet_changes", [])):
        key = (str(when(f.get("start"))), *(str(f.get(k)) for k in ("class", "arm", "metric")))
        if key not in seen or node_count(f) > node_count(seen[key]):
            seen[key] = f
    return list(seen.values())


# The statuses of a series the detector judged (history changes writes "changed" or "no-change"; "ok" in
# the first draft of the format).
JUDGED = ("changed", "no-change", "ok")


def judged(series: dict) -> bool:
    return series.get("status") in JUDGED


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
    fleet = len(fleet_changes(docs))
    rest = (f"; {fleet} fleet change{'s' if fleet > 1 else ''}, seen on most nodes at once" if fleet else "") + \
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
            start = f"{when(p['start']):%Y-%m-%d %H:%M}" if p.get("start") else "no start time"
            levels = [None if c.get(k) is None else c[k] / div for k in ("before", "after")]
            rows.append([s.get("node"), name(s), f"{start} (run {c['index'] + 1})",
                         relative_text(c), f"{num(levels[0])} -> {num(levels[1])} {unit}",
                         num(c.get("p_value"), 2), c.get("attribution") or NO_EVIDENCE,
                         "yes" if c.get("fleet") else "no"])
    return table(["node", "series", "from run (UTC)", "change", "level before -> after", "p", "what changed on the node",
                  "fleet"], rows)


def fleet_table(docs: list[Doc]) -> str:
    rows = [[f"{when(f['start']):%Y-%m-%d %H:%M}" if f.get("start") else "?",
             f"{f.get('class')} / {f.get('arm')} / {f.get('metric')}",
             f"{node_count(f)}: {', '.join(map(str, f['nodes']))}" if isinstance(f.get("nodes"), list) else f.get("nodes")]
            for f in sorted(fleet_changes(docs), key=lambda f: str(when(f.get("start"))))]
    if not rows:
        return note("No fleet change: no change was seen on most nodes at once.")
    return ("<h3>Fleet changes</h3>" + table(["from (UTC)", "series", "nodes"], rows)
            + note("A change seen on most nodes with the series at once: the fleet moved (a new placebench, "
                   "driver or image), not one node. Drawn in purple: dashed where the node's own change is one, dotted on a node's chart "
                   "without a change of its own there."))


def not_judged_why(series: dict) -> str:
    n = len(series.get("points", []))
    if series.get("status") != "too-short":
        return f"not judged (status {series.get('status')!r}): unknown"
    if series.get("min_runs") is None:
        return f"not enough runs to judge ({n} of {DEFAULT_NEEDED} needed, the detector default)"
    return f"not enough runs to judge ({n} of {series['min_runs']} needed)"


def not_judged_table(docs: list[Doc]) -> str:
    rows = [[s.get("node"), name(s), len(s.get("points", [])), not_judged_why(s)]
            for s in sorted(all_series(docs), key=series_key) if not judged(s)]
    if not rows:
        return ""
    listed = table(["node", "series", "runs", "why"], rows)
    if len(rows) > FOLDED_ROWS:
        listed = f"<details><summary>{len(rows)} series not judged</summary>{listed}</details>"
    return ("<h3>Series not judged</h3>" + listed
            + note("These are not drawn: with too few runs no change can be found, which is not stability."))


def charts(docs: list[Doc]) -> str:
    fleet = fleet_changes(docs)
    series = [s for s in all_series(docs) if judged(s) and s.get("points")]
    series.sort(key=lambda s: (not changed(s), str(s.get("node")), name(s)))
    parts = [series_figure(s, fleet) for s in series[:MAX_DRAWN_SERIES]]
    if len(series) > MAX_DRAWN_SERIES:
        parts.append(note(f"{len(series) - MAX_DRAWN_SERIES} more series are not drawn (the first "
                          f"{MAX_DRAWN_SERIES}, changed ones first, are); their changes are in the table above."))
    return "<h3>Series</h3>" + "".join(parts) if parts else ""


def section(docs: list[Doc]) -> str:
    series, copies = merged(docs)
    moved = sorted((s for s in series if changed(s)), key=series_key)
    parts = [note(f"{copies} copies of series found in more than one file left out: each series is shown once, "
                  "from the file with its latest run.")] if copies else []
    parts.append("<h3>Change points</h3>" + changes_table(moved) if moved
                 else note("No change point in the series judged."))
    parts.append(fleet_table(docs))
    parts.append(charts(docs))
    parts.append(not_judged_table(docs))
    parts.append(note(f"From {', '.join(d.name for d in docs)} (placebench history changes --json). Each point is one "
                      "run's statistic, the band its CI over rounds; a solid orange line is a change on this node, "
                      "labelled with the change of level and what changed in the node's evidence; the method and "
                      "its false-alarm rate: docs/statistics.md."))
    return "".join(parts)
