#!/usr/bin/env bash
# Installs placebench's Debian packages (idempotent: only what is missing), then configures and builds
# into build/ what the main job needs (target placebench_tools: the placebench CLI, and with CUDA the GPU
# node check's reference program). Usage: scripts/setup.sh [extra cmake -D options...]
# Environment: PLACEBENCH_BUILD_DIR (default build), PLACEBENCH_JOBS (default: number of CPUs),
#              PLACEBENCH_SKIP_APT=1 to skip the package step (e.g. on a node without root),
#              PLACEBENCH_ENABLE_WERROR=ON to make compiler warnings errors (.ci/run does),
#              PLACEBENCH_DEBUG_INFO=full|lines|none (default lines: -g1; full: the build type's -g),
#              PLACEBENCH_SETUP_TESTS=1 to install the test-only packages too and build every target
#              (scripts/test.sh sets it: the tests, fuzz targets and placebench-micro).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake make g++ pkg-config git
  hwloc libhwloc-dev libnuma-dev numactl libturbojpeg0-dev libsqlite3-dev
  libopenmpi-dev openmpi-bin
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  gzip iproute2 python3 python3-venv
)
# Only the tests use these: the multi-NUMA guests, the report screenshots, the sanitizer and fuzz build.
if [[ "${PLACEBENCH_SETUP_TESTS:-0}" == 1 ]]; then
  packages+=(qemu-system-x86 busybox-static cpio chromium clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 && "${PLACEBENCH_SKIP_APT:-0}" != 1 ]]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
    echo "setup: could not install: ${missing[*]} (run as root or with sudo, and check the apt sources)" >&2
    exit 1
  fi
fi

# The report environment: .venv with scripts/requirements-report.txt (matplotlib, PyYAML) for
# scripts/report.py, `placebench report` and tests/report/, and scripts/requirements-test.txt for the tests
# (tests/k8s/). Rebuilt only when the requirements change (a stamp holds their hash).
# PLACEBENCH_SKIP_VENV=1 skips it (the report and k8s tests are then skipped).
requirements=(scripts/requirements-report.txt scripts/requirements-test.txt)
want=$(cat "${requirements[@]}" | sha256sum | cut -d' ' -f1)
if [[ "${PLACEBENCH_SKIP_VENV:-0}" != 1 && "$(cat .venv/.requirements.sha256 2>/dev/null)" != "$want" ]]; then
  echo "setup: creating the report environment .venv from ${requirements[*]}" >&2
  if python3 -m venv .venv && .venv/bin/pip install -q --disable-pip-version-check -r "${requirements[0]}" -r "${requirements[1]}"; then
    echo "$want" >.venv/.requirements.sha256
  else
    echo "setup: could not create .venv (python3 -m venv .venv && .venv/bin/pip install -r ${requirements[0]} -r ${requirements[1]});" \
         "install python3-venv and check that PyPI is reachable, or set PLACEBENCH_SKIP_VENV=1 to build without reports" >&2
    exit 1
  fi
fi

build_dir=${PLACEBENCH_BUILD_DIR:-build}
jobs=${PLACEBENCH_JOBS:-$(nproc)}
mkdir -p "$build_dir"
# The build keeps -O2 but only line tables for debug information (PLACEBENCH_DEBUG_INFO=lines: backtraces and
# file:line; about a quarter less compile CPU time, docs/performance.md), the test build (scripts/test.sh, CI)
# too; PLACEBENCH_DEBUG_INFO=full in the environment gives the build type's -g (for a debugger's variables).
debug_info=${PLACEBENCH_DEBUG_INFO:-lines}
if [[ ! -f "$build_dir/CMakeCache.txt" || $# -gt 0 ]]; then
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPLACEBENCH_ENABLE_WERROR="${PLACEBENCH_ENABLE_WERROR:-OFF}" \
    -DPLACEBENCH_DEBUG_INFO="$debug_info" "$@" >"$build_dir/configure.log" 2>&1 || {
    cat "$build_dir/configure.log" >&2
    echo "setup: cmake configure failed (log above)" >&2
    exit 1
  }
  grep -A10 "^-- placebench " "$build_dir/configure.log" >&2 || true
fi
if [[ "${PLACEBENCH_SETUP_TESTS:-0}" == 1 ]]; then
  cmake --build "$build_dir" -j "$jobs" >&2
  echo "setup: built every target in $build_dir" >&2
else
  cmake --build "$build_dir" -j "$jobs" --target placebench_tools >&2
  echo "setup: built $build_dir/placebench (scripts/test.sh builds the tests)" >&2
fi
