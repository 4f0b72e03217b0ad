"""Reads placebench results, checking the schema version of each, and sorts them by kind.

Run directories follow docs/results-schema.md; JSON files are the `--json` outputs documented in
docs/cli.md and docs/decisions.md. A schema_version this report does not know is refused (SchemaError,
exit 2): the report reads only the documented fields, and a newer schema may mean something else by them.
A run directory's run.json and summary.json share one results schema version (2); the `--json` files of
staging, pipeline, collective, gang and decide carry their own (1). `placebench staging --json` and
`pipeline --json` files from before they carried one are read as version 1.
"""
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import validate

# The kinds of result file (not run directories) the report reads, in the order of its sections.
DOC_KINDS = ("pipeline", "staging", "collective", "gang", "decide", "admission", "queue", "feasible", "fleet",
             "history")
# The `kind` of `placebench history changes --json` (docs/history.md); the other history commands' JSON
# (history-add, history-list, history-show) is not a result this report draws.
HISTORY_KIND = "placebench-history-changes"
# A run directory's own record: read by load_run, never as a result file of another kind.
RUN_RECORD = {"run.json", "summary.json"}

# run.json and summary.json of a run directory (docs/results-schema.md).
RUN_SCHEMA_VERSIONS = {2}
# The --json files of staging, pipeline, collective, gang and decide (docs/cli.md, docs/decisions.md).
FILE_SCHEMA_VERSIONS = {1}


class InputProblem(Exception):
    """Bad input: the message is one line naming the file and the fix."""


@dataclass
class Run:
    path: str
    run: dict
    trials: list[dict]
    summary: dict | None
    warnings: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return os.path.basename(os.path.normpath(self.path))

    def classes(self) -> list[dict]:
        return (self.summary or {}).get("classes", [])

    def config_classes(self) -> list[dict]:
        return self.run.get("config", {}).get("classes", [])


@dataclass
class Doc:
    """One JSON result file of a kind other than a run directory."""
    path: str
    kind: str
    data: dict

    @property
    def name(self) -> str:
        return os.path.basename(self.path)


