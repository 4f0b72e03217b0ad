#!/usr/bin/env bash
# A fleet of three simulated hosts on one machine, measured with `run --per-node` under mpirun, one of
# them with a memory-bandwidth hog, then judged with `placebench fleet`: exactly the hog host must be
# flagged. Modelled on scripts/netns-two-hosts.sh: each host is a network namespace (pb-f1, pb-f2, pb-f3,
# 10.204.0.1-3/24 on a bridge in a fourth namespace pb-fsw) with its own host name (a UTS namespace) and
# its own CPU cgroup (equal cpu.shares: each host gets an equal share of this machine's CPUs when all are
# busy, as separate machines would, so the hog slows its own host and not its peers). mpirun runs in pb-f1
# and starts the daemons of pb-f2 and pb-f3 through this script's `agent` mode instead of ssh; ranks talk
# TCP across the bridge. One rank per host (an MPMD job): pb-f1 and pb-f3 run tests/fixtures/fleet/node.yaml,
# pb-f2 runs hog.yaml (the same plus `experiment.contention`, the pipeline's STREAM threads beside every
# trial). The three <OUT>/<STAMP>/<host>/<run>/ directories are kept. The fleet step runs only when this
# placebench has the `fleet` command ("fleet step skipped" otherwise). Before it, a check that needs no
# fleet command: three node directories, one run each, and the hog host the slowest of the three.
# Usage: scripts/netns-fleet.sh [PLACEBENCH_BIN [OUT]]   as root; exit 0 pass, 1 fail, 2 usage, 77 cannot run here
#        scripts/netns-fleet.sh agent HOST COMMAND...     (internal: Open MPI's plm_rsh_agent)
# OUT defaults to build/netns-fleet next to the binary; each run adds a new <STAMP> folder there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sw=pb-fsw net=10.204.0.0/24 cg=/sys/fs/cgroup/cpu/placebench-fleet
hosts=(pb-f1 pb-f2 pb-f3) hog=pb-f2

