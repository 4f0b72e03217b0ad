#!/usr/bin/env python3
"""One JSON summary of a GPU node check (scripts/gpu-node-check.sh) from the step outputs in a directory.

Usage: scripts/gpu_node_summary.py STEP_DIR [-o summary.json]

STEP_DIR holds what the check wrote: steps.jsonl (one {"step", "status", "seconds", "detail"} per step),
staging-gpu<G>-<direction>-<memory>.json (`placebench staging --json`), pipeline.json, collective.json,
gang.json and reference-h2d.json ({"gpu", "bytes", "gbps_median"}: nvbandwidth's method). The summary
states, per GPU, the pinned H2D/D2H medians at the largest size per arm, placebench's ratio to the
reference H2D (target >= 0.98 at 256 MiB pinned), the NCCL all-reduce bus bandwidth at the largest size,
and the steps' verdict. The node's tolerances (configs/references/h100.yaml, h200.yaml) are checked on
this summary by `placebench check STEP_DIR --reference FILE` (the one reader of reference files).
Exit 0 written (whatever the verdicts), 2 bad input.
See docs/gpu-node-check.md.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
from typing import Any

SCHEMA_VERSION = 1
RATIO_TARGET = 0.98


def fail(msg: str) -> None:
    print(f"gpu_node_summary: {msg}", file=sys.stderr)
    sys.exit(2)


def load_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(f"{path}: {e}; rerun the step that writes it")


def read_steps(step_dir: str) -> list[dict[str, Any]]:
    path = os.path.join(step_dir, "steps.jsonl")
    if not os.path.exists(path):
        return []
    steps = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    steps.append(json.loads(line))
                except json.JSONDecodeError as e:
                    fail(f"{path}:{n}: {e}")
    return steps


def staging_figures(step_dir: str) -> dict[str, dict[str, Any]]:
    """gpu -> {"<direction>_<memory>": {arm: {"bytes", "gbps_median"}}} at each file's largest size."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(glob.glob(os.path.join(step_dir, "staging-gpu*-*-*.json"))):
        m = re.match(r"staging-gpu(\d+)-(h2d|d2h|bidir)-(\w+)\.json$", os.path.basename(path))
        if not m:
            continue
        doc = load_json(path)
        if doc.get("kind") != "staging":
            fail(f"{path}: not a `placebench staging --json` output (kind {doc.get('kind')!r})")
        arms: dict[str, Any] = {}
        for row in doc.get("rows", []):
            best = arms.get(row["arm"])
            if best is None or row["bytes"] >= best["bytes"]:
                arms[row["arm"]] = {"bytes": row["bytes"], "gbps_median": row["gbps_median"],
                                    "placement": row.get("placement", {}).get("status"),
                                    "cuda_context_node": row.get("cuda_context_node")}
        out.setdefault(m.group(1), {})[f"{m.group(2)}_{m.group(3)}"] = arms
    return out


def collective_busbw(path: str) -> dict[str, Any] | None:
    if not os.path.exists(path):
        return None
    doc = load_json(path)
    rows = [r for r in doc.get("rows", []) if r.get("op") == "allreduce" and "busbw" in r]
    if not rows:
        return {"busbw_gbps": None, "size": None, "wrong": None, "nranks": doc.get("nranks")}
    top = max(rows, key=lambda r: (r.get("size", 0), r.get("busbw", 0)))  # largest size, better of the modes
    return {"busbw_gbps": top.get("busbw"), "size": top.get("size"), "wrong": doc.get("wrong_total"),
            "nranks": doc.get("nranks")}


def summarise(step_dir: str) -> dict[str, Any]:
    if not os.path.isdir(step_dir):
        fail(f"{step_dir}: not a directory; give the check's output directory")
    steps = read_steps(step_dir)
    gpus: dict[str, Any] = {g: {"staging": s} for g, s in staging_figures(step_dir).items()}
    for path in sorted(glob.glob(os.path.join(step_dir, "reference-h2d-gpu*.json"))):
        ref = load_json(path)
        g = str(ref.get("gpu"))
        entry = gpus.setdefault(g, {"staging": {}})
        entry["reference_h2d_gbps"] = ref.get("gbps_median")
        local = entry["staging"].get("h2d_pinned", {}).get("local")
        ratio = local["gbps_median"] / ref["gbps_median"] if local and ref.get("gbps_median") else None
        entry["ratio_to_reference"] = ratio
        entry["ratio_target_met"] = None if ratio is None else ratio >= RATIO_TARGET
    summary: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "kind": "gpu-node-check",
        "steps": steps,
        "failed_steps": [s["step"] for s in steps if s.get("status") not in ("ok", "skipped")],
        "gpus": gpus,
        "collective": collective_busbw(os.path.join(step_dir, "collective.json")),
        "gang": (load_json(os.path.join(step_dir, "gang.json")).get("outcome")
                 if os.path.exists(os.path.join(step_dir, "gang.json")) else None),
        "pipeline": os.path.exists(os.path.join(step_dir, "pipeline.json")),
    }
    # The steps' verdict; the reference tolerances are `placebench check OUT --reference FILE`'s (the one
    # reader of reference files), run on this summary by scripts/gpu-node-check.sh.
    summary["verdict"] = "fail" if summary["failed_steps"] else "pass" if steps else "incomplete"
    return summary


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("step_dir")
    p.add_argument("-o", "--output", help="write the summary here (default: stdout)")
    a = p.parse_args(argv)
    summary = summarise(a.step_dir)
    text = json.dumps(summary, indent=2, sort_keys=True) + "\n"
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
