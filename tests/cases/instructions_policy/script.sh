#!/usr/bin/env bash
# Whether a failed instructions stage fails the submission: --instructions require|warn|off,
# else the task's gate.instructions, else require. The no-op kernel has none of its targets.
set -uo pipefail
mkdir -p "$OUT"
m="$ROOT/tests/cases/offline_noop/m.json"
fail=0
check() { if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
run() { # run NAME ARGS...
  "$BIN" check --no-gpu --quiet --output "$OUT/$1" "${@:2}" >"$OUT/$1.stdout" 2>"$OUT/$1.stderr"
  echo $? >"$OUT/$1.rc"
}
rc() { cat "$OUT/$1.rc"; }

run default "$m"
check "default (require): exit 1" [ "$(rc default)" = 1 ]
check "default: the stage fails" grep -q "instructions fail     2 of 2 targets fail on sm_90a" "$OUT/default.stdout"
run warn --instructions warn "$m"
check "warn: exit 0" [ "$(rc warn)" = 0 ]
check "warn: a passing stage with the warning" grep -q "instructions pass     warning (instructions policy warn: not failing the submission): 2 of 2 targets fail" "$OUT/warn.stdout"
check "warn: the markdown says WARN" grep -q "| wgmma.mma_async | WARN (absent_in_ptx) |" "$OUT/warn/summary.md"
run off --instructions=off "$m"
check "off: exit 0" [ "$(rc off)" = 0 ]
check "off: skipped with the reason" grep -q '"message": "instruction checks are off' "$OUT/off/results.json"
run bad --instructions maybe "$m"
check "a bad value: exit 2" [ "$(rc bad)" = 2 ]
check "a bad value: named" grep -q "ptxgate check: --instructions: expected 'require', 'warn' or 'off', got 'maybe'" "$OUT/bad.stderr"
check "a bad value: no reports" [ ! -e "$OUT/bad/results.json" ]

# The task says warn; the flag overrides it.
cp -r "$ROOT/tasks" "$OUT/tasks"
python3 - "$OUT/tasks/gemm_bf16_nt/task.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); t["gate"]["instructions"] = "warn"
json.dump(t, open(sys.argv[1], "w"), indent=2)
PY
PTXGATE_TASKS="$OUT/tasks" run task_warn "$m"
check "task policy warn: exit 0" [ "$(rc task_warn)" = 0 ]
check "task policy recorded" grep -q '"policy": "warn"' "$OUT/task_warn/results.json"
PTXGATE_TASKS="$OUT/tasks" run task_warn_required --instructions require "$m"
check "--instructions require overrides the task: exit 1" [ "$(rc task_warn_required)" = 1 ]
if ((fail)); then for f in "$OUT"/*.stdout "$OUT"/*.stderr; do echo "--- $f"; cat "$f"; done; fi
exit $fail
