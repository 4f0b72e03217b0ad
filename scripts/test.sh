#!/usr/bin/env bash
# Runs every placebench test: installs and builds if needed (scripts/setup.sh), then ctest.
# Usage: scripts/test.sh [ctest options, e.g. -L unit or -LE numa-vm]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir=${PLACEBENCH_BUILD_DIR:-build}
exec ctest --test-dir "$build_dir" --output-on-failure -j "${PLACEBENCH_JOBS:-$(nproc)}" --timeout 600 "$@"
