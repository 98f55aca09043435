#!/usr/bin/env bash
# Only the readers read JSON (check_readers.py): gate/ passes, and the checker itself names the
# file and line of a call outside the allowlist and lets the allowed readers be.
set -u
check="$CASE/check_readers.py"
fail=0

python3 "$check" "$ROOT/gate" || { echo "json_object_get outside the reader files (above)"; fail=1; }

bad="$OUT/gate"
mkdir -p "$bad/pipeline" "$bad/model" "$bad/report"
printf '#include <jansson.h>\nstatic int f(json_t *j)\n{\n    return json_object_get(j, "x") != 0;\n}\n' \
  >"$bad/pipeline/stage_x.c"
printf '#define GET(j) json_object_get(j, "y")\n' >"$bad/pipeline/stage_x.h"
printf 'int g(json_t *j) { return !!json_object_get(j, "task"); }\n' >"$bad/model/task.c"
printf 'int h(json_t *j) { return !!json_object_get(j, "stages"); }\n' >"$bad/report/results_read.c"
python3 "$check" "$bad" 2>"$OUT/bad.err"
rc=$?
[ "$rc" = 1 ] || { echo "the bad folder gave exit $rc, expected 1"; fail=1; }
for want in 'gate/pipeline/stage_x.c:4: json_object_get outside the readers' \
            'gate/pipeline/stage_x.h:1: json_object_get outside the readers'; do
  grep -qF "$want" "$OUT/bad.err" || { echo "missing: $want"; cat "$OUT/bad.err"; fail=1; }
done
if grep -qE 'model/task.c|results_read.c' "$OUT/bad.err"; then
  echo "an allowed reader was flagged"; cat "$OUT/bad.err"; fail=1
fi
exit $fail
