#!/usr/bin/env bash
# supports: a manifest declaring "N % 256 == 0 && K % 64 == 0" runs the workloads it supports and
# records the others not_applicable (never a pass) in results.json, JUnit (skipped with the
# reason) and markdown; a tensor map that cannot be encoded for a declined workload (C with 513
# columns) is no error. Declining a required workload, declining every selected workload and a
# constraint with a syntax error are exit 2 naming the file and the field, with no reports; in a
# batch the required decline is that submission's failed manifest stage.
set -uo pipefail
failures=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi; }
mkdir -p "$OUT"
"$BIN" check --no-gpu --instructions warn --quiet --output "$OUT/run" "$CASE/m.json" >"$OUT/run.stdout" 2>&1
rc=$?
check "offline check passes (exit 0, got $rc)" [ $rc = 0 ]
check "console: not applicable with the constraint" grep -q "workload m257_n513_k1000: not applicable (supports: N % 256 == 0 && K % 64 == 0)" "$OUT/run.stdout"
check "results.json: declined workloads not_applicable, the others run" python3 - "$OUT/run/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["submissions"][0]
w = {x["name"]: x for x in s["workloads"]}
assert sorted(w) == sorted(["m8192_n7168_k5120", "m4096_n4096_k4096", "m2048_n2048_k2048",
                            "m4000_n3000_k4000", "m257_n513_k1000"]), sorted(w)
for name in ["m4000_n3000_k4000", "m257_n513_k1000"]:
    x = w[name]
    assert x["status"] == "NOT_APPLICABLE" and x["verdict"] == "skipped", x
    assert x["not_applicable"] == {"constraint": "N % 256 == 0 && K % 64 == 0"}, x
    assert [st["stage"] for st in x["stages"]] == ["supports"], x
    assert x["stages"][0]["status"] == "skipped" and "not applicable" in x["stages"][0]["message"]
assert "not_applicable" not in w["m8192_n7168_k5120"]
assert w["m8192_n7168_k5120"]["status"] != "NOT_APPLICABLE"
PY
check "JUnit: a skipped testcase with the reason" grep -q '<skipped message="not applicable: the manifest supports .N % 256 == 0 &amp;&amp; K % 64 == 0., which M=257, N=513, K=1000' "$OUT/run/junit.xml"
check "markdown: the reason" grep -q "not applicable: the manifest supports" "$OUT/run/summary.md"
bad() { # name, expected field, expected message part
  local name="$1" field="$2" want="$3"
  "$BIN" check --no-gpu --output "$OUT/$name" "$CASE/$name.json" >"$OUT/$name.stdout" 2>&1
  local rc=$?
  check "$name: exit 2 (got $rc)" [ $rc = 2 ]
  check "$name: names file and field" grep -q "$name.json: field '$field'" "$OUT/$name.stdout"
  check "$name: says '$want'" grep -qF "$want" "$OUT/$name.stdout"
  check "$name: no reports" [ ! -e "$OUT/$name/results.json" ]
}
bad required supports "'N % 4096 == 0' declines workload 'm8192_n7168_k5120' (M=8192, N=7168, K=5120), which task 'gemm_bf16_nt' marks required"
bad syntax supports "syntax error at column 4 of 'N %% 2 == 0'"
bad symbol supports "unknown symbol 'Q'"
"$BIN" check --no-gpu --workloads m257_n513_k1000 --output "$OUT/every" "$ROOT/tests/cases/supports_offline/m.json" >"$OUT/every.stdout" 2>&1
rc=$?
check "declining every selected workload: exit 2 (got $rc)" [ $rc = 2 ]
check "declining every selected workload: says so" grep -q "field 'supports': 'N % 256 == 0 && K % 64 == 0' declines every selected workload (1 of them, e.g. 'm257_n513_k1000'" "$OUT/every.stdout"
check "declining every selected workload: no reports" [ ! -e "$OUT/every/results.json" ]
# In a batch, declining a required workload is that submission's failed manifest stage.
"$BIN" check --no-gpu --instructions warn --quiet --output "$OUT/batch" "$CASE/required.json" "$CASE/m.json" >"$OUT/batch.stdout" 2>&1
rc=$?
check "batch: exit 1 (got $rc)" [ $rc = 1 ]
check "batch: the required decline is a failed manifest stage" python3 - "$OUT/batch/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
a, b = r["submissions"]
assert a["name"] == "required" and a["verdict"] == "fail", a["verdict"]
assert a["stages"][0]["stage"] == "manifest" and a["stages"][0]["status"] == "fail"
assert "marks required" in a["stages"][0]["message"] and a["stages"][0]["details"]["field"] == "supports"
assert b["name"] == "m" and b["verdict"] == "pass", b["verdict"]
PY
exit $((failures > 0))
