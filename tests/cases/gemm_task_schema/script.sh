#!/usr/bin/env bash
# The gemm task fixtures (tests/data/model/gemm_tasks) and the shipped tasks match
# schemas/task.schema.json, and the schema itself refuses what it can see is wrong in the
# bad_gemm_* cases (an unknown layout, an unknown parameters key). Skips without python3's
# jsonschema.
set -u
python3 -c "import jsonschema" 2>/dev/null || { echo "SKIP: python3 jsonschema not installed"; exit 77; }
python3 - "$ROOT" <<'PY'
import glob, json, sys
import jsonschema
root = sys.argv[1]
schema = json.load(open(root + "/schemas/task.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
good = sorted(glob.glob(root + "/tests/data/model/gemm_tasks/*/task.json") +
              glob.glob(root + "/tasks/*/task.json"))
for f in good:
    errs = list(v.iter_errors(json.load(open(f))))
    if errs:
        print("FAIL: %s: %s" % (f[len(root) + 1:], errs[0].message)); bad += 1
refused = {"bad_gemm_layout": "layout", "bad_gemm_unknown_parameter": "gamma"}
for case, word in refused.items():
    for f in glob.glob(root + "/tests/cases/%s/tasks/*/task.json" % case):
        errs = list(v.iter_errors(json.load(open(f))))
        if not any(word in e.message or word in str(list(e.path)) for e in errs):
            print("FAIL: the schema accepts %s (expected an error about %s)" % (case, word))
            bad += 1
print("ok: %d tasks match the schema, %d bad ones refused" % (len(good), len(refused)) if not bad
      else "%d failures" % bad)
sys.exit(1 if bad else 0)
PY
