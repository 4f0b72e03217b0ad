#!/usr/bin/env python3
"""placebench's allreduce `time` against the minimal reference loop (bench/collectives_bench.cpp), as
docs/performance.md reports it: RUNS rounds, each one run on 2 ranks then one on 4 oversubscribed ranks
(interleaved, so both layouts see the same machine), each run measuring both sides size by size.
Prints a Markdown table per layout: per size the median over runs of the reference and of placebench
(each run's figure is the median over its alternating pairs), placebench / reference (each run's median
pair ratio: their median over runs and the worst run), the run-to-run spread (max / min over runs) of
each side, and that of the ratio: the spread placebench adds to what the machine itself does, since the
reference measured the machine's state of the same moments.

  bench/collectives_compare.py [--runs 5] [--bin build/placebench-micro] [--bind-to none|core] [--out figures.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def one_run(binary: str, ranks: int, bind: str) -> dict:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    # Binding to cores needs a core per rank: more ranks than CPUs run unbound.
    if bind != "none" and ranks > (os.cpu_count() or 1):
        bind = "none"
    cmd = ["mpirun", "--oversubscribe", "--bind-to", bind, "-np", str(ranks), binary,
           "--benchmark_filter=MpiAllreduce", "--benchmark_format=json"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=True).stdout
    found = {}
    for b in json.loads(out)["benchmarks"]:
        size = int(b["name"].split("/")[1])
        found[size] = {"reference": b["reference_us"], "placebench": b["placebench_us"], "ratio": b["ratio"]}
    return found


def table(runs: list) -> str:
    lines = ["| size (B) | reference (us) | placebench (us) | placebench / reference: median, worst | "
             "spread over runs: reference, placebench | spread of the ratio |", "|---:|---:|---:|---:|---:|---:|"]
    for size in sorted(runs[0]):
        ref = [r[size]["reference"] for r in runs]
        pb = [r[size]["placebench"] for r in runs]
        ratios = [r[size]["ratio"] for r in runs]  # each run's median pair ratio
        worst = max(ratios, key=lambda x: abs(x - 1))
        lines.append(f"| {size} | {statistics.median(ref):.2f} | {statistics.median(pb):.2f} | "
                     f"{statistics.median(ratios):.3f}, {worst:.3f} | {max(ref) / min(ref):.2f}, {max(pb) / min(pb):.2f} | {max(ratios) / min(ratios):.2f} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin", default="build/placebench-micro")
    ap.add_argument("--layouts", default="2,4", help="rank counts, comma-separated")
    ap.add_argument("--out", help="also write every run's figures here (JSON)")
    ap.add_argument("--bind-to", default="none", choices=["none", "core"],
                    help="mpirun --bind-to for layouts with a CPU per rank (default none)")
    args = ap.parse_args()
    layouts = [int(n) for n in args.layouts.split(",")]
    runs = {n: [] for n in layouts}
    for i in range(args.runs):
        for n in layouts:
            load = os.getloadavg()[0]
            runs[n].append(one_run(args.bin, n, args.bind_to))
            print(f"run {i + 1}/{args.runs} on {n} ranks done (1-minute load before it {load:.2f})", file=sys.stderr)
    for n in layouts:
        print(f"\n{n} ranks, {args.runs} runs\n\n{table(runs[n])}")
    if args.out:
        with open(args.out, "x") as f:
            json.dump({str(n): runs[n] for n in layouts}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
