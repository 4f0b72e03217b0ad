"""Command line of scripts/report.py (and `placebench report`)."""
import argparse
import os
import sys
import tempfile

from .load import InputProblem, load_inputs


def parse_args(argv):
    p = argparse.ArgumentParser(prog="report.py", description="One self-contained HTML report of placebench results.")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="run directories, result JSON files (staging, pipeline, collective, gang, decide), or folders of them")
    p.add_argument("-o", "--output", default="report.html", help="HTML file to write (default: report.html)")
    p.add_argument("--title", help="title of the report")
    return p.parse_args(argv)


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".html", dir=directory)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main(argv):
    args = parse_args(argv)
    try:
        inputs = load_inputs(args.inputs)
    except InputProblem as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    for w in inputs.warnings:
        print(f"report.py: warning: {w}", file=sys.stderr)
    from .page import build_page  # matplotlib loads only once the inputs are good

    html = build_page(inputs, args.title)
    try:
        write_atomically(args.output, html)
    except OSError as e:
        print(f"report.py: {args.output}: cannot write ({e.strerror}); check the directory", file=sys.stderr)
        return 2
    print(f"report.py: wrote {args.output} ({len(html) // 1024} KiB)")
    return 0
