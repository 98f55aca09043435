#!/usr/bin/env bash
# `ptxgate compare` on a real H200 results file against a deliberately degraded "model v2" and
# against a uniformly slower run (tests/data/compare/make_fixtures.py): transitions, pass rates,
# fast_p, geometric means and the paired tests equal the values computed independently in
# expected.json; the JUnit validates; --fail-on picks the exit code; bad input exits 2, names
# the file and the field, and leaves no reports.
set -uo pipefail
data="$ROOT/tests/data/compare"
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }

"$BIN" compare --output "$OUT/new" "$data/old.json" "$data/new.json" >"$OUT.new.stdout" 2>&1
check "a correctness regression fails (exit 1)" [ $? -eq 1 ]
check "the reason is printed" grep -q "fails: 1 correctness regression" "$OUT.new.stdout"
"$BIN" compare --output "$OUT/slower" "$data/old.json" "$data/slower.json" >"$OUT.slower.stdout" 2>&1
check "a significant slowdown fails (exit 1)" [ $? -eq 1 ]
check "Wilcoxon is the reason" grep -q "fails: Wilcoxon signed-rank" "$OUT.slower.stdout"
"$BIN" compare --fail-on correctness --output "$OUT/c" "$data/old.json" "$data/slower.json" >/dev/null 2>&1
check "--fail-on correctness ignores the slowdown (exit 0)" [ $? -eq 0 ]
"$BIN" compare --fail-on never --output "$OUT/n" "$data/old.json" "$data/new.json" >/dev/null 2>&1
check "--fail-on never (exit 0)" [ $? -eq 0 ]
"$BIN" compare --fail-on regression --output "$OUT/r" "$data/old.json" "$data/slower.json" >/dev/null 2>&1
check "--fail-on regression: no stage regressed (exit 0)" [ $? -eq 0 ]

check "the numbers equal the independent ones" python3 - "$OUT" "$data/expected.json" <<'PY'
import json, math, sys
out, exp = sys.argv[1], json.load(open(sys.argv[2]))
def close(a, b, tol=1e-9):
    return (a is None and b is None) or (a is not None and abs(a - b) <= tol * max(1, abs(b)))
ok = True
for key in ("new", "slower"):
    m, e = json.load(open(f"{out}/{key}/compare.json")), exp[key]
    def want(cond, what):
        global ok
        if not cond:
            print(f"  {key}: {what}"); ok = False
    want(m["paired_workloads"] == e["paired_workloads"], "paired_workloads")
    st = {s["stage"]: s for s in m["stages"]}
    want(sorted(st) == sorted(e["stages"]), "compared stages")
    for name, es in e["stages"].items():
        s = st[name]
        for k in ("regressions", "fixes", "not_comparable"):
            want(s[k] == es[k], f"{name}.{k}")
        want(s["old"]["pass"] == es["old_pass"] and s["new"]["pass"] == es["new_pass"], f"{name} passes")
        want(close(s["mcnemar"]["p_value"], es["mcnemar_p"]), f"{name} McNemar")
    for f in m["fast_p"]:
        ev = e["fast_p"][str(f["p"])]
        want(close(f["old"], ev[0]) and close(f["new"], ev[1]), f"fast_{f['p']}")
    sp = m["speedup"]
    want(close(sp["old"]["geomean"], e["geomean_old"]), "geomean old")
    want(close(sp["new"]["geomean"], e["geomean_new"]), "geomean new")
    want(close(sp["ratio"]["geomean"], e["geomean_ratio"]) and sp["ratio"]["n"] == e["n_ratio"], "ratio")
    want(sp["ratio"]["ci_low"] <= sp["ratio"]["geomean"] <= sp["ratio"]["ci_high"], "ratio interval")
    w = sp["wilcoxon"]
    for k in ("n", "w_plus", "w_minus", "p_value"):
        want(close(w[k], e["wilcoxon"][k]), f"wilcoxon.{k}")
