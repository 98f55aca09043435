#!/usr/bin/env bash
# Everything GPU-bound, for a GPU machine: the whole test suite (GPU tests included), then the
# main job on the bundled examples with default settings, then a summary table.
# usage: scripts/gpu-suite.sh [OUT_DIR]   (default: build/gpu-suite)
# Builds first (scripts/build.sh) unless build/ptxgate exists already: a GPU machine without the
# -dev packages can run a build made elsewhere. Extra shared libraries such a machine lacks (e.g.
# libcmocka for the test binaries) can be put in build/extra-lib.
set -uo pipefail
cd "$(dirname "$0")/.."
[[ -x build/ptxgate ]] || scripts/build.sh
out="${1:-build/gpu-suite}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
cuda="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH"
export LD_LIBRARY_PATH="$PWD/build/extra-lib:$cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee "$out/nvidia-smi.txt"

echo "== test suite (full log: ctest.log)"
(cd build && ctest --output-on-failure >"$out/ctest.log" 2>&1)
ctest_rc=$?
grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|SKIP" "$out/ctest.log" | sed 's/^ *//' | cut -c1-110

echo "== failure fixtures: an off-by-one kernel and a PTX syntax error"
build/ptxgate check --quiet --output "$out/fixtures" \
  tests/fixtures/gemm_bf16_nt/off_by_one.json tests/fixtures/gemm_bf16_nt/syntax_error.json
echo "fixtures exit $? (1 expected)"
rm -f "$out/fixtures/junit.xml" "$out/fixtures/summary.md" # results.json is enough here

echo "== main job (per-stage output: main-job.stdout)"
build/ptxgate check --output "$out/reports" tasks/*/examples >"$out/main-job.stdout" 2>build/main-job.stderr
main_rc=$?

echo "== summary"
python3 - "$out/reports/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
g = r["environment"]["gpu"] or {}
print(f"GPU: {g.get('name')}  driver {r['environment']['driver_version']}  "
      f"cuBLASLt {r['environment']['cublaslt_version']}  ptxas {r['environment']['ptxas_version']}")
print(f"{'submission':<26}{'workload':<20}{'correct':<9}{'max|err|':>10}{'cand TF/s':>11}"
      f"{'cuBLASLt TF/s':>15}{'speedup [95% CI]':>26}  perf  instructions")
for s in r["submissions"]:
    for w in s["workloads"]:
        st = {x["stage"]: x for x in w["stages"]}
        c, p = st.get("correctness", {}), st.get("performance", {})
        d = p.get("details", {})
        cand, base, sp = d.get("candidate", {}), d.get("baseline", {}), d.get("speedup", {})
        fmt = lambda v, f: (f % v) if isinstance(v, (int, float)) else "-"
        spd = (f"{sp['estimate']:.3f} [{sp['ci_low']:.3f}, {sp['ci_high']:.3f}]"
               if sp else "-")
        print(f"{s['task'] + '/' + s['name']:<26}{w['name']:<20}{c.get('status', '-'):<9}"
              f"{fmt(w.get('max_absolute_error'), '%.3g'):>10}{fmt(cand.get('tflops'), '%.1f'):>11}"
              f"{fmt(base.get('tflops'), '%.1f'):>15}{spd:>26}  {p.get('status', '-')}"
              f"  instr {st.get('instructions', {}).get('status', '-')}")
print(f"verdict {r['verdict']} exit {r['exit_code']}  counts {r['counts']}  duration {r['duration_s']:.1f} s")
PY
echo "ctest exit $ctest_rc; main job exit $main_rc (1 expected: no example uses the sm_90a targets, and the naive example fails the speed gate)"
