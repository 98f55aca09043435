#!/usr/bin/env bash
# Device symbols offline: a manifest whose grid is sized by num_sms and whose shared memory by
# max_dynamic_shared_bytes takes the values of data/arch/sm_90a.json's reference_device and
# records them in results.json, marked assumed; a misspelt symbol is exit 2 naming the field and
# the known symbols, with no reports written.
set -uo pipefail
failures=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi; }
mkdir -p "$OUT"
"$BIN" check --no-gpu --instructions warn --quiet --output "$OUT/run" "$CASE/m.json" >"$OUT/run.stdout" 2>&1
rc=$?
check "offline check passes (exit 0, got $rc)" [ $rc = 0 ]
check "the values used are recorded, assumed" python3 - "$OUT/run/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["submissions"][0]["device_symbols"]
assert s == {"num_sms": 132, "l2_bytes": 62914560, "max_dynamic_shared_bytes": 232448,
             "assumed": True, "source": "assumed: reference_device H200 SXM of the sm_90a table"}, s
PY
"$BIN" check --no-gpu --output "$OUT/bad" "$CASE/typo.json" >"$OUT/bad.stdout" 2>&1
rc=$?
check "misspelt symbol: exit 2 (got $rc)" [ $rc = 2 ]
check "names the file and field" grep -q "typo.json: field 'launches\[0\].grid\[0\]'" "$OUT/bad.stdout"
check "lists the device symbols" grep -q "known: M, N, K, num_sms, l2_bytes, max_dynamic_shared_bytes" "$OUT/bad.stdout"
check "no reports" [ ! -e "$OUT/bad/results.json" ]
exit $((failures > 0))