m = json.load(open(f"{out}/new/compare.json"))
un = sorted((u["side"], u["submission"], u["workload"]) for u in m["unpaired"])
if un != [("new", "tiled_mma_v2", None), ("old", "naive", "m8192_n7168_k5120")]:
    print("  unpaired:", un); ok = False
sys.exit(0 if ok else 1)
PY
a=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['speedup'])" "$OUT/new/compare.json")
b=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['speedup'])" "$OUT/n/compare.json")
check "the same seed gives the same intervals" [ "$a" == "$b" ]
check "markdown has the mermaid chart" grep -q '^xychart-beta' "$OUT/new/compare.md"
check "markdown names the regression" grep -q 'correctness pass → fail \*\*(regression)\*\*' "$OUT/new/compare.md"
check "JUnit has one failure" grep -q '<testsuites name="ptxgate compare" tests="29" failures="1"' "$OUT/new/compare-junit.xml"
if command -v xmllint >/dev/null; then
  check "JUnit validates (schemas/junit.xsd)" xmllint --noout --schema "$ROOT/schemas/junit.xsd" "$OUT/new/compare-junit.xml"
  if [[ -f "${PTXGATE_JUNIT10_XSD:-}" ]]; then
    check "JUnit validates (junit-10.xsd)" xmllint --noout --schema "$PTXGATE_JUNIT10_XSD" "$OUT/new/compare-junit.xml"
  fi
else
  echo "note: xmllint absent; JUnit validated by the unit test only"
fi

# Bad input: exit 2, file and field named, no reports left (an earlier run's are removed).
python3 -c "
import json,sys; r=json.load(open(sys.argv[1])); r['submissions'][2]['workloads'][1]['stages'][0]['status']='maybe'
json.dump(r, open(sys.argv[2],'w'))" "$data/old.json" "$OUT/bad.json"
"$BIN" compare --output "$OUT/new" "$data/old.json" "$OUT/bad.json" >"$OUT.bad.stdout" 2>&1
check "a bad status exits 2" [ $? -eq 2 ]
check "the message names the file and the field" grep -q "bad.json.*submissions\[2\].workloads\[1\].stages\[0\].status" "$OUT.bad.stdout"
check "no reports are left behind" [ ! -e "$OUT/new/compare.json" ] && [ ! -e "$OUT/new/compare.md" ]
python3 -c "
import json,sys; r=json.load(open(sys.argv[1])); r['submissions'].append(r['submissions'][0])
json.dump(r, open(sys.argv[2],'w'))" "$data/old.json" "$OUT/dup.json"
"$BIN" compare --output "$OUT/dup" "$OUT/dup.json" "$data/new.json" >"$OUT.dup.stdout" 2>&1
check "a duplicate submission exits 2" [ $? -eq 2 ]
check "and says why" grep -q "dup.json.*submissions\[6\].*appears twice" "$OUT.dup.stdout"
"$BIN" compare --fail-on sometimes "$data/old.json" "$data/new.json" >"$OUT.flag.stdout" 2>&1
check "a bad --fail-on exits 2" [ $? -eq 2 ]
"$BIN" compare --output "$OUT/x" "$data/old.json" "$OUT/missing.json" >"$OUT.missing.stdout" 2>&1
check "a missing file exits 2" [ $? -eq 2 ]
# The model-version comparison carries the history charts over its two versions (issue 19):
# one mermaid xychart per submission, OLD's speedup first (handwritten m8192: 0.0044 -> 0.0035).
check "compare.md has the speedup charts" grep -q '^## Speedup vs the vendor library, old → new' "$OUT/slower/compare.md"
check "a mermaid xychart per submission" test "$(grep -c '^xychart-beta' "$OUT/slower/compare.md")" -ge 4
check "old then new in a line" grep -q '^    line \[0.0044, 0.0035\]' "$OUT/slower/compare.md"
exit $fail
