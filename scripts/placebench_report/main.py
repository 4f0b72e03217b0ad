"""Command line of scripts/report.py (and `placebench report`).

Never loses what is recorded: the output may not be one of the inputs, lie inside a run directory given
or found, or replace an existing file this report did not write (htmlkit.GENERATOR marks the ones it did).
"""
import argparse
import os
import sys
import tempfile
from collections.abc import Sequence

from .htmlkit import GENERATOR
from .load import InputProblem, Inputs, load_inputs

OLD_REPORT = "by scripts/report.py from"  # the header note of reports written before the marker


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="report.py", description="One self-contained HTML report of placebench results.")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="run directories, result JSON files (staging, pipeline, collective, gang, decide, admission, "
                        "queue, feasible, fleet, history changes), or folders of them")
    p.add_argument("-o", "--output", default="report.html",
                   help="HTML file to write (default: report.html; - for standard output); an existing file is "
                        "replaced only when it is a report written by this tool")
    p.add_argument("--title", help="title of the report")
    return p.parse_args(argv)


def written_by_report(path: str) -> bool:
    """An existing file may be replaced when it is empty or an HTML report this tool wrote."""
    try:
        with open(path, "rb") as f:
            head = f.read(64 * 1024).decode("utf-8", "replace")
    except OSError:
        return False
    return head == "" or GENERATOR in head or (head.startswith("<!DOCTYPE html>") and OLD_REPORT in head)


def output_problem(output: str, arg_inputs: Sequence[str], inputs: Inputs) -> str | None:
    """Why writing `output` would lose something (one line), or None."""
    if output == "-":
        return None
    out = os.path.realpath(output)
    again = "; write the report elsewhere (e.g. -o report.html)"
    sources = [*arg_inputs, *(d.path for d in inputs.docs())]
    if any(os.path.realpath(p) == out for p in sources):
        return f"{output}: is one of the inputs{again}"
    for run in inputs.runs:
        run_dir = os.path.realpath(run.path)
        if out == run_dir or out.startswith(run_dir + os.sep):
            return f"{output}: inside the run directory {run.path}, which holds the run's record{again}"
    if os.path.isdir(output):
        return f"{output}: a directory; give the report a file name (e.g. -o {os.path.join(output, 'report.html')})"
    if os.path.lexists(output) and not written_by_report(output):
        return (f"{output}: exists and is not a report written by placebench report; choose another name, "
                "or move that file away first")
    return None


def write_atomically(path: str, text: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".html", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    try:
        inputs = load_inputs(args.inputs)
        problem = output_problem(args.output, args.inputs, inputs)
        if problem:
            raise InputProblem(problem)
        from .page import build_page  # matplotlib loads only once the inputs are good

        html = build_page(inputs, args.title)
    except InputProblem as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    for w in inputs.warnings:
        print(f"report.py: warning: {w}", file=sys.stderr)
    if args.output == "-":
        sys.stdout.write(html)
        return 0
    try:
        write_atomically(args.output, html)
    except OSError as e:
        print(f"report.py: {args.output}: cannot write ({e.strerror}); check the directory", file=sys.stderr)
        return 2
    print(f"report.py: wrote {args.output} ({len(html) // 1024} KiB)")
    return 0
