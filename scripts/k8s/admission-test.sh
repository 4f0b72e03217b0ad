#!/usr/bin/env bash
# The admission experiment (docs/admission.md, "Running the experiment"): submit an N-worker Volcano gang
# (scripts/k8s/admission-job.yaml) while only N-1 placements are feasible (one node cordoned), record kubectl
# snapshots at an interval, then make the Nth placement available (uncordon) — or, with --mode fail-readiness,
# let every placement be feasible but keep one worker from ever becoming Ready and delete the job at
# --ready-timeout — and end by running `placebench admission` on the snapshots.
# Every wait has a deadline (--deadline; each kubectl call also has --request-timeout and `timeout`).
# --dry-run prints the kubectl calls it would make and runs none.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
workers=4 gpus=2 namespace=default image="" interval=10 hold_s=120 deadline=1800 ready_timeout=300
mode=release hold_node="" out="" placebench="${PLACEBENCH:-placebench}" name=placebench-admission dry_run=0

usage() {
  cat <<USAGE
usage: admission-test.sh --image IMAGE [--hold-node NODE] [options]
  --workers N          gang size, one worker per node (default 4): the GPU nodes that can take one
  --gpus-per-worker G  GPUs per worker (default 2)
  --namespace NS       namespace (default default)
  --image IMAGE        worker image holding /opt/placebench (required)
  --mode MODE          release: cordon --hold-node, submit, uncordon after --hold (default);
                       fail-readiness: the last worker never becomes Ready; the job is deleted at --ready-timeout
  --hold-node NODE     the node whose placement is withheld (release mode; required there)
  --hold SECONDS       how long only N-1 placements are feasible (default 120)
  --ready-timeout S    fail-readiness: how long to wait for readiness before deleting the job (default 300)
  --interval SECONDS   snapshot interval (default 10)
  --deadline SECONDS   the whole experiment's deadline (default 1800)
  --name NAME          job name (default placebench-admission)
  --out DIR            where the snapshots and admission.json go (default admission-<UTC time>; must not exist)
  --placebench BIN     placebench binary (default \$PLACEBENCH or placebench)
  --dry-run            print the kubectl calls it would make, run none
USAGE
}

die() { echo "admission-test.sh: $*" >&2; exit 2; }
whole() { [[ "$2" =~ ^[0-9]+$ ]] && (( 10#$2 >= $3 )) || die "$1: '$2' is not a whole number >= $3"; }

while (( $# )); do
  case "$1" in
    --workers) whole "$1" "${2-}" 2; workers=$2; shift 2 ;;
    --gpus-per-worker) whole "$1" "${2-}" 1; gpus=$2; shift 2 ;;
    --namespace) [[ -n "${2-}" ]] || die "--namespace: empty value"; namespace=$2; shift 2 ;;
    --image) [[ -n "${2-}" ]] || die "--image: empty value"; image=$2; shift 2 ;;
    --mode) [[ "${2-}" == release || "${2-}" == fail-readiness ]] || die "--mode: '${2-}'; accepted: release, fail-readiness"
            mode=$2; shift 2 ;;
    --hold-node) [[ -n "${2-}" ]] || die "--hold-node: empty value"; hold_node=$2; shift 2 ;;
    --hold) whole "$1" "${2-}" 0; hold_s=$2; shift 2 ;;
    --ready-timeout) whole "$1" "${2-}" 1; ready_timeout=$2; shift 2 ;;
    --interval) whole "$1" "${2-}" 1; interval=$2; shift 2 ;;
    --deadline) whole "$1" "${2-}" 1; deadline=$2; shift 2 ;;
    --name) [[ "${2-}" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]] || die "--name: '${2-}' is not a DNS-1123 name"; name=$2; shift 2 ;;
    --out) [[ -n "${2-}" ]] || die "--out: empty value"; out=$2; shift 2 ;;
    --placebench) [[ -n "${2-}" ]] || die "--placebench: empty value"; placebench=$2; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1'; see --help" ;;
  esac
done
[[ -n "$image" ]] || die "--image is required (an image with a built placebench at /opt/placebench)"
[[ "$mode" == fail-readiness || -n "$hold_node" ]] || die "--hold-node is required in release mode (the node to cordon so only N-1 placements fit)"
(( interval < deadline )) || die "--interval ($interval s) must be below --deadline ($deadline s)"
out=${out:-admission-$(date -u +%Y%m%dT%H%M%SZ)}
(( dry_run )) || [[ ! -e "$out" ]] || die "--out $out: already exists; give a new directory (recorded snapshots are never overwritten)"

