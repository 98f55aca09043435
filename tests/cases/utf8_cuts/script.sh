#!/usr/bin/env bash
# Text cut for stderr never splits a UTF-8 character: an expression error quotes the whole
# character it stopped at (it used to print its first byte alone), a results file's bad value
# quoted to 64 bytes ends with whole characters, and stderr stays valid UTF-8. Exit 2 each,
# no report.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
valid_utf8() { python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2>/dev/null; }
mkdir -p "$OUT"

"$BIN" check --no-gpu --output "$OUT/expr" "$CASE/expr.json" >/dev/null 2>"$OUT/expr.err"
rc=$?
cat "$OUT/expr.err"
check "expression error: exit 2 (got $rc)" [ $rc = 2 ]
check "expression error: stderr is valid UTF-8" valid_utf8 "$OUT/expr.err"
check "expression error: the whole character is quoted, at its column in characters" \
  grep -qF "syntax error at column 20 of 'ceil_div(N, 128) + é': expected a number, symbol or '(', found 'é'" "$OUT/expr.err"
check "expression error: no report" bash -c '[ ! -e "$1" ] || [ -z "$(ls -A "$1")" ]' _ "$OUT/expr"

# A results file whose stage status is 'x' and 40 two-byte characters: quoted to 64 bytes, the
# cut falls inside the 32nd character, which is left out whole.
"$BIN" check --no-gpu --quiet --output "$OUT/run" "$ROOT/tests/cases/offline_noop/m.json" >/dev/null 2>&1
python3 - "$OUT/run/results.json" "$OUT/bad.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["submissions"][0]["stages"][0]["status"] = "x" + "é" * 40
json.dump(r, open(sys.argv[2], "w"), ensure_ascii=False)
PY
"$BIN" report --output "$OUT/rep" "$OUT/bad.json" >/dev/null 2>"$OUT/rep.err"
rc=$?
cat "$OUT/rep.err"
check "results value: exit 2 (got $rc)" [ $rc = 2 ]
check "results value: stderr is valid UTF-8" valid_utf8 "$OUT/rep.err"
check "results value: quoted up to the last whole character" \
  grep -qF "found \"x$(printf 'é%.0s' $(seq 31))\"" "$OUT/rep.err"
check "results value: no report" bash -c '[ ! -e "$1" ] || [ -z "$(ls -A "$1")" ]' _ "$OUT/rep"
exit $fail
