#!/usr/bin/env bash
# Proves the multi-node launch on one machine: two simulated hosts, network namespaces pb-h1 and pb-h2
# joined by a veth pair (10.203.0.1/24 <-> 10.203.0.2/24), each with its own host name (a UTS namespace).
# mpirun runs in pb-h1 through scripts/mpirun-placebench.sh and starts the daemon of pb-h2 through a
# remote agent (this script's `agent` mode: ip netns exec + unshare --uts) instead of ssh; ranks talk TCP
# across the veth (btl tcp,self; no shared memory between the hosts). Checks that both hosts ran ranks
# (each rank reports its host) and that the collectives were right; removes everything it made.
# Usage: scripts/netns-two-hosts.sh [PLACEBENCH_BIN]      as root; exit 0 pass, 1 fail, 77 cannot run here
#        scripts/netns-two-hosts.sh agent HOST COMMAND...  (internal: Open MPI's plm_rsh_agent)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ns1=pb-h1 ns2=pb-h2 ip1=10.203.0.1 ip2=10.203.0.2 net=10.203.0.0/24

if [[ "${1:-}" == agent ]]; then
  # Open MPI calls: AGENT HOST CMD... (the command is meant for a remote shell, as with ssh).
  host=$2; shift 2
  case "$host" in "$ip1" | "$ns1") ns=$ns1 ;; "$ip2" | "$ns2") ns=$ns2 ;; *) echo "agent: unknown host $host" >&2; exit 1 ;; esac
  exec ip netns exec "$ns" unshare --uts sh -c "hostname $ns; $*"
fi

bin=${1:-$here/../build/placebench}
skip() { echo "netns-two-hosts: cannot run here: $*" >&2; exit 77; }
[[ $(id -u) == 0 ]] || skip "needs root (ip netns, veth)"
command -v ip >/dev/null && command -v unshare >/dev/null || skip "needs iproute2 and unshare"
command -v mpirun >/dev/null || skip "needs mpirun (openmpi-bin)"
[[ -x "$bin" ]] || { echo "netns-two-hosts: $bin is not an executable: build first" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

cleanup() { ip netns del "$ns1" 2>/dev/null || true; ip netns del "$ns2" 2>/dev/null || true; rm -rf "$tmp"; }
tmp=$(mktemp -d)
trap cleanup EXIT
cleanup; tmp=$(mktemp -d)
ip netns add "$ns1" || skip "ip netns add failed (no CAP_SYS_ADMIN or no netns support)"
ip netns add "$ns2"
ip link add pb-v1 type veth peer name pb-v2 || skip "cannot create a veth pair"
ip link set pb-v1 netns "$ns1"
ip link set pb-v2 netns "$ns2"
ip -n "$ns1" addr add "$ip1/24" dev pb-v1
ip -n "$ns2" addr add "$ip2/24" dev pb-v2
for n in "$ns1" "$ns2"; do ip -n "$n" link set lo up; done
ip -n "$ns1" link set pb-v1 up
ip -n "$ns2" link set pb-v2 up
if command -v ping >/dev/null; then
  ip netns exec "$ns1" ping -c 1 -W 2 "$ip2" >/dev/null || { echo "netns-two-hosts: no ping across the veth" >&2; exit 1; }
fi

printf '%s slots=2\n%s slots=2\n' "$ip1" "$ip2" >"$tmp/hosts"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch=("$here/mpirun-placebench.sh" --hostfile "$tmp/hosts" --npernode 2 -n 4 --net "$net" --agent "$here/netns-two-hosts.sh agent"
        --arm unpinned)
# Four ranks share this machine's cores: ranks yield when idle instead of spinning.
export PLACEBENCH_BIN=$bin PLACEBENCH_MPIRUN_ARGS="--mca btl tcp,self --mca plm_rsh_no_tree_spawn 1 --mca mpi_yield_when_idle 1"
in_h1() { ip netns exec "$ns1" unshare --uts sh -c "hostname $ns1; exec \"\$@\"" sh "$@"; }

echo "== collective across $ns1 and $ns2 (TCP over the veth)"
t0=$(date +%s.%N)
in_h1 "${launch[@]}" -- collective --backend mpi --ops allreduce,allgather,sendrecv --sizes 8,64K --iters 5 --json \
  >"$tmp/coll.json" 2>"$tmp/coll.err" || { cat "$tmp/coll.err" >&2; echo "netns-two-hosts: collective failed" >&2; exit 1; }
echo "   took $(echo "$(date +%s.%N) - $t0" | bc) s"
python3 - "$tmp/coll.json" <<'PY'
import json, sys
text = open(sys.argv[1]).read(); j = json.loads(text[text.index('{'):])
hosts = sorted({r["host"] for r in j["ranks"]})
per_rank = ", ".join(f'rank {r["rank"]}: {r["host"]}' for r in j["ranks"])
print("   " + per_rank)
assert hosts == ["pb-h1", "pb-h2"], f"ranks ran on {hosts}, expected pb-h1 and pb-h2"
assert j["wrong_total"] == 0, "wrong elements"
for r in j["rows"]:
    print(f'   {r["op"]:<10} {r["size"]:>8} B {"in-place" if r["in_place"] else "out-of-place":<12} {r["time"]:9.1f} us  busbw {r["busbw"]:.3f} GB/s  wrong {r["wrong"]}')
PY

echo "== gang across the hosts, rank 3 (on $ns2) late by 1 s"
in_h1 "${launch[@]}" -- gang --backend mpi --late 3 --late-delay 1s --deadline 5s --steps 3 --json >"$tmp/gang.json" 2>"$tmp/gang.err" ||
  { cat "$tmp/gang.err" >&2; echo "netns-two-hosts: gang failed" >&2; exit 1; }
python3 - "$tmp/gang.json" <<'PY'
import json, sys
text = open(sys.argv[1]).read(); j = json.loads(text[text.index('{'):])
print(f'   outcome {j["outcome"]}, stranded {j["stranded_gpu_s"]:.2f} GPU-s (expected ~3), clock offsets ' +
      ", ".join(f'{r["host"]}:{r["clock_offset_s"]*1e6:.0f}us' for r in j["ranks"]))
assert j["outcome"] == "complete"
assert abs(j["stranded_gpu_s"] - 3.0) < 0.3
PY
echo "netns-two-hosts: PASS"
