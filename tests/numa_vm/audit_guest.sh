#!/bin/sh
# Runs inside the 2-node guest (node K has CPU K; scripts/numa-vm.sh), driven by audit_vm_test.sh: the
# four checks of issue 19 in one boot. Prints one "CASE <name> exit=<status> <what was found>" line each;
# the host side decides pass or fail.
# Usage: audit_guest.sh PLACEBENCH TINY_CONFIG
pb=$1 tiny=$2
root=/sys/fs/cgroup
echo +cpuset >$root/cgroup.subtree_control || echo "CASE setup failed: +cpuset"
cpuset() {  # cpuset NAME CPUS MEMS
    mkdir -p $root/$1 && echo "$2" >$root/$1/cpuset.cpus && echo "$3" >$root/$1/cpuset.mems
}
# in_cpuset NAME COMMAND...: runs COMMAND inside the cgroup NAME
in_cpuset() {
    cg=$1; shift
    sh -c 'echo $$ >'"$root/$cg"'/cgroup.procs && exec "$@"' in-cpuset "$@"
}
placement() { grep -o '"placement": "[a-z]*"' "$1" | head -n 1 | cut -d'"' -f4; }
policy() { grep -q '"policy": "bind"' "$1" && echo policy=bind || echo policy=other; }
report() {  # report NAME STATUS FILE
    echo "CASE $1 exit=$2 placement=$(placement "$3") $(policy "$3")"
}

# 1. The cpuset confines the process to node 1's CPUs; the device is on node 0: remote.
cpuset remote 1 0-1
in_cpuset remote "$pb" audit --device-numa 0 --no-managers --json >/root/remote.json 2>/root/remote.err
report remote $? /root/remote.json

# 2. CPUs on node 0, memory bound to node 1 (numactl --membind=1): split.
cpuset node0 0 0-1
in_cpuset node0 numactl --membind=1 "$pb" audit --device-numa 0 --no-managers --json >/root/split.json 2>/root/split.err
report split $? /root/split.json

# 3. A cpuset on both nodes: spanning.
cpuset both 0-1 0-1
in_cpuset both "$pb" audit --device-numa 0 --no-managers --json >/root/spanning.json 2>/root/spanning.err
report spanning $? /root/spanning.json

# 4. A process on node 1's CPU beside a run whose local arm is CPU 0: its thread is reported in the trial's
#    placement record and flags the trial; --pid audits it as remote to node 0.
# Through sh: taskset execs sh while it may still run on CPU 0 (the pages of that exec land on node 0);
# sh runs on CPU 1, so sleep's exec and every page of sleep are on node 1.
taskset -c 1 sh -c 'exec sleep 300' &
other=$!
# taskset sets the affinity and then execs: wait (at most 5 s) until the process is sleep on CPU 1,
# or the audit may read it in between, still on both CPUs.
n=0
until [ "$(cat /proc/$other/comm 2>/dev/null)" = sleep ] &&
      grep -q '^Cpus_allowed_list:[[:space:]]*1$' /proc/$other/status 2>/dev/null; do
    n=$((n + 1)); [ $n -gt 50 ] && { echo "CASE setup failed: sleep not on CPU 1 after 5 s"; break; }
    sleep 0.1
done
"$pb" audit --pid $other --device-numa 0 --no-managers --json >/root/pid.json 2>/root/pid.err
report pid $? /root/pid.json
tr -d "\n" </root/pid.json | grep -o "\"reasons\": *\[[^]]*\]" | head -n 3; echo
PLACEBENCH_WATCH_PIDS=$other "$pb" run --config "$tiny" --out /root/run-late >/root/run.out 2>/root/run.err
rc=$?
local_flagged=$(grep '"arm":"local"' /root/run-late/trials.jsonl | grep -c 'late_threads: 1 thread')
local_trials=$(grep -c '"arm":"local"' /root/run-late/trials.jsonl)
unpinned_flagged=$(grep '"arm":"unpinned"' /root/run-late/trials.jsonl | grep -c 'late_threads')
echo "CASE late exit=$rc local_trials=$local_trials local_flagged=$local_flagged unpinned_flagged=$unpinned_flagged"
grep -o '"outside":\[[^]]*\]' /root/run-late/trials.jsonl | head -n 1
kill $other
for f in remote split spanning pid run; do [ -s /root/$f.err ] && { echo "stderr of $f:"; cat /root/$f.err; }; done
exit 0
