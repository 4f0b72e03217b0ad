#!/usr/bin/env python3
"""Run two placebench binaries (OLD, NEW) over the test inputs and report every difference.

    scripts/compare-binaries.py OLD NEW [--jobs 2] [--timeout 20] [--only RE] [--skip RE] [--list] [-v]

Inputs: every fixture under tests/fixtures/ and every file of the fuzz corpora and regressions under tests/fuzz/
(plus the repository files the fuzz targets take as seeds: configs/, results/example-run, tests/golden/topo-*.json),
each fed to the command that reads its format (the fuzz target's reader, tests/fuzz/*_fuzz.cpp). Each invocation
runs in a fresh folder holding copies of its inputs at their repository-relative paths; OLD runs there, the
folder is made afresh, NEW runs at the same path. Compared: exit status, stdout, stderr and every file in the
folder afterwards (what --out/--json FILE/--junit/... wrote), after the normalisation below (NORMALISERS).
Only the Python standard library; docs/testing.md ("Old and new binaries") says how to build OLD.
Exit 0: no difference; 1: some invocation differs; 2: bad usage.
"""
import argparse
import concurrent.futures
import datetime
import difflib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOPO = "tests/fixtures/topologies/2s2n-4gpu.xml"  # the machine of topo --expect and audit (as the tests)
AUDIT = "tests/fixtures/audit"
HELD = "held-run"  # a folder that holds a run: `run --config F --out held-run` parses F, then stops (exit 2)
ENV = {"LC_ALL": "C", "TZ": "UTC", "SOURCE_DATE_EPOCH": "1764547200", "PLACEBENCH_HOST_NAME": "compare-host"}

# ---- normalisation: what legitimately differs between two runs of one binary, or two builds ----
NOW_WINDOW_S = 2 * 86400  # a timestamp within two days of now is the run's own clock, not an input's
ISO_TIME = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
COMPACT_TIME = re.compile(r"\b(\d{4})(\d{2})(\d{2})[-T](\d{2})(\d{2})(\d{2})Z?\b")
NORMALISERS = [
    # the build's git revision (`git describe --always --dirty --abbrev=12`): run.json, --version, evidence
    (re.compile(r'("git_revision"\s*:\s*)"[^"]*"'), r'\1"<REV>"'),
    (re.compile(r"\b[0-9a-f]{12}(?:-dirty)?\b"), "<REV>"),
    # JUnit durations and timestamps (check --junit, fleet --junit)
    (re.compile(r'\b(time|timestamp)="[^"]*"'), r'\1="<T>"'),
    # wall-clock durations printed by commands ("took 0.12 s", "elapsed_s": 0.0123)
    (re.compile(r'("(?:elapsed|wall|duration)_s"\s*:\s*)[0-9.eE+-]+'), r"\1<DUR>"),
]


def near_now(groups):
    try:
        t = datetime.datetime(*map(int, groups[:6]), tzinfo=datetime.timezone.utc).timestamp()
    except ValueError:
        return False
    return abs(t - time.time()) < NOW_WINDOW_S


def normalise(text, workdir):
    text = text.replace(str(workdir), "<WORKDIR>").replace(os.path.realpath(workdir), "<WORKDIR>")
    text = ISO_TIME.sub(lambda m: "<NOW>" if near_now(m.groups()) else m.group(0), text)
    text = COMPACT_TIME.sub(lambda m: "<NOW>" if near_now(m.groups()) else m.group(0), text)
    for pattern, repl in NORMALISERS:
        text = pattern.sub(repl, text)
    return text


# ---- the invocations ----
class Case:
    """One command line, run in a folder holding `copies` (dest -> source under ROOT) and `writes` (dest -> bytes)."""

    def __init__(self, label, argv, copies=(), writes=None, links=None):
        self.label, self.argv = label, list(argv)
        self.copies = {c: c for c in copies} if not isinstance(copies, dict) else dict(copies)
        self.writes, self.links = dict(writes or {}), dict(links or {})

    def command_line(self):
        return "placebench " + " ".join(shlex.quote(a) for a in self.argv)


def files(*patterns):
    out = []
    for p in patterns:
        out += sorted(x.relative_to(ROOT).as_posix() for x in ROOT.glob(p) if x.is_file())
    return [f for f in out if not f.endswith(("README.md", ".py", "COPYING.hwloc"))]


