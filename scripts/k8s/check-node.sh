#!/usr/bin/env bash
# One node's check in the cluster recipes (scripts/k8s/mpijob.yaml, volcano-job.yaml), started on every node
# by mpirun with one rank per node after `run --per-node`: checks this node's newest run, OUT/runs/<node>/*/,
# against REFERENCE with `placebench check`, writing OUT/junit/<node>.xml (one JUnit file per node, the
# node in its name and its testsuite) and the run's check.md. The node is named as placebench names it
# (docs/operator-tests.md): PLACEBENCH_HOST_NAME, else the first line of PLACEBENCH_HOST_NAME_FILE (the
# recipes' pods write spec.nodeName there), else the host name.
# Usage: check-node.sh OUT REFERENCE   (no REFERENCE file: nothing to check, exit 0)
# Exit status: placebench check's (3: a reference missed), 1 when this node has no run, 2 on bad use.
set -uo pipefail
[[ $# -eq 2 ]] || { echo "usage: check-node.sh OUT REFERENCE" >&2; exit 2; }
out=$1 reference=$2
pb=${PLACEBENCH_BIN:-/opt/placebench/build/placebench}
[[ -f "$reference" ]] || { echo "check-node.sh: no $reference; nothing checked"; exit 0; }
node=${PLACEBENCH_HOST_NAME:-}
if [[ -z "$node" && -n "${PLACEBENCH_HOST_NAME_FILE:-}" ]]; then
  node=$(head -n 1 "$PLACEBENCH_HOST_NAME_FILE") || { echo "check-node.sh: cannot read $PLACEBENCH_HOST_NAME_FILE" >&2; exit 2; }
fi
node=${node:-$(hostname)}
run=$(ls -d "$out/runs/$node"/*/ 2>/dev/null | tail -n 1)
[[ -n "$run" ]] || { echo "check-node.sh: no run of node $node in $out/runs" >&2; exit 1; }
mkdir -p "$out/junit"
exec "$pb" check "${run%/}" --reference "$reference" --junit "$out/junit/$node.xml" --markdown "${run%/}/check.md"
