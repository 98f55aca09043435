#!/usr/bin/env bash
# The accepted kernel is prepared and assembled once per run, not once per submission (also
# with --no-gpu), and not at all for a candidate that did not assemble (its accepted_kernel
# record says assemble "skipped" and why). A submission that is its task's accepted kernel (the
# same manifest file) is that kernel: compiled and assembled once, SASS-identical by bytes.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
mkdir -p "$OUT"
"$BIN" check --no-gpu --instructions warn --workloads m257_n513_k1000 \
  --accepted-kernel "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json" --output "$OUT/run" \
  "$ROOT/tests/cases/offline_noop/m.json" "$ROOT/tests/cases/workloads_cross_task/gemm.json" \
  "$ROOT/tests/fixtures/gemm_bf16_nt/syntax_error.json" >"$OUT/stdout" 2>"$OUT/stderr"
check "exit 1 (syntax_error fails)" [ $? -eq 1 ]
check "the accepted kernel assembled once" [ "$(grep -c 'assemble (accepted kernel) \.\.\.' "$OUT/stderr")" == 1 ]
check "the records" python3 - "$OUT/run/results.json" <<'PY'
import json, sys
subs = json.load(open(sys.argv[1]))["submissions"]
acc = [s["accepted_kernel"] for s in subs]
ok = all(a["manifest"].endswith("handwritten.json") for a in acc)
ok &= [a["assemble"] for a in acc] == ["pass", "pass", "skipped"]
ok &= acc[0]["message"] == acc[1]["message"] and "ptxas" in acc[0]["message"]
ok &= acc[2]["message"] == "the accepted kernel was not assembled: the candidate did not assemble"
ok &= subs[2]["stages"][0]["status"] == "fail"
if not ok:
    print(json.dumps(acc, indent=1))
sys.exit(0 if ok else 1)
PY

"$BIN" check --no-gpu --instructions warn --workloads m257_n513_k1000 --output "$OUT/self" \
  "$ROOT/tasks/gemm_bf16_nt/examples/wgmma_tma.json" >"$OUT/stdout2" 2>"$OUT/stderr2"
check "self: exit 0" [ $? -eq 0 ]
check "self: no separate assembly of the accepted kernel" \
  [ "$(grep -c 'assemble (accepted kernel)' "$OUT/stderr2")" == 0 ]
check "self: the record" python3 - "$OUT/self/results.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["submissions"][0]
a = s["accepted_kernel"]
ok = a["manifest"] == s["manifest"] and a["assemble"] == "pass"
ok &= a["cubin_identical"] is True and a["identical_by"] == "bytes"
ok &= a["message"] == s["stages"][0]["message"]
if not ok:
    print(json.dumps(a, indent=1))
sys.exit(0 if ok else 1)
PY
exit $fail
