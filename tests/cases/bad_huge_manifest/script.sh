#!/usr/bin/env bash
# A manifest above the 16 MiB limit of JSON inputs is refused before it is parsed: exit 2, a
# message naming the file and the limit, no report written.
set -uo pipefail
mkdir -p "$OUT/in"
m="$OUT/in/huge.json"
{ printf '{"schema_version": 1, "task": "gemm_bf16_nt", "description": "'
  head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' x
  printf '"}\n'; } >"$m"
"$BIN" check --no-gpu --output "$OUT/r" "$m" >"$OUT/stdout" 2>"$OUT/stderr"
rc=$?
fail=0
[[ $rc == 2 ]] || { echo "FAIL: exit $rc, expected 2"; fail=1; }
grep -q "huge.json" "$OUT/stderr" && grep -qi "larger\|limit\|too large" "$OUT/stderr" ||
  { echo "FAIL: the message does not name the file and the limit"; fail=1; }
[[ ! -e "$OUT/r" || -z "$(ls -A "$OUT/r")" ]] || { echo "FAIL: files left in the output"; fail=1; }
((fail)) && cat "$OUT/stderr"
exit $fail
