#!/usr/bin/env bash
# scripts/k8s/admission-test.sh without a cluster: it parses, refuses bad arguments with exit 2 and one line,
# and its --dry-run prints the kubectl calls of each mode in order, with the job template rendered.
set -uo pipefail
script="$(cd "$(dirname "$0")/../.." && pwd)/scripts/k8s/admission-test.sh"
fails=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fails=$((fails + 1)); fi; }

check "bash -n" "bash -n '$script'"
check "--help" "'$script' --help | grep -q -- '--hold-node'"
for bad in "--hold-node n" "--image i --workers 1 --hold-node n" "--image i --workers x --hold-node n" "--image i" \
           "--image i --mode sideways" "--image i --hold-node n --bogus" "--image i --hold-node n --name Bad_Name" \
           "--image i --hold-node n --interval 100 --deadline 50"; do
  err=$("$script" $bad --dry-run 2>&1 >/dev/null); rc=$?
  check "refuses '$bad' (rc $rc)" "(( rc == 2 ))"
  check "one line for '$bad'" "[[ \$(printf '%s\n' \"\$err\" | wc -l) -eq 1 && \"\$err\" == admission-test.sh:* ]]"
done

out=$("$script" --dry-run --image reg/pb:1 --hold-node gpu-node-4 --workers 4 --gpus-per-worker 2 --namespace bench --out /tmp/adm)
order=$(printf '%s\n' "$out" | grep -v '^#' | sed -E 's/^kubectl --request-timeout=20s //' | awk '{print $1, $2}')
expected=$'cordon gpu-node-4\napply -f\nget pods,events\nget podgroups.scheduling.volcano.sh\nuncordon gpu-node-4\nget pods,events\nget podgroups.scheduling.volcano.sh\nplacebench admission'
check "release: the calls in order" "[[ \"\$order\" == \"\$expected\" ]]"
check "release: the namespace" "printf '%s\n' \"\$out\" | grep -q 'get pods,events -n bench -o json'"
check "release: the template rendered" "printf '%s\n' \"\$out\" | grep -q '#   *minAvailable: 4' && printf '%s\n' \"\$out\" | grep -q 'nvidia.com/gpu: 2' && ! printf '%s\n' \"\$out\" | grep -q '__'"
check "release: ends with the analysis" "printf '%s\n' \"\$out\" | tail -1 | grep -q 'admission /tmp/adm --out /tmp/adm/admission.json'"

out=$("$script" --dry-run --image reg/pb:1 --mode fail-readiness --workers 4)
check "fail-readiness: no cordon" "! printf '%s\n' \"\$out\" | grep -q cordon"
check "fail-readiness: the last worker fails readiness" "printf '%s\n' \"\$out\" | grep -q 'FAIL_READY_INDEX, value: \"3\"'"
check "fail-readiness: deletes the job" "printf '%s\n' \"\$out\" | grep -q 'delete jobs.batch.volcano.sh/placebench-admission -n default --wait=false'"

# A real run against a fake kubectl (PATH) that answers with the admitted-whole fixture: snapshots are
# written whole under UTC names, the node is cordoned and uncordoned, and the analysis runs on them.
placebench=${1:-}
if [[ -n "$placebench" ]]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  fix="$(cd "$(dirname "$0")/../.." && pwd)/tests/fixtures/admission/admitted-whole"
  mkdir -p "$tmp/bin"
  cat > "$tmp/bin/kubectl" <<FAKE
#!/usr/bin/env bash
echo "\$*" >> "$tmp/calls"
case "\$*" in
  *"get pods,events"*) cat "$fix/20261201T100700Z-pods-events.json" ;;
  *"get podgroups"*) cat "$fix/20261201T100700Z-podgroups.json" ;;
  *jsonpath*) printf 'True\nTrue\nTrue\nTrue\n' ;;
  *"apply -f -"*) cat > "$tmp/applied.yaml" ;;
esac
FAKE
  chmod +x "$tmp/bin/kubectl"
  PATH="$tmp/bin:$PATH" "$script" --image reg/pb:1 --hold-node gpu-node-4 --hold 1 --interval 1 --deadline 60 \
    --out "$tmp/out" --placebench "$placebench" > "$tmp/stdout" 2> "$tmp/stderr"; rc=$?
  check "fake cluster: exit 0 (rc $rc: $(tail -1 "$tmp/stderr"))" "(( rc == 0 ))"
  check "fake cluster: cordon before apply, uncordon after" \
    "[[ \$(grep -n -m1 cordon '$tmp/calls' | cut -d: -f1) -lt \$(grep -n -m1 apply '$tmp/calls' | cut -d: -f1) ]] && grep -q 'uncordon gpu-node-4' '$tmp/calls'"
  check "fake cluster: every call has a request timeout" "! grep -v -- '--request-timeout=20s' '$tmp/calls' | grep -q ."
  check "fake cluster: the rendered job was applied" "grep -q 'minAvailable: 4' '$tmp/applied.yaml'"
  check "fake cluster: UTC-named snapshots, none partial" \
    "ls '$tmp/out' | grep -Eq '^[0-9]{8}T[0-9]{6}Z-pods-events.json$' && ! ls -A '$tmp/out' | grep -q '^\\.tmp'"
  check "fake cluster: the analysis ran" "grep -q 'full gang bound' '$tmp/stdout' && [[ -s '$tmp/out/admission.json' ]]"
  check "fake cluster: --out is never reused" "! PATH='$tmp/bin:$PATH' '$script' --image i --hold-node n --out '$tmp/out' >/dev/null 2>&1"
fi

if (( fails )); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
