#!/usr/bin/env bash
# numa-vm.sh - run a program inside a throw-away QEMU guest with N NUMA nodes.
#
# See usage() below and docs/numa-vm.md.  Exit status: PROGRAM's exit status;
# 2 on bad usage, 124 on timeout, 125 when the VM could not be set up or
# finished without reporting PROGRAM's exit status.
set -Eeuo pipefail

readonly ME=numa-vm

usage() {
    cat <<'EOF'
Usage: scripts/numa-vm.sh [OPTIONS] -- PROGRAM [ARGS...]

Run PROGRAM inside a QEMU guest (software emulation) whose firmware describes
N NUMA nodes, and pass back PROGRAM's stdout, stderr and exit status.

Options:
  --nodes N             number of NUMA nodes (default 2)
  --cpus-per-node C     CPUs per node (default 1); node K gets CPUs K*C..K*C+C-1
  --mem-per-node MB     memory per node in MiB (default 256)
  --timeout S           host-side limit for boot + run in seconds (default 120);
                        on expiry: one-line error, exit 124
  --extra PATH          also copy PATH (file or directory, at the same path)
                        into the guest, with the shared libraries its ELF
                        files need; repeatable
  --env K=V             set K=V in PROGRAM's environment; repeatable
  --cpuset-cpus LIST    run PROGRAM in the cgroup v2 cpuset /sys/fs/cgroup/pb
  --cpuset-mems LIST      with these cpuset.cpus / cpuset.mems (either or both)
  --keep-workdir        keep the work dir (initramfs, console log) and print
                        its path on stderr
  -h, --help            show this help

PROGRAM is looked up in PATH if it has no '/'.  It is copied into the guest
with the libraries ldd lists (at their original paths), runs as root in /root
with stdin from /dev/null, and with OMPI_ALLOW_RUN_AS_ROOT=1 and
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 set.

Exit status: PROGRAM's exit status; 2 bad usage; 124 timeout; 125 VM setup
failure or no exit status reported by the guest (the console log is then
printed on stderr).

Environment:
  PLACEBENCH_VM_CACHE       kernel cache dir
                            (default $HOME/.cache/placebench/numa-vm)
  PLACEBENCH_VM_KERNEL      use this vmlinuz instead of the Debian cloud kernel
  PLACEBENCH_VM_KERNEL_PKG  Debian kernel package to use
                            (default: what linux-image-cloud-amd64 depends on)
  PLACEBENCH_VM_ACCEL       'kvm' to use KVM when /dev/kvm exists (default tcg)
  PLACEBENCH_VM_APPEND      extra kernel command-line arguments
EOF
}

usage_error() { echo "$ME: $* (see --help)" >&2; exit 2; }
setup_error() { echo "$ME: $*" >&2; exit 125; }

is_posint() { [[ $1 =~ ^[0-9]+$ && $((10#$1)) -gt 0 ]]; }

# Quote a string for a POSIX shell (single quotes, ' -> '\'').
shquote() { local s=${1//\'/\'\\\'\'}; printf "'%s'" "$s"; }

# ------------------------------------------------------------------ options
nodes=2 cpus_per_node=1 mem_per_node=256 timeout_s=120
cpuset_cpus="" cpuset_mems="" keep=0
extras=() envs=()

need_arg() { [[ $# -ge 2 ]] || usage_error "option $1 needs an argument"; }
while [[ $# -gt 0 ]]; do
    opt=$1
    if [[ $opt == --*=* ]]; then
        # --opt=value -> --opt value
        set -- "${opt%%=*}" "${opt#*=}" "${@:2}"
        opt=$1
    fi
    case $opt in
        --nodes)          need_arg "$@"; nodes=$2; shift 2 ;;
        --cpus-per-node)  need_arg "$@"; cpus_per_node=$2; shift 2 ;;
        --mem-per-node)   need_arg "$@"; mem_per_node=$2; shift 2 ;;
        --timeout)        need_arg "$@"; timeout_s=$2; shift 2 ;;
        --extra)          need_arg "$@"; extras+=("$2"); shift 2 ;;
        --env)            need_arg "$@"; envs+=("$2"); shift 2 ;;
        --cpuset-cpus)    need_arg "$@"; cpuset_cpus=$2; shift 2 ;;
        --cpuset-mems)    need_arg "$@"; cpuset_mems=$2; shift 2 ;;
        --keep-workdir)   keep=1; shift ;;
        -h|--help)        usage; exit 0 ;;
        --)               shift; break ;;
        -*)               usage_error "unknown option '$opt'" ;;
        *)                break ;;
    esac
