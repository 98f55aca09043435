#!/usr/bin/env python3
"""Self-test of check.py and of every case's `expect` file, without a GPU: a results.json that
meets every expectation (built from the expect files themselves) must pass, and each single
change of a status, a PTXBench status or a message must fail.

usage: selftest.py CASES_DIR SCRATCH_DIR
"""
import copy
import json
import os
import subprocess
import sys

cases_dir, scratch = sys.argv[1], sys.argv[2]
sys.path.insert(0, cases_dir)
from check import load_expectations  # noqa: E402

WORKLOADS = ["m257_n513_k1000", "m2048_n2048_k2048"]
subs = []
for case in sorted(os.listdir(cases_dir)):
    if not os.path.isfile(os.path.join(cases_dir, case, "expect")):
        continue
    mode, rows = load_expectations(os.path.join(cases_dir, case))
    assert mode in ("offline", "gpu"), f"{case}: mode {mode}"
    assert rows, f"{case}: no expectation"
    assert os.path.isfile(os.path.join(cases_dir, case, case + ".json")), f"{case}: manifest"
    sub = {"name": case, "stages": [], "workloads": [
        {"name": w, "status": "PASSED", "stages": []} for w in WORKLOADS]}
    for wl, stage, status, ptxbench, message in rows:
        rec = {"stage": stage, "status": status, "message": "... " + message + " ..."}
        if wl == "-":
            sub["stages"].append(rec)
            continue
        for w in sub["workloads"]:
            if wl in ("*", w["name"]):
                w["stages"].append(dict(rec))
                if ptxbench != "-":
                    w["status"] = ptxbench
    subs.append(sub)
honest = {"name": "tiled_mma", "stages": [], "workloads": [
    {"name": w, "status": "PASSED", "stages": [
        {"stage": "correctness", "status": "pass", "message": ""},
        {"stage": "verify", "status": "pass", "message": ""}]} for w in WORKLOADS]}
base = {"submissions": subs + [honest]}
os.makedirs(scratch, exist_ok=True)


def run(results):
    path = os.path.join(scratch, "results.json")
    json.dump(results, open(path, "w"))
    return subprocess.run([sys.executable, os.path.join(cases_dir, "check.py"), path, cases_dir,
                           "--mode", "gpu", "--honest", "tiled_mma"],
                          capture_output=True, text=True)


r = run(base)
if r.returncode != 0:
    print(r.stdout, r.stderr)
    sys.exit("FAIL: results meeting every expectation did not pass")
print(r.stdout.splitlines()[-1])
mutations = 0
honest = base["submissions"][-1]
for i, sub in enumerate(base["submissions"]):
    for k, st in enumerate(sub["stages"]):
        for field, value in (("status", "pass"), ("message", "something else")):
            bad = copy.deepcopy(base)
            bad["submissions"][i]["stages"][k][field] = value
            if run(bad).returncode == 0:
                sys.exit(f"FAIL: {sub['name']} {st['stage']}: changing its {field} went unnoticed")
            mutations += 1
    for j, w in enumerate(sub["workloads"]):
        for k, st in enumerate(w["stages"]):
            fields = (("status", "skipped"),) if sub is honest else (("status", "skipped"), ("message", "something else"))
            for field, value in fields:
                bad = copy.deepcopy(base)
                bad["submissions"][i]["workloads"][j]["stages"][k][field] = value
                if run(bad).returncode == 0:
                    sys.exit(f"FAIL: {sub['name']} {w['name']} {st['stage']}: changing its {field} went unnoticed")
                mutations += 1
        if w["status"] != "PASSED":
            bad = copy.deepcopy(base)
            bad["submissions"][i]["workloads"][j]["status"] = "PASSED"
            if run(bad).returncode == 0:
                sys.exit(f"FAIL: {sub['name']} {w['name']}: changing its PTXBench status went unnoticed")
            mutations += 1
print(f"ok: {mutations} single changes all detected")
