#!/usr/bin/env bash
# The include layering of gate/pipeline (check_layering.py): the real folder passes, and the
# checker itself catches a circle of headers and a stage that includes check.h.
set -u
check="$CASE/check_layering.py"
fail=0

python3 "$check" "$ROOT/gate/pipeline" || { echo "gate/pipeline breaks the layering"; fail=1; }

# A folder with a circle (a.h -> b.h -> a.h) and a stage reaching check.h through a header.
bad="$OUT/bad"
mkdir -p "$bad"
printf '#include "b.h"\n' >"$bad/a.h"
printf '#include "pipeline/a.h"\n' >"$bad/b.h"
printf '#include "settings.h"\n' >"$bad/check.h"
printf '/* */\n' >"$bad/settings.h"
printf '#include "check.h"\n' >"$bad/run.h"
printf '#include "run.h"\n#include "check.h"\n' >"$bad/check.c"
printf '#include "run.h"\n' >"$bad/stage_x.c"
python3 "$check" "$bad" 2>"$OUT/bad.err"
rc=$?
[ "$rc" = 1 ] || { echo "the bad folder gave exit $rc, expected 1"; fail=1; }
for want in 'include circle: a.h -> b.h -> a.h' \
            "stage_x.c reaches the orchestrator's check.h: stage_x.c -> run.h -> check.h" \
            "run.h reaches the orchestrator's check.h: run.h -> check.h"; do
  grep -qF "$want" "$OUT/bad.err" || { echo "missing: $want"; cat "$OUT/bad.err"; fail=1; }
done
# check.c, an orchestrator, may include check.h.
if grep -q '^.*: check.c reaches' "$OUT/bad.err"; then echo "check.c was flagged"; fail=1; fi
exit $fail
