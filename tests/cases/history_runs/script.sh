#!/usr/bin/env bash
# ptxgate history over a folder of runs (DIR/<run>/results.json) made from the results fixtures
# with run metadata: ordered by commit time (default) and by label (natural order), history.md
# with the runs table, the per-submission tables and mermaid charts, history.svg well-formed
# with a polyline per charted workload; a malformed run or a bad --by is exit 2 naming the file
# or the flag and writes nothing.
set -uo pipefail
failures=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi; }
mkdir -p "$OUT/runs"
python3 - "$ROOT/tests/data/results/all_pass.json" "$OUT/runs" <<'PY' || exit 1
import copy, json, os, sys
base = json.load(open(sys.argv[1]))
for name, label, day, f in [("a", "model-v10", 3, 1.2), ("b", "model-v2", 1, 0.9), ("c", "model-v9", 2, 1.0)]:
    r = copy.deepcopy(base)
    r["run"] = {"label": label, "commit": "%07x" % (0xabc0000 + day), "commit_time_utc": f"2026-11-0{day}T10:00:00Z"}
    for w in r["submissions"][0]["workloads"]:
        for st in w["stages"]:
            sp = st["details"].get("speedup")
            if sp and sp.get("estimate") is not None:
                sp["estimate"] = round(sp["estimate"] * f, 4)
    os.makedirs(f"{sys.argv[2]}/{name}")
    json.dump(r, open(f"{sys.argv[2]}/{name}/results.json", "w"), indent=1)
PY
"$BIN" history --output "$OUT/time" "$OUT/runs" >"$OUT/time.stdout" 2>&1
check "history exits 0" [ $? = 0 ]
check "it says what it wrote" grep -q "history: 3 runs, 2 series" "$OUT/time.stdout"
md="$OUT/time/history.md"
check "history.md and history.svg written" [ -s "$md" -a -s "$OUT/time/history.svg" ]
check "runs table in commit-time order" python3 - "$md" <<'PY'
import re, sys
rows = [l for l in open(sys.argv[1]) if re.match(r"^\| [0-9]+ \| model-", l)]
assert [r.split(" | ")[1] for r in rows] == ["model-v2", "model-v9", "model-v10"], rows
PY
check "a mermaid chart of the speedups" grep -q '^    x-axis \["1 model-v2", "2 model-v9", "3 model-v10"\]$' "$md"
check "one line per workload, in run order" grep -q '^    line \[0.6705, 0.7450, 0.8940\]$' "$md"
check "the per-submission table" grep -q '^| m8192_n7168_k5120 | 0.670× | 0.745× | 0.894× |$' "$md"
check "the SVG is well-formed, two polylines" python3 - "$OUT/time/history.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert root.tag == ns + "svg"
assert len(root.findall(ns + "polyline")) == 2
PY
"$BIN" history --by label --output "$OUT/label" "$OUT/runs/c/results.json" "$OUT/runs/a/results.json" "$OUT/runs/b/results.json" >/dev/null 2>&1
check "--by label: natural order v2, v9, v10" grep -q '^    x-axis \["1 model-v2", "2 model-v9", "3 model-v10"\]$' "$OUT/label/history.md"
"$BIN" history --by input --output "$OUT/input" "$OUT/runs/c/results.json" "$OUT/runs/a/results.json" >/dev/null 2>&1
check "--by input keeps the order given" grep -q '^    x-axis \["1 model-v9", "2 model-v10"\]$' "$OUT/input/history.md"
"$BIN" history --output "$OUT/again" "$OUT/runs" >/dev/null 2>&1
check "the same runs give the same bytes" cmp -s "$md" "$OUT/again/history.md"
check "... and the same SVG" cmp -s "$OUT/time/history.svg" "$OUT/again/history.svg"

# bad input: exit 2, the file and the field named, nothing written
mkdir -p "$OUT/bad/runs/x"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r["run"]={"label": None, "commit": "not-hex", "commit_time_utc": None}; json.dump(r, open(sys.argv[2], "w"))' \
  "$OUT/runs/a/results.json" "$OUT/bad/runs/x/results.json"
"$BIN" history --output "$OUT/bad/out" "$OUT/bad/runs" >"$OUT/bad.stdout" 2>&1
check "malformed run metadata: exit 2" [ $? = 2 ]
check "... naming the file and the field" grep -q "bad/runs/x/results.json: field 'run.commit': expected a commit hash" "$OUT/bad.stdout"
check "... and no history written" [ ! -e "$OUT/bad/out/history.md" -a ! -e "$OUT/bad/out/history.svg" ]
"$BIN" history --by commit "$OUT/runs" >"$OUT/badby.stdout" 2>&1
check "--by commit: exit 2" [ $? = 2 ]
check "... saying what --by takes" grep -q "'--by': expected time, label or input, got 'commit'" "$OUT/badby.stdout"
"$BIN" history "$OUT/bad/empty-does-not-exist" >"$OUT/missing.stdout" 2>&1
check "a missing file: exit 2" [ $? = 2 ]
exit $((failures > 0))
