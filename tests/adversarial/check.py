#!/usr/bin/env python3
"""Check a results.json against the expectations of the adversarial cases (tests/adversarial).

usage: check.py RESULTS_JSON CASES_DIR --mode offline|gpu [--honest NAME]...

Each case folder holds an `expect` file: a `mode offline|gpu` line (offline cases are caught
without a GPU and also run in the GPU run), then one line per expectation:

    expect WORKLOAD STAGE STATUS PTXBENCH MESSAGE...

WORKLOAD is a workload name, `*` for every workload of the submission, or `-` for a
submission-level stage (load, sanitize); PTXBENCH the workload's PTXBench status or `-`;
MESSAGE a substring the stage's message must contain. With --mode offline only offline cases
are checked; with --mode gpu every case is, and each --honest submission must pass its
correctness and verify stages on every workload. Prints one table row per check and exits 1
when any fails.
"""
import argparse
import json
import os
import sys


def load_expectations(case_dir):
    mode, rows = None, []
    for line in open(os.path.join(case_dir, "expect")):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if parts[0] == "mode":
            mode = parts[1]
        elif parts[0] == "expect":
            wl, stage, status, ptxbench = parts[1:5]
            message = line.split(None, 5)[5].strip() if len(parts) > 5 else ""
            rows.append((wl, stage, status, ptxbench, message))
    return mode, rows


def stage_of(stages, name):
    return next((s for s in stages if s["stage"] == name), None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("cases")
    ap.add_argument("--mode", choices=["offline", "gpu"], required=True)
    ap.add_argument("--honest", action="append", default=[])
    args = ap.parse_args()
    results = json.load(open(args.results))
    subs = {s["name"]: s for s in results["submissions"]}
    rows, failures = [], 0

    def report(case, workload, stage, want, got, ok, note=""):
        nonlocal failures
        rows.append((case, workload, stage, want, got, "ok" if ok else "FAIL", note))
        failures += 0 if ok else 1

    for case in sorted(os.listdir(args.cases)):
        case_dir = os.path.join(args.cases, case)
        if not os.path.isfile(os.path.join(case_dir, "expect")):
            continue
        mode, expectations = load_expectations(case_dir)
        if args.mode == "offline" and mode != "offline":
            continue
        sub = subs.get(case)
        if sub is None:
            report(case, "-", "-", "present", "missing", False)
            continue
        for wl, stage, status, ptxbench, message in expectations:
            if wl == "-":
                targets = [("-", sub["stages"], None)]
            else:
                targets = [(w["name"], w["stages"], w) for w in sub["workloads"]
                           if wl in ("*", w["name"])]
                if not targets:
                    report(case, wl, stage, "workload present", "missing", False)
            for wname, stages, w in targets:
                st = stage_of(stages, stage)
                if st is None:
                    report(case, wname, stage, status, "no such stage", False)
                    continue
                ok = st["status"] == status and message in st["message"]
                got = st["status"]
                if ptxbench != "-" and w is not None:
                    ok = ok and w["status"] == ptxbench
                    got += "/" + w["status"]
                want = status + ("" if ptxbench == "-" else "/" + ptxbench)
                note = st["message"] if not ok else message
                report(case, wname, stage, want, got, ok, note)

    for name in args.honest:
        sub = subs.get(name)
        if sub is None:
            report(name, "-", "-", "present", "missing", False)
            continue
        for w in sub["workloads"]:
            for stage in ("correctness", "verify"):
                st = stage_of(w["stages"], stage)
                got = st["status"] if st else "no such stage"
                report(name, w["name"], stage, "pass", got, got == "pass",
                       st["message"] if st else "")

    width = [max(len(str(r[i])) for r in rows + [("case", "workload", "stage", "expected", "got", "", "")])
             for i in range(6)]
    print("  ".join(h.ljust(width[i]) for i, h in
                    enumerate(("case", "workload", "stage", "expected", "got", "")))+"  message")
    for r in rows:
        print("  ".join(str(r[i]).ljust(width[i]) for i in range(6)) + "  " + r[6][:140])
    print(f"{len(rows) - failures}/{len(rows)} checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