if [[ "${1:-}" == agent ]]; then
  # Open MPI calls: AGENT HOST CMD... (the command is meant for a remote shell, as with ssh).
  host=$2; shift 2
  case "$host" in 10.204.0.[123]) ns=pb-f${host##*.} ;; pb-f[123]) ns=$host ;; *) echo "agent: unknown host $host" >&2; exit 1 ;; esac
  exec ip netns exec "$ns" unshare --uts sh -c "hostname $ns; echo \$\$ > $cg/$ns/cgroup.procs; $*"
fi

bin=${1:-$here/../build/placebench}
skip() { echo "netns-fleet: cannot run here: $*" >&2; exit 77; }
fail() { echo "netns-fleet: FAIL: $*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || skip "needs root (ip netns, veth, cgroups)"
command -v ip >/dev/null && command -v unshare >/dev/null || skip "needs iproute2 and unshare"
command -v mpirun >/dev/null || skip "needs mpirun (openmpi-bin)"
command -v python3 >/dev/null || skip "needs python3"
[[ -x "$bin" ]] || { echo "netns-fleet: $bin is not an executable: build first" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
out_base=${2:-$(dirname "$bin")/netns-fleet}
[[ -d /sys/fs/cgroup/cpu && -w /sys/fs/cgroup/cpu ]] || skip "needs the cgroup v1 cpu controller at /sys/fs/cgroup/cpu (the hosts' CPU shares)"

cleanup() {
  for n in "${hosts[@]}" "$sw"; do ip netns del "$n" 2>/dev/null || true; done
  for n in "${hosts[@]}"; do
    if [[ -d "$cg/$n" ]]; then
      while read -r pid; do echo "$pid" >/sys/fs/cgroup/cpu/cgroup.procs 2>/dev/null || true; done <"$cg/$n/cgroup.procs"
      rmdir "$cg/$n" 2>/dev/null || true
    fi
  done
  rmdir "$cg" 2>/dev/null || true
  rm -rf "${tmp:-/nonexistent}"
}
tmp=""
trap cleanup EXIT
cleanup
tmp=$(mktemp -d)
mkdir -p "$cg" || skip "cannot create a cgroup under /sys/fs/cgroup/cpu"
for n in "${hosts[@]}"; do mkdir -p "$cg/$n"; echo 1024 >"$cg/$n/cpu.shares"; done
ip netns add "$sw" || skip "ip netns add failed (no CAP_SYS_ADMIN or no netns support)"
ip -n "$sw" link add pbf-br type bridge || skip "cannot create a bridge"
ip -n "$sw" link set pbf-br up
for i in 1 2 3; do
  n=pb-f$i
  ip netns add "$n"
  ip link add "pbf$i" type veth peer name "pbf${i}s" || skip "cannot create a veth pair"
  ip link set "pbf$i" netns "$n"
  ip link set "pbf${i}s" netns "$sw"
  ip -n "$sw" link set "pbf${i}s" master pbf-br up
  ip -n "$n" addr add "10.204.0.$i/24" dev "pbf$i"
  ip -n "$n" link set lo up
  ip -n "$n" link set "pbf$i" up
done
if command -v ping >/dev/null; then
  for i in 2 3; do ip netns exec pb-f1 ping -c 1 -W 2 "10.204.0.$i" >/dev/null || fail "no ping from pb-f1 to 10.204.0.$i"; done
fi

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$out_base/$stamp
[[ ! -e "$out" ]] || fail "$out exists already; not writing over it"
mkdir -p "$out_base"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fixtures=$here/../tests/fixtures/fleet
# One rank per host (an MPMD job): the hog host gets hog.yaml, the others node.yaml.
job=(mpirun --allow-run-as-root --bind-to none --mca btl tcp,self --mca btl_tcp_if_include "$net" --mca oob_tcp_if_include "$net"
     --mca plm_rsh_agent "$here/netns-fleet.sh agent" --mca plm_rsh_no_tree_spawn 1 --mca mpi_yield_when_idle 1)
for i in 1 2 3; do
  ((i == 1)) || job+=(:)
  config=$fixtures/node.yaml
  [[ pb-f$i == "$hog" ]] && config=$fixtures/hog.yaml
  job+=(-np 1 --host "10.204.0.$i" "$bin" run --per-node --config "$config" --out "$out")
done
# mpirun (and the rank it starts locally) in pb-f1, with pb-f1's host name and CPU cgroup.
in_f1() { ip netns exec pb-f1 unshare --uts sh -c "hostname pb-f1; echo \$\$ > $cg/pb-f1/cgroup.procs; exec \"\$@\"" sh "$@"; }

# The hog host must be the slowest; on a machine busy with other work one attempt can miss it, so up to
# three are made, each into its own folder (every other check fails at once).
base_out=$out
for attempt in 1 2 3; do
out=$base_out/attempt-$attempt
job_attempt=("${job[@]}")
for k in "${!job_attempt[@]}"; do [[ ${job_attempt[$k]} == "$base_out" ]] && job_attempt[$k]=$out; done
echo "== run --per-node on ${hosts[*]} (hog on $hog), attempt $attempt"
t0=$(date +%s.%N)
in_f1 "${job_attempt[@]}" >"$tmp/run.out" 2>"$tmp/run.err" || { cat "$tmp/run.err" "$tmp/run.out" >&2; fail "the per-node run failed"; }
echo "   took $(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$t0") s"
status=0
python3 - "$out" "$hog" "${hosts[@]}" <<'PY' || status=$?
import json, os, sys
out, hog, hosts = sys.argv[1], sys.argv[2], sys.argv[3:]
found = sorted(os.listdir(out))
assert found == sorted(hosts), f"node directories {found}, expected {sorted(hosts)}"
medians = {}
for h in hosts:
    runs = os.listdir(os.path.join(out, h))
    assert len(runs) == 1, f"{h}: {len(runs)} run directories, expected one (one writer per host)"
    run = os.path.join(out, h, runs[0])
    ctx = json.load(open(os.path.join(run, "run.json")))
    assert ctx["per_node"]["node"] == h and ctx["per_node"]["nodes"] == 3, ctx.get("per_node")
    assert (ctx["config"].get("contention") is not None) == (h == hog), f"{h}: contention as configured"
    summary = json.load(open(os.path.join(run, "summary.json")))
    assert summary["complete"], f"{h}: run not complete"
    arm = next(a for c in summary["classes"] for a in c["arms"] if a["arm"] == "local")
    medians[h] = arm["statistic_value"]  # throughput (samples/s): higher is better
    print(f"   {h}: {run}  local throughput {medians[h]:.1f}/s")
slowest = min(medians, key=medians.get)
peers = sorted(v for k, v in medians.items() if k != hog)
print(f"   {hog} / median of its peers: {medians[hog] / peers[len(peers) // 2]:.2f}")
if slowest != hog:  # a noisy VM (other work on its cores) can hide the hog: exit 3, measured again
    print(f"   the slowest host is {slowest}, not the hog host {hog}: {medians}")
    sys.exit(3)
PY

[[ $status == 0 ]] && break
[[ $status == 3 && $attempt -lt 3 ]] || fail "attempt $attempt: the per-node results are not as expected (status $status)"
done
# (`placebench fleet --help` alone would not tell: an unknown subcommand before --help prints the main help.)
if "$bin" fleet --help 2>/dev/null | grep -q '^Usage: placebench fleet'; then
  echo "== placebench fleet $out"
  # The hog host's config differs (its experiment.contention), so fleet is told what to compare: without
  # --metrics it refuses runs of different configs (exit 2), which is checked first.
  status=0
  "$bin" fleet "$out" >/dev/null 2>"$tmp/fleet.err" || status=$?
  [[ $status == 2 ]] && grep -q "measured different things" "$tmp/fleet.err" ||
    { cat "$tmp/fleet.err" >&2; fail "fleet without --metrics: exit $status, expected 2 (different configs)"; }
  status=0
  "$bin" fleet "$out" --metrics input-bound --json "$tmp/fleet.json" >"$tmp/fleet.out" 2>"$tmp/fleet.err" || status=$?
  cat "$tmp/fleet.out"
  [[ $status == 1 ]] || { cat "$tmp/fleet.err" >&2; fail "fleet exit $status, expected 1 (a node is suspect)"; }
  python3 - "$tmp/fleet.json" "$hog" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
suspects = [s["host"] for s in j["suspects"]]
for s in j["suspects"]:
    print(f'   suspect {s["host"]}: {"; ".join(s["reasons"])}')
assert suspects == [sys.argv[2]], f"suspects {suspects}, expected exactly [{sys.argv[2]}]"
PY
else
  echo "fleet step skipped: placebench has no fleet command"
fi
echo "   kept: $out"
echo "netns-fleet: PASS"
