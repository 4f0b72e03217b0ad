#!/usr/bin/env python3
"""placebench report: one self-contained HTML file from run directories and result JSON files.

Usage: scripts/report.py INPUT [INPUT ...] [-o report.html] [--title TEXT]
INPUT: a run directory (run.json, trials.jsonl, summary.json), a JSON file written by
`placebench staging|pipeline|collective|gang|decide --json`, or a directory holding such files and run
directories. See docs/reports.md. Exit 0 written, 2 bad input (one line on stderr).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from placebench_report.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
