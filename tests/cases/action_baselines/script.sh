#!/usr/bin/env bash
# action.yml's stored-baselines inputs reach `ptxgate check` through env: only: baselines-dir
# and gpu-key find the fixture baseline (its note in results.json and in the job summary), the
# policies are recorded in results.json, and a bad policy value is ptxgate's input error (exit
# code 2) without being expanded into a shell.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
yaml_python
push_event_setup
run() { # run NAME [input=value...]
  run_action "$1" --input comment-mode=off \
    --input submissions=tasks/gemm_bf16_nt/examples/tiled_mma.json --input instructions=warn "${@:2}"
}
run ok --input baselines-dir=tests/data/baselines --input gpu-key=h200-sxm \
  --input on-missing-baseline=warn --input on-drift=fail --input drift-tolerance=0.03
python3 - "$OUT/ok" <<'PY' || failures=$((failures + 1))
import json, sys
out = sys.argv[1]
b = json.load(open(f"{out}/reports/results.json"))["baselines"]
ok = (b["dir"] == "tests/data/baselines" and b["gpu_key"] == "h200-sxm" and
      b["on_missing_baseline"] == "warn" and b["on_drift"] == "fail" and
      abs(b["drift_tolerance"] - 0.03) < 1e-12 and b["tasks"][0]["status"] == "found")
print(("ok: " if ok else "FAIL: ") + "the inputs reached ptxgate check: " + json.dumps(b)[:300])
summary = open(f"{out}/summary.md").read()
ok2 = "**Stored baselines:** tests/data/baselines · GPU key h200-sxm (--gpu-key)" in summary
print(("ok: " if ok2 else "FAIL: ") + "the job summary shows the stored baselines")
sys.exit(0 if ok and ok2 else 1)
PY
out_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["outputs"].get(sys.argv[2], ""))' "$OUT/$1/result.json" "$2"; }
check "the run passed" [ "$(out_of ok exit-code)" = 0 ]
run bad --input 'on-drift=$(touch injected)'
check "a bad policy value is ptxgate's input error" [ "$(out_of bad exit-code)" = 2 ]
check "and says which flag" grep -q -- "--on-drift: expected 'warn' or 'fail', got '\$(touch injected)'" "$OUT/bad/log.txt"
check "and nothing was expanded" bash -c '[ ! -e injected ] && [ ! -e "$1/injected" ]' _ "$ROOT"
exit $((failures > 0))
