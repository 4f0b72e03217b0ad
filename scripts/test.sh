#!/usr/bin/env bash
# Runs every placebench test, in three stages (docs/testing.md), each timed:
#   tests:    scripts/setup.sh with PLACEBENCH_SETUP_TESTS=1 (packages, .venv, every target in build/),
#             then ctest there;
#   sanitize: a clang build in build-sanitize/ with ASan + UBSan and libFuzzer coverage (CUDA, NCCL, MPI
#             off) of the modules' unit tests and the fuzz targets, then their ctest (labels unit and
#             fuzz-regression) under the sanitizers;
#   fuzz:     each fuzz target for PLACEBENCH_FUZZ_SECONDS (default 15) seconds, two at a time
#             (tests/fuzz/run-fuzzers.sh), from build-sanitize/.
# Every stage runs even when an earlier one failed; the exit status is 1 when any failed.
# Usage: scripts/test.sh [ctest options for the first stage, e.g. -L unit or -LE numa-vm]
# Environment (besides scripts/setup.sh's): PLACEBENCH_SKIP_SANITIZE=1 skips the sanitize and fuzz stages,
#   PLACEBENCH_SKIP_FUZZ=1 the fuzz stage; PLACEBENCH_SANITIZE_BUILD_DIR (default build-sanitize);
#   PLACEBENCH_FUZZ_SECONDS (default 15). CI (.ci/run) runs all three.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${PLACEBENCH_BUILD_DIR:-build}
sanitize_dir=${PLACEBENCH_SANITIZE_BUILD_DIR:-build-sanitize}
jobs=${PLACEBENCH_JOBS:-$(nproc)}
failed=()

# cpu_ticks: user + system CPU time of this script's finished children (fields cutime, cstime of
# /proc/PID/stat; $$ is this script's PID in a subshell too), in clock ticks.
cpu_ticks() {
  local f
  read -r -a f </proc/$$/stat
  echo $((f[15] + f[16]))
}

# stage NAME COMMAND...: runs it, says how long it took (wall and CPU seconds: the CPU figure compares runs
# on a shared machine), and records a failure without stopping.
stage() {
  local name=$1 start=$SECONDS rc=0 ticks0
  shift
  ticks0=$(cpu_ticks)
  echo "test.sh: stage $name" >&2
  "$@" || rc=$?
  echo "test.sh: stage $name $( ((rc == 0)) && echo passed || echo "FAILED (status $rc)") in $((SECONDS - start)) s" \
       "(CPU $((($(cpu_ticks) - ticks0) / $(getconf CLK_TCK))) s)" >&2
  ((rc == 0)) || failed+=("$name")
}

tests() {
  PLACEBENCH_SETUP_TESTS=1 scripts/setup.sh
  ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --timeout 600 "$@"
}

# One clang build serves both later stages: the libraries and unit tests with -fsanitize=address,undefined
# and -fsanitize=fuzzer-no-link (coverage for libFuzzer), the fuzz targets linked with libFuzzer. Warnings
# are not errors here: the warning set is gcc's (clang's -Wconversion also warns on sign conversions).
# -O0 -gline-tables-only: half the compile time of -O2 -g (measured), and ASan's reports keep file:line.
# The verdict simulations (RunSimulation.*, InterferenceSimulation.*: thousands of analysed runs each) run in the first stage only:
# at -O0 under ASan two of them passed the 600 s limit; the code they drive is unit-tested here.
sanitize() {
  if [[ ! -f "$sanitize_dir/CMakeCache.txt" ]]; then
    mkdir -p "$sanitize_dir"
    cmake -S . -B "$sanitize_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -gline-tables-only -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -gline-tables-only -DNDEBUG" \
      -DPLACEBENCH_ENABLE_FUZZING=ON -DPLACEBENCH_ENABLE_SANITIZERS="address;undefined" -DPLACEBENCH_ENABLE_WERROR=OFF \
      -DPLACEBENCH_ENABLE_CUDA=OFF -DPLACEBENCH_ENABLE_NCCL=OFF -DPLACEBENCH_ENABLE_MPI=OFF \
      -DPLACEBENCH_ENABLE_BENCHMARKS=OFF -DPLACEBENCH_ENABLE_NUMA_VM_TESTING=OFF >"$sanitize_dir/configure.log" 2>&1 || {
      cat "$sanitize_dir/configure.log" >&2
      echo "test.sh: the sanitizer build could not be configured (log above); it needs clang and libclang-rt-14-dev (scripts/setup.sh installs them)" >&2
      return 1
    }
  fi
  cmake --build "$sanitize_dir" -j "$jobs" --target placebench_unit_tests placebench_fuzz_targets >&2
  # halt_on_error/abort: a report fails its test. detect_leaks with the suppressions of tests/sanitizers/.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0 \
    ctest --test-dir "$sanitize_dir" --output-on-failure -j "$jobs" --timeout 600 -L "unit|fuzz-regression|cmake" -LE "cli|golden" \
      -E '^(RunSimulation|InterferenceSimulation)\.'
}

stage tests tests "$@"
if [[ "${PLACEBENCH_SKIP_SANITIZE:-0}" != 1 ]]; then
  stage sanitize sanitize
  if [[ "${PLACEBENCH_SKIP_FUZZ:-0}" != 1 ]]; then
    stage fuzz tests/fuzz/run-fuzzers.sh "$sanitize_dir" "${PLACEBENCH_FUZZ_SECONDS:-15}" 2
  fi
fi
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "test.sh: failed stages: ${failed[*]}" >&2
  exit 1
fi
