#!/usr/bin/env python3
"""Only the readers read JSON: json_object_get appears in no C file of gate/ (sources and
headers) but the reader files allowed below. The pipeline keeps its run state typed
(gate/pipeline/ledger.h, wl_state.h) and writes JSON without reading it back; a results file,
a job file or a worker's record is read by a reader, which fills the typed state.

usage: check_readers.py GATE    (GATE: the gate/ folder, or a test folder laid out alike)
Exit 0 when none is found outside the allowlist, 1 with one FILE:LINE per call on stderr, 2 on
bad usage."""
import fnmatch
import os
import re
import sys

# Paths relative to GATE (fnmatch patterns).
ALLOWED = [
    "report/results_read*.c",     # the results reader
    "model/*.c",                  # tasks, manifests, arch tables, baselines, ...
    "github/*.c",                 # the GitHub API's answers
    "base/jsonget.c",             # the typed getters every reader uses
    "pipeline/worker_json.c",     # the worker's job file and records, decoded
    "pipeline/worker_event.c",    # the worker's status events, decoded
]

CALL = re.compile(r"\bjson_object_get\b")


def allowed(rel):
    return any(fnmatch.fnmatchcase(rel, pat) for pat in ALLOWED)


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check_readers.py GATE", file=sys.stderr)
        return 2
    gate = argv[1]
    found = []
    for folder, dirs, files in os.walk(gate):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, gate).replace(os.sep, "/")
            if allowed(rel):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if CALL.search(line):
                        found.append("gate/%s:%d: json_object_get outside the readers: %s"
                                     % (rel, number, line.strip()))
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
