#!/usr/bin/env bash
# Smoke test for scripts/numa-vm.sh: boots a 2-node QEMU guest (three boots,
# about 5 s each under TCG) and checks NUMA topology, page placement,
# stdout/stderr separation, exit-status passing, argument quoting, cpuset
# confinement, timeouts and usage errors.
#
# Usage: tests/numa_vm/smoke_test.sh
# Env:   CC (default cc), NUMA_VM (default <repo>/scripts/numa-vm.sh)
# Exit:  0 if all checks pass, 1 otherwise.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
numa_vm=${NUMA_VM:-$here/../../scripts/numa-vm.sh}
cc=${CC:-cc}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/numa-vm-smoke.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() {  # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
has_line() { grep -qxF -- "$2" "$1"; }           # has_line FILE LINE
lacks() { ! grep -qF -- "$2" "$1"; }             # lacks FILE TEXT
show() {  # show what a run produced (on failure)
    echo "---- stdout:"; cat "$1.out"; echo "---- stderr:"; cat "$1.err"; echo "----"
}

# Runs numa-vm.sh with the given arguments; leaves NAME.out, NAME.err, NAME.rc
# and NAME.secs in $tmp.
run_vm() {
    local name=$1; shift
    local t0=$SECONDS
    "$numa_vm" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo $? >"$tmp/$name.rc"
    echo $((SECONDS - t0)) >"$tmp/$name.secs"
    echo "info: $name: exit $(<"$tmp/$name.rc") after $(<"$tmp/$name.secs") s"
}

if ! "$cc" -O2 -Wall -o "$tmp/numa_probe" "$here/numa_probe.c" -lnuma; then
    fail "compile numa_probe.c with $cc -lnuma (is libnuma-dev installed?)"
    exit 1
fi
pass "compile numa_probe.c"

# --- 1: two nodes, default placement, exit status 3, quoting ---------------
weird="it's \"quoted\" \$HOME \`x\` \\ ;&|"
run_vm basic --nodes 2 --timeout 300 -- "$tmp/numa_probe" 3 "a  b" "$weird" ""
o=$tmp/basic.out e=$tmp/basic.err
before=$fails
check "exit status 3 passed through" test "$(<"$tmp/basic.rc")" = 3
check "guest sees 2 NUMA nodes" has_line "$o" "configured_nodes 2"
check "cpu 0 is on node 0" has_line "$o" "cpu 0 node 0"
check "cpu 1 is on node 1" has_line "$o" "cpu 1 node 1"
check "page allocated on node 0 lives on node 0" has_line "$o" "alloc node 0 -> page_node 0"
check "page allocated on node 1 lives on node 1" has_line "$o" "alloc node 1 -> page_node 1"
check "affinity is both CPUs without a cpuset" has_line "$o" "affinity 0,1"
check "argument with spaces survives" has_line "$o" "arg 1 <a  b>"
check "argument with quotes and shell metacharacters survives" has_line "$o" "arg 2 <$weird>"
check "empty argument survives" has_line "$o" "arg 3 <>"
check "program stderr is on stderr" has_line "$e" "probe-stderr: exiting with 3"
check "program stderr is not on stdout" lacks "$o" "probe-stderr"
check "program stdout is not on stderr" lacks "$e" "configured_nodes"
check "no boot noise on stdout" lacks "$o" "Linux version"
check "no carriage returns on stdout" lacks "$o" $'\r'
check "stdout is exactly the program's output" test "$(head -n 1 "$o")" = "arg 1 <a  b>"
check "stdout ends with the program's last line" test "$(tail -n 1 "$o")" = "exit 3"
(( fails == before )) || show "$tmp/basic"

# --- 2: cpuset confinement --------------------------------------------------
run_vm cpuset --nodes 2 --timeout 300 --cpuset-cpus 0 --cpuset-mems 0 -- "$tmp/numa_probe"
o=$tmp/cpuset.out
before=$fails
check "cpuset run exits 0" test "$(<"$tmp/cpuset.rc")" = 0
check "cpuset run still sees 2 nodes" has_line "$o" "configured_nodes 2"
check "affinity is only CPU 0 in cpuset 0" has_line "$o" "affinity 0"
check "mems_allowed is only node 0 in cpuset 0" has_line "$o" "mems_allowed 0"
check "page requested on node 1 is kept on node 0 by the cpuset" has_line "$o" "alloc node 1 -> page_node 0"
(( fails == before )) || show "$tmp/cpuset"

# --- 3: timeout ---------------------------------------------------------------
sleep_bin=$(type -P sleep)
run_vm timeout --timeout 5 -- "$sleep_bin" 600
before=$fails
check "timeout gives exit status 124" test "$(<"$tmp/timeout.rc")" = 124
# One line -- unless the guest had not even started the program in 5 s (a loaded host), when the
# console is dumped first on purpose; the timeout line is then the last.
check "timeout gives a one-line error on stderr" bash -c "test \$(grep -c 'timed out' '$tmp/timeout.err') = 1 && tail -n 1 '$tmp/timeout.err' | grep -q 'timed out after 5s' && { test \$(wc -l <'$tmp/timeout.err') = 1 || grep -q '^----- guest console' '$tmp/timeout.err'; }"
check "timeout leaves stdout empty" test ! -s "$tmp/timeout.out"
(( fails == before )) || show "$tmp/timeout"

# --- 4: usage errors (no VM) --------------------------------------------------
usage_case() {  # usage_case DESCRIPTION ARGS...
    local what=$1; shift
    "$numa_vm" "$@" >"$tmp/usage.out" 2>"$tmp/usage.err"
    local rc=$?
    if [[ $rc == 2 && $(wc -l <"$tmp/usage.err") == 1 && ! -s $tmp/usage.out ]]; then
        pass "usage error: $what (exit 2, one line: $(<"$tmp/usage.err"))"
    else
        fail "usage error: $what (exit $rc, stderr: $(<"$tmp/usage.err"))"
    fi
}
usage_case "no program" --nodes 2
usage_case "no program after --" --nodes 2 --
usage_case "program not found" -- "$tmp/does-not-exist"
usage_case "program not in PATH" -- no-such-program-xyz
usage_case "non-numeric --nodes" --nodes two -- "$tmp/numa_probe"
usage_case "unknown option" --frobnicate -- "$tmp/numa_probe"

echo "info: boot+run times (s): basic $(<"$tmp/basic.secs"), cpuset $(<"$tmp/cpuset.secs")"
if (( fails )); then
    echo "FAIL: $fails check(s) failed"
    exit 1
fi
echo "PASS: all numa-vm smoke checks"
