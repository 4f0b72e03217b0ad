#!/usr/bin/env bash
# Launches a placebench subcommand on one or more nodes with mpirun, the way placebench expects:
# one rank per device (--npernode = GPUs per node), no binding by Open MPI (each rank binds itself to
# the CPUs and memory of its arm and records the proof), the arm passed to the subcommand, and the
# environment placebench and NCCL read forwarded to every rank.
#
# Usage: scripts/mpirun-placebench.sh [options] -- SUBCOMMAND [placebench options]
#   -n, --np N            total ranks (default: npernode x hosts, or 2)
#   --hostfile FILE       Open MPI host file ("node1 slots=8" per line)
#   --hosts LIST          or hosts inline: node1:8,node2:8
#   --npernode K          ranks per node (= the GPUs per node on GPU nodes)
#   --arm ARM             placement arm passed to the subcommand (collective, gang, staging, pipeline,
#                         verify; default local); `run` takes its arms from its config, so none is passed
#   --net CIDR|IF         network for MPI's TCP traffic and out-of-band channel (e.g. 10.0.0.0/24, ib0)
#   --agent CMD           remote launch agent instead of ssh (Open MPI plm_rsh_agent)
#   --env VAR[=VALUE]     forward (or set) one more variable (repeatable)
#   --oversubscribe       allow more ranks than slots (test nodes)
#   --mpirun PATH         mpirun to use (default: mpirun on PATH)
#   --dry-run             print the command instead of running it
# Environment: PLACEBENCH_BIN (default: build/placebench next to this script), PLACEBENCH_MPIRUN_ARGS
# (extra mpirun arguments, split on spaces).
# Ctrl-C (SIGINT) or SIGTERM to this script during `run` reaches the ranks as SIGUSR1: they stop after the
# trial in hand, write the summary, and the script exits 130. (Open MPI's mpirun, given SIGINT itself,
# kills the ranks a second later and exits 1; it forwards SIGUSR1 unchanged.)
# Example: scripts/mpirun-placebench.sh --hosts gpu1:8,gpu2:8 --npernode 8 --arm local -- collective --sizes 8:256M:x2
# Every node's experiment, one rank per node, each node writing results/runs/<node>/<run>/ (docs/fleet-runs.md):
#          scripts/mpirun-placebench.sh --hostfile hosts --npernode 1 -- run --per-node --out results/runs
# (end of help)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${PLACEBENCH_BIN:-$here/../build/placebench}
mpirun=mpirun np="" hostfile="" hosts="" npernode="" arm="" net="" agent="" oversub=0 dry=0
envs=()
die() { echo "mpirun-placebench.sh: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n|--np) np=${2:?}; shift 2 ;;
    --hostfile) hostfile=${2:?}; shift 2 ;;
    --hosts) hosts=${2:?}; shift 2 ;;
    --npernode) npernode=${2:?}; shift 2 ;;
    --arm) arm=${2:?}; shift 2 ;;
    --net) net=${2:?}; shift 2 ;;
    --agent) agent=${2:?}; shift 2 ;;
    --env) envs+=("${2:?}"); shift 2 ;;
    --oversubscribe) oversub=1; shift ;;
    --mpirun) mpirun=${2:?}; shift 2 ;;
    --dry-run) dry=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^# (end of help)$/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; see --help (placebench's own options go after --)" ;;
  esac
done
[[ $# -ge 1 ]] || die "no subcommand: give it after --, e.g. -- collective --sizes 8:1M:x4"
[[ -x "$bin" ]] || die "$bin is not an executable: build first (scripts/setup.sh) or set PLACEBENCH_BIN"
[[ -z "$hostfile" || -r "$hostfile" ]] || die "--hostfile $hostfile: cannot read it"
[[ -z "$hostfile" || -z "$hosts" ]] || die "give --hostfile or --hosts, not both"

args=("$mpirun" --bind-to none)
[[ -n "$hostfile" ]] && args+=(--hostfile "$hostfile")
[[ -n "$hosts" ]] && args+=(--host "$hosts")
[[ -n "$npernode" ]] && args+=(--map-by "ppr:${npernode}:node")
[[ -n "$np" ]] && args+=(-np "$np")
[[ -z "$np" && -z "$npernode" && -z "$hostfile" && -z "$hosts" ]] && args+=(-np 2)
((oversub)) && args+=(--oversubscribe)
[[ $(id -u) == 0 ]] && args+=(--allow-run-as-root)
if [[ -n "$net" ]]; then
  args+=(--mca btl_tcp_if_include "$net" --mca oob_tcp_if_include "$net")
fi
[[ -n "$agent" ]] && args+=(--mca plm_rsh_agent "$agent")
# Forward what placebench, CUDA and NCCL read, when set here.
for v in PATH LD_LIBRARY_PATH CUDA_VISIBLE_DEVICES NCCL_LIBRARY $(compgen -e | grep -E '^(NCCL_|PLACEBENCH_|UCX_)' || true); do
  [[ -n "${!v:-}" ]] && args+=(-x "$v")
done
for e in "${envs[@]}"; do args+=(-x "$e"); done
# shellcheck disable=SC2206
[[ -n "${PLACEBENCH_MPIRUN_ARGS:-}" ]] && args+=(${PLACEBENCH_MPIRUN_ARGS})
sub=$1; shift
args+=("$bin" "$sub")
if [[ "$sub" == run ]]; then
  [[ -z "$arm" ]] || die "--arm: run takes its arms from its config (classes[].arms); drop --arm"
else
  args+=(--arm "${arm:-local}")
fi
args+=("$@")
if ((dry)); then printf '%q ' "${args[@]}"; echo; exit 0; fi
[[ "$sub" == run ]] || exec "${args[@]}"
# run: mpirun in its own session (a terminal's Ctrl-C reaches this script only), each stop signal passed
# on as SIGUSR1, and mpirun's status returned once it has ended (a wait cut short by a trap is resumed).
setsid "${args[@]}" &
pid=$!
trap 'kill -USR1 "$pid" 2>/dev/null || true' INT TERM HUP
status=0
while :; do
  wait "$pid" && status=0 || status=$?
  kill -0 "$pid" 2>/dev/null || break
done
exit "$status"
