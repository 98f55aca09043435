#!/usr/bin/env bash
# The attention smoke submissions offline: the forward (one launch) and the backward (three
# launches with two workspaces sized by expressions) compile, match their signatures and plan
# every workload of the four attention tasks; results carry the PTXBench aliases and FLOPs.
# (The instructions stage is off: these plain kernels use no wgmma/TMA by design.)
set -uo pipefail
"$BIN" check --no-gpu --instructions off --output "$OUT" tests/fixtures/mha >"$OUT.stdout" 2>"$OUT.stderr"
rc=$?
[[ $rc == 0 ]] || { echo "FAIL: exit $rc, expected 0"; cat "$OUT.stdout" "$OUT.stderr"; exit 1; }
n=$(grep -c "^  assemble     pass" "$OUT.stdout")
[[ $n == 4 ]] || { echo "FAIL: $n of 4 submissions assembled"; cat "$OUT.stdout"; exit 1; }
for e in naive_mha_bwd_pre naive_mha_bwd_main naive_mha_bwd_convert naive_mha_fwd; do
  grep -q "$e: " "$OUT.stdout" || { echo "FAIL: entry $e not assembled"; exit 1; }
done
python3 - "$OUT/results.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
subs = {s["task"]: s for s in r["submissions"]}
want = {"mha_fwd_d128": ("mha_with_lse_d128", 4), "mha_fwd_d128_causal": ("mha_with_lse_d128_causal", 2),
        "mha_bwd_d128": ("mha_bwd_d128", 10), "mha_bwd_d128_causal": ("mha_bwd_d128_causal", 5)}
bad = 0
for task, (alias, k) in want.items():
    s = subs.get(task)
    if not s:
        print("FAIL: no submission for", task); bad += 1; continue
    w = next(w for w in s["workloads"] if w["name"] == "b4_h48_s4096_d128")
    flop = k * 4 * 48 * 4096 * 4096 * 128
    if w["aliases"] != [alias] or w["flop"] != flop:
        print("FAIL:", task, w["aliases"], w["flop"], "expected", alias, flop); bad += 1
    if len(s["workloads"]) != 5:
        print("FAIL:", task, "has", len(s["workloads"]), "workloads"); bad += 1
sys.exit(1 if bad else 0)
PY
# Every shipped task against the task schema (when jsonschema is installed).
if python3 -c "import jsonschema" 2>/dev/null; then
  python3 - <<'PY' || exit 1
import glob, json, jsonschema
schema = json.load(open("schemas/task.schema.json"))
for f in sorted(glob.glob("tasks/*/task.json")):
    jsonschema.validate(json.load(open(f)), schema)
print("ok: tasks/*/task.json match schemas/task.schema.json")
PY
else
  echo "note: python3 jsonschema not installed; tasks not checked against the schema"
fi
echo "ok: 4 attention submissions assembled and planned"
