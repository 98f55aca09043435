#!/usr/bin/env bash
# ptxgate merge reads shard files it did not write (artifacts of other jobs): every number it
# reads is range-checked and every error names the shard file and that shard's own indices
# (shard 2's first submission is the run's second: the message says submissions[0], the index
# in the file the user must fix). A p_fail_seq of -1e308 used to pass and, sorted first by
# Holm, turn a verdict into FAIL. Exit 2, no report. Shards come from a fake worker
# (tests/fakes/fake_worker.py) with a p_fail_seq added to their performance comparisons.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
mkdir -p "$OUT/subs"
cp "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.ptx" "$OUT/subs/"
for s in a b; do cp "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json" "$OUT/subs/$s.json"; done
for i in 1 2; do
  PTXGATE_WORKER="$ROOT/tests/fakes/fake_worker.py" FAKE_WORKER_LOG="$OUT/w$i.log" \
    "$BIN" check --quiet --instructions off --accepted-kernel none --workloads m257_n513_k1000 \
    --shard $i/2 --output "$OUT/s$i" "$OUT/subs/a.json" "$OUT/subs/b.json" >"$OUT/s$i.log" 2>&1
  check "shard $i/2 runs" [ -e "$OUT/s$i/results.json" ]
done
# hostile NAME PYTHON-EXPRESSION-ON-r2 FIELD MESSAGE: shard 2 edited, merged with shard 1.
python3 - "$OUT" <<'PY' || fail=1
import json, subprocess, sys, os
out = sys.argv[1]
bin_ = os.environ["BIN"]
s1 = json.load(open(f"{out}/s1/results.json"))
bad = 0
def perf_index(r):
    return next(i for i, s in enumerate(r["submissions"][0]["workloads"][0]["stages"])
                if s["stage"] == "performance")
def perf(r):
    return r["submissions"][0]["workloads"][0]["stages"][perf_index(r)]
perf(s1)["details"]["comparisons"][0]["p_fail_seq"] = 0.01
json.dump(s1, open(f"{out}/h1.json", "w"))
k = perf_index(json.load(open(f"{out}/s2/results.json")))
P = f"submissions[0].workloads[0].stages[{k}].details"
def case(name, edit, want_rc, field=None, message=None):
    global bad
    r = json.load(open(f"{out}/s2/results.json"))
    perf(r)["details"]["comparisons"][0]["p_fail_seq"] = 0.2
    edit(r)
    path = f"{out}/{name}.json"
    json.dump(r, open(path, "w"))
    o = f"{out}/merged_{name}"
    p = subprocess.run([bin_, "merge", "--output", o, f"{out}/h1.json", path],
                       capture_output=True, text=True)
    want = f"ptxgate: {path}: field '{field}': {message}" if field else None
    ok = p.returncode == want_rc and (want is None or want in p.stderr)
    if want_rc == 2:
        ok = ok and (not os.path.exists(o) or not os.listdir(o))
    print(("ok:   " if ok else "FAIL: ") + f"{name}: exit {p.returncode}" + ("" if ok else f"\n  got:  {p.stderr.strip()}\n  want: {want}"))
    bad += not ok
def setp(v):
    return lambda r: perf(r)["details"]["comparisons"][0].__setitem__("p_fail_seq", v)
case("in_range", lambda r: None, 0)
case("p_fail_seq_huge_negative", setp(-1e308), 2, f"{P}.comparisons[0].p_fail_seq",
     "expected a probability from 0 to 1, found -1e+308")
case("p_fail_seq_above_one", setp(1.5), 2, f"{P}.comparisons[0].p_fail_seq",
     "expected a probability from 0 to 1, found 1.5")
case("p_fail_seq_string", setp("0.1"), 2, f"{P}.comparisons[0].p_fail_seq",
     "expected a probability from 0 to 1 or null, found a string")
case("verdict_unknown", lambda r: perf(r)["details"]["comparisons"][0].__setitem__("verdict", "MAYBE"),
     2, f"{P}.comparisons[0].verdict", "expected verdict PASS, FAIL, INCONCLUSIVE or FAST")
case("median_negative", lambda r: perf(r)["details"].__setitem__("candidate", {"median_ms": -3}),
     2, f"{P}.candidate.median_ms", "expected a number > 0 and below 1e12, found -3")
case("median_huge", lambda r: perf(r)["details"].__setitem__("baseline", {"median_ms": 1e300}),
     2, f"{P}.baseline.median_ms", "expected a number > 0 and below 1e12, found 1e+300")
case("speedup_negative", lambda r: perf(r)["details"].__setitem__("speedup", {"estimate": -2.0}),
     2, f"{P}.speedup.estimate", "expected a number >= 0 and below 1e12, found -2")
case("confidence_two", lambda r: perf(r)["details"].__setitem__("speedup", {"confidence": 2}),
     2, f"{P}.speedup.confidence", "expected a level between 0 and 1 (both excluded), found 2")
def bad_elements(r):
    st = next(s for s in r["submissions"][0]["workloads"][0]["stages"] if s["stage"] == "correctness")
    st.setdefault("details", {})["bad_elements"] = -1
c = next(i for i, s in enumerate(json.load(open(f"{out}/s2/results.json"))["submissions"][0]["workloads"][0]["stages"]) if s["stage"] == "correctness")
case("bad_elements_negative", bad_elements, 2,
     f"submissions[0].workloads[0].stages[{c}].details.bad_elements",
     "expected a number >= 0 and below 1e12, found -1")
case("duration_negative", lambda r: r.__setitem__("duration_s", -1.0), 2, "duration_s",
     "expected a duration in seconds >= 0")
sys.exit(1 if bad else 0)
PY
exit $fail
