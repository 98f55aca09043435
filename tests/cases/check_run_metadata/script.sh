#!/usr/bin/env bash
# check --label, --commit and --commit-time record the run's metadata in results.json ("run",
# the commit time converted to UTC), ptxgate report reproduces the summary from it byte for byte,
# and a bad value is exit 2 naming the flag, before any work and with no reports written.
set -uo pipefail
failures=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi; }
mkdir -p "$OUT"
sub=tests/fixtures/gemm_bf16_nt/syntax_error.json
"$BIN" check --no-gpu --quiet --output "$OUT/run" --label "model-v2" --commit ABCDEF0123456789 \
  --commit-time 2026-11-29T11:30:00+01:00 "$sub" >"$OUT/run.stdout" 2>&1
check "check ran (exit 1: the syntax error)" [ $? = 1 ]
check "run metadata recorded, commit lower-cased, time in UTC" python3 - "$OUT/run/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["run"] == {"label": "model-v2", "commit": "abcdef0123456789",
                    "commit_time_utc": "2026-11-29T10:30:00Z"}, r.get("run")
PY
"$BIN" report --output "$OUT/again" "$OUT/run/results.json" >/dev/null 2>&1
check "report reproduces the summary" cmp -s "$OUT/run/summary.md" "$OUT/again/summary.md"
for bad in "--commit nothex!" "--commit-time yesterday" "--label="; do
  # shellcheck disable=SC2086
  "$BIN" check --no-gpu --quiet --output "$OUT/bad" $bad "$sub" >"$OUT/bad.stdout" 2>&1
  rc=$?
  flag=${bad%% *}; flag=${flag%%=*}
  check "$bad: exit 2" [ $rc = 2 ]
  check "$bad: names $flag" grep -q -- "$flag" "$OUT/bad.stdout"
  check "$bad: no reports" [ ! -e "$OUT/bad/results.json" ]
done
exit $((failures > 0))
