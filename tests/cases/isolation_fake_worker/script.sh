#!/usr/bin/env bash
# The parent side of process isolation without a GPU: a fake worker (tests/fakes/fake_worker.py,
# through PTXGATE_WORKER) hangs, crashes, faults or never starts, and the parent must kill it on
# its watchdog, blame the right stage, give the remaining workloads to a fresh worker, keep what
# finished, carry peaks between workers and apply Holm across processes (both comparisons of a
# stage: against the library and against the accepted kernel). The job carries the accepted
# kernel, the instructions stage computed after assemble and the stored-baseline settings; the
# worker's stored-baseline notes reach the parent's results. The instructions stage is off here
# (the examples other than wgmma_tma fail it): what matters is that it travels.
set -uo pipefail
export PTXGATE_WORKER="$ROOT/tests/fakes/fake_worker.py"
wl=m257_n513_k1000,m2048_n2048_k2048,m4096_n4096_k4096
m="$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json"
fail=0
run() { # name, extra args...
  local name=$1; shift
  export FAKE_WORKER_LOG="$OUT/$name.log"
  "$BIN" check --quiet --instructions off --workloads "$wl" --output "$OUT/$name" "$@" "$m" \
    >"$OUT/$name.stdout" 2>&1
  echo $? >"$OUT/$name.rc"
}
mkdir -p "$OUT"
FAKE_WORKER_PLAN=m2048_n2048_k2048=hang:correctness run hang --watchdog correctness=1
FAKE_WORKER_PLAN=m257_n513_k1000=crash:performance run crash
FAKE_WORKER_PLAN=m257_n513_k1000=fault run fault
# 5 s, not 1: the GPU probe worker (not hung) must start within it on a loaded machine.
FAKE_WORKER_START=hang run nostart --watchdog startup=5
FAKE_WORKER_START=unavailable run unavailable
FAKE_WORKER_PLAN=m257_n513_k1000=slowfail,m4096_n4096_k4096=slowfail run holm
FAKE_WORKER_JUNK=1 run junk
python3 - "$OUT" "$ROOT/schemas/results.schema.json" <<'PY' || fail=1
import json, os, sys
out = sys.argv[1]
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad += 0 if ok else 1
def load(name):
    r = json.load(open(f"{out}/{name}/results.json"))
    # A worker the startup watchdog killed may not have logged its start yet (a loaded
    # machine starts Python slowly): no log is then an empty one.
    path = f"{out}/{name}.log"
    log = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
    rc = int(open(f"{out}/{name}.rc").read())
    sub = r["submissions"][0]
    wls = {w["name"]: w for w in sub["workloads"]}
    return r, log, rc, sub, wls
def stage(w, name):
    return next((s for s in w["stages"] if s["stage"] == name), None)

r, log, rc, sub, wls = load("hang")
c = stage(wls["m2048_n2048_k2048"], "correctness")
check(c and c["status"] == "fail" and c["message"].startswith("TIMEOUT: the watchdog killed the worker after 1 s in the correctness stage of workload m2048_n2048_k2048"), f"hang: correctness TIMEOUT blamed: {c and c['message']}")
check(wls["m2048_n2048_k2048"]["status"] == "TIMEOUT", "hang: PTXBench status TIMEOUT")
check(stage(wls["m257_n513_k1000"], "performance")["status"] == "pass", "hang: the workload before keeps its results")
check(stage(wls["m4096_n4096_k4096"], "performance")["status"] == "pass", "hang: the workload after runs in a fresh worker")
jobs = [e for e in log if "workloads" in e]
check(len(jobs) == 2 and jobs[1]["workloads"] == ["m4096_n4096_k4096"] and not jobs[1]["load_stage"], f"hang: second worker gets only the rest: {jobs}")
check(jobs[0]["peaks"] is None and jobs[1]["peaks"] == {"tflops": 800.0, "write_gbps": 3000.0}, "hang: peaks measured once, passed on")
check(jobs[0]["n_comparisons"] == 6, "hang: the run's comparison count (with the accepted kernel) reaches the worker")
acc = jobs[0]["accepted"]
check(acc is not None and acc["manifest"].endswith("wgmma_tma.json") and not acc["identical"], f"hang: the job carries the accepted kernel: {acc}")
check(jobs[0]["instructions"] == "skipped" and jobs[0]["options"]["instructions"] == "off" and jobs[0]["options"]["arch_dir"] and jobs[0]["options"]["on_missing_baseline"] == "measure", "hang: the job carries the instructions stage and the run's settings")
check([s["stage"] for s in wls["m2048_n2048_k2048"]["stages"]] == ["correctness", "instructions", "performance"], f"hang: after the killed correctness stage, instructions and performance are recorded: {[s['stage'] for s in wls['m2048_n2048_k2048']['stages']]}")
check(all(stage(w, "instructions") and "instruction checks are off" in stage(w, "instructions")["message"] for w in wls.values()), "hang: every workload has the instructions stage")
ev = r["baselines"]["tasks"][0]["events"]
check("m257_n513_k1000: fake stored-baseline note" in ev and "m4096_n4096_k4096: fake stored-baseline note" in ev, f"hang: the workers' stored-baseline notes reach the results: {ev}")
iso = sub["isolation"]
check(len(iso["workers"]) == 2 and iso["workers"][0]["end"] == "killed by the watchdog" and iso["workers"][1]["end"] == "exit 0", f"hang: worker ends recorded: {[w['end'] for w in iso['workers']]}")
check(all(w["startup_s"] is not None and w["startup_s"] < 5 for w in iso["workers"]) and iso["overhead_s"] > 0, "hang: startup overhead per worker recorded")
check([s["stage"] for s in sub["stages"]] == ["assemble", "load"], "hang: one load record")
check(rc == 1 and r["exit_code"] == 1, f"hang: exit code {rc}")
check(r["settings"]["isolation"] == "process" and r["settings"]["watchdog_s"]["correctness"] == 1, "hang: settings record the isolation and the watchdog")

