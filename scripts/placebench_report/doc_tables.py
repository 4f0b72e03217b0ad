"""The sections of queue, feasible and fleet results: one table row per file with the figures an operator
looks at first (the full detail stays in the file and in the command's own text output)."""
from .htmlkit import badge, note, num, table
from .load import Doc


def queue_rows(docs: list[Doc]) -> list[list[object]]:
    """One row per combination of every queue replay (placebench queue --json, docs/queue-replay.md)."""
    rows = []
    for d in docs:
        for c in d.data.get("combinations", []):
            name = f"{c.get('locality', '-')}, gang {num(c.get('gang'))}, {c.get('choice', '-')}"
            rows.append([d.name, name, num(c.get("completed_gpu_h")), num(c.get("stranded_gpu_h")),
                         num(c.get("fragmentation_share"))])
    return rows


def feasible_rows(docs: list[Doc]) -> list[list[object]]:
    rows = []
    for d in docs:
        runnable = d.data.get("job_runnable")
        rows.append([d.name, d.data.get("free_gpus"),
                     badge("runnable" if runnable else "not runnable", "ok" if runnable else "bad"),
                     num(d.data.get("job_runnable_relaxed")), len(d.data.get("nodes", []))])
    return rows


def fleet_rows(docs: list[Doc]) -> list[list[object]]:
    rows = []
    for d in docs:
        suspects = d.data.get("suspects", [])
        names = ", ".join(f"{s.get('host')} ({num(s.get('severity_pct'), 3)}%)" for s in suspects) or "none"
        rows.append([d.name, len(d.data.get("nodes", [])), names, len(d.data.get("warnings") or [])])
    return rows


def section(kind: str, docs: list[Doc]) -> tuple[str, str]:
    """(heading, html) of the section of one of these kinds."""
    files = ", ".join(d.name for d in docs)
    if kind == "queue":
        return "Queue replays", (table(["file", "combination", "done GPU-h", "stranded GPU-h", "fragmentation share"],
                                       queue_rows(docs)) + note(f"From {files}; per class: placebench queue."))
    if kind == "feasible":
        return "Free vs runnable capacity", (table(["file", "free GPUs", "job (strict)", "runnable relaxed", "nodes"],
                                                   feasible_rows(docs)) + note(f"From {files}; reasons per node: "
                                                                               "placebench feasible."))
    return "Fleet", (table(["file", "nodes", "suspects (severity)", "warnings"], fleet_rows(docs))
                     + note(f"From {files}; the heat map: placebench fleet --html."))
