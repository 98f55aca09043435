#!/usr/bin/env bash
# ptxgate publish refuses bad input with exit 2 and a message naming the problem, before any
# request: a malformed results file (file and JSON path), a bad comment mode or key, a bad
# token variable name, no results argument; and writes nothing to the summary or output files.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
mkdir -p "$OUT"
ok_results="$ROOT/tests/data/results/all_pass.json"
echo '{"schema_version": 1, "verdict": "maybe"}' >"$OUT/bad.json"
expect() { # expect DESCRIPTION MESSAGE ARGS...
  "$BIN" publish --summary-file "$OUT/summary.md" --output-file "$OUT/output.txt" "${@:3}" \
    >"$OUT/stdout" 2>"$OUT/stderr"
  local rc=$?
  check "$1: exit 2" [ "$rc" = 2 ]
  check "$1: says '$2'" grep -qF -- "$2" "$OUT/stderr"
}
expect "malformed results" "bad.json" "$OUT/bad.json"
expect "missing results" "none.json: cannot open" "$OUT/none.json"
expect "comment mode" "expected off, update or new, got 'always'" --comment always "$ok_results"
expect "comment key" "--comment-key" --comment update --comment-key 'x -->' "$ok_results"
expect "token variable" "--token-env: expected an environment variable name" --token-env 'A B' "$ok_results"
expect "no results argument" "expected exactly one RESULTS.json"
expect "bad pr" "--pr: expected an integer" --pr twelve "$ok_results"
check "nothing was written" [ ! -e "$OUT/summary.md" -a ! -e "$OUT/output.txt" ]
exit $((failures > 0))
