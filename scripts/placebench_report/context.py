"""The run context section: what measured, where, with which seed and schedule, and which placements were
verified (docs/results-schema.md: run.json and each trial's placement record and flags)."""
from collections import Counter, defaultdict

from . import roles
from .htmlkit import Markup, badge, esc, note, table
from .load import Run
from .plotting import human_bytes


def topology_summary(topo: dict | None) -> str:
    if not topo:
        return "not recorded"
    numa = topo.get("numa_nodes", [])
    parts = [f"{len(topo.get('packages', []))} packages, {len(numa)} NUMA nodes, "
             f"{topo.get('cores', '?')} cores / {topo.get('pus', '?')} PUs"]
    nodes = "; ".join(f"node {n.get('os_index')}: CPUs {n.get('cpus')}, {human_bytes(n.get('memory_bytes', 0))}"
                      for n in numa)
    if nodes:
        parts.append(nodes)
    gpus = topo.get("gpus", [])
    if gpus:
        parts.append("GPUs: " + ", ".join(f"{g.get('index')} {g.get('name', '')} (NUMA {g.get('numa_node')})" for g in gpus))
    else:
        parts.append("no GPUs (host backend: a NUMA node plays the device)")
    allowed = topo.get("allowed", {})
    if allowed:
        parts.append(f"allowed CPUs {allowed.get('cpus')}, memory nodes {allowed.get('mems')}")
    return ". ".join(parts)


def context_table(run: Run) -> str:
    r = run.run
    cfg = r.get("config", {})
    v = r.get("versions", {})
    rounds = cfg.get("rounds", {})
    summary = run.summary or {}
    complete = summary.get("complete")
    rows = [
        ["run directory", run.path],
        ["host", r.get("host")],
        ["started (UTC)", r.get("start_time")],
        ["command", r.get("command_line")],
        ["placebench", f"{r.get('placebench_version')} ({r.get('git_revision')})"],
        ["versions", ", ".join(f"{k} {'none' if v[k] is None else v[k]}"
                               for k in ("kernel", "gpu_driver", "hwloc", "mpi", "cuda_runtime", "cuda_driver", "nccl")
                               if k in v)],
        ["topology", topology_summary(r.get("topology"))],
        ["experiment", f"{cfg.get('name', '')} from {cfg.get('source', 'built-in')}"],
        ["seed, order", f"{r.get('seed')}, {r.get('order')}"],
        ["rounds (min:max, looks), steps, warm-up",
         f"{rounds.get('min')}:{rounds.get('max')}, {rounds.get('looks', '?')} looks, {cfg.get('steps')} steps, "
         f"{cfg.get('warmup_steps')} warm-up"],
        ["family confidence", f"{cfg.get('confidence')} (over every compared arm and every planned look)"],
        ["contention", cfg.get("contention") or "none"],
        ["trials", f"{len(run.trials)} ({'complete' if complete else 'interrupted' if complete is False else 'no summary'})"],
    ]
    return table(["", ""], rows, "kv")


def schedule_table(run: Run, max_rounds: int = 40) -> str:
    """Each class's arm order per round, from the trials' round and position."""
    by_class = defaultdict(lambda: defaultdict(list))
    for t in run.trials:
        by_class[t.get("class")][t.get("round")].append((t.get("position", 0), t.get("arm")))
    out = []
    for cls, rounds in by_class.items():
        rows = []
        for rnd in sorted(rounds)[:max_rounds]:
            order = [arm for _, arm in sorted(rounds[rnd])]
            rows.append([rnd, " → ".join(order)])
        more = len(rounds) - max_rounds
        out.append(f"<h4>{esc(cls)}</h4>" + table(["round", "arm order"], rows, "compact"))
        if more > 0:
            out.append(note(f"{more} more rounds not shown"))
    return "".join(out) or note("no trials yet")


PLACEMENT_FLAGS = ("placement_partial", "placement_failed")


def placement_badge(counts: Counter, role: roles.Role) -> Markup:
    """Green "verified" only for a compared arm (or the baseline) whose every trial was verified, none
    degenerate and none flagged partial or failed; a control or unrealised arm gets its own badge."""
    if not role.compared:
        return roles.role_badge(role)
    if counts["degenerate"]:
        return badge(f"degenerate x{counts['degenerate']}: same placement as baseline", "control")
    flagged = any(counts["flag:" + f] for f in PLACEMENT_FLAGS)
    if counts["verified"] == counts["trials"] and not flagged:
        return badge("verified", "ok")
    return badge("not verified", "bad")


def verification_table(run: Run) -> str:
    """Per class and arm: how many trials' placements were verified, partial or failed, and their flags."""
    counts = defaultdict(Counter)
    pages = defaultdict(list)
    for t in run.trials:
        key = (t.get("class"), t.get("arm"))
        p = t.get("placement") or {}
        counts[key]["trials"] += 1
        counts[key][p.get("status", "unknown")] += 1
        if roles.trial_is_degenerate(t):
            counts[key]["degenerate"] += 1
        if p.get("requested_pages_pct") is not None:
            pages[key].append(p["requested_pages_pct"])
        for flag in t.get("flags", []):
            counts[key]["flag:" + flag.split(":")[0]] += 1
    arm_roles = roles.of_run(run)
    rows = []
    for (cls, arm), c in counts.items():
        flags = ", ".join(f"{k[5:]} x{n}" for k, n in sorted(c.items()) if k.startswith("flag:")) or "none"
        rows.append([cls, arm, c["trials"], c["verified"], c["partial"], c["failed"], c["degenerate"],
                     f"{min(pages[(cls, arm)]):.1f}%" if pages[(cls, arm)] else "-", flags,
                     placement_badge(c, arm_roles[(cls, arm)])])
    if not rows:
        return note("no trials yet")
    return table(["class", "arm", "trials", "verified", "partial", "failed", "degenerate", "min pages on requested nodes",
                  "flags", "placement"], rows)


def run_context_section(run: Run) -> str:
    warnings = "".join(note("warning: " + w) for w in run.warnings)
    return (context_table(run) + warnings + "<h3>Placement verification</h3>"
            + note("Each trial's placement record (placebench verify): threads' affinity, memory policy and where the "
                   "pages are. Flags mark trials as suspect; none is dropped.")
            + verification_table(run)
            + "<details><summary>Schedule: arm order per round</summary>" + schedule_table(run) + "</details>")