def dirs(*patterns):
    return sorted(x.relative_to(ROOT).as_posix() for p in patterns for x in ROOT.glob(p) if x.is_dir())


def topology_cases():
    xmls = files("tests/fixtures/topologies/**/*.xml", "tests/fuzz/regressions/topology/*", f"{AUDIT}/expect/*.xml")
    for f in xmls:
        for cmd in (["topo"], ["plan"]):
            yield Case(f"{cmd[0]} {f}", cmd + ["--topology", f], [f])
            yield Case(f"{cmd[0]} --json {f}", cmd + ["--topology", f, "--json"], [f])
    expects = files(f"{AUDIT}/expect/*", "tests/fixtures/topo-expect/*.json", "tests/fuzz/regressions/topo_expect/*",
                    "tests/golden/topo-*.json")
    for f in expects:
        yield Case(f"topo --expect {f}", ["topo", "--topology", TOPO, "--expect", f], [TOPO, f])
        yield Case(f"topo --expect --json {f}", ["topo", "--topology", TOPO, "--expect", f, "--json"], [TOPO, f])


def run_config_case(label, config, copies=(), writes=None, seed="1"):
    """`run --config F --out held-run`: F is parsed and checked (exit 2 when bad); the held folder stops it before any trial."""
    w = {f"{HELD}/run.json": b"{}\n", **(writes or {})}
    return Case(label, ["run", "--config", config, "--out", HELD, "--seed", seed], copies, w)


def config_cases():
    configs = files("tests/fixtures/configs/*.yaml", "tests/fixtures/results/mixed.yaml", "tests/fixtures/fleet/*.yaml",
                    "configs/*.yaml", "configs/classes/*.yaml", "tests/fuzz/regressions/config/*")
    for f in configs:
        copies = files("configs/**/*.yaml") if f.startswith("configs/") else [f]
        yield run_config_case(f"run --config {f}", f, copies)
    tiny = (ROOT / "tests/fixtures/configs/tiny.yaml").read_text()
    for f in files("tests/fuzz/corpus/decision/*", "tests/fuzz/regressions/decision/*"):
        block = (ROOT / f).read_bytes().decode("utf-8", "surrogateescape")
        wrapped = tiny + "    decision:\n" + "".join("      " + line + "\n" for line in block.splitlines())
        yield run_config_case(f"run --config (tiny.yaml, decision: {f})", "with-decision.yaml", [],
                              {"with-decision.yaml": wrapped.encode("utf-8", "surrogateescape")})
        yield from decision_json_cases(f, block)


def decision_json_cases(f, text):
    try:
        block = json.loads(text)
    except ValueError:
        return
    run = json.loads((ROOT / "tests/fixtures/decisions/run-basic/run.json").read_text())
    run["config"]["classes"][0]["decision"] = block
    d = "tests/fixtures/decisions/run-basic"
    copies = {f"{d}/{n}": f"{d}/{n}" for n in ("summary.json", "trials.jsonl")}
    for extra in ([], ["--json"]):
        yield Case(f"decide {' '.join(extra)} (run-basic, decision: {f})", ["decide", d] + extra, copies,
                   {f"{d}/run.json": json.dumps(run).encode()})


RUN_DIRS = ["results/example-run", "tests/fixtures/results/tiny-run", "tests/fixtures/results/mixed-run",
            "tests/fixtures/decisions/run-basic", "tests/fixtures/decisions/run-throughput"]
NODE_CHECK_DIRS = ["tests/fixtures/gpu-node-check-summaries/pass", "tests/fixtures/gpu-node-check-summaries/fail"]
REF = "configs/references/examples/dev-vm-2vcpu-1numa.yaml"
OUTS = ["--json", "out.json", "--junit", "out.xml", "--html", "out.html", "--prometheus", "out.prom"]


def run_dir_cases():
    for d in RUN_DIRS + NODE_CHECK_DIRS:
        for argv in (["compare", d], ["compare", d, "--json"], ["compare", d, "--write-summary"], ["decide", d],
                     ["decide", d, "--json"], ["cost", "--from", d, "--rate", "2.5"], ["cost", "--from", d, "--json"],
                     ["fleet", d], ["fleet", d] + OUTS, ["check", d, "--reference", REF],
                     ["check", "--init-reference", d, "--out", "ref.yaml"]):
            yield Case(" ".join(argv), argv, [d] + ([REF] if REF in argv else []))
    for d in NODE_CHECK_DIRS:
        for ref in ("configs/references/h100.yaml", "configs/references/h200.yaml"):
            argv = ["check", d, "--reference", ref, "--junit", "out.xml", "--markdown", "out.md"]
            yield Case(" ".join(argv), argv, [d, ref])