done

[[ $# -ge 1 ]] || usage_error "no PROGRAM given; usage: $0 [OPTIONS] -- PROGRAM [ARGS...]"
is_posint "$nodes"         || usage_error "--nodes must be a positive integer, got '$nodes'"
is_posint "$cpus_per_node" || usage_error "--cpus-per-node must be a positive integer, got '$cpus_per_node'"
is_posint "$mem_per_node"  || usage_error "--mem-per-node must be a positive integer (MiB), got '$mem_per_node'"
is_posint "$timeout_s"     || usage_error "--timeout must be a positive integer (seconds), got '$timeout_s'"
nodes=$((10#$nodes)) cpus_per_node=$((10#$cpus_per_node))
mem_per_node=$((10#$mem_per_node)) timeout_s=$((10#$timeout_s))
(( nodes <= 64 )) || usage_error "--nodes must be at most 64, got $nodes"
(( mem_per_node >= 32 )) || usage_error "--mem-per-node must be at least 32 MiB, got $mem_per_node"
cpulist_re='^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$'
[[ -z $cpuset_cpus || $cpuset_cpus =~ $cpulist_re ]] || usage_error "--cpuset-cpus: bad list '$cpuset_cpus' (e.g. 0-1,3)"
[[ -z $cpuset_mems || $cpuset_mems =~ $cpulist_re ]] || usage_error "--cpuset-mems: bad list '$cpuset_mems' (e.g. 0)"
for e in ${envs[@]+"${envs[@]}"}; do
    [[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || usage_error "--env expects K=V with K a variable name, got '$e'"
done

prog=$1; shift
if [[ $prog == */* ]]; then
    [[ -e $prog ]] || usage_error "program not found: $prog"
else
    p=$(type -P -- "$prog" || true)
    [[ -n $p ]] || usage_error "program not found in PATH: $prog"
    prog=$p
fi
[[ -f $prog && -x $prog ]] || usage_error "program is not an executable file: $prog"
prog=$(realpath -s -- "$prog")           # absolute, symlinks kept

extra_abs=()
for x in ${extras[@]+"${extras[@]}"}; do
    [[ -e $x || -L $x ]] || usage_error "--extra path not found: $x"
    extra_abs+=("$(realpath -s -- "$x")")
done

# ------------------------------------------------------------------ work dir
W=$(mktemp -d "${TMPDIR:-/tmp}/numa-vm.XXXXXX")
qemu_pid=""
# shellcheck disable=SC2317  # invoked via trap
cleanup() {
    local rc=$?
    if [[ -n $qemu_pid ]]; then kill "$qemu_pid" 2>/dev/null || true; wait "$qemu_pid" 2>/dev/null || true; fi
    if (( keep )); then echo "$ME: work dir kept: $W" >&2; else rm -rf -- "$W"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'echo "$ME: internal error: \"$BASH_COMMAND\" failed (line $LINENO)" >&2; exit 125' ERR
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=numa-vm/kernel.sh
. "$here/numa-vm/kernel.sh"
# shellcheck source=numa-vm/stage.sh
. "$here/numa-vm/stage.sh"
# shellcheck source=numa-vm/guest-init.sh
. "$here/numa-vm/guest-init.sh"

# ------------------------------------------------------------------ host tools
apt_install() {  # apt_install PKG...: install packages (root only)
    [[ $(id -u) -eq 0 ]] || setup_error "missing $*; install it: apt-get install -y $*"
    command -v apt-get >/dev/null || setup_error "missing $* and no apt-get to install it"
    echo "$ME: installing $* ..." >&2
    export DEBIAN_FRONTEND=noninteractive
    local o=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=600)
    if ! apt-get install "${o[@]}" "$@" >"$W/apt-install.log" 2>&1; then
        apt-get update -q >>"$W/apt-install.log" 2>&1 || true
        apt-get install "${o[@]}" "$@" >>"$W/apt-install.log" 2>&1 || {
            tail -n 20 "$W/apt-install.log" >&2
            setup_error "could not install $* (apt-get install failed)"; }
    fi
}

cache=${PLACEBENCH_VM_CACHE:-${HOME:-/root}/.cache/placebench/numa-vm}
mkdir -p -- "$cache" || setup_error "cannot create cache dir $cache"

# Everything that installs or downloads runs under one lock.
exec 9>"$cache/.lock"
flock -w 900 9 || setup_error "timed out waiting for lock $cache/.lock"

missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
command -v timeout >/dev/null || missing+=(coreutils)
command -v gzip >/dev/null || missing+=(gzip)
command -v ldd >/dev/null || missing+=(libc-bin)
busybox=""
for b in ${PLACEBENCH_VM_BUSYBOX:-} /usr/bin/busybox /bin/busybox /usr/lib/initramfs-tools/bin/busybox; do
    [[ -n $b && -x $b ]] && { busybox=$b; break; }
done
[[ -n $busybox ]] || missing+=(busybox-static)
if (( ${#missing[@]} )); then
    apt_install "${missing[@]}"
    [[ -n $busybox ]] || busybox=$(command -v busybox || true)
    [[ -x $busybox ]] || setup_error "busybox not found after installing busybox-static"
    command -v qemu-system-x86_64 >/dev/null || setup_error "qemu-system-x86_64 not found after installing qemu-system-x86"
fi
if command -v cpio >/dev/null; then cpio=(cpio --quiet -o -H newc -0); else cpio=("$busybox" cpio -o -H newc -0); fi

find_kernel
exec 9>&-                                   # release the cache lock

# ------------------------------------------------------------------ initramfs
S=$W/root
mkdir -p "$S"
declare -A STAGED=()

# The program, its interpreter (#! scripts) and its libraries.
stage_path "$prog"
check_files=("$prog")
if [[ $(head -c 2 -- "$prog") == '#!' ]]; then
    interp=$(head -n 1 -- "$prog" | sed 's/^#![[:space:]]*//; s/[[:space:]].*//')
    case $interp in
        /bin/sh|/bin/ash|/usr/bin/env|/bin/busybox|/usr/bin/busybox) ;;   # busybox provides these
        /*) [[ -x $interp ]] || usage_error "interpreter $interp of $prog not found"
            stage_path "$interp"; check_files+=("$(realpath -- "$interp")") ;;
    esac
fi
if [[ $(head -c 4 -- "${check_files[-1]}" | od -An -c | tr -d ' ') == 177ELF ]]; then
    nf=$( { ldd -- "${check_files[-1]}" 2>/dev/null || true; } | awk '/=> not found/ {print $1}' | paste -sd, -)
    [[ -z $nf ]] || usage_error "$prog: shared libraries not found on host: $nf"
fi
while IFS= read -r lib; do stage_path "$lib"; done < <(ldd_libs "${check_files[@]}")

# glibc dlopen()s libgcc_s for pthread_cancel/pthread_exit; the loader cache
# lets dlopen() find libraries in non-default directories.
gcc_s=$(/sbin/ldconfig -p 2>/dev/null | awk '/libgcc_s\.so\.1 .*x86-64/ {print $NF; exit}' || true)
[[ -n $gcc_s ]] && stage_path "$gcc_s"
[[ -f /etc/ld.so.cache ]] && stage_path /etc/ld.so.cache

# Extras, plus the libraries of every ELF file in them.
for x in ${extra_abs[@]+"${extra_abs[@]}"}; do
    stage_path "$x"
    mapfile -d '' elfs < <(find -L "$x" -type f \( -name '*.so' -o -name '*.so.*' -o -perm -u=x \) -print0 2>/dev/null)
    if (( ${#elfs[@]} )); then
        while IFS= read -r lib; do stage_path "$lib"; done < <(ldd_libs "${elfs[@]}")
    fi
done

# Busybox (and its libraries, should it be a dynamic one), /init, basic /etc.
mkdir -p "$S/.pb/bin" "$S/proc" "$S/sys" "$S/dev" "$S/tmp" "$S/run" "$S/root" "$S/etc" "$S/mnt"
chmod 1777 "$S/tmp"
cp -- "$busybox" "$S/.pb/bin/busybox"
while IFS= read -r lib; do stage_path "$lib"; done < <(ldd_libs "$busybox")
stage_dir /bin
rbin=$(realpath /bin 2>/dev/null || echo /bin); [[ $rbin == / ]] && rbin=""
mkdir -p "$S$rbin"
[[ -e $S$rbin/sh || -L $S$rbin/sh ]] || ln -s /.pb/bin/busybox "$S$rbin/sh"
[[ -e $S/etc/passwd ]] || printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$S/etc/passwd"
[[ -e $S/etc/group ]]  || printf 'root:x:0:\nnogroup:x:65534:\n' >"$S/etc/group"
[[ -e $S/etc/hosts ]]  || printf '127.0.0.1\tlocalhost numa-vm\n::1\tlocalhost ip6-localhost\n' >"$S/etc/hosts"
[[ -e $S/etc/nsswitch.conf ]] || printf 'passwd: files\ngroup: files\nhosts: files\n' >"$S/etc/nsswitch.conf"

nonce=$RANDOM$RANDOM
write_guest_init "$S/init" "$nonce" "$prog" "$@"

(cd "$S" && find . -mindepth 1 -print0 | "${cpio[@]}") 2>"$W/cpio.log" | gzip -1 >"$W/initramfs.cpio.gz" ||
    { cat "$W/cpio.log" >&2; setup_error "cannot build the initramfs"; }

# ------------------------------------------------------------------ boot
ncpus=$((nodes * cpus_per_node))
accel=(-accel tcg -cpu max)
if [[ ${PLACEBENCH_VM_ACCEL:-tcg} == kvm ]]; then
    if [[ -w /dev/kvm ]]; then accel=(-accel kvm -cpu host)
    else echo "$ME: PLACEBENCH_VM_ACCEL=kvm but /dev/kvm is not usable; using tcg" >&2; fi
fi
qemu=(qemu-system-x86_64 -nodefaults -no-user-config -machine pc "${accel[@]}"
      -smp "$ncpus" -m "$((nodes * mem_per_node))M"
      -display none -no-reboot
      -kernel "$kernel" -initrd "$W/initramfs.cpio.gz"
      -append "console=ttyS0 panic=-1 loglevel=4 mitigations=off ${PLACEBENCH_VM_APPEND:-}"
      -serial "file:$W/console.log" -serial "file:$W/stdout" -serial "file:$W/stderr")
for ((k = 0; k < nodes; k++)); do
    first=$((k * cpus_per_node)) last=$((k * cpus_per_node + cpus_per_node - 1))
    qemu+=(-object "memory-backend-ram,id=m$k,size=${mem_per_node}M"
           -numa "node,nodeid=$k,cpus=$first-$last,memdev=m$k")
done
printf '%q ' "${qemu[@]}" >"$W/qemu.cmd"; echo >>"$W/qemu.cmd"
: >"$W/stdout"; : >"$W/stderr"; : >"$W/console.log"

start=$SECONDS
timeout -k 5 "$timeout_s" "${qemu[@]}" </dev/null >"$W/qemu.log" 2>&1 &
qemu_pid=$!
qrc=0
wait "$qemu_pid" || qrc=$?
qemu_pid=""

# Program output first, whatever happened.
cat -- "$W/stdout"
cat -- "$W/stderr" >&2

show_console() {
    {
        echo "----- $ME: qemu: $(<"$W/qemu.cmd")"
        [[ -s $W/qemu.log ]] && { echo "----- qemu output:"; cat -- "$W/qemu.log"; }
        echo "----- guest console (last 60 lines):"
        tr -d '\r' <"$W/console.log" | tail -n 60
        echo "-----"
    } >&2
}

if (( qrc == 124 || qrc == 137 )); then
    # Dump the console only if the guest never got to start PROGRAM.
    grep -q -a "PBVM-START:$nonce" "$W/console.log" || show_console
    echo "$ME: timed out after ${timeout_s}s (boot + run; raise --timeout)" >&2
    exit 124
fi
console=$(tr -d '\r' <"$W/console.log")
status=$(grep -a -o "PBVM-EXIT:$nonce:[0-9]*" <<<"$console" | tail -n 1 | cut -d: -f3 || true)
if [[ -n $status ]]; then
    exit "$status"
fi
show_console
reason=$(grep -a -o "PBVM-FAIL:$nonce:.*" <<<"$console" | head -n 1 | cut -d: -f3- || true)
if [[ -n $reason ]]; then
    echo "$ME: guest setup failed: $reason" >&2
elif (( qrc != 0 )); then
    echo "$ME: qemu failed with status $qrc after $((SECONDS - start))s (see above)" >&2
elif grep -q -a 'Kernel panic' <<<"$console"; then
    echo "$ME: guest kernel panicked: $(grep -a -m1 'Kernel panic' <<<"$console")" >&2
else
    echo "$ME: guest stopped without reporting an exit status" >&2
fi
exit 125
