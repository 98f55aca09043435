#!/usr/bin/env python3
"""A stand-in for `ptxgate worker` (the process an isolated `ptxgate check` runs per submission),
so the parent side of isolation -- watchdog, merging, respawning, Holm across processes -- is
tested without a GPU. Run through PTXGATE_WORKER. It speaks the status protocol of
gate/pipeline/worker.h and fakes the GPU stages.

Like the real worker it copies the instructions stage the parent computed (the job's
"instructions") into every workload after correctness, reports the comparison against the
accepted kernel (index 2 of the stage's comparisons) next to the one against the library (index
0) when the job carries a usable accepted kernel, and reports one stored-baseline note per
workload.

Behaviour per workload, from FAKE_WORKER_PLAN (comma-separated WORKLOAD=ACTION; default ok):
  ok            correctness pass, performance pass
  slowfail      correctness pass, performance fail with a weak FAIL (p_fail_seq 0.009), which
                the run's Holm step turns INCONCLUSIVE when there are two of them
  hang:STAGE    announce STAGE (correctness | performance) and sleep until killed
  crash:STAGE   announce STAGE and die of SIGSEGV
  fault         correctness fails as RUNTIME_ERROR, then report "stopped" (broken context)
FAKE_WORKER_SLEEP=S sleeps S seconds in every performance stage (to see workers overlap);
FAKE_WORKER_KILL=TEXT SIGKILLs the first worker of a submission whose manifest path contains TEXT
in its first performance stage (a GPU lost mid-run); FAKE_WORKER_ODD_DEVICE=N makes the probe of
device N report another GPU model. Job starts, ends and kills are logged with a time stamp "t"
and the job's device.
FAKE_WORKER_START=hang|die|unavailable makes every job worker hang before or die before
opening the GPU, or report no GPU. FAKE_WORKER_JUNK=1 makes every job worker send the malformed
status lines of JUNK after "device" (the parent counts them as bad_status_lines and goes on).
Every start is logged as one JSON line to FAKE_WORKER_LOG.
"""
import json
import os
import signal
import sys
import time

INFO = {"name": "Fake GPU", "uuid": "GPU-fake", "pci_bus_id": "0000:00:00.0", "driver_version": "0",
        "ordinal": 0, "cc_major": 9, "cc_minor": 0, "sm_count": 132, "sm_clock_mhz": 1980,
        "max_sm_clock_mhz": 1980, "memory_clock_mhz": 2619, "max_memory_clock_mhz": 3201,
        "power_limit_w": 700.0, "ecc": 1, "l2_bytes": 62914560,
        "memory_bytes": 150000000000, "driver_api_version": 13000, "cublaslt_version": 130100,
        "cudnn_version": 91400,
        "max_threads_per_block": 1024, "max_shared_per_block": 49152,
        "max_shared_per_block_optin": 232448, "max_block_dim": [1024, 1024, 64],
        "max_grid_dim": [2147483647, 65535, 65535]}


def arg(name):
    a = sys.argv
    return a[a.index(name) + 1] if name in a else None


status = open(arg("--status"), "w", buffering=1)


def emit(**ev):
    status.write(json.dumps(ev) + "\n")
    status.flush()


