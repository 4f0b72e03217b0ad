#!/usr/bin/env bash
# The GPU node check (docs/gpu-node-check.md): on a GPU node with CUDA and NCCL under /usr/local/cuda and
# no network, in at most 8 minutes with a `timeout` on every step: build if needed (device tests on),
# run the device tests, `staging --backend cuda` for every GPU (local, remote, unpinned; pinned
# h2d/d2h/bidir and pageable h2d; 4 KiB-256 MiB), a pipeline run with the CUDA consumer, `collective` and
# `gang --backend nccl` over all local GPUs (one rank per GPU), then one JSON summary and the HTML report.
#
# Usage: scripts/gpu-node-check.sh [--out DIR] [--build DIR] [--reference FILE] [--dry-run]
#   --dry-run   check the prerequisites and print every step's command without running it (CI runs this)
# Exit: 0 every step passed and every reference tolerance held; 1 a step or a tolerance failed;
#       2 bad usage or a missing prerequisite (the message says what to install or where to point).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
OUT="gpu-node-check-$(date -u +%Y%m%dT%H%M%SZ)"
BUILD="$ROOT/build-gpu-check"
REFERENCE=""
DRY=0
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
BUDGET_S=480  # 8 minutes for the whole check
START_S=$SECONDS

die() { echo "gpu-node-check: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="${2:?--out needs a directory}"; shift 2 ;;
    --build) BUILD="${2:?--build needs a directory}"; shift 2 ;;
    --reference) REFERENCE="${2:?--reference needs a file}"; shift 2 ;;
    --dry-run) DRY=1; shift ;;
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'; accepted: --out DIR, --build DIR, --reference FILE, --dry-run" ;;
  esac
done
[ -z "$REFERENCE" ] || [ -f "$REFERENCE" ] || die "--reference $REFERENCE: no such file (configs/references/h100.yaml, h200.yaml)"
mkdir -p "$OUT" || die "--out $OUT: cannot create it"
STEPS="$OUT/steps.jsonl"
: > "$STEPS"

