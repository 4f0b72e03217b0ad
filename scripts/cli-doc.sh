#!/usr/bin/env bash
# Keeps docs/cli.md in step with `placebench --help`. docs/cli.md holds, for each command, a block
#   <!-- BEGIN HELP placebench topo -->  ...fenced --help output...  <!-- END HELP -->
# Usage: scripts/cli-doc.sh --check BIN   (exit 1 and a diff when a block differs from BIN's --help)
#        scripts/cli-doc.sh --update BIN  (rewrites the blocks from BIN's --help)
set -euo pipefail
mode=${1:-}; bin=${2:-}
doc="$(dirname "$0")/../docs/cli.md"
if [[ "$mode" != --check && "$mode" != --update || -z "$bin" ]]; then
  echo "usage: $0 --check|--update PATH/TO/placebench" >&2; exit 2
fi
[[ -x "$bin" ]] || { echo "$0: $bin is not an executable; build first (scripts/setup.sh)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Regenerate the whole document with fresh help blocks, then compare or replace.
status=0
while IFS= read -r line; do
  if [[ "$line" =~ ^\<\!--\ BEGIN\ HELP\ placebench(.*)\ --\>$ ]]; then
    read -r -a words <<<"${BASH_REMATCH[1]}"
    printf '%s\n' "$line" '```text' >>"$tmp/new.md"
    "$bin" "${words[@]}" --help >>"$tmp/new.md" 2>&1 || true
    printf '%s\n' '```' >>"$tmp/new.md"
    skipping=1
  elif [[ "$line" == "<!-- END HELP -->" ]]; then
    printf '%s\n' "$line" >>"$tmp/new.md"; skipping=0
  elif [[ "${skipping:-0}" == 0 ]]; then
    printf '%s\n' "$line" >>"$tmp/new.md"
  fi
done <"$doc"
if [[ "$mode" == --update ]]; then
  cp "$tmp/new.md" "$doc"; echo "updated $doc"
elif ! diff -u "$doc" "$tmp/new.md"; then
  echo "docs/cli.md is out of step with --help: run scripts/cli-doc.sh --update $bin and review" >&2
  status=1
else
  echo "docs/cli.md matches --help"
fi
exit $status