def replaced_file_cases():
    """A fuzz input of one run-directory file, put into a copy of results/example-run."""
    ex = "results/example-run"
    readers = {"trial": ("trials.jsonl", [["compare", ex], ["compare", ex, "--json"]]),
               "summary": ("summary.json", [["check", ex, "--reference", REF], ["decide", ex], ["fleet", ex],
                                            ["cost", "--from", ex]]),
               "run_json": ("run.json", [["compare", ex], ["decide", ex], ["check", ex, "--reference", REF]])}
    for target, (name, commands) in readers.items():
        for f in files(f"tests/fuzz/corpus/{target}/*", f"tests/fuzz/regressions/{target}/*"):
            copies = {**{f"{ex}/{n}": f"{ex}/{n}" for n in ("run.json", "summary.json", "trials.jsonl")}, REF: REF}
            copies[f"{ex}/{name}"] = f
            for argv in commands:
                yield Case(f"{' '.join(argv)} ({name} = {f})", argv, copies)
    for f in files("tests/fixtures/gpu-node-check/*.json"):
        for ref in ("configs/references/h100.yaml", "configs/references/h200.yaml"):
            yield Case(f"check nc --reference {ref} (nc/summary.json = {f})", ["check", "nc", "--reference", ref],
                       {"nc/summary.json": f, ref: ref})


def reference_cases():
    refs = files("tests/fixtures/references/*.yaml", "configs/references/*.yaml", "tests/fuzz/regressions/reference/*")
    tiny, mixed = "tests/fixtures/results/tiny-run", "tests/fixtures/results/mixed-run"
    for f in refs:
        for argv in (["check", tiny, "--reference", f], ["check", mixed, "--reference", f],
                     ["check", tiny, "--reference", f, "--junit", "out.xml", "--markdown", "out.md"],
                     ["fleet", tiny, "--reference", f]):
            yield Case(" ".join(argv), argv, [f, argv[1]])


def feasible_queue_cases():
    cluster = "tests/fixtures/decisions/cluster-stranded.yaml"
    inventories = files("tests/fixtures/decisions/*.yaml", "tests/fixtures/decisions/*.json",
                        "tests/fuzz/regressions/feasible/*", "tests/fixtures/queue/article-cluster*.yaml")
    for f in inventories:
        for argv in (["feasible", "--inventory", f], ["feasible", "--inventory", f, "--json"],
                     ["feasible", "--inventory", f, "--out", "out.json"], ["feasible", "--inventory", cluster, "--job", f],
                     ["cost", "--from", f]):
            yield Case(" ".join(argv), argv, sorted({f, cluster}))
    article, mix = "tests/fixtures/queue/article-cluster.yaml", "tests/fixtures/queue/pairs-mix.yaml"
    for f in files("configs/queue/job-mix.yaml", "tests/fixtures/queue/*mix.yaml"):
        for inv in (article, "tests/fixtures/queue/article-cluster-fragmented.yaml"):
            for extra in ([], ["--json"], ["--out", "out.json", "--seed", "3"]):
                argv = ["queue", "--inventory", inv, "--mix", f] + extra
                yield Case(" ".join(argv), argv, sorted({inv, f}))
    for f in files("tests/fixtures/queue/article-cluster*.yaml"):
        yield Case(f"queue --inventory {f} --mix {mix}", ["queue", "--inventory", f, "--mix", mix], sorted({f, mix}))
    base = ["decide", "--gpus", "2", "--exec-local", "60m", "--exec-remote", "72m"]
    for f in files("tests/fixtures/queue-replay/*.json", "tests/fuzz/corpus/queue_replay/*",
                   "tests/fuzz/regressions/queue_replay/*"):
        for extra in ([], ["--queue-class", "pair-training"], ["--queue-class", "pair-training", "--json"],
                      ["--queue-class", "pair-training", "--queue-stat", "p90", "--queue-choice", "spread"],
                      ["--queue-class", "training", "--queue-gang", "off", "--queue-stat", "p99"]):
            argv = base + ["--queue-from", f] + extra
            yield Case(" ".join(argv), argv, [f])