def log(entry):
    path = os.environ.get("FAKE_WORKER_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(entry) + "\n")


if "--probe" in sys.argv:
    ordinal = int(arg("--device") or 0)
    log({"probe": True, "device": ordinal})
    info = dict(INFO, ordinal=ordinal, uuid=f"GPU-fake-{ordinal}")
    if os.environ.get("FAKE_WORKER_ODD_DEVICE") == str(ordinal):
        info["name"] = "Other Fake GPU"
    emit(ev="device", info=info)
    emit(ev="done")
    sys.exit(0)

job = json.load(open(arg("--job")))
manifest = json.load(open(job["manifest"]))
task = json.load(open(os.path.join(job["tasks_dir"], manifest["task"], "task.json")))
names = [task["workloads"][i]["name"] for i in job["workloads"]]
acc = job.get("accepted")
instr = job.get("instructions")
log({"t": time.time(), "manifest": job["manifest"], "device": job["options"]["device"],
     "workloads": names, "load_stage": job["load_stage"], "n_comparisons": job["n_comparisons"],
     "peaks": job["peaks"], "accepted": acc, "instructions": instr and instr["status"],
     "options": job["options"]})
with_accepted = bool(acc and acc["usable"] and not acc["identical"])
plan = dict(item.split("=", 1) for item in os.environ.get("FAKE_WORKER_PLAN", "").split(",") if item)

start = os.environ.get("FAKE_WORKER_START", "")
if start == "hang":
    time.sleep(3600)
if start == "die":
    os.kill(os.getpid(), signal.SIGKILL)
if start == "unavailable":
    emit(ev="unavailable", reason="no CUDA device: fake")
    emit(ev="done")
    sys.exit(0)

emit(ev="ready", startup_s=0.01)
emit(ev="device", info=INFO)

# Lines a broken worker might send: not JSON, an unknown kind, a required field missing or of
# the wrong type, a workload snapshot without its record, a device without its fingerprint.
JUNK = ['ready', '{"ev": "teleport"}', '{"ev": "ready"}', '{"ev": "progress", "stage": 7}',
        '{"ev": "workload", "index": %d, "final": true}' % job["workloads"][0],
        '{"ev": "device", "info": {"name": "Fake GPU"}}', '{"ev": "stopped"}']
if os.environ.get("FAKE_WORKER_JUNK"):
    for line in JUNK:
        status.write(line + "\n")
    status.flush()


def stage(name, status_, message, details=None):
    return {"stage": name, "status": status_, "message": message, "duration_s": 0.01,
            "details": details or {}}


def cmp_result(verdict, p_fail_seq):
    return {"verdict": verdict, "blocks": 16, "look": 0, "assignments": 65536, "exact": True,
            "holm_changed": False, "alpha_look": 0.001, "mean_log_ratio": 1.0,
            "sd_log_ratio": 0.01, "acf1_log_ratio": "nan", "skew_log_ratio": 0.0,
            "ratio_estimate": 2.7, "ratio_ci_low": 2.6, "ratio_ci_high": 2.8, "p_fail": 0.001,
            "p_pass": 1.0, "p_fast": 1.0, "p_fail_seq": p_fail_seq, "mde_ratio": "inf"}


if job["load_stage"]:
    emit(ev="progress", workload=None, stage="load", status=None, message=None)
    emit(ev="stage", record=stage("load", "pass", "module loaded (fake)", {"log": "", "image": "cubin (ptxas)"}))
    emit(ev="progress", workload=None, stage="load", status="pass", message="module loaded (fake)")

for index, name in zip(job["workloads"], names):
    w = task["workloads"][index]
    record = {"name": name, "aliases": w.get("aliases", []), "symbols": w["symbols"], "flop": 1.0,
              "verdict": "skipped", "stages": [], "status": "SKIPPED", "max_absolute_error": None,
              "max_relative_error": None, "latency_ms": None, "reference_latency_ms": None,
              "speedup_factor": None}
    action = plan.get(name, "ok")
    emit(ev="progress", workload=name, stage="correctness", status=None, message=None)
    if action in ("hang:correctness", "crash:correctness"):
        if action.startswith("hang"):
            time.sleep(3600)
        os.kill(os.getpid(), signal.SIGSEGV)
    if action == "fault":
        msg = "kernel failed at run time: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access"
        record["stages"].append(stage("correctness", "fail", msg))
        if instr:
            record["stages"].append(instr)
        record["stages"].append(stage("performance", "skipped", "not run: the correctness stage did not pass"))
        record["status"] = "RUNTIME_ERROR"
        emit(ev="progress", workload=name, stage="correctness", status="fail", message=msg)
        emit(ev="workload", index=index, final=True, record=record, perf=[], peaks=None)
        emit(ev="stopped", reason="device unusable after: CUDA_ERROR_ILLEGAL_ADDRESS")
        emit(ev="done")
        sys.exit(0)
    record["stages"].append(stage("correctness", "pass", "3/3 input sets within tolerance (fake)"))
    if instr:
        record["stages"].append(instr)
    record["status"] = "PASSED"
    emit(ev="progress", workload=name, stage="correctness", status="pass", message="ok")
    emit(ev="workload", index=index, final=False, record=record, perf=[], peaks=None)
    emit(ev="progress", workload=name, stage="performance", status=None, message=None)
    time.sleep(float(os.environ.get("FAKE_WORKER_SLEEP", "0")))
    kill = os.environ.get("FAKE_WORKER_KILL")
    if kill and kill in job["manifest"] and job["load_stage"]:
        log({"t": time.time(), "killed": True, "manifest": job["manifest"],
             "device": job["options"]["device"]})
        os.kill(os.getpid(), signal.SIGKILL)
    if action in ("hang:performance", "crash:performance"):
        if action.startswith("hang"):
            time.sleep(3600)
        os.kill(os.getpid(), signal.SIGSEGV)
    slow = action == "slowfail"
    comparisons = [{"name": "candidate_vs_cublaslt", "verdict": "FAIL" if slow else "PASS"},
                   {"name": "aa_canary", "verdict": "PASS"}]
    perf = [{"index": 0, "result": cmp_result(1, 0.009) if slow else cmp_result(0, 1.0)}]
    if with_accepted:
        comparisons.append({"name": "candidate_vs_accepted", "verdict": "PASS"})
        perf.append({"index": 2, "result": cmp_result(0, 1.0)})
    record["stages"].append(stage("performance", "fail" if slow else "pass",
                                  "FAIL: slow (fake)" if slow else "PASS (fake)",
                                  {"comparisons": comparisons}))
    emit(ev="progress", workload=name, stage="performance", status=record["stages"][-1]["status"], message="")
    emit(ev="workload", index=index, final=True, record=record, perf=perf,
         peaks={"tflops": 800.0, "write_gbps": 3000.0},
         baseline_events=[f"{name}: fake stored-baseline note"])

log({"t": time.time(), "end": True, "manifest": job["manifest"], "device": job["options"]["device"]})
emit(ev="done")