# --- prerequisites: say what is missing and what to install or point at -----------------------------
missing=()
need_header() {  # header, Debian package, what to point at instead
  local h="$1" pkg="$2" hint="$3" d
  for d in /usr/include /usr/local/include "$CUDA_HOME/include" $(mpicc -showme:incdirs 2>/dev/null) ${CMAKE_PREFIX_PATH:+${CMAKE_PREFIX_PATH//:/ }}; do
    [ -e "$d/$h" ] && return 0
    [ -e "$d/include/$h" ] && return 0
  done
  missing+=("$h (apt-get install $pkg, or $hint)")
}
need_header hwloc.h libhwloc-dev "CMAKE_PREFIX_PATH=<hwloc prefix>"
need_header numa.h libnuma-dev "CMAKE_PREFIX_PATH=<libnuma prefix>"
need_header nlohmann/json.hpp nlohmann-json3-dev "CMAKE_PREFIX_PATH=<nlohmann_json prefix>"
need_header fmt/format.h libfmt-dev "CMAKE_PREFIX_PATH=<fmt prefix>"
need_header gtest/gtest.h libgtest-dev "CMAKE_PREFIX_PATH=<GoogleTest prefix>"
need_header mpi.h libopenmpi-dev "CMAKE_PREFIX_PATH=<MPI prefix>"
need_header nccl.h libnccl-dev "CUDA_HOME=<a CUDA with NCCL> or CMAKE_PREFIX_PATH=<NCCL prefix>"
[ -x "$CUDA_HOME/bin/nvcc" ] || missing+=("$CUDA_HOME/bin/nvcc (install the CUDA toolkit, or set CUDA_HOME)")
command -v cmake >/dev/null || missing+=("cmake (apt-get install cmake)")
command -v mpirun >/dev/null || missing+=("mpirun (apt-get install openmpi-bin)")
command -v timeout >/dev/null || missing+=("timeout (apt-get install coreutils)")

GPUS=0
DRIVER="none"
if command -v nvidia-smi >/dev/null; then
  DRIVER="$(timeout 20 nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
  GPUS="$(timeout 20 nvidia-smi -L 2>/dev/null | grep -c '^GPU ')"
  [ -n "$DRIVER" ] || DRIVER="driver loaded, no GPU"
fi

json_str() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
record() {  # step status seconds detail
  printf '{"step": %s, "status": %s, "seconds": %s, "detail": %s}\n' "$(json_str "$1")" "$(json_str "$2")" "$3" \
    "$(json_str "$4")" >> "$STEPS"
}

if [ ${#missing[@]} -gt 0 ]; then
  for m in "${missing[@]}"; do echo "gpu-node-check: missing $m" >&2; done
  record prerequisites missing 0 "$(printf '%s; ' "${missing[@]}")"
  [ "$DRY" = 1 ] || die "${#missing[@]} prerequisite(s) missing (listed above); install them or point at them, then rerun"
else
  record prerequisites ok 0 "driver $DRIVER, $GPUS GPU(s)"
fi

# --- steps ----------------------------------------------------------------------------------------
FAILED=0
step() {  # name seconds output-file command...: runs it under `timeout`, never past the whole budget
  local name="$1" limit="$2" out="$3"; shift 3
  local left=$((BUDGET_S - (SECONDS - START_S)))
  [ "$limit" -le "$left" ] || limit=$left
  if [ "$DRY" = 1 ]; then
    echo "[dry-run] $name (timeout ${limit}s): $*${out:+ > $out}"
    record "$name" skipped 0 "dry run: $*"
    return 0
  fi
  if [ "$limit" -le 0 ]; then
    record "$name" "out of time" 0 "the 8-minute budget was spent before this step"
    FAILED=1
    return 1
  fi
  local t0=$SECONDS rc
  if [ -n "$out" ]; then timeout -k 5 "$limit" "$@" > "$OUT/$out" 2> "$OUT/$name.stderr"; rc=$?
  else timeout -k 5 "$limit" "$@" > "$OUT/$name.log" 2>&1; rc=$?; fi
  local status=ok
  [ $rc -eq 0 ] || { status="failed (exit $rc$([ $rc -ge 124 ] && echo ', timed out'))"; FAILED=1; }
  record "$name" "$status" $((SECONDS - t0)) "$*"
  return $rc
}

PB="$BUILD/placebench"
if [ ! -x "$PB" ] || [ ! -x "$BUILD/placebench-h2d-reference" ] || [ "$DRY" = 1 ]; then
  step configure 120 "" cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPLACEBENCH_ENABLE_CUDA=ON \
    -DPLACEBENCH_ENABLE_NCCL=ON -DPLACEBENCH_ENABLE_DEVICE_TESTING=ON -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc"
  step build 240 "" cmake --build "$BUILD" -j "$(nproc)"
fi
if [ "$DRY" = 0 ] && [ "$GPUS" -eq 0 ]; then
  record gpus "no GPU" 0 "CUDA driver: $DRIVER; nothing to measure on this node"
  python3 "$HERE/gpu_node_summary.py" "$OUT" -o "$OUT/summary.json" || exit 2
  echo "gpu-node-check: no GPU on this node (driver: $DRIVER); summary in $OUT/summary.json" >&2
  exit 1
fi
[ "$DRY" = 0 ] || GPUS=${GPUS:-0}
[ "$GPUS" -gt 0 ] || GPUS=1  # the dry run shows the steps of one GPU when none is here

step device-tests 90 "" ctest --test-dir "$BUILD" -L device --output-on-failure --timeout 60
SIZES=4K:256M:x4
for ((g = 0; g < GPUS; g++)); do
  step "reference-h2d-gpu$g" 30 "reference-h2d-gpu$g.json" "$BUILD/placebench-h2d-reference" --gpu "$g" --bytes 256M
  for dir in h2d d2h bidir; do
    step "staging-gpu$g-$dir-pinned" 60 "staging-gpu$g-$dir-pinned.json" "$PB" staging --backend cuda --gpu "$g" \
      --arms local,remote,unpinned --allow-degenerate --direction "$dir" --memory pinned --sizes "$SIZES" --samples 10 --json
  done
  step "staging-gpu$g-h2d-pageable" 60 "staging-gpu$g-h2d-pageable.json" "$PB" staging --backend cuda --gpu "$g" \
    --arms local,remote,unpinned --allow-degenerate --direction h2d --memory pageable --sizes "$SIZES" --samples 5 --json
done
step pipeline 45 pipeline.json "$PB" pipeline --backend cuda --gpu 0 --steps 20 --json
MPI=(mpirun --oversubscribe --bind-to none -np "$GPUS")
[[ $(id -u) == 0 ]] && MPI+=(--allow-run-as-root)  # node checks often run as root; Open MPI refuses it otherwise
# One GPU: one rank on purpose (collective and gang refuse a single rank unless asked).
ONE_RANK=()
((GPUS == 1)) && ONE_RANK=(--allow-single-rank)
step collective 90 collective.json "${MPI[@]}" "$PB" collective --backend nccl --ops allreduce --sizes 1M:16G:x16 --iters 10 --json "${ONE_RANK[@]}"
step gang 60 gang.json "${MPI[@]}" "$PB" gang --backend nccl --deadline 20s --steps 10 --json "${ONE_RANK[@]}"

python3 "$HERE/gpu_node_summary.py" "$OUT" -o "$OUT/summary.json" || exit 2
# The node's tolerances: `placebench check` is the one reader of reference files (exit 0 pass, 3 fail).
CHECK=0
if [ -n "$REFERENCE" ]; then
  if [ "$DRY" = 1 ]; then
    echo "[dry-run] check: $PB check $OUT --reference $REFERENCE --junit $OUT/check.xml --markdown $OUT/check.md"
  else
    timeout 60 "$PB" check "$OUT" --reference "$REFERENCE" --junit "$OUT/check.xml" --markdown "$OUT/check.md" \
      | tee "$OUT/check.txt"
    CHECK=${PIPESTATUS[0]}
  fi
fi
if [ "$DRY" = 0 ]; then
  timeout 60 python3 "$HERE/report.py" "$OUT" -o "$OUT/report.html" --title "GPU node check" \
    || echo "gpu-node-check: the HTML report was not written (see above); the JSON summary is complete" >&2
fi
verdict="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$OUT/summary.json")"
[ "$CHECK" = 0 ] || verdict="fail (reference tolerances: $OUT/check.txt)"
echo "gpu-node-check: $verdict; summary in $OUT/summary.json"
[ "$DRY" = 1 ] && exit 0
[ "$FAILED" = 0 ] && [ "$verdict" = pass ] && exit 0
exit 1
