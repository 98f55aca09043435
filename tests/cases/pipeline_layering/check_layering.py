#!/usr/bin/env python3
"""The include layering of gate/pipeline (issue 16): no circle of `#include "..."` among its
headers, and check.h (the orchestrator's header: pg_check_run) reached from no file but the
orchestrators, check.c and baseline_refresh.c (with its header refresh.h), so that no stage
includes the orchestrator back for the run's types.

usage: check_layering.py FOLDER    (FOLDER: gate/pipeline, or a test folder laid out alike)
Exit 0 when both hold, 1 with one line per violation on stderr, 2 on bad usage."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ORCHESTRATOR_HEADER = "check.h"
ALLOWED = {"check.c", "baseline_refresh.c", "refresh.h"}  # may reach check.h


def local_includes(folder, name):
    """The files of `folder` that `name` includes: "x.h" or "pipeline/x.h" naming a file there."""
    with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
        text = f.read()
    out = []
    for inc in INCLUDE.findall(text):
        base = inc[len("pipeline/"):] if inc.startswith("pipeline/") else inc
        if "/" not in base and os.path.isfile(os.path.join(folder, base)):
            out.append(base)
    return out


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: check_layering.py FOLDER", file=sys.stderr)
        return 2
    folder = argv[1]
    files = sorted(n for n in os.listdir(folder) if n.endswith((".c", ".h")))
    graph = {n: local_includes(folder, n) for n in files}
    errors = []

    # Circles among headers: depth-first search, a back edge closes a circle.
    headers = [n for n in files if n.endswith(".h")]
    state = {}  # 1: on the path, 2: done
    path = []

    def visit(h):
        state[h] = 1
        path.append(h)
        for t in graph[h]:
            if not t.endswith(".h"):
                continue
            if state.get(t) == 1:
                circle = path[path.index(t):] + [t]
                errors.append("include circle: " + " -> ".join(circle))
            elif t not in state:
                visit(t)
        path.pop()
        state[h] = 2

    for h in headers:
        if h not in state:
            visit(h)

    # Who reaches check.h, directly or through headers.
    def reaches(n, seen):
        for t in graph[n]:
            if t == ORCHESTRATOR_HEADER:
                return [n, t]
            if t not in seen:
                seen.add(t)
                via = reaches(t, seen)
                if via:
                    return [n] + via
        return None

    for n in files:
        if n == ORCHESTRATOR_HEADER or n in ALLOWED:
            continue
        via = reaches(n, {n})
        if via:
            errors.append("%s reaches the orchestrator's %s: %s"
                          % (n, ORCHESTRATOR_HEADER, " -> ".join(via)))

    for e in errors:
        print("%s: %s" % (folder, e), file=sys.stderr)
    if not errors:
        print("%s: %d headers, %d files: no include circle, check.h only from %s"
              % (folder, len(headers), len(files), ", ".join(sorted(ALLOWED))))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