def admission_gang_cases():
    snapshots = dirs("tests/fixtures/admission/*")
    gang_whole = "tests/fixtures/admission/admitted-whole-gang.json"
    for d in snapshots:
        for extra in ([], ["--json"], ["--out", "out.json"], ["--max-stranded", "0", "--max-time-to-gang", "1m",
                                                               "--max-cleanup", "1m"]):
            yield Case(" ".join(["admission", d] + extra), ["admission", d] + extra, [d])
        for f in files(f"{d}/*"):
            yield Case(f"admission --json {f}", ["admission", f, "--json"], [f])
    whole = "tests/fixtures/admission/admitted-whole"
    gangs = files("tests/fixtures/results/gang-*.json", "tests/fixtures/decisions/gang-incidents.jsonl", gang_whole,
                  "tests/fuzz/corpus/gang_json/*", "tests/fuzz/regressions/gang_json/*")
    for f in gangs:
        for argv in (["cost", "--from", f, "--rate", "2.5"], ["cost", "--from", f, "--rate", "2.5", "--json"],
                     ["admission", whole, "--gang", f], ["admission", whole, "--gang", f, "--json"]):
            yield Case(" ".join(argv), argv, [f, whole] if whole in argv else [f])
        for name in ("gang.json", "gang.jsonl"):
            yield Case(f"cost --from {name} (= {f})", ["cost", "--from", name, "--rate", "2.5"], {name: f})


def audit_argv(proc=f"{AUDIT}/proc", extra=()):
    return ["audit", "--json", "--proc-root", proc, "--topology", TOPO] + list(extra)


def audit_cases():
    proc = f"{AUDIT}/proc"
    pids = sorted(p.name for p in (ROOT / proc).iterdir() if p.name.isdigit())
    for pid in pids:
        for extra in (["--no-managers", "--pid", pid], ["--no-managers", "--pid", pid, "--device-numa", "0"],
                      ["--no-managers", "--pid", pid, "--device-numa", "1", "--out", "out.json"]):
            yield Case(" ".join(audit_argv(extra=extra)), audit_argv(extra=extra), [proc, TOPO])
        table = ["audit", "--proc-root", proc, "--topology", TOPO, "--no-managers", "--pid", pid]
        yield Case(" ".join(table), table, [proc, TOPO])
    dra = ["--pid", "4246", "--dra", f"{AUDIT}/dra/claims-and-slices.json", "--dra-metadata", f"{AUDIT}/dra/metadata",
           "--cpu-manager-state", f"{AUDIT}/kubelet/cpu_manager_state"]
    yield Case("audit --dra", audit_argv(extra=dra), [proc, TOPO, f"{AUDIT}/dra", f"{AUDIT}/kubelet"])
    kubelet = files(f"{AUDIT}/kubelet/*", "tests/fixtures/proc/kubelet/*.yaml", "tests/fixtures/kubelet-state/*",
                    "tests/fuzz/corpus/kubelet_state/*", "tests/fuzz/regressions/kubelet_state/*")
    for f in kubelet:
        given = {k: f for k in ("--cpu-manager-state", "--memory-manager-state", "--kubelet-config")}
        extra = ["--pid", "4242", "--device-numa", "1"] + [x for kv in given.items() for x in kv]
        yield Case(f"audit (kubelet files = {f})", audit_argv(extra=extra), [proc, TOPO, f])
    downward = files(f"{AUDIT}/podinfo/*", "tests/fixtures/downward-api/*", "tests/fuzz/corpus/downward_api/*",
                     "tests/fuzz/regressions/downward_api/*")
    for f in downward:
        given = {k: f for k in ("--annotations", "--labels")}  # a file not named is not read
        extra = ["--pid", "4246"] + [x for kv in given.items() for x in kv]
        yield Case(f"audit (downward API files = {f})", audit_argv(extra=extra), [proc, TOPO, f])
    for root in (f"{AUDIT}/cgroup-v1", f"{AUDIT}/cgroup-v2", "tests/fixtures/proc/context-v1", "tests/fixtures/proc/context-v2"):
        argv = audit_argv(f"{root}/proc", ["--sys-root", f"{root}/sys", "--no-managers", "--pid", "1"])
        yield Case(" ".join(argv), argv, [root, TOPO])


