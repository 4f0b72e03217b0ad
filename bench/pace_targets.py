#!/usr/bin/env python3
"""The pace targets of docs/performance.md ("Who sets the pace"), by real mpirun runs of `placebench
collective` on RANKS oversubscribed ranks: RUNS slowed runs (rank SLOW slowed at the doses given, by
default 0,10%) interleaved with RUNS A/A runs (no rank slowed). Per slowed run: is the slowed rank named
at each dose, the achieved dose, the step delta with its CI, and whether the slowest-rank model holds
(the excess CI holds 0). Per A/A run: is any rank named over the timed calls (`pace.calls.setter`), and
(from the slowed runs) at dose 0. Prints a Markdown summary; --out keeps every run's figures.

  bench/pace_targets.py [--runs 20] [--ranks 4] [--slow 1] [--doses 0,10%] [--size 8] [--iters 20]
                        [--rounds 10] [--bin build/placebench] [--out figures.json]

--gang WORK runs `placebench gang` instead: every rank works WORK (a spin, e.g. 100ms) before each of
--steps allreduces of 8 B, the slowed rank --dose (a share of the A/A step measured in the run before, or
a time) more; per run the trial pace-setter of the steps (`pace.steps.setter`, pace.h) and its reason,
the 1-minute load when it started, and per rank how often it was last and its median start after the
earliest (its previous step's departure: the collective's completion order).

--call-start instant (default) or barrier: how `collective` starts its timed single calls (at a common
instant of the synchronized clock, or at a barrier's exit), to compare the two on the same machine.

--bind none (default, as before) runs `mpirun --bind-to none`; --bind core binds ranks round-robin to
cores (`--bind-to core:overload-allowed --map-by core`, two ranks a core on 2 cores).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


BIND = {"none": ["--bind-to", "none"], "core": ["--bind-to", "core:overload-allowed", "--map-by", "core"]}


def load1() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def collective(binary: str, ranks: int, size: str, iters: int, extra: list, bind: str = "none") -> dict:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ["mpirun", "--oversubscribe", *BIND[bind], "-np", str(ranks), binary, "collective", "--backend",
           "mpi", "--ops", "allreduce", "--sizes", size, "--mode", "out-of-place", "--iters", str(iters), "--blocks",
           "10", "--arm", "unpinned", "--json", *extra]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, check=True).stdout
    return json.loads(out)


def slowed_run(args) -> dict:
    load = load1()
    j = collective(args.bin, args.ranks, args.size, args.iters,
                   ["--slow-ranks", str(args.slow), "--slow-doses", args.doses, "--slow-rounds", str(args.rounds),
                    "--call-start", args.call_start],
                   args.bind)
    doses = []
    for d in j["rows"][0]["pace"]["doses"]:
        doses.append({"dose": d["dose"], "set_us": d["set_us"], "achieved_us": d["achieved_us"],
                      "setter": d["pace"]["setter"], "step_delta": d["step_delta_us"], "excess": d["excess_us"],
                      "model": d["slowest_rank_model"],
                      "lateness_us": d["pace"]["ranks"][args.slow]["median_lateness_us"],
                      "bound_us": d["pace"]["ranks"][args.slow]["median_clock_bound_us"]})
    return {"rtt_us": j["clock_rtt_us"], "doses": doses, "load1": load}


def aa_run(args) -> dict:
    load = load1()
    j = collective(args.bin, args.ranks, args.size, args.iters, ["--call-start", args.call_start], args.bind)
    pace = j["rows"][0]["pace"]
    return {"rtt_us": j["clock_rtt_us"], "calls_setter": pace["calls"]["setter"], "blocks_setter": pace["blocks"]["setter"],
            "step_p50_us": j["rows"][0]["time_p50"], "load1": load}


def gang(args, extra: list) -> dict:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ["mpirun", "--oversubscribe", *BIND[args.bind], "-np", str(args.ranks), "nice", "-n", "5", args.bin, "gang",
           "--backend", "mpi", "--steps", str(args.steps), "--step-work", args.gang, "--step-bytes", "8", "--arm",
           "unpinned", "--deadline", "600s", "--json", *extra]
    load = load1()
    j = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, check=True).stdout)
    p = j["pace"]["steps"]
    keys = ("last_blocks", "p_last_by_chance", "median_lateness_when_last_us", "median_clock_bound_when_last_us",
            "median_compute_us", "arrival_order_sum", "late_blocks", "p_late_by_chance", "median_lateness_vs_others_us")
    ranks = [{k: r.get(k) for k in keys} for r in p["ranks"]]
    lanes = j["pace"]["lanes"]  # [step][rank] = [start, arrive, depart]
    for r, fig in enumerate(ranks):
        fig["median_start_after_first_us"] = statistics.median(s[r][0] - min(x[0] for x in s) for s in lanes[1:])
    return {"setter": p["setter"], "reason": p["reason"], "step_us": p["median_step_us"], "load1": load,
            "ranks": ranks}


def gang_main(args) -> int:
    slowed, aa = [], []
    step_us = None
    for i in range(args.runs):  # interleaved: A/A first, its step sets the next slowed run's dose
        aa.append(gang(args, []))
        step_us = aa[-1]["step_us"]
        dose_us = step_us * float(args.dose[:-1]) / 100 if args.dose.endswith("%") else None
        dose = f"{dose_us:.0f}us" if dose_us is not None else args.dose
        slowed.append(dict(gang(args, ["--slow-ranks", str(args.slow), "--slow-step", dose]), dose=dose))
        print(f"run {i + 1}/{args.runs}: slowed {slowed[-1]['setter']}, A/A {aa[-1]['setter']}", file=sys.stderr)
    right = sum(1 for r in slowed if r["setter"] == args.slow)
    wrong = sum(1 for r in slowed if named(r["setter"]) and r["setter"] != args.slow)
    print(f"gang, {args.ranks} ranks, work {args.gang} per step, {args.steps} steps, dose {args.dose} of the A/A step")
    print(f"slowed rank named: {right}/{len(slowed)} (another rank named: {wrong}); "
          f"A/A naming a rank: {sum(1 for r in aa if named(r['setter']))}/{len(aa)}")
    print(f"median step (us): A/A {statistics.median(r['step_us'] for r in aa):.0f}, "
          f"slowed {statistics.median(r['step_us'] for r in slowed):.0f}")
    late = [r["ranks"][args.slow]["median_lateness_when_last_us"] for r in slowed]
    print(f"slowed rank's median lateness when last (us): median over runs {statistics.median(late):.0f}")
    loads = [r["load1"] for r in slowed + aa]
    print(f"1-minute load at the runs' starts: median {statistics.median(loads):.1f}, min {min(loads):.1f}, "
          f"max {max(loads):.1f}; bind {args.bind}")
    for r in range(args.ranks):
        last = sum(x["ranks"][r]["last_blocks"] for x in aa)
        start = statistics.median(x["ranks"][r]["median_start_after_first_us"] for x in aa)
        print(f"A/A rank {r}: last in {last}/{args.steps * len(aa)} steps; median start after the first {start:.0f} us")
    for r in slowed + aa:
        print(f"  {r.get('dose', 'A/A')} (load {r['load1']:.1f}): {r['reason']}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"args": vars(args), "slowed": slowed, "aa": aa}, f, indent=1)
    return 0


def named(setter) -> bool:
    return setter != "unknown"


def summary(slowed: list, aa: list, slow: int) -> str:
    lines = [f"slowed runs: {len(slowed)}; A/A runs: {len(aa)}", "",
             "| dose | set (us) | achieved (us) | slowed rank named | other rank named | step delta (us) | "
             "excess (us) | model consistent | lateness / bound (us) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for i, d0 in enumerate(slowed[0]["doses"]):
        ds = [r["doses"][i] for r in slowed]
        right = sum(1 for d in ds if d["setter"] == slow)
        wrong = sum(1 for d in ds if named(d["setter"]) and d["setter"] != slow)
        lines.append(f"| {d0['dose']} | {statistics.median(d['set_us'] for d in ds):.1f} | "
                     f"{statistics.median(d['achieved_us'] for d in ds):.1f} | {right}/{len(ds)} | {wrong}/{len(ds)} | "
                     f"{statistics.median(d['step_delta']['estimate'] for d in ds):.1f} | "
                     f"{statistics.median(d['excess']['estimate'] for d in ds):.1f} | "
                     f"{sum(1 for d in ds if d['model'] == 'consistent')}/{len(ds)} | "
                     f"{statistics.median(d['lateness_us'] for d in ds):.1f} / {statistics.median(d['bound_us'] for d in ds):.1f} |")
    calls = sum(1 for r in aa if named(r["calls_setter"]))
    blocks = sum(1 for r in aa if named(r["blocks_setter"]))
    rtts = [max(r["rtt_us"]) for r in aa + slowed]
    lines += ["", f"A/A runs naming a rank over the timed calls: {calls}/{len(aa)}; over the timed blocks: "
                  f"{blocks}/{len(aa)}",
              f"largest clock rtt per run (us): median {statistics.median(rtts):.1f}, max {max(rtts):.1f}",
              f"A/A per-iteration step p50 (us): median {statistics.median(r['step_p50_us'] for r in aa):.1f}",
              f"1-minute load at the runs' starts: median {statistics.median(r['load1'] for r in aa + slowed):.1f}, "
              f"max {max(r['load1'] for r in aa + slowed):.1f}"]
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--slow", type=int, default=1)
    p.add_argument("--doses", default="0,10%")
    p.add_argument("--size", default="8")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--bin", default="build/placebench")
    p.add_argument("--out")
    p.add_argument("--gang", metavar="WORK", help="gang steps with this much work per step on every rank")
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--dose", default="10%", help="gang: the slowed rank's extra work (share of the step, or a time)")
    p.add_argument("--bind", choices=sorted(BIND), default="none", help="mpirun's binding of the ranks")
    p.add_argument("--call-start", choices=["instant", "barrier"], default="instant",
                   help="collective: start each timed call at a common instant or at a barrier's exit")
    args = p.parse_args()
    if args.gang:
        return gang_main(args)
    slowed, aa = [], []
    for i in range(args.runs):  # interleaved, so both kinds see the same moments of the machine
        slowed.append(slowed_run(args))
        aa.append(aa_run(args))
        print(f"run {i + 1}/{args.runs}", file=sys.stderr)
    print(summary(slowed, aa, args.slow))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"args": vars(args), "slowed": slowed, "aa": aa}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