r, log, rc, sub, wls = load("crash")
p = stage(wls["m257_n513_k1000"], "performance")
check(stage(wls["m257_n513_k1000"], "correctness")["status"] == "pass", "crash: the finished stage is kept")
check(p and p["status"] == "error" and "ended unexpectedly (signal 11" in p["message"] and "in the performance stage" in p["message"], f"crash: performance error blamed: {p and p['message']}")
v = stage(wls["m257_n513_k1000"], "verify")
check(v and v["status"] == "skipped", "crash: verify recorded as not run after the killed performance stage")
check(all(stage(wls[n], "performance")["status"] == "pass" for n in ("m2048_n2048_k2048", "m4096_n4096_k4096")), "crash: the other workloads run")
check(rc == 3, f"crash: infrastructure exit code {rc}")
check("output_tail" in sub["isolation"]["workers"][0], "crash: worker output tail kept")

r, log, rc, sub, wls = load("fault")
check(wls["m257_n513_k1000"]["status"] == "RUNTIME_ERROR", "fault: RUNTIME_ERROR kept")
check(all(stage(wls[n], "performance")["status"] == "pass" for n in ("m2048_n2048_k2048", "m4096_n4096_k4096")), "fault: next workloads unaffected, in a fresh worker")
check(len([e for e in log if "workloads" in e]) == 2 and rc == 1, f"fault: two workers, exit {rc}")

r, log, rc, sub, wls = load("nostart")
l = stage(sub, "load")
check(l and l["status"] == "fail" and "TIMEOUT: the worker did not open the GPU (killed by the watchdog" in l["message"], f"nostart: load TIMEOUT: {l and l['message']}")
check(all(stage(w, "correctness")["status"] == "skipped" for w in wls.values()) and rc == 1, f"nostart: workloads not run, exit {rc}")

r, log, rc, sub, wls = load("unavailable")
l = stage(sub, "load")
check(l and l["status"] == "error" and "fake" in l["message"] and rc == 3, f"unavailable: infrastructure error: {l and l['message']}, exit {rc}")

r, log, rc, sub, wls = load("holm")
usable = [e for e in log if "workloads" in e][0]["accepted"]["usable"]
m = 6 if usable else 3
for n in ("m257_n513_k1000", "m4096_n4096_k4096"):
    p = stage(wls[n], "performance")
    check(p["status"] == "pass" and f"Holm over the run's {m} comparisons made candidate_vs_cublaslt INCONCLUSIVE" in p["message"], f"holm: {n}: {p['message']}")
    cmps = p["details"]["comparisons"]
    check(cmps[0]["verdict"] == "INCONCLUSIVE" and cmps[0].get("holm_changed") and not cmps[1].get("holm_changed"), f"holm: {n}: index 0 changed by Holm, the canary untouched")
    if usable:
        check(cmps[2]["name"] == "candidate_vs_accepted" and cmps[2]["verdict"] == "PASS", f"holm: {n}: the accepted-kernel comparison kept")
check(r["holm"]["m"] == m and r["holm"]["m_planned"] == 6, f"holm: the run's family: {r['holm']}")
check(rc == 0, f"holm: exit {rc}")
# Malformed status lines (worker_event.h) are counted per worker and change nothing else; the
# fake's own lines all decode, so no other worker has any.
r, log, rc, sub, wls = load("junk")
workers = sub["isolation"]["workers"]
check(len(workers) == 1 and workers[0].get("bad_status_lines") == 7, f"junk: 7 bad status lines counted: {workers}")
check(all(stage(w, "performance")["status"] == "pass" for w in wls.values()) and rc == 0, f"junk: the run goes on as without them, exit {rc}")
for name in ("hang", "crash", "fault", "nostart", "unavailable", "holm"):
    ws = load(name)[3]["isolation"]["workers"]
    check(all("bad_status_lines" not in w for w in ws), f"{name}: every status line decoded")
# Every results.json the parent wrote is valid under the schema.
import jsonschema
schema = json.load(open(sys.argv[2]))
for name in ("hang", "crash", "fault", "nostart", "unavailable", "holm", "junk"):
    errs = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(f"{out}/{name}/results.json"))))
    check(not errs, f"{name}: results.json valid under the schema{': ' + errs[0].message if errs else ''}")
print(f"{bad} failed checks")
sys.exit(1 if bad else 0)
PY
if ((fail)); then for f in "$OUT"/*.stdout; do echo "--- $f"; cat "$f"; done; fi
exit $fail