@dataclass
class Inputs:
    runs: list[Run] = field(default_factory=list)
    staging: list[Doc] = field(default_factory=list)
    pipeline: list[Doc] = field(default_factory=list)
    collective: list[Doc] = field(default_factory=list)
    gang: list[Doc] = field(default_factory=list)
    decide: list[Doc] = field(default_factory=list)
    admission: list[Doc] = field(default_factory=list)
    queue: list[Doc] = field(default_factory=list)
    feasible: list[Doc] = field(default_factory=list)
    fleet: list[Doc] = field(default_factory=list)
    history: list[Doc] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Real paths of the run directories, folders and files already read: a symlink (`latest -> run`, a
    # link back up the tree) reaches each of them once, so a run reached twice is one run.
    seen: set[str] = field(default_factory=set)

    def first_visit(self, path: str) -> bool:
        """True the first time `path` (after following every symlink) is met; then False."""
        real = os.path.realpath(path)
        if real in self.seen:
            return False
        self.seen.add(real)
        return True

    def docs(self) -> list[Doc]:
        """Every result file read, of every kind other than a run directory."""
        return [d for kind in DOC_KINDS for d in getattr(self, kind)]

    def empty(self) -> bool:
        return not (self.runs or self.docs())


def check_schema(path: str, obj: object, required: bool = True, known: set[int] = FILE_SCHEMA_VERSIONS,
                 older_fix: str | None = None) -> None:
    """InputProblem unless obj carries a schema_version in `known`; `older_fix` is the fix offered for a
    version older than every known one (default: the report of the placebench version that wrote it)."""
    if not isinstance(obj, dict):
        raise InputProblem(f"{path}: not a JSON object; give a placebench result")
    if "schema_version" not in obj:
        if required:
            raise InputProblem(f"{path}: no schema_version; not a placebench result of a known kind")
        return
    v = obj["schema_version"]
    if not isinstance(v, int) or isinstance(v, bool) or v not in known:
        names = ", ".join(str(k) for k in sorted(known))
        older = isinstance(v, int) and not isinstance(v, bool) and v < min(known)
        fix = older_fix if older and older_fix else "use the report of the placebench version that wrote it"
        raise InputProblem(f"{path}: schema_version {v!r} is not one this report reads ({names}); {fix}")


def read_text(path: str) -> str:
    """The file's text, or InputProblem: a directory, unreadable, or not UTF-8 text."""
    if os.path.isdir(path):
        raise InputProblem(f"{path}: a directory, not a file; restore the file")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise InputProblem(f"{path}: cannot read ({e.strerror}); check that it exists and may be read") from None
    except UnicodeDecodeError as e:
        raise InputProblem(f"{path}: not UTF-8 text (byte {e.start}); restore the file") from None


def read_json(path: str) -> Any:
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as e:
        raise InputProblem(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    except RecursionError:
        raise InputProblem(f"{path}: nested too deeply to be a placebench result") from None


def require_types(value: object, spec: validate.Spec, place: str, fix: str) -> None:
    """InputProblem "PLACE: KEY: expected X, got Y; FIX" when a field the report reads has another type."""
    why = validate.problem_in(value, spec)
    if why:
        raise InputProblem(f"{place}: {why}; {fix}")


DAMAGED = "the file is damaged: restore it, or write it again with placebench"


def read_trials(path: str, warnings: list[str]) -> list[dict]:
    """trials.jsonl: a truncated last line (a crash mid-write) is skipped with a warning, as placebench does.
    Missing, a directory or unreadable is an error, as is a line whose fields have the wrong types."""
    if not os.path.exists(path):
        raise InputProblem(f"{path}: missing: every run directory has one (its trials); restore it, or start a new run")
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    trials = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            trial = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as e:
            if i == len(lines):
                warnings.append(f"{path}:{i}: truncated last line ignored (a crash while it was written)")
                continue
            why = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deeply"
            raise InputProblem(f"{path}:{i}: not valid JSON ({why}); only the last line may be truncated") from None
        require_types(trial, validate.TRIAL, f"{path}:{i}",
                      "the line is damaged: restore trials.jsonl, or delete that line")
        contradiction = validate.trial_contradiction(trial)
        if contradiction:
            raise InputProblem(f"{path}:{i}: {contradiction}; the line is damaged: restore trials.jsonl, or delete "
                               f"that line")
        trials.append(trial)
    return trials


def load_run(path: str) -> Run:
    run_path = os.path.join(path, "run.json")
    run = read_json(run_path)
    check_schema(run_path, run, known=RUN_SCHEMA_VERSIONS)
    require_types(run, validate.RUN, run_path, DAMAGED)
    warnings = []
    trials = read_trials(os.path.join(path, "trials.jsonl"), warnings)
    summary = None
    summary_path = os.path.join(path, "summary.json")
    if os.path.exists(summary_path):
        summary = read_json(summary_path)
        check_schema(summary_path, summary, known=RUN_SCHEMA_VERSIONS,
                     older_fix=f"it was written by an older placebench: rebuild it with "
                               f"`placebench compare --write-summary {path}`")
        for spec in (validate.SUMMARY, validate.SUMMARY_CONDITIONS):
            require_types(summary, spec, summary_path,
                          f"the file is damaged: rebuild it with `placebench compare {path} --write-summary`")
        contradiction = validate.summary_contradiction(summary)
        if contradiction:
            raise InputProblem(f"{summary_path}: {contradiction}; the file is damaged: rebuild it with "
                               f"`placebench compare {path} --write-summary`")
    else:
        warnings.append(f"{path}: no summary.json; verdicts are missing (write it with "
                        f"`placebench compare --write-summary {path}`)")
    return Run(path, run, trials, summary, warnings)


def classify(obj: object) -> str | None:
    """The kind of a JSON result, by the fields its documentation promises; None when unknown."""
    if not isinstance(obj, dict):
        return None
    if obj.get("kind") == "admission" and isinstance(obj.get("jobs"), list):
        return "admission"  # placebench admission --json (docs/admission.md)
    if obj.get("kind") == "queue-replay" and isinstance(obj.get("combinations"), list):
        return "queue"  # placebench queue --json (docs/queue-replay.md)
    if obj.get("kind") == "placebench-fleet" and isinstance(obj.get("nodes"), list):
        return "fleet"  # placebench fleet --json (docs/fleet.md)
    if obj.get("kind") == HISTORY_KIND:
        return "history"  # placebench history changes --json (docs/reports.md, "History")
    if "job_runnable" in obj and isinstance(obj.get("nodes"), list) and "job" in obj:
        return "feasible"  # placebench feasible --json (docs/decisions.md)
    classes = obj.get("classes")
    if isinstance(classes, list) and "source" in obj and all(isinstance(c, dict) and "recommendation" in c for c in classes):
        return "decide"
    if "ranks" in obj and "stranded_gpu_s" in obj:
        return "gang"
    rows = obj.get("rows")
    if isinstance(rows, list) and rows and isinstance(rows[0], dict):
        if "busbw" in rows[0] or "op" in rows[0]:
            return "collective"
        if "gbps_median" in rows[0]:
            return "staging"
    if rows == [] and "backend" in obj:
        return "collective" if "nranks" in obj else "staging"
    if obj.get("workload") == "pipeline" and isinstance(obj.get("steps"), list):
        return "pipeline"
    return None


# Kinds whose --json files from before schema_version was added to them have none: read as version 1.
UNVERSIONED_KINDS = {"staging", "pipeline"}


def load_json_file(path: str, inputs: Inputs, explicit: bool = True) -> None:
    try:
        obj = read_json(path)
    except InputProblem as e:
        if explicit:
            raise
        # Found in a folder: one empty or unreadable file (a step that failed before writing it) is
        # skipped with a warning instead of refusing every other result in the folder.
        inputs.warnings.append(f"{e}: skipped")
        return
    kind = classify(obj)
    if kind is None:
        why = other_history_kind(obj)
        if explicit:
            raise InputProblem(f"{path}: {why or 'not a result this report reads'} (run directory, staging, "
                               "pipeline, collective, gang, decide, admission, queue, feasible, fleet or history "
                               "changes JSON; see docs/reports.md)")
        inputs.warnings.append(f"{path}: skipped, {why or 'not a placebench result of a known kind'}")
        return
    check_schema(path, obj, required=kind not in UNVERSIONED_KINDS)
    fix = f"the file is damaged: restore it, or write it again with `{WRITERS.get(kind, f'placebench {kind} --json')}`"
    require_types(obj, validate.KINDS[kind], path, fix)
    if kind == "decide":
        require_types(obj, validate.DECIDE_UNDER_LOAD, path, fix)
    contradiction = validate.history_contradiction(obj) if kind == "history" else None
    if contradiction:
        raise InputProblem(f"{path}: {contradiction}; {fix}")
    getattr(inputs, kind).append(Doc(path, kind, obj))


# The command that writes a kind, where it is not `placebench KIND --json`.
WRITERS = {"history": "placebench history changes DB --json"}


def other_history_kind(obj: object) -> str | None:
    """"kind: ..." for the JSON of another history command (or another history kind), else None."""
    kind = obj.get("kind") if isinstance(obj, dict) else None
    if isinstance(kind, str) and "history" in kind:
        return f"kind: {kind!r} is not one this report reads ({HISTORY_KIND}, from placebench history changes --json)"
    return None


def add_run(path: str, inputs: Inputs) -> None:
    run = load_run(path)
    inputs.runs.append(run)
    inputs.warnings.extend(run.warnings)


def scan_folder(folder: str, inputs: Inputs, depth: int = 0, in_run: bool = False) -> int:
    """A folder of results (e.g. what a cluster job collected): run directories and JSON results at any
    depth up to 4, also inside a run directory (where the sbatch and MPIJob recipes write decide.json);
    JSON files of other kinds are skipped with a warning. Every directory and file is read once however
    many symlinks reach it (so the work is linear in what the tree holds). Returns how many results were
    found, counting one already read as found."""
    found = 0
    for entry in sorted(os.listdir(folder)):
        full = os.path.join(folder, entry)
        if os.path.isdir(full):
            is_run = os.path.exists(os.path.join(full, "run.json"))
            if not inputs.first_visit(full):
                found += is_run
            elif is_run:
                add_run(full, inputs)
                found += 1 + (scan_folder(full, inputs, depth + 1, in_run=True) if depth < 4 else 0)
            elif depth < 4:
                found += scan_folder(full, inputs, depth + 1)
        elif in_run and entry in RUN_RECORD:
            continue  # the run's own record, read by load_run
        elif entry.endswith(".json") and os.path.isfile(full):
            if not inputs.first_visit(full):
                found += 1
                continue
            before = len(inputs.warnings)
            load_json_file(full, inputs, explicit=False)
            found += len(inputs.warnings) == before
    return found


def load_inputs(paths: Sequence[str]) -> Inputs:
    inputs = Inputs()
    for p in paths:
        if os.path.isdir(p):
            if not inputs.first_visit(p):
                continue  # given twice, or inside a folder given before
            if os.path.exists(os.path.join(p, "run.json")):
                add_run(p, inputs)
                scan_folder(p, inputs, in_run=True)  # decide.json and other results written beside the run
            elif not scan_folder(p, inputs):
                raise InputProblem(f"{p}: neither a run directory (no run.json) nor a folder of results")
        elif os.path.isfile(p):
            if inputs.first_visit(p):
                load_json_file(p, inputs)
        else:
            raise InputProblem(f"{p}: no such file or directory")
    if inputs.empty():
        raise InputProblem("no results found in " + ", ".join(paths))
    return inputs
