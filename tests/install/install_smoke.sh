#!/usr/bin/env bash
# Installs the build into a temporary prefix and runs the installed placebench from / (so nothing is
# found through the working directory): `run` on a tiny config, then `report` on that run, which must
# find the installed share/placebench/scripts (not the checkout). The report half is skipped, with the
# reason, when the checkout's report environment (.venv, scripts/setup.sh) is absent.
# Usage: install_smoke.sh CMAKE BUILD_DIR CONFIG.yaml REPORT_PYTHON
set -euo pipefail
cmake=$1 build=$2 config=$3 python=$4
tmp=$(mktemp -d /tmp/pb-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_smoke: FAIL: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; fail "cmake --install"; }
share=$tmp/prefix/share/placebench
for f in bin/placebench share/placebench/configs/default.yaml share/placebench/scripts/report.py \
         share/placebench/scripts/placebench_report/main.py share/placebench/scripts/requirements-report.txt; do
  [[ -e "$tmp/prefix/$f" ]] || fail "not installed: $f"
done
echo "installed into $tmp/prefix"

# The config is copied out of the checkout, so the installed binary reads nothing from there.
cp "$config" "$tmp/tiny.yaml"
cd /
rc=0
env -u PLACEBENCH_HOME "$tmp/prefix/bin/placebench" run --config "$tmp/tiny.yaml" --rounds 2:2 --out "$tmp/run" \
  >"$tmp/run.log" 2>&1 || rc=$?
[[ $rc -eq 0 ]] || { cat "$tmp/run.log" >&2; fail "placebench run: exit $rc"; }
for f in run.json trials.jsonl summary.json; do [[ -s "$tmp/run/$f" ]] || fail "run directory lacks $f"; done
echo "placebench run: ok ($tmp/run)"

# Without PLACEBENCH_PYTHON an installed tree (no .venv) uses python3 from PATH: a report when that one has
# matplotlib, else exit 2 with one line naming the requirements to install.
rc=0
env -u PLACEBENCH_HOME -u PLACEBENCH_PYTHON "$tmp/prefix/bin/placebench" report "$tmp/run" -o "$tmp/r0.html" \
  >"$tmp/report0.log" 2>&1 || rc=$?
if [[ $rc -eq 0 ]]; then
  [[ -s "$tmp/r0.html" ]] || fail "report with python3 from PATH: exit 0 but no $tmp/r0.html"
  echo "placebench report with python3 from PATH: ok"
elif [[ $rc -eq 2 ]] && grep -q "requirements-report.txt\|no python3 on PATH" "$tmp/report0.log"; then
  echo "placebench report with python3 from PATH: exit 2 as documented ($(head -c 200 "$tmp/report0.log"))"
else
  cat "$tmp/report0.log" >&2; fail "placebench report with python3 from PATH: exit $rc"
fi

if [[ ! -x "$python" ]]; then
  echo "report half skipped: no $python (run scripts/setup.sh to create the report environment)"
  exit 0
fi
# PLACEBENCH_PYTHON gives the checkout's Python (with matplotlib); the scripts must come from $share.
rm -rf "$share/scripts/placebench_report/__pycache__"
env -u PLACEBENCH_HOME -u PYTHONDONTWRITEBYTECODE PLACEBENCH_PYTHON="$python" \
  "$tmp/prefix/bin/placebench" report "$tmp/run" -o "$tmp/r.html" >"$tmp/report.log" 2>&1 \
  || { cat "$tmp/report.log" >&2; fail "placebench report"; }
[[ -s "$tmp/r.html" ]] || fail "no report at $tmp/r.html"
compgen -G "$share/scripts/placebench_report/__pycache__/main.*.pyc" >/dev/null \
  || fail "the report did not run the installed package ($share/scripts/placebench_report)"
echo "placebench report: ok ($(wc -c <"$tmp/r.html") bytes, from the installed package)"
