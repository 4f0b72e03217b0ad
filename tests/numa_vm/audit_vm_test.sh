#!/usr/bin/env bash
# `placebench audit` and the late-thread flag in the 2-node QEMU guest, one boot for all four checks of
# issue 19 (tests/numa_vm/audit_guest.sh runs them): cpuset on node 1 with the device on node 0 ->
# remote; CPUs on node 0 with numactl --membind=1 -> split; a cpuset on both nodes -> spanning; a thread
# on node 1's CPU beside a run whose arm is CPU 0 -> reported in the trial record and the trial flagged.
# Usage: tests/numa_vm/audit_vm_test.sh BUILD_DIR    Exit: 0 when every check passes, 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
pb=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)/placebench
tiny=$src/tests/fixtures/configs/tiny.yaml
out=$("$src/scripts/numa-vm.sh" --nodes 2 --mem-per-node 256 --timeout 400 \
      --extra "$pb" --extra "$(command -v numactl)" --extra "$tiny" --extra "$here/audit_guest.sh" \
      -- /bin/sh "$here/audit_guest.sh" "$pb" "$tiny" 2>&1)
rc=$?
echo "$out"
fails=0
expect() {  # expect PATTERN WHAT
    if grep -qE -- "$1" <<<"$out"; then echo "PASS: $2"; else echo "FAIL: $2 (no line matching $1)"; fails=$((fails + 1)); fi
}
[[ $rc == 0 ]] || { echo "FAIL: the guest run exited $rc"; exit 1; }
expect '^CASE remote exit=1 placement=remote ' "cpuset on node 1, device on node 0: remote, exit 1"
expect '^CASE split exit=1 placement=split policy=bind' "CPUs on node 0, membind=1: split, exit 1"
expect '^CASE spanning exit=1 placement=spanning ' "cpuset on both nodes: spanning, exit 1"
expect '^CASE pid exit=1 placement=remote ' "--pid of a process on node 1: remote"
expect '^CASE late exit=0 local_trials=([1-9][0-9]*) local_flagged=\1 unpinned_flagged=0$' \
       "every local trial flagged for the thread on CPU 1, no unpinned trial"
exit $((fails > 0))
