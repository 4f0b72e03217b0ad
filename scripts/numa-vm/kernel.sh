# numa-vm/kernel.sh - sourced by scripts/numa-vm.sh: find the guest kernel.
# find_kernel sets `kernel` to a vmlinuz: $PLACEBENCH_VM_KERNEL, or the Debian cloud kernel
# (downloaded once into $cache, reused offline). Needs ME, W, cache,
# setup_error from the caller; runs under the caller's cache lock.
# shellcheck shell=bash

find_kernel() {
kernel=""
if [[ -n ${PLACEBENCH_VM_KERNEL:-} ]]; then
    [[ -f $PLACEBENCH_VM_KERNEL ]] || setup_error "PLACEBENCH_VM_KERNEL=$PLACEBENCH_VM_KERNEL: no such file"
    kernel=$PLACEBENCH_VM_KERNEL
else
    resolve_pkg() {
        if [[ -n ${PLACEBENCH_VM_KERNEL_PKG:-} ]]; then echo "$PLACEBENCH_VM_KERNEL_PKG"; return; fi
        local p
        p=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
            sed -n 's/^ *Depends: <\{0,1\}\(linux-image-[0-9][^ >]*-cloud-amd64\)>\{0,1\}$/\1/p' | head -n 1)
        if [[ -z $p ]]; then
            p=$(apt-cache search --names-only '^linux-image-[0-9].*-cloud-amd64$' 2>/dev/null |
                awk '{print $1}' | sort -V | tail -n 1)
        fi
        echo "$p"
    }
    pkg=""
    command -v apt-cache >/dev/null && pkg=$(resolve_pkg)
    if [[ -z $pkg && -f $cache/current ]]; then
        pkg=$(<"$cache/current")          # offline: reuse the last kernel
    fi
    if [[ -z $pkg && $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        apt-get update -q >"$W/apt-update.log" 2>&1 || true
        pkg=$(resolve_pkg)
    fi
    [[ -n $pkg ]] || setup_error "cannot find a linux-image-*-cloud-amd64 package (apt-cache search linux-image | grep cloud-amd64); set PLACEBENCH_VM_KERNEL=/path/to/vmlinuz"
    if [[ ! -f $cache/$pkg/vmlinuz ]]; then
        dl=$(mktemp -d "$cache/.dl.XXXXXX")
        echo "$ME: downloading kernel $pkg into $cache (once) ..." >&2
        if ! (cd "$dl" && apt-get download -o APT::Sandbox::User=root "$pkg") >"$W/apt-download.log" 2>&1; then
            cat "$W/apt-download.log" >&2; rm -rf -- "$dl"
            setup_error "apt-get download $pkg failed"
        fi
        deb=("$dl"/*.deb)
        mkdir -p "$dl/x" "$dl/out"
        # Equivalent of 'dpkg-deb -x', restricted to /boot (the modules are not needed).
        if ! dpkg-deb --fsys-tarfile "${deb[0]}" | tar -x -C "$dl/x" --wildcards './boot/*' 2>"$W/unpack.log"; then
            rm -rf -- "$dl/x"; mkdir -p "$dl/x"
            dpkg-deb -x "${deb[0]}" "$dl/x" 2>>"$W/unpack.log" || { cat "$W/unpack.log" >&2; rm -rf -- "$dl"; setup_error "cannot unpack ${deb[0]##*/}"; }
        fi
        vm=("$dl"/x/boot/vmlinuz-*)
        [[ -f ${vm[0]} ]] || { rm -rf -- "$dl"; setup_error "no /boot/vmlinuz-* in ${deb[0]##*/}"; }
        cp -- "${vm[0]}" "$dl/out/vmlinuz"
        cp -- "$dl"/x/boot/config-* "$dl/out/" 2>/dev/null || true
        echo "${deb[0]##*/}" >"$dl/out/package"
        rm -rf -- "${cache:?}/$pkg"
        mv -- "$dl/out" "$cache/$pkg"
        rm -rf -- "$dl"
    fi
    echo "$pkg" >"$cache/current"
    kernel=$cache/$pkg/vmlinuz
fi
}
