"""Who set the pace: one lane per rank over a case's timed calls, from the `pace` object of
`placebench collective --json` rows and `placebench gang --json` (docs/collectives.md, "Who sets the
pace"). Per call a thin bar is the rank's own work before the call (start -> arrive) and a thick bar its
time in the call (arrive -> depart, waiting included); the rank named for a call is marked. Times are
us since the earliest start, on rank 0's clock."""
from .load import Doc
from .plotting import figure, to_img

MAX_CALLS = 24  # the first calls only: a lane chart of hundreds of calls is a grey band
OWN_WORK = "#d95f02"
IN_CALL = "#7570b3"


def _lanes(pace: dict) -> tuple[list, list, object] | None:
    """(lanes [call][rank] = [start, arrive, depart], per-call setters, trial setter) of the best part."""
    if "steps" in pace:  # gang
        return pace.get("lanes") or [], (pace["steps"].get("per_block") or []), pace["steps"].get("setter")
    calls = pace.get("calls") or {}
    return (pace.get("lanes") or {}).get("calls") or [], calls.get("per_block") or [], calls.get("setter")


def pace_cases(doc: Doc) -> list[tuple[str, dict]]:
    """(title, pace) for each part of a result file that has lanes."""
    d = doc.data
    if isinstance(d.get("pace"), dict):
        return [(f"gang {doc.name}", d["pace"])]
    out = []
    for r in d.get("rows", []):
        if isinstance(r.get("pace"), dict):
            mode = "in-place" if r.get("in_place") else "out-of-place"
            out.append((f"{doc.name}: {r.get('op')} {r.get('size')} B {mode}", r["pace"]))
    return out


def pace_figure(title: str, pace: dict) -> str | None:
    got = _lanes(pace)
    if not got or not got[0] or not isinstance(got[0][0], list):
        return None
    lanes, per_block, trial_setter = got
    lanes = lanes[:MAX_CALLS]
    nranks = len(lanes[0])
    fig, ax = figure(9, 1.2 + 0.4 * nranks)
    marked = False
    for b, call in enumerate(lanes):
        setter = per_block[b].get("setter") if b < len(per_block) else "unknown"
        for r, (start, arrive, depart) in enumerate(call):
            ax.barh(r, arrive - start, left=start, height=0.2, color=OWN_WORK,
                    label="own work before the call" if b == 0 and r == 0 else None)
            ax.barh(r, depart - arrive, left=arrive, height=0.55, color=IN_CALL, alpha=0.8,
                    label="in the call (waiting included)" if b == 0 and r == 0 else None)
            if setter == r:
                ax.plot([arrive], [r], marker="v", color="black", markersize=5,
                        label=None if marked else "named for this call: the others waited for it")
                marked = True
    ax.legend(fontsize=7, loc="lower right")
    ax.set_yticks(range(nranks), [f"rank {r}" for r in range(nranks)])
    ax.set_ylim(nranks - 0.4, -0.6)
    ax.set_xlabel("us since the earliest start (rank 0's clock)")
    ax.set_title(f"{title}: pace-setter {trial_setter} (first {len(lanes)} calls)", fontsize=9)
    return to_img(fig, f"Per-rank lanes of {title}: pace-setter {trial_setter}")


def pace_figures(docs: list[Doc]) -> list[str]:
    out = []
    for d in docs:
        for title, pace in pace_cases(d):
            img = pace_figure(title, pace)
            if img:
                out.append(img)
    return out
