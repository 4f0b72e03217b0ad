#!/usr/bin/env bash
# Ctrl-C to scripts/mpirun-placebench.sh during `run` (issue 15): the ranks stop after the trial in hand,
# every finished trial stays as it was, and the script exits 130 (bare mpirun exits 1 on SIGINT).
# Usage: tests/mpi/wrapper_interrupt_test.sh BUILD/placebench MPIEXEC
set -euo pipefail
bin=$1 mpiexec=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cat >"$work/long.yaml" <<YAML
experiment:
  seed: 5
  rounds: {min: 40, max: 40}
  warmup_steps: 2
  steps: 400
  output: $work
classes:
  - name: allreduce-4k
    workload: {type: collective, backend: mpi, op: allreduce, dtype: float32, bytes: 4K}
    arms: {baseline: local, compare: [unpinned]}
    allow_degenerate: true
YAML
out=$work/run
PLACEBENCH_BIN=$bin timeout 120 "$here/scripts/mpirun-placebench.sh" --mpirun "$mpiexec" -n 2 --oversubscribe \
  -- run --config "$work/long.yaml" --out "$out" >"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 600); do  # up to 60 s for two finished trials
  [[ -f "$out/trials.jsonl" && $(wc -l <"$out/trials.jsonl") -ge 2 ]] && break
  sleep 0.1
done
[[ -f "$out/trials.jsonl" && $(wc -l <"$out/trials.jsonl") -ge 2 ]] || { echo "FAIL: no two trials within 60 s"; cat "$work/stderr"; exit 1; }
head -n 2 "$out/trials.jsonl" >"$work/before"
kill -INT "$pid"
status=0
wait "$pid" || status=$?
fail=0
[[ $status == 130 ]] || { echo "FAIL: exit status $status, expected 130"; fail=1; }
cmp -s "$work/before" <(head -n 2 "$out/trials.jsonl") || { echo "FAIL: the first two trials changed"; fail=1; }
[[ -f "$out/summary.json" ]] || { echo "FAIL: no summary.json after the stop"; fail=1; }
grep -q -- "--resume $out" "$work/stdout" || { echo "FAIL: stdout does not say how to resume"; fail=1; }
if ((fail)); then echo "--- stdout"; cat "$work/stdout"; echo "--- stderr"; cat "$work/stderr"; exit 1; fi
echo "ok: SIGINT to the wrapper stopped the run with exit 130, $(wc -l <"$out/trials.jsonl") trials kept"
