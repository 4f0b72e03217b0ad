"""Writes tests/fixtures/results/history-changes.json: what `placebench history changes DB --json` writes
(docs/history.md, docs/reports.md "History") for 3 nodes of a cluster over 30 nightly runs, made deterministic (seeded):
gpu-001 long-training/local steps up 6% at run 18 when its driver went 550.54 -> 560.28; long-training/remote
steps down 4% at run 10 on both gpu-001 and gpu-002 (a placebench upgrade: a fleet change); gpu-002's
local series is flat; gpu-003 joined late and has 4 runs (too short to judge).
Run: .venv/bin/python tests/report/make_history_fixture.py"""
import datetime
import json
import os
import random
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fixtures", "results", "history-changes.json")
START = datetime.datetime(2026, 10, 20, 2, 0, tzinfo=datetime.UTC)
RUNS = 30


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def points(rng, node_no, level, steps, n=RUNS, first_day=0):
    out = []
    for i in range(n):
        value = level * (1 + rng.gauss(0, 0.012))
        for at, rel in steps:
            if i >= at:
                value *= 1 + rel
        half = value * (0.008 + 0.004 * rng.random())
        t = START + datetime.timedelta(days=first_day + i, minutes=17 * node_no)
        key = f"{rng.getrandbits(64):016x}"
        out.append({"run_key": key, "start": iso(t), "value": round(value), "ci_low": round(value - half),
                    "ci_high": round(value + half)})
    return out


def change(pts, index, p_value, attribution, fleet):
    before = statistics.median(p["value"] for p in pts[:index])
    after = statistics.median(p["value"] for p in pts[index:])
    return {"index": index, "run_key": pts[index]["run_key"], "start": pts[index]["start"], "before": before,
            "after": after, "relative": round(after / before - 1, 4), "p_value": p_value, "attribution": attribution,
            "fleet": fleet}


def series(node, arm, status, pts, changes):
    if status == "ok":
        status = "changed" if changes else "no-change"
    return {"node": node, "class": "long-training", "arm": arm, "metric": "median", "unit": "ns", "status": status,
            "points": pts, "changes": changes}


def main():
    rng = random.Random(31)
    out = []
    local1 = points(rng, 1, 12.4e6, [(18, 0.06)])
    out.append(series("gpu-001", "local", "ok", local1, [change(local1, 18, 0.001, "driver 550.54 -> 560.28", False)]))
    remote1 = points(rng, 1, 14.1e6, [(10, -0.04)])
    out.append(series("gpu-001", "remote", "ok", remote1,
                      [change(remote1, 10, 0.002, "placebench 0.9.0 -> 0.10.0", True)]))
    out.append(series("gpu-002", "local", "ok", points(rng, 2, 12.5e6, []), []))
    remote2 = points(rng, 2, 14.3e6, [(10, -0.04)])
    out.append(series("gpu-002", "remote", "ok", remote2,
                      [change(remote2, 10, 0.003, "placebench 0.9.0 -> 0.10.0", True)]))
    out.append(series("gpu-003", "local", "too-short", points(rng, 3, 12.6e6, [], n=4, first_day=RUNS - 4), []))
    doc = {"kind": "placebench-history-changes", "schema_version": 1, "store": "results.db",
           "change_count": sum(len(s["changes"]) for s in out), "min_runs": 6, "series": out,
           "fleet_changes": [{"start": remote1[10]["start"], "class": "long-training", "arm": "remote",
                              "metric": "median", "nodes": ["gpu-001", "gpu-002"]}]}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
