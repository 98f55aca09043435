#!/usr/bin/env bash
# A manifest whose bytes are not UTF-8 (inside a string) is malformed JSON: exit 2, the file
# and the line named, no report written.
set -uo pipefail
mkdir -p "$OUT/in"
m="$OUT/in/m.json"
printf '{\n  "schema_version": 1,\n  "task": "gemm_bf16_nt",\n  "description": "caf\xe9 \xff",\n  "source": "x.ptx",\n  "launches": []\n}\n' >"$m"
"$BIN" check --no-gpu --output "$OUT/r" "$m" >"$OUT/stdout" 2>"$OUT/stderr"
rc=$?
fail=0
[[ $rc == 2 ]] || { echo "FAIL: exit $rc, expected 2"; fail=1; }
grep -q "m.json:4" "$OUT/stderr" || { echo "FAIL: the message does not name the file and line"; fail=1; }
[[ ! -e "$OUT/r" || -z "$(ls -A "$OUT/r")" ]] || { echo "FAIL: files left in the output"; fail=1; }
((fail)) && cat "$OUT/stderr"
exit $fail
