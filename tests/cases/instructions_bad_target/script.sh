#!/usr/bin/env bash
# A task whose targets the architecture tables do not know is an input error (exit 2) naming the
# task file and the field, before anything runs and without reports; with --instructions off
# the tables are not consulted.
set -uo pipefail
mkdir -p "$OUT"
fail=0
check() { if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
task() { # task NAME TARGETS_JSON: a copy of the tasks with gemm_bf16_nt's targets replaced
  cp -r "$ROOT/tasks" "$OUT/$1"
  python3 - "$OUT/$1/gemm_bf16_nt/task.json" "$2" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); t["targets"] = json.loads(sys.argv[2])
json.dump(t, open(sys.argv[1], "w"), indent=2)
PY
}
run() { # run NAME TASKS ARGS...
  PTXGATE_TASKS="$OUT/$2" "$BIN" check --no-gpu --quiet --output "$OUT/$1-out" "${@:3}" \
    "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json" >"$OUT/$1.stdout" 2>"$OUT/$1.stderr"
  echo $? >"$OUT/$1.rc"
}

task unknown '{"sm_90a": {"ptx": ["wgmma.mma_async", "wgmma.mma"], "sass": []}}'
run unknown unknown
check "unknown family: exit 2" [ "$(cat "$OUT/unknown.rc")" = 2 ]
check "unknown family: file, field and message" grep -q "unknown/gemm_bf16_nt/task.json: field 'targets.sm_90a.ptx\[1\]': unknown PTX instruction family 'wgmma.mma' for sm_90a" "$OUT/unknown.stderr"
check "unknown family: no reports" [ ! -e "$OUT/unknown-out/results.json" ]

task notable '{"sm_89": {"ptx": ["mma.sync"]}}'
run notable notable
check "no table for the arch: exit 2" [ "$(cat "$OUT/notable.rc")" = 2 ]
check "no table: named" grep -q "field 'targets.sm_89': no instruction table for sm_89 in" "$OUT/notable.stderr"

task sass '{"sm_90a": {"ptx": ["wgmma.mma_async"], "sass": ["UTMALDG"]}}'
run sass sass
check "a sass family that proves no target: exit 2" [ "$(cat "$OUT/sass.rc")" = 2 ]
check "named" grep -q "field 'targets.sm_90a.sass\[0\]': 'UTMALDG' proves none of the PTX targets of sm_90a" "$OUT/sass.stderr"

run off unknown --instructions off
check "--instructions off: the tables are not consulted" [ "$(cat "$OUT/off.rc")" = 0 ]
if ((fail)); then for f in "$OUT"/*.stderr; do echo "--- $f"; cat "$f"; done; fi
exit $fail
