#!/usr/bin/env bash
# action.yml's recursive, devices and sanitize inputs reach `ptxgate check` through env: only:
# recursive: true runs the manifests below a folder of folders (the suite_recursive fixture),
# devices and sanitize are recorded in results.json's settings; recursive: false leaves the
# folder of folders refused. A recursive value other than true/false is refused by the action
# itself, and bad devices or sanitize values are ptxgate's input errors (exit code 2); none of
# them is ever expanded by a shell.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
yaml_python
push_event_setup
run() { # run NAME [input=value...]
  run_action "$1" --input comment-mode=off --input instructions=off \
    --input submissions=tests/cases/suite_recursive/submissions "${@:2}"
}
out_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["outputs"].get(sys.argv[2], ""))' "$OUT/$1/result.json" "$2"; }

run ok --input recursive=true --input devices=0,1 --input sanitize=memcheck,racecheck
check "recursive, devices and sanitize: the run passes" [ "$(out_of ok exit-code)" = 0 ]
python3 - "$OUT/ok" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(f"{sys.argv[1]}/reports/results.json"))
got = ([s["manifest"].split("submissions/")[1] for s in r["submissions"]],
       r["settings"]["devices"], r["settings"]["sanitize"])
want = (["model-v1/gemm_bf16_nt/noop.json", "model-v2/gemm_bf16_nt/noop.json",
         "model-v2/gemm_bf16_nt/noop_tuned.json"], [0, 1], "memcheck,racecheck")
print(("ok: " if got == want else "FAIL: ") + "the inputs reached ptxgate check: " + json.dumps(got))
sys.exit(0 if got == want else 1)
PY
run flat --input recursive=false
check "recursive: false leaves a folder of folders refused (exit 2)" [ "$(out_of flat exit-code)" = 2 ]
check "with ptxgate's hint" grep -q "has subfolders: --recursive" "$OUT/flat/log.txt"

cd "$OUT" || exit 1 # a relative "injected" would land here
bad() { # name, expected log text, input
  run "$1" --input "$3"
  check "$1: exit-code 2" [ "$(out_of "$1" exit-code)" = 2 ]
  check "$1: the job fails" [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["conclusion"])' "$OUT/$1/result.json")" = failure ]
  check "$1: says '$2'" grep -qF -- "$2" "$OUT/$1/log.txt"
  check "$1: nothing was expanded" bash -c '[ ! -e "$1/injected" ] && [ ! -e "$2/injected" ]' _ "$ROOT" "$OUT"
}
bad bad_recursive "::error title=ptxgate::recursive must be true or false" 'recursive=$(touch injected)'
bad bad_recursive_yes "::error title=ptxgate::recursive must be true or false" 'recursive=yes'
bad bad_devices "'--devices': expected comma-separated device ordinals (e.g. 0,1), found '\$(touch injected)'" \
  'devices=$(touch injected)'
bad bad_sanitize "--sanitize: expected a comma-separated list of memcheck, racecheck, synccheck, initcheck (each once), got 'memcheck;touch injected'" \
  'sanitize=memcheck;touch injected'
exit $((failures > 0))
