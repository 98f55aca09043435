#!/usr/bin/env bash
# An executed-work coverage above 1 is a measurement, not bad input: a kernel that computes padded
# tiles covers more than the task's FLOPs (wgmma_tma at m257_n513_k1000 measured 2.291 on the
# H200, and the range check of the results reader once made that run's report writing exit 2).
# report reads such a file and shows the coverage; a negative one is still refused.
set -uo pipefail
fixture="$ROOT/tests/data/results/instructions_runtime.json"
mkdir -p "$OUT/in"
python3 - "$fixture" "$OUT/in/above.json" 2.291 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
done = False
for s in r["submissions"]:
    for w in s["workloads"]:
        for st in w["stages"]:
            for t in (st.get("details") or {}).get("targets") or []:
                rt = t.get("runtime")
                if rt and isinstance(rt.get("coverage"), (int, float)) and not done:
                    rt["coverage"] = float(sys.argv[3]); done = True
assert done, "the fixture has no measured coverage"
json.dump(r, open(sys.argv[2], "w"), indent=2)
PY
sed 's/2\.291/-0.5/' "$OUT/in/above.json" >"$OUT/in/negative.json"
fail=0
"$BIN" report --output "$OUT/r1" "$OUT/in/above.json" >"$OUT/r1.stdout" 2>"$OUT/r1.stderr"
rc=$?
if [[ $rc != 0 ]]; then echo "FAIL: coverage 2.291: exit $rc"; cat "$OUT/r1.stderr"; fail=1; fi
grep -q "coverage 2.291" "$OUT/r1/summary.md" || { echo "FAIL: summary.md does not show coverage 2.291"; fail=1; }
"$BIN" report --output "$OUT/r2" "$OUT/in/negative.json" >"$OUT/r2.stdout" 2>"$OUT/r2.stderr"
rc=$?
[[ $rc == 2 ]] || { echo "FAIL: coverage -0.5: exit $rc, expected 2"; fail=1; }
grep -q "runtime.coverage': expected a number >= 0" "$OUT/r2.stderr" ||
  { echo "FAIL: the message does not name the field and range:"; cat "$OUT/r2.stderr"; fail=1; }
[[ $fail == 0 ]] && echo "ok: coverage above 1 reported, negative refused"
exit $fail
