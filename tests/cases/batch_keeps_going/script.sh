#!/usr/bin/env bash
# A batch keeps going (docs/exit-codes.md): with several manifests, a malformed manifest or a
# missing source is that submission's failed "manifest" stage (file:field message, details
# with the file, line and field; JUnit failure, summary line, publish annotation at the
# manifest) and the others are judged, exit 1. One manifest stays exit 2 with no report; so do
# a broken task file, a bad option, an unusable --output and a sharded batch, before any work.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
mkdir -p "$OUT"
good="$ROOT/tests/cases/offline_noop/m.json"
malformed="$ROOT/tests/cases/bad_malformed_json/m.json"
nosource="$ROOT/tests/cases/bad_missing_source/m.json"
args=(check --no-gpu --accepted-kernel none --instructions warn --workloads m257_n513_k1000)

"$BIN" "${args[@]}" --output "$OUT/batch" "$malformed" "$good" "$nosource" \
  >"$OUT/batch.stdout" 2>"$OUT/batch.stderr"
check "batch: exit 1" [ $? -eq 1 ]
check "batch: progress names the bad manifest" grep -q "manifest: fail — .*bad_malformed_json/m.json:5: malformed JSON" "$OUT/batch.stderr"
check "batch: the good one judged" grep -q "^m (gemm_bf16_nt, sm_90a): pass" "$OUT/batch.stdout"
check "batch: progress counts the judged items" grep -q "^progress: 1/1 items (1/1 submissions), [0-9]* s$" "$OUT/batch.stderr"
check "the results" python3 - "$OUT/batch/results.json" "$malformed" "$nosource" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
subs = r["submissions"]
ok = True
def want(c, what):
    global ok
    if not c:
        print("  " + what); ok = False
want(subs[0]["manifest"] == sys.argv[2] and subs[2]["manifest"] == sys.argv[3], "command-line order")
want(subs[1]["verdict"] == "pass" and subs[1]["workloads"], "the good submission judged")
bad = [subs[0], subs[2]]
for s in bad:
    st = s["stages"]
    want(len(st) == 1 and st[0]["stage"] == "manifest" and st[0]["status"] == "fail", "one failed manifest stage")
    want(s["verdict"] == "fail" and s["workloads"] == [], "verdict fail, no workloads")
    want(st[0]["details"]["file"] == s["manifest"], "details name the manifest")
want(subs[0]["stages"][0]["details"]["line"] == 5, "malformed JSON: the line")
want(subs[0]["task"] == "unknown", "malformed JSON: task unknown")
want(subs[2]["task"] == "gemm_bf16_nt" and subs[2]["stages"][0]["details"]["field"] == "source", "missing source: task and field")
want("field 'source'" in subs[2]["stages"][0]["message"], "missing source: file:field message")
want(r["verdict"] == "fail" and r["exit_code"] == 1, "run fails with exit 1")
sys.exit(0 if ok else 1)
PY
if python3 -c "import jsonschema" 2>/dev/null; then
  check "results valid under the schema" python3 -c '
import json, sys, jsonschema
s = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
errs = list(jsonschema.Draft202012Validator(s).iter_errors(r))
[print("  ", e.message, list(e.path)) for e in errs[:5]]
sys.exit(1 if errs else 0)' "$ROOT/schemas/results.schema.json" "$OUT/batch/results.json"
else
  echo "note: python jsonschema absent; the schema is checked by the unit tests' subset only"
