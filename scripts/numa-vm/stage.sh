# numa-vm/stage.sh - sourced by scripts/numa-vm.sh: copy host files into the
# initramfs staging tree $S at their own paths (symlinked directories kept as
# symlinks), and list the shared libraries ELF files need. Needs ME, W, S and
# the associative array STAGED from the caller.
# shellcheck shell=bash

# stage_dir DIR: make DIR (absolute host path) exist in the staging tree,
# recreating symlinked components (e.g. /lib -> usr/lib) as symlinks.
stage_dir() {
    local d=$1
    [[ $d == / || -n ${STAGED[$d]:-} ]] && return 0
    STAGED[$d]=1
    local parent=${d%/*}; [[ -n $parent ]] || parent=/
    stage_dir "$parent"
    local rparent; rparent=$(realpath -- "$parent") || return 0
    [[ $rparent == / ]] && rparent=""
    if [[ -L $d ]]; then
        ln -sfn -- "$(readlink -- "$d")" "$S$rparent/${d##*/}"
        local rd; rd=$(realpath -- "$d") || return 0   # dangling: leave the link
        stage_dir "$rd"
    else
        mkdir -p -- "$S$rparent/${d##*/}"
    fi
}

# stage_path PATH: copy file/dir/symlink PATH (absolute) to the same path in
# the staging tree; follows symlink chains.  Writes only below real (resolved)
# directories, so absolute symlinks never make it write outside $S.
stage_path() {
    local p=$1
    [[ -n ${STAGED[$p]:-} ]] && return 0
    STAGED[$p]=1
    if [[ ! -e $p && ! -L $p ]]; then echo "$ME: warning: $p does not exist" >>"$W/stage.log"; return 0; fi
    local dir=${p%/*}; [[ -n $dir ]] || dir=/
    stage_dir "$dir"
    local rdir; rdir=$(realpath -- "$dir") || return 0; [[ $rdir == / ]] && rdir=""
    local dest=$S$rdir/${p##*/}
    if [[ -L $p ]]; then
        local t; t=$(readlink -- "$p")
        ln -sfn -- "$t" "$dest"
        [[ $t == /* ]] || t=$rdir/$t
        stage_path "$(realpath -sm -- "$t")"
    elif [[ -d $p ]]; then
        local rp; rp=$(realpath -- "$p")
        mkdir -p -- "$dest"
        cp -a -- "$p/." "$dest/"
        # symlinks inside that lead outside the directory
        local l t
        while IFS= read -r -d '' l; do
            t=$(readlink -- "$l")
            [[ $t == /* ]] || t=$(realpath -s -- "$(dirname -- "$l")")/$t
            t=$(realpath -sm -- "$t")
            [[ $t == "$rp"/* ]] || stage_path "$t"
        done < <(find "$rp" -type l -print0)
    else
        cp -p -- "$p" "$dest"
        # The initramfs lives in the guest's RAM (node 0's, mostly): without debug info a RelWithDebInfo
        # placebench is ~10x smaller, which leaves node 0 room for the buffers the tests bind there.
        if [[ -f $dest && ! -L $dest ]] && head -c 4 -- "$dest" 2>/dev/null | grep -q $'\x7fELF'; then
            strip --strip-debug -- "$dest" 2>/dev/null || true
        fi
    fi
}

# Shared libraries (absolute paths) that ldd lists for the given files.
ldd_libs() {
    (( $# )) || return 0
    { ldd -- "$@" 2>/dev/null || true; } | awk '
        $2 == "=>" && $3 ~ /^\// { print $3; next }
        $1 ~ /^\// && $2 ~ /^\(0x/ { print $1 }' | sort -u
}
