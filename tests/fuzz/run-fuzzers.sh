#!/usr/bin/env bash
# Fuzzes placebench's readers with libFuzzer for a few seconds each, JOBS targets at a time (README.md).
# Needs a build with -DPLACEBENCH_ENABLE_FUZZING=ON (clang). What a target finds is kept in
# BUILD/fuzz-findings/TARGET/ (crash-*, timeout-*, oom-*, leak-*); copy it into regressions/TARGET/ with a
# name that says what it triggers. New inputs that reach new code go to BUILD/fuzz-corpus/TARGET/.
# Usage: tests/fuzz/run-fuzzers.sh [BUILD_DIR [SECONDS [JOBS]]] [-- TARGET...]
#   BUILD_DIR default build-sanitize; SECONDS per target default 20; JOBS default 2; targets default all.
# Exit status: 0 nothing found, 1 a finding (listed), 2 bad use.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build-sanitize}
seconds=${2:-20}
jobs=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
[[ ${1:-} == -- ]] && shift
[[ $build = /* ]] || build=$root/$build
bin=$build/tests/fuzz
if ! grep -q "^PLACEBENCH_ENABLE_FUZZING:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null; then
  echo "run-fuzzers: $build is not a fuzzing build; configure one with clang and -DPLACEBENCH_ENABLE_FUZZING=ON" \
       "(docs/testing.md), then cmake --build $build --target placebench_fuzz_targets" >&2
  exit 2
fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=()
  for f in "$bin"/*.inputs; do targets+=("$(basename "$f" .inputs)"); done
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0}

fuzz_one() {
  local t=$1 exe=$bin/placebench_fuzz_$1
  [[ -x $exe ]] || { echo "run-fuzzers: $exe missing: cmake --build $build --target placebench_fuzz_targets" >&2; return 2; }
  local corpus=$build/fuzz-corpus/$t findings=$build/fuzz-findings/$t log=$build/fuzz-logs/$t.log
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  local inputs
  IFS=';' read -r -a inputs <"$bin/$t.inputs" || true  # one line without a newline: read says EOF
  # timeout: libFuzzer stops itself after -max_total_time; this is the deadline if it does not.
  if timeout --kill-after=10 $(( seconds + 60 )) "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -max_len=65536 -dict="$(cat "$bin/$t.dict_path")" -artifact_prefix="$findings/" -print_final_stats=1 \
       "$corpus" "${inputs[@]}" >"$log" 2>&1; then
    echo "run-fuzzers: $t: no finding in ${seconds} s ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo '?') runs)"
  else
    echo "run-fuzzers: $t: FINDING (log $log):"
    grep -m3 -E "fuzz finding|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|Test unit written" "$log" | sed 's/^/  /'
    return 1
  fi
}

status=0
running=0
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  running=$(( running + 1 ))
  if (( running >= jobs )); then
    wait -n || status=1
    running=$(( running - 1 ))
  fi
done
while (( running > 0 )); do
  wait -n || status=1
  running=$(( running - 1 ))
done
exit $status