request_timeout=20
kube() {
  if (( dry_run )); then echo "kubectl --request-timeout=${request_timeout}s $*"; return 0; fi
  timeout $((request_timeout + 5)) kubectl --request-timeout="${request_timeout}s" "$@"
}
start=$(date +%s)
left() { echo $((deadline - ($(date +%s) - start))); }

fail_index=-1
[[ "$mode" == fail-readiness ]] && fail_index=$((workers - 1))
render() {
  sed -e "s|__NAME__|$name|g" -e "s|__NAMESPACE__|$namespace|g" -e "s|__WORKERS__|$workers|g" -e "s|__GPUS__|$gpus|g" \
      -e "s|__IMAGE__|$image|g" -e "s|__FAIL_READY_INDEX__|$fail_index|g" "$here/admission-job.yaml"
}

# One snapshot: pods and events in one List, PodGroups in another, named by the UTC time (written whole).
snapshot() {
  local stamp; stamp=$(date -u +%Y%m%dT%H%M%SZ)
  if (( dry_run )); then
    kube get pods,events -n "$namespace" -o json
    kube get podgroups.scheduling.volcano.sh -n "$namespace" -o json
    return 0
  fi
  kube get pods,events -n "$namespace" -o json > "$out/.tmp-pods" && mv "$out/.tmp-pods" "$out/$stamp-pods-events.json"
  kube get podgroups.scheduling.volcano.sh -n "$namespace" -o json > "$out/.tmp-pg" && mv "$out/.tmp-pg" "$out/$stamp-podgroups.json"
}

# Snapshots every --interval until `until_fn` succeeds (0), `seconds` pass (0 for `never`, else 1), or the
# deadline (1).
record_until() {
  local seconds=$1 until_fn=$2 t0; t0=$(date +%s)
  if (( dry_run )); then echo "# every ${interval}s for at most ${seconds}s (deadline ${deadline}s):"; snapshot; return 0; fi
  while :; do
    snapshot
    "$until_fn" && return 0
    if (( $(date +%s) - t0 >= seconds )); then
      [[ "$until_fn" == never ]] && return 0
      echo "admission-test.sh: $until_fn not reached within ${seconds}s" >&2; return 1
    fi
    (( $(left) > interval )) || { echo "admission-test.sh: deadline of ${deadline}s reached" >&2; return 1; }
    sleep "$interval"
  done
}
never() { return 1; }
all_ready() {
  local ready
  ready=$(kube get pods -n "$namespace" -l "volcano.sh/job-name=$name" \
          -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True || true)
  (( ready >= workers ))
}
all_gone() { [[ -z "$(kube get pods -n "$namespace" -l "volcano.sh/job-name=$name" -o name)" ]]; }

cordoned=0
cleanup() { if (( cordoned && ! dry_run )); then kube uncordon "$hold_node" >/dev/null || true; fi; }
trap cleanup EXIT

(( dry_run )) || mkdir -p "$out"
status=0
if [[ "$mode" == release ]]; then
  kube cordon "$hold_node"; cordoned=1
fi
if (( dry_run )); then
  echo "kubectl --request-timeout=${request_timeout}s apply -f - <<< (scripts/k8s/admission-job.yaml: $name, $workers x $gpus GPUs, FAIL_READY_INDEX=$fail_index)"
  render | sed 's/^/#   /'
else
  render | kube apply -f -
fi
if [[ "$mode" == release ]]; then
  record_until "$hold_s" never || status=1
  kube uncordon "$hold_node"; cordoned=0
  (( status )) || record_until "$(left)" all_ready || status=1
else
  if record_until "$ready_timeout" all_ready && (( ! dry_run )); then
    echo "admission-test.sh: warning: every worker became Ready; the readiness failure was not forced" >&2
  fi
  kube delete "jobs.batch.volcano.sh/$name" -n "$namespace" --wait=false
  (( status )) || record_until "$(left)" all_gone || status=1
fi
(( dry_run )) || snapshot
if (( dry_run )); then
  echo "$placebench admission $out --out $out/admission.json"
  exit 0
fi
"$placebench" admission "$out" --out "$out/admission.json" || status=$?
exit "$status"