def fleet_tree(text):
    """tests/fuzz/fleet_dir_fuzz.cpp's tree: '=== PATH' (or '=== PATH -> TARGET', a link) then the file's lines."""
    plain = re.compile(r"^[A-Za-z0-9._-]+$")
    writes, links, entries, header, body = {}, {}, [], None, []
    for line in text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"):
        if line.startswith("=== "):
            if header is not None:
                entries.append((header, "".join(body)))
            header, body = line[4:], []
        elif header is not None:
            body.append(line + "\n")
    if header is not None:
        entries.append((header, "".join(body)))
    for head, content in entries[:32]:
        path, _, target = head.partition(" -> ")
        parts = path.split("/")
        if not all(plain.match(p) and p not in (".", "..") for p in parts) or len(parts) > 4:
            continue
        if target:
            if not target.startswith("/") and len(target) < 200 and re.fullmatch(r"[A-Za-z0-9._/-]+", target):
                links[f"fleet/{path}"] = target
        else:
            writes[f"fleet/{path}"] = content.encode("utf-8", "surrogateescape")
    return writes, links


def fleet_and_integer_cases():
    for f in files("tests/fuzz/corpus/fleet_dir/*", "tests/fuzz/regressions/fleet_dir/*"):
        writes, links = fleet_tree((ROOT / f).read_bytes().decode("utf-8", "surrogateescape"))
        writes["fleet"] = None  # the tree's root, even when no entry is kept
        for extra in ([], OUTS):
            yield Case(f"fleet fleet {' '.join(extra)} (tree of {f})", ["fleet", "fleet"] + extra, [], writes, links)
    inv = "tests/fixtures/decisions/issue-example.yaml"
    for f in files("tests/fuzz/corpus/cli_integer/*"):
        raw = (ROOT / f).read_bytes()[1:]
        if b"\0" in raw or not raw:
            continue  # not expressible as an argument
        v = raw.decode("utf-8", "surrogateescape")
        for argv, copies in ((["plan", "--topology", TOPO, "--workers", v], [TOPO]),
                             (["feasible", "--inventory", inv, "--search-limit", v], [inv]),
                             (["cost", "--gpus", v, "--wait", "12m"], [])):
            yield Case(f"{argv[0]} {argv[-2] if argv[0] != 'cost' else '--gpus'} ({f})", argv, copies)
        yield run_config_case(f"run --seed ({f})", "tests/fixtures/configs/tiny.yaml",
                              ["tests/fixtures/configs/tiny.yaml"], seed=v)


def all_cases():
    cases = [Case("--version", ["--version"]), Case("--help-all", ["--help-all"])]
    for gen in (topology_cases, config_cases, run_dir_cases, replaced_file_cases, reference_cases,
                feasible_queue_cases, admission_gang_cases, audit_cases, fleet_and_integer_cases):
        cases += list(gen())
    return cases


def unread_inputs(cases):
    """The input files no invocation reads (a fixture of a unit test, a report input, a README)."""
    used = set()
    for c in cases:
        for src in list(c.copies.values()):
            p = ROOT / src
            used |= {x.relative_to(ROOT).as_posix() for x in ([p] if p.is_file() else p.rglob("*"))}
        used |= {s for s in c.label.replace("(", " ").replace(")", " ").split()}
    every = files("tests/fixtures/**/*", "tests/fuzz/corpus/**/*", "tests/fuzz/regressions/**/*")
    return [f for f in every if f not in used]


# ---- running ----
def prepare(case, workdir):
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    for dest, src in case.copies.items():
        target, source = workdir / dest, ROOT / src
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)
    for dest, data in case.writes.items():
        (workdir / dest).parent.mkdir(parents=True, exist_ok=True)
        if data is None:
            (workdir / dest).mkdir(exist_ok=True)  # an empty folder
        else:
            (workdir / dest).write_bytes(data)
    for dest, target in case.links.items():
        (workdir / dest).parent.mkdir(parents=True, exist_ok=True)
        if not os.path.lexists(workdir / dest):
            os.symlink(target, workdir / dest)


def snapshot(workdir):
    """Every file in the folder after the run (inputs included: a command must not change them)."""
    out = {}
    for folder, subdirs, names in os.walk(workdir):  # links are not followed
        for name in sorted(names + [d for d in subdirs if os.path.islink(os.path.join(folder, d))]):
            p = Path(folder) / name
            rel = p.relative_to(workdir).as_posix()
            out[rel] = b"-> " + os.readlink(p).encode() if p.is_symlink() else p.read_bytes() if p.is_file() else b"<special>"
    return out


