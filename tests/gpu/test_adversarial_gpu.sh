#!/usr/bin/env bash
# GPU test: every adversarial case (tests/adversarial) and the honest example tiled_mma in ONE
# `ptxgate check` run, on two workloads: each case must be caught with its expected stage and
# message (tests/adversarial/check.py prints the table), the honest example must stay correct
# after the faults and hangs before it, and isolation must cost at most 1 s per worker. Then,
# when compute-sanitizer is there, a second small run checks the sanitize stage on real reports.
# Exits 77 (skipped) with the reason without a GPU.
# usage: test_adversarial_gpu.sh PTXGATE REPO_ROOT OUT_DIR
set -uo pipefail
bin="$1" root="$2" out="$3"
# Without a usable GPU: skip within a second or two, before any offline work.
source "$(dirname "${BASH_SOURCE[0]}")/gpu_probe.sh"
pg_require_gpu "$bin"
cd "$root"
rm -rf "$out" && mkdir -p "$out"
workloads=m257_n513_k1000,m2048_n2048_k2048
# --timeout 5: the infinite loop ends as an in-process TIMEOUT after 5 s; --watchdog
# correctness=10: the slow kernel (4 s per launch, 4 launches) is killed by the watchdog after
# 10 s; both are named in the cases' expectations. --instructions off: the cases are about
# cheating, not about the tensor-core targets every kernel here misses.
start=$(date +%s)
"$bin" check --if-no-gpu fail --instructions off --timeout 5 --watchdog correctness=10 \
  --workloads "$workloads" \
  --output "$out/run" tests/adversarial/*/*.json tasks/gemm_bf16_nt/examples/tiled_mma.json \
  >"$out/stdout" 2>"$out/stderr"
rc=$?
wall=$(( $(date +%s) - start ))
if [[ ! -f "$out/run/results.json" ]]; then
  echo "FAIL: no results.json (exit $rc): the gate did not survive the run"; tail -30 "$out/stderr"; exit 1
fi
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["environment"]["gpu"] is None else 1)' "$out/run/results.json"; then
  echo "SKIP: no usable GPU: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["environment"]["gpu_skip_reason"])' "$out/run/results.json")"
  exit 77
fi
echo "ptxgate exit code: $rc (expected 1: the cases fail on purpose), ${wall} s"
fail=0
python3 tests/adversarial/check.py "$out/run/results.json" tests/adversarial --mode gpu \
  --honest tiled_mma || fail=1
[[ $rc == 1 ]] || { echo "FAIL: exit code $rc, expected 1"; fail=1; }
# Isolation: fresh buffers for the timing, and the cost of one worker (spawn + context).
python3 - "$out/run/results.json" <<'PY' || fail=1
import json, statistics, sys
r = json.load(open(sys.argv[1]))
bad = 0
startups = []
print(f"{'submission':30} {'workers':>7} {'overhead_s':>10}  ends")
for s in r["submissions"]:
    iso = s.get("isolation")
    if not iso:
        continue
    startups += [w["startup_s"] for w in iso["workers"] if w["startup_s"] is not None]
    print(f"{s['name']:30} {len(iso['workers']):7d} {iso['overhead_s']:10.3f}  " +
          ", ".join(w["end"] for w in iso["workers"]))
median = statistics.median(startups)
print(f"worker startup (spawn + CUDA context): median {median:.3f} s, max {max(startups):.3f} s over {len(startups)} workers")
t = next(s for s in r["submissions"] if s["name"] == "tiled_mma")
if median > 1.0 or t["isolation"]["overhead_s"] > 1.0:
    print(f"FAIL: isolation costs more than 1 s per submission (tiled_mma: {t['isolation']['overhead_s']:.3f} s)")
    bad += 1
for w in t["workloads"]:
    c = next(x for x in w["stages"] if x["stage"] == "correctness")
    v = next(x for x in w["stages"] if x["stage"] == "verify")
    a, b = c["details"]["addresses"]["C"], v["details"]["addresses"]["C"]
    g = c["details"]["guards"]["C"]
    ok = a != b and g["vmm"] and g["guard_bytes"] > 0
    print(("ok   " if ok else "FAIL ") + f"tiled_mma {w['name']}: C at {a} for correctness, {b} for timing; guard {g}")
    bad += 0 if ok else 1
    d = c["details"]
    ok = d["deterministic"] is True
    print(("ok   " if ok else "FAIL ") + f"tiled_mma {w['name']}: deterministic ({d['nondeterministic_elements']} differing elements)")
    bad += 0 if ok else 1
sys.exit(1 if bad else 0)
PY
# Sanitizer mode on real compute-sanitizer reports.
if "$bin" check --help >/dev/null && { command -v compute-sanitizer >/dev/null ||
     [[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" ]]; }; then
  "$bin" check --if-no-gpu fail --sanitize memcheck,initcheck --workloads m257_n513_k1000 \
    --output "$out/sanitize" tests/adversarial/oob_write_past_end/oob_write_past_end.json \
    tasks/gemm_bf16_nt/examples/tiled_mma.json >"$out/sanitize.stdout" 2>"$out/sanitize.stderr"
  python3 - "$out/sanitize/results.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
bad = 0
for s in r["submissions"]:
    st = next(x for x in s["stages"] if x["stage"] == "sanitize")
    if s["name"] == "oob_write_past_end":
        ok = st["status"] == "fail" and "memcheck: Invalid __global__ write" in st["message"] and "adv_oob_write_past_end" in st["message"]
    else:
        ok = st["status"] == "pass"
    print(("ok   " if ok else "FAIL ") + f"sanitize {s['name']}: {st['status']}: {st['message']}")
    bad += 0 if ok else 1
sys.exit(1 if bad else 0)
PY
else
  echo "note: compute-sanitizer not found: the sanitize stage was not checked on this machine"
fi
exit $fail