fi
check "JUnit: a manifest failure" grep -q '<testcase name="manifest\[all\]" classname="unknown.m"' "$OUT/batch/junit.xml"
check "JUnit: the malformed manifest at its line" grep -q '<testcase name="manifest\[all\]" classname="unknown.m"[^>]* line="5"' "$OUT/batch/junit.xml"
check "JUnit: the missing source's failure" grep -q "type=\"manifest\">.*field 'source'" "$OUT/batch/junit.xml"
check "summary: the manifest line" grep -q "^- manifest: FAIL — .*bad_missing_source/m.json: field 'source'" "$OUT/batch/summary.md"
"$BIN" report "$OUT/batch/results.json" --output "$OUT/again" >/dev/null 2>&1
check "report regenerates the same JUnit" cmp -s "$OUT/batch/junit.xml" "$OUT/again/junit.xml"
# publish's annotations (the workflow commands, no network): one at each bad manifest.
(unset GITHUB_TOKEN GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_ACTIONS
 "$BIN" publish --annotations --workspace "$ROOT" --summary-file '' --output-file '' \
   "$OUT/batch/results.json" >"$OUT/publish.stdout" 2>&1)
if grep -q '^::error' "$OUT/publish.stdout"; then
  check "publish: annotation at the malformed manifest" grep -q '^::error file=tests/cases/bad_malformed_json/m.json' "$OUT/publish.stdout"
  check "publish: annotation at the missing source's manifest" grep -q '^::error file=tests/cases/bad_missing_source/m.json' "$OUT/publish.stdout"
else
  echo "FAIL: publish printed no annotation:"; cat "$OUT/publish.stdout"; fail=1
fi

# A manifest above the 16 MiB JSON limit in a batch: its failure, read no further than the limit.
mkdir -p "$OUT/in"
{ printf '{"schema_version": 1, "task": "gemm_bf16_nt", "description": "'
  head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' x
  printf '"}\n'; } >"$OUT/in/huge.json"
"$BIN" "${args[@]}" --output "$OUT/huge" "$good" "$OUT/in/huge.json" >"$OUT/huge.stdout" 2>&1
check "huge manifest in a batch: exit 1" [ $? -eq 1 ]
check "huge manifest: its manifest stage names the limit, task unknown" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["submissions"][1]
st = s["stages"][0]
sys.exit(0 if st["stage"] == "manifest" and "huge.json" in st["message"] and s["task"] == "unknown"
         and ("limit" in st["message"] or "larger" in st["message"]) else 1)' "$OUT/huge/results.json"

# A --workloads item only the failed submission's task would have had is not an error there.
"$BIN" check --no-gpu --accepted-kernel none --instructions warn --output "$OUT/wl" \
  --workloads m257_n513_k1000,b2_h16_s1000_d128 "$good" "$nosource" >"$OUT/wl.stdout" 2>&1
check "batch with --workloads: exit 1, judged" [ $? -eq 1 ] && [ -f "$OUT/wl/results.json" ]

# Exit 2 before any work, no reports.
stop() { # WHAT EXPECTED-TEXT ARGS...
  local what=$1 text=$2; shift 2
  local o="$OUT/stop_${what// /_}"
  "$BIN" "$@" >"$o.stdout" 2>"$o.stderr"
  local rc=$?
  check "$what: exit 2" [ $rc -eq 2 ]
  check "$what: says '$text'" grep -qF -- "$text" "$o.stderr"
}
stop "one manifest" "malformed JSON" "${args[@]}" --output "$OUT/one" "$malformed"
check "one manifest: no reports" [ ! -e "$OUT/one/results.json" ]
stop "broken task" "task.json" "${args[@]}" --tasks "$ROOT/tests/cases/bad_task_malformed_json/tasks" \
  --output "$OUT/task" "$good" "$ROOT/tests/cases/bad_task_malformed_json/m.json"
check "broken task: no reports" [ ! -e "$OUT/task/results.json" ]
stop "sharded batch" "malformed JSON" "${args[@]}" --shard 1/2 --output "$OUT/shard" "$good" "$malformed"
check "sharded batch: no reports" [ ! -e "$OUT/shard/results.json" ]
stop "bad option" "--sets" "${args[@]}" --sets 0 --output "$OUT/opt" "$good" "$malformed"
touch "$OUT/afile"
stop "output is a file" "--output" "${args[@]}" --output "$OUT/afile" "$good" "$malformed"
exit $fail
