#!/usr/bin/env bash
# `gang --slow-cap` for real, in the QEMU guest of scripts/numa-vm.sh, whose init mounts cgroup v2 and
# runs the program in the root cgroup (where the cap can enable +cpu): one boot, a single-rank gang whose
# rank 0 is capped at 25% of a CPU. Checks the cap that was written (cpu.max "1000 4000", the child
# cgroup under the root), that the kernel throttled it (cpu.stat nr_throttled > 0: the quota ran out),
# that the rank's counted work took longer than its --step-work (a capped rank's work is a count of units,
# not a time), and that no child cgroup is left after the run (removing it needs the process moved back).
# Not a timing test: throttling is the kernel's record, and 25% of a CPU cannot do 20 ms of work in 20 ms.
#
# Usage: tests/numa_vm/cpu_cap_vm_test.sh BUILD_DIR
# Exit:  0 pass, 1 fail, 77 skipped (no MPI in this build).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: cpu_cap_vm_test.sh BUILD_DIR}
pb=$(cd "$build" && pwd)/placebench
numa_vm=$here/../../scripts/numa-vm.sh

libmpi=$(ldd "$pb" | awk '/libmpi\.so/ {print $3; exit}')
[[ -n $libmpi ]] || { echo "SKIP: placebench is built without MPI"; exit 77; }
libdir=$(dirname "$(readlink -f "$libmpi")")
extras=(--extra "$pb")
for p in "$libdir/openmpi" "$libdir/pmix2" /usr/share/openmpi "$(command -v orted || true)"; do
    [[ -n $p && -e $p ]] && extras+=(--extra "$p")
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cpu-cap-vm.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
# In the guest: the gang, then what is left in the cgroup tree and where the shell is.
script="$pb gang --allow-single-rank --backend mpi --arm unpinned --steps 4 --step-bytes 8 --step-work 20ms \
 --slow-ranks 0 --slow-cap 25% --json > /root/gang.json; rc=\$?; cat /root/gang.json; \
 echo; echo \"rc=\$rc\" >&2; ls -d /sys/fs/cgroup/placebench-cap-* >&2 2>/dev/null && echo LEFTOVER >&2; exit \$rc"
"$numa_vm" --nodes 2 --mem-per-node 256 --timeout 500 "${extras[@]}" -- /bin/sh -c "$script" >"$tmp/out" 2>"$tmp/err"
vm_rc=$?

python3 - "$tmp/out" "$tmp/err" "$vm_rc" <<'PY'
import json, sys
out, err, vm_rc = open(sys.argv[1]).read(), open(sys.argv[2]).read(), int(sys.argv[3])
fails = []
def check(ok, what):
    print(("PASS: " if ok else "FAIL: ") + what)
    if not ok:
        fails.append(what)
check(vm_rc == 0 and "rc=0" in err, f"the guest ran the gang (vm exit {vm_rc})")
try:
    j = json.loads(out)
except ValueError:
    j = None
check(j is not None, "the gang printed its JSON")
if j:
    cap = j["ranks"][0].get("cpu_cap") or {}
    check(j["config"].get("slow_cap") == 0.25 and j["config"].get("work_units_per_s", 0) > 0,
          f"config records the cap and the work rate: {j['config'].get('slow_cap')}, {j['config'].get('work_units_per_s')}")
    # 25% of periods of a tenth of the 20 ms work (2 ms), raised to 4 ms for the kernel's 1 ms least quota.
    check(cap.get("cpu_max") == "1000 4000", f"cpu.max written: {cap.get('cpu_max')!r}")
    check(cap.get("cgroup", "").startswith("/sys/fs/cgroup/placebench-cap-"), f"child cgroup: {cap.get('cgroup')!r}")
    check(cap.get("throttled_periods", 0) > 0, f"the kernel throttled the rank: {cap.get('throttled_periods')} of {cap.get('periods')} periods")
    work = [b[0][1] - b[0][0] for b in j["pace"]["lanes"]]
    work.sort()
    check(len(work) == 4 and work[1] > 40000,
          f"the rank's counted work (20 ms uncapped) took over twice that at 25% of a CPU: {[round(w) for w in work]} us")
check("LEFTOVER" not in err, "no placebench-cap cgroup left after the run (the rank moved back, the child removed)")
if fails:
    print("---- stdout:\n" + out + "\n---- stderr:\n" + err)
sys.exit(1 if fails else 0)
PY
