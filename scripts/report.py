#!/usr/bin/env python3
"""placebench report: one self-contained HTML file from run directories and result JSON files.

Usage: scripts/report.py INPUT [INPUT ...] [-o report.html] [--title TEXT]
INPUT: a run directory (run.json, trials.jsonl, summary.json), a JSON file written by
`placebench staging|pipeline|collective|gang|decide|admission|queue|feasible|fleet --json` or
`placebench history changes DB --json`, or a directory holding such files and run directories.
See docs/reports.md. Exit 0 written, 2 bad input (one line on stderr).

Run by a Python without matplotlib (e.g. the system python3 of the shebang), it re-executes itself with
the checkout's .venv/bin/python (made by scripts/setup.sh) when that exists, else says so in one line and
exits 2. Installed (`cmake --install`: <prefix>/share/placebench/scripts/, no checkout and no .venv), the
line names the requirements file to install instead (docs/install.md).
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(os.path.dirname(HERE), ".venv")
REEXEC = "PLACEBENCH_REPORT_REEXEC"  # set on the re-executed process: never loop
IN_CHECKOUT = os.path.exists(os.path.join(HERE, "setup.sh"))  # else an installed copy


def ensure_matplotlib() -> None:
    if importlib.util.find_spec("matplotlib") is not None:
        return
    python = os.path.join(VENV, "bin", "python")
    in_venv = os.path.realpath(sys.prefix) == os.path.realpath(VENV)
    if not in_venv and not os.environ.get(REEXEC) and os.access(python, os.X_OK):
        os.environ[REEXEC] = "1"
        try:
            os.execv(python, [python, os.path.abspath(__file__), *sys.argv[1:]])
        except OSError:
            pass  # fall through to the message
    if IN_CHECKOUT:
        fix = "run scripts/setup.sh (it makes .venv) or use `placebench report`"
    else:
        requirements = os.path.join(HERE, "requirements-report.txt")
        fix = f"install it ({sys.executable} -m pip install -r {requirements}) or set PLACEBENCH_PYTHON"
    print(f"placebench report: matplotlib is not installed for {sys.executable}; {fix}", file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    ensure_matplotlib()
    sys.path.insert(0, HERE)
    from placebench_report.main import main

    sys.exit(main(sys.argv[1:]))