def run_once(binary, case, workdir, timeout):
    prepare(case, workdir)
    env = {**os.environ, **ENV}
    proc = subprocess.Popen([binary] + case.argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        status = str(proc.returncode)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        status = f"timeout after {timeout}s"
    result = {"exit": status + "\n", "stdout": out, "stderr": err}
    for rel, data in snapshot(workdir).items():
        result[f"file {rel}"] = data
    return {k: normalise(v.decode("utf-8", "backslashreplace") if isinstance(v, bytes) else v, workdir)
            for k, v in result.items()}


def compare_case(index, case, old, new, base, timeout, context):
    workdir = base / f"c{index:04d}"
    a = run_once(old, case, workdir, timeout)
    b = run_once(new, case, workdir, timeout)
    shutil.rmtree(workdir, ignore_errors=True)
    diffs = []
    for key in sorted(set(a) | set(b), key=lambda k: (k.startswith("file "), k)):
        x, y = a.get(key, "<absent>\n"), b.get(key, "<absent>\n")
        if x != y:
            lines = list(difflib.unified_diff(x.splitlines(), y.splitlines(), f"OLD {key}", f"NEW {key}", n=1,
                                              lineterm=""))
            diffs.append("\n".join(lines[:context] + ([f"... ({len(lines) - context} more lines)"]
                                                      if len(lines) > context else [])))
    return diffs


def setup_text(case):
    parts = [f"mkdir -p {shlex.quote(str(Path(d).parent))} && cp -r {shlex.quote(s)} {shlex.quote(d)}"
             for d, s in case.copies.items() if d != s]
    if case.writes or case.links:
        parts.append("(and files the script writes: " + ", ".join(sorted(case.writes) + sorted(case.links)) + ")")
    return parts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old", help="the OLD placebench binary")
    ap.add_argument("new", help="the NEW placebench binary")
    ap.add_argument("--jobs", type=int, default=2, help="invocations at once (default 2)")
    ap.add_argument("--timeout", type=float, default=20, help="seconds per command (default 20)")
    ap.add_argument("--only", help="run only the invocations whose label matches this regex")
    ap.add_argument("--skip", help="skip the invocations whose label matches this regex")
    ap.add_argument("--context", type=int, default=40, help="diff lines shown per difference (default 40)")
    ap.add_argument("--list", action="store_true", help="list the invocations and the unread inputs, run nothing")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list the input files no invocation reads")
    args = ap.parse_args(argv)
    binaries = [os.path.abspath(b) for b in (args.old, args.new)]
    if not args.list:
        for b in binaries:
            if not (os.path.isfile(b) and os.access(b, os.X_OK)):
                ap.error(f"{b}: not an executable file")
    cases = all_cases()
    unread = unread_inputs(cases)
    cases = [c for c in cases if (not args.only or re.search(args.only, c.label))
             and not (args.skip and re.search(args.skip, c.label))]
    if args.list:
        print("\n".join(f"{c.label}\n    {c.command_line()}" for c in cases))
        print(f"{len(cases)} invocations; inputs no invocation reads ({len(unread)}):", *unread, sep="\n  ")
        return 0
    return run_all(cases, binaries, args, unread)


def run_all(cases, binaries, args, unread):
    start = time.monotonic()
    differ = []
    with tempfile.TemporaryDirectory(prefix="placebench-compare-") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {pool.submit(compare_case, i, c, *binaries, Path(tmp), args.timeout, args.context): c
                       for i, c in enumerate(cases)}
            for fut in concurrent.futures.as_completed(futures):
                diffs = fut.result()
                if diffs:
                    differ.append((futures[fut], diffs))
    for case, diffs in sorted(differ, key=lambda x: x[0].label):
        print(f"DIFFERS: {case.label}\n  run in a folder holding its inputs (repository-relative paths):")
        for line in setup_text(case):
            print(f"    {line}")
        print(f"    {case.command_line()}")
        for d in diffs:
            print("    " + d.replace("\n", "\n    "))
        print()
    if args.verbose and unread:
        print(f"inputs no invocation reads ({len(unread)}):", *unread, sep="\n  ")
    n, k = len(cases), len(differ)
    print(f"compare-binaries: {n} invocations, {n - k} identical, {k} differ ({time.monotonic() - start:.0f}s; "
          f"OLD {binaries[0]}, NEW {binaries[1]})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
