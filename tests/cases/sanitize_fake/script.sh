#!/usr/bin/env bash
# The sanitize stage without a GPU: a fake worker (PTXGATE_WORKER) reports a device, a fake
# compute-sanitizer (PTXGATE_COMPUTE_SANITIZER) writes canned reports. Findings in the
# submission's kernel fail the stage (default policy) and name the kernel; findings in other
# kernels and API errors do not gate; gate.sanitizer "warn" passes with a warning; a sanitizer
# that hangs is killed by the watchdog (error); without compute-sanitizer the stage is skipped;
# a bad tool list is a usage error.
set -uo pipefail
export PTXGATE_WORKER="$ROOT/tests/fakes/fake_worker.py"
export PTXGATE_COMPUTE_SANITIZER="$ROOT/tests/fakes/fake_compute_sanitizer.py"
m="$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json"
wl=m2048_n2048_k2048,m257_n513_k1000
mkdir -p "$OUT/tasks"
cp -r "$ROOT/tasks/gemm_bf16_nt" "$OUT/tasks/"
sed -i 's/"gate": {"min_speedup": 0.2,/"gate": {"min_speedup": 0.2, "sanitizer": "warn",/' "$OUT/tasks/gemm_bf16_nt/task.json"
grep -q '"sanitizer": "warn"' "$OUT/tasks/gemm_bf16_nt/task.json" || { echo "FAIL: could not set the policy"; exit 1; }
run() { # name, extra args...
  local name=$1; shift
  export FAKE_WORKER_LOG="$OUT/$name.workers" FAKE_SANITIZER_LOG="$OUT/$name.sanitizer"
  "$BIN" check --quiet --instructions off --workloads "$wl" --output "$OUT/$name" "$@" "$m" \
    >"$OUT/$name.stdout" 2>&1
  echo $? >"$OUT/$name.rc"
}
FAKE_SANITIZER_REPORT_MEMCHECK="$CASE/memcheck.log" run found --sanitize memcheck,racecheck
FAKE_SANITIZER_REPORT_MEMCHECK="$CASE/memcheck.log" run warn --sanitize memcheck --tasks "$OUT/tasks"
run clean --sanitize initcheck,synccheck
FAKE_SANITIZER_HANG=racecheck run hang --sanitize racecheck --watchdog sanitize=1
PTXGATE_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer run absent --sanitize memcheck
"$BIN" check --quiet --no-gpu --sanitize memcheck,leakcheck --output "$OUT/bad" "$m" >"$OUT/bad.stdout" 2>&1
echo $? >"$OUT/bad.rc"
python3 - "$OUT" "$ROOT/schemas/results.schema.json" <<'PY'
import json, sys
out = sys.argv[1]
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad += 0 if ok else 1
def load(name):
    r = json.load(open(f"{out}/{name}/results.json"))
    sub = r["submissions"][0]
    st = next(s for s in sub["stages"] if s["stage"] == "sanitize")
    return r, st, int(open(f"{out}/{name}.rc").read())

r, st, rc = load("found")
check(st["status"] == "fail" and "memcheck: Invalid __global__ write of size 2 bytes in gemm_bf16_nt_handwritten (x2)" in st["message"], f"found: {st['message']}")
check("clean: racecheck" in st["message"] and "m257_n513_k1000" in st["message"], "found: the clean tool and the smallest workload named")
mc = st["details"]["tools"]["memcheck"]
check(mc["errors"] == 2 and mc["other_kernel_errors"] == 1 and mc["summary_errors"] == 4, f"found: counts {mc['errors']}, {mc['other_kernel_errors']}, {mc['summary_errors']}")
check(any(f["kind"] == "api" for f in mc["findings"]), "found: the API error is kept, not gated")
calls = [json.loads(l) for l in open(f"{out}/found.sanitizer")]
check([c["tool"] for c in calls] == ["memcheck", "racecheck"] and all(c["mode"] == "sanitize" and c["sets"] == 1 and c["workloads"] == [4] for c in calls), f"found: sanitizer calls {calls}")
check(rc == 1, f"found: exit {rc}")
check([s["stage"] for s in r["submissions"][0]["stages"]] == ["assemble", "load", "sanitize"], "found: stage order")

r, st, rc = load("warn")
check(st["status"] == "pass" and st["message"].startswith("warning (task policy: warn): SANITIZER") and st["details"]["policy"] == "warn", f"warn: {st['message']}")
check(rc == 0, f"warn: exit {rc}")

r, st, rc = load("clean")
check(st["status"] == "pass" and st["message"].startswith("initcheck, synccheck: no errors"), f"clean: {st['message']}")

r, st, rc = load("hang")
check(st["status"] == "error" and "TIMEOUT: the watchdog killed the sanitizer run" in st["message"] and rc == 3, f"hang: {st['message']}, exit {rc}")

r, st, rc = load("absent")
check(st["status"] == "skipped" and "compute-sanitizer not found" in st["message"] and rc == 0, f"absent: {st['message']}, exit {rc}")

rc = int(open(f"{out}/bad.rc").read())
text = open(f"{out}/bad.stdout").read()
check(rc == 2 and "--sanitize: expected a comma-separated list" in text, f"bad list: exit {rc}")
import jsonschema
schema = json.load(open(sys.argv[2]))
for name in ("found", "warn", "clean", "hang", "absent"):
    errs = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(f"{out}/{name}/results.json"))))
    check(not errs, f"{name}: results.json valid under the schema{': ' + errs[0].message if errs else ''}")
print(f"{bad} failed checks")
sys.exit(1 if bad else 0)
PY
