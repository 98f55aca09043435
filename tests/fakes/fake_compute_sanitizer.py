#!/usr/bin/env python3
"""A stand-in for compute-sanitizer, so the sanitize stage is tested without a GPU (through
PTXGATE_COMPUTE_SANITIZER). It does not run its target: it checks that it was given the
options ptxgate passes and a `ptxgate worker --job FILE` in sanitize mode, logs its call as a
JSON line to FAKE_SANITIZER_LOG, and writes the report in FAKE_SANITIZER_REPORT_<TOOL> (a file
in compute-sanitizer's text format; default: a clean report) to --log-file. FAKE_SANITIZER_HANG
names a tool whose run sleeps until killed."""
import json
import os
import sys
import time

args = sys.argv[1:]


def opt(name):
    return args[args.index(name) + 1]


tool = opt("--tool")
log_file = opt("--log-file")
assert opt("--print-limit") and opt("--show-backtrace") == "no", args
rest = args[args.index("--show-backtrace") + 2:]
assert rest[1] == "worker" and "--job" in rest and "--status" in rest, rest
job = json.load(open(rest[rest.index("--job") + 1]))
record = {"tool": tool, "mode": job["mode"], "workloads": job["workloads"],
          "sets": job["options"]["sets"]}
if os.environ.get("FAKE_SANITIZER_LOG"):
    with open(os.environ["FAKE_SANITIZER_LOG"], "a") as f:
        f.write(json.dumps(record) + "\n")
if os.environ.get("FAKE_SANITIZER_HANG") == tool:
    time.sleep(3600)
report = os.environ.get("FAKE_SANITIZER_REPORT_" + tool.upper())
text = open(report).read() if report else "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"
with open(log_file, "w") as f:
    f.write(text)
print("application output under the fake sanitizer")
