#!/usr/bin/env bash
# Everything GPU-bound, for a GPU machine, in named parts that one session runs back to back
# (each part fits a 10-minute call), with one summary table (part, test, result, seconds) over
# every part run so far into the same output folder.
#
# usage: scripts/gpu-suite.sh --prepare            (on the build machine: build, then the carry
#                                                   folder build/gpu, see below)
#        scripts/gpu-suite.sh [--part P[,P...]] [--build DIR] [--fresh] [OUT_DIR]
#   --part    parts to run, in the order given; "all" (the default) = every part in this order:
#               device      device layer programs: smoke, fault, hang, timing, generalized GEMM
#                           (reference vs CPU, cuBLASLt vs reference), range profiler
#                           (calibration and under Nsight Compute), TMA probe
#               examples    tests/gpu/test_examples_gpu.sh, test_modes_gpu.sh, test_launch_limit_gpu.sh
#               baseline    tests/gpu/test_baseline_gpu.sh
#               attention   tests/gpu/test_attention_baseline.sh
#               adversarial tests/gpu/test_adversarial_gpu.sh
#               shard       tests/gpu/test_shard_merge_gpu.sh
#               gemm        the fp8 output modes cuBLASLt runs (blaslt_fp8_output_modes, a table), then
#                           tests/gpu/test_gemm_tasks_gpu.sh: the "gemm" tasks' examples (fp32, tf32, bf16, fp8) on
#                           every workload, with their errors and speedups against the tasks'
#                           tolerances and min_speedup
#               interfaces  tests/gpu/test_interfaces_gpu.sh, then one check of the launch-interface
#                           examples (issue 15) on every workload, with the per-workload table;
#                           PASS only when every example passes
#               installed   the release tarball (build/gpu/package) unpacked into a temporary
#                           prefix: doctor --gpu, check of the installed wgmma_tma example,
#                           baseline refresh of one workload, the adversarial test, all from
#                           the installed binary, run from another folder with PTXGATE_* unset
#               main1       the failure fixtures, then shard 1/2 of the main job (tasks/*/examples,
#                           default settings)
#               main2       shard 2/2 of the main job, merged with shard 1 (when main1 ran into
#                           the same OUT_DIR), with the per-workload table
#               speed       bench/suite_speed.py: the PTXBench suite in one invocation, its
#                           per-stage and per-phase breakdown (not in "all": a benchmark, not a
#                           test; PTXGATE_BENCH_COPIES=N adds a batch of N copies per task,
#                           PTXGATE_BENCH_ARGS more arguments, e.g. --gemm-only, or
#                           "--skip-suite --shard 1/2" for one call's half of a batch; then
#                           bench/suite_speed.py --combine <the two speed/summary.json>)
#               calibration ptxgate_bench 20 10 50: the timing engine's A/A false-FAIL rate and
#                           its power at 2 % and 3 % slowdowns (not in "all": a benchmark)
#   --build   the build folder (default: build/gpu when it exists, else build)
#   --fresh   forget the rows of earlier calls (OUT_DIR/summary.tsv)
#   OUT_DIR   default build/gpu-suite (inside the ignored build/ folder, so it outlives a call on
#             a machine that keeps ignored files; copy it out, e.g. to $OUT, to keep it)
# Suggested calls of at most 10 minutes each (H200, 2026-12-02: 506 s, 459 s, 437 s):
# --part device,examples,interfaces; --part baseline,attention,adversarial,shard,installed;
# --part main1,main2 (459 s on 2026-12-03 with the gemm tasks). The gemm part (60 s) in a call of its
# own; the main job's shards also hold the gemm tasks' 24 workloads.
#
# A GPU machine without the -dev packages runs binaries built elsewhere: --prepare builds here
# and copies what the parts need into build/gpu (ptxgate, the source-root file, the device test
# programs, the TMA probe cubin, the release tarball; about 25 MB), to carry as the one ignored
# folder. The parts need no cmocka (only the unit tests do, and they run in CI).
# Exit status: 0 when every test of the parts run now passed or skipped, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cuda="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH"
export LD_LIBRARY_PATH="$cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
all_parts=(device examples interfaces baseline attention adversarial shard gemm installed main1 main2)

if [[ "${1:-}" == --prepare ]]; then
  set -e
  scripts/build.sh
  cmake --build build -j "$(nproc)" --target device_smoke timing_smoke gemm_general \
    blaslt_fp8_output_modes rangeprof_calibration tma_smoke attention_baseline ptxgate_bench
  rm -rf build/gpu && mkdir -p build/gpu/tests build/gpu/package
  cp build/ptxgate build/ptxgate_bench build/gpu/
  printf '%s\n' "$root" >build/gpu/ptxgate-source-root
  for p in device_smoke timing_smoke gemm_general blaslt_fp8_output_modes rangeprof_calibration \
    tma_smoke attention_baseline tma_probe.cubin; do
    cp "build/tests/$p" build/gpu/tests/
  done
  (cd build && cpack -G TGZ -B "$root/build/gpu/package" >/dev/null)
  rm -rf build/gpu/package/_CPack_Packages
  du -sh build/gpu
  echo "carry build/gpu; then: scripts/gpu-suite.sh --part <parts>"
  exit 0
fi

parts="all" build="" fresh=0 out=""
while (($#)); do
  case "$1" in
    --part) parts="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    -*) echo "gpu-suite.sh: unknown option $1" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
[[ -n "$build" ]] || { [[ -x build/gpu/ptxgate ]] && build=build/gpu || build=build; }
[[ -x "$build/ptxgate" ]] || scripts/build.sh
build=$(cd "$build" && pwd)
bin="$build/ptxgate"
# A build folder names its source tree (gate/base/datadir.h); carried to another path, it must
# name this one.
[[ "$(cat "$build/ptxgate-source-root" 2>/dev/null)" == "$root" ]] || printf '%s\n' "$root" >"$build/ptxgate-source-root"
out="${out:-build/gpu-suite}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
((fresh)) && rm -f "$out/summary.tsv"
[[ "$parts" == all ]] && parts=$(IFS=,; echo "${all_parts[*]}")
failed=0

# step PART NAME CMD...: run CMD (at most 540 s) with its log in OUT/logs/NAME.log; one row.
step() {
  local part=$1 name=$2 t0 rc result
  shift 2
  mkdir -p "$out/logs"
  t0=$(date +%s.%N)
  if declare -F "$1" >/dev/null; then # a function of this script (exported below)
    timeout -k 10 540 bash -c '"$@"' _ "$@" >"$out/logs/$name.log" 2>&1
  else
    timeout -k 10 540 "$@" >"$out/logs/$name.log" 2>&1
  fi
  rc=$?
  case $rc in
    0) result=PASS ;;
    77) result="SKIP: $(grep -m1 '^SKIP' "$out/logs/$name.log" | cut -c7- | cut -c1-60)" ;;
    124 | 137) result="FAIL (timed out)"; failed=1 ;;
    *) result="FAIL (exit $rc)"; failed=1 ;;
  esac
  printf '%s\t%s\t%s\t%.1f\n' "$part" "$name" "$result" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" >>"$out/summary.tsv"
  printf '%-12s %-34s %-24s\n' "$part" "$name" "$result"
  [[ $rc == 0 || $rc == 77 ]] || tail -n 25 "$out/logs/$name.log"
}

gpu_test() { step "$1" "$2" tests/gpu/$2.sh "$bin" "$root" "$out/$2"; }

part_device() {
  step device device_smoke "$build/tests/device_smoke"
  step device device_fault "$build/tests/device_smoke" fault
  step device device_hang "$build/tests/device_smoke" hang
  step device timing_smoke "$build/tests/timing_smoke"
  step device gemm_general "$build/tests/gemm_general"
  PTXGATE_METRICS_DATA="$root/data/metrics" step device rangeprof_calibration "$build/tests/rangeprof_calibration"
  PTXGATE_METRICS_DATA="$root/data/metrics" step device rangeprof_unavailable \
    tests/gpu/rangeprof_unavailable.sh "$build/tests/rangeprof_calibration"
  step device tma_smoke "$build/tests/tma_smoke" "$build/tests/tma_probe.cubin"
}
part_examples() {
  gpu_test examples test_examples_gpu
  gpu_test examples test_modes_gpu
  gpu_test examples test_launch_limit_gpu
}
part_baseline() { gpu_test baseline test_baseline_gpu; }
part_attention() { gpu_test attention test_attention_baseline; }
part_adversarial() { gpu_test adversarial test_adversarial_gpu; }
part_shard() { gpu_test shard test_shard_merge_gpu; }
part_gemm() {
  step gemm blaslt_fp8_output_modes "$build/tests/blaslt_fp8_output_modes"
  gpu_test gemm test_gemm_tasks_gpu
}

# The installed package, as a user installs it (issue 20).
installed_unpack() {
  [[ -f "$tgz" ]] || { echo "no release tarball in $build/package (run --prepare)"; return 1; }
  rm -rf "$out/installed" && mkdir -p "$out/installed/work"
  tar -xzf "$tgz" --no-same-owner -C "$out/installed" && [[ -x "$prefix/bin/ptxgate" ]] &&
    ! grep -aqF "$root" "$prefix/bin/ptxgate" # no path of a source tree in the installed binary
}
installed_check() {
  cd "$out/installed/work" && env $(compgen -e | grep '^PTXGATE_' | sed 's/^/-u /') \
    "$prefix/bin/ptxgate" check --workloads m2048_n2048_k2048,m257_n513_k1000 --output "$out/installed/check" \
    "$prefix/share/ptxgate/tasks/gemm_bf16_nt/examples/wgmma_tma.json" &&
    grep -q "\"table\": \"$prefix/bin/../share/ptxgate/arch/sm_90a.json\"" "$out/installed/check/results.json"
}
installed_refresh() {
  cd "$out/installed/work" && env $(compgen -e | grep '^PTXGATE_' | sed 's/^/-u /') \
    "$prefix/bin/ptxgate" baseline refresh --baselines "$out/installed/baselines" \
    --workloads m2048_n2048_k2048 gemm_bf16_nt &&
    "$prefix/bin/ptxgate" baseline show --baselines "$out/installed/baselines"
}
part_installed() {
  tgz=$(ls "$build"/package/ptxgate-*-linux-*.tar.gz 2>/dev/null | head -1)
  prefix="$out/installed/$(basename "${tgz:-none}" .tar.gz)"
  export tgz prefix
  step installed installed_unpack installed_unpack
  step installed installed_doctor env -C "$out/installed/work" "$prefix/bin/ptxgate" doctor --gpu
  step installed installed_check installed_check
  step installed installed_baseline_refresh installed_refresh
  PTXGATE_TASKS="$prefix/share/ptxgate/tasks" step installed installed_adversarial \
    tests/gpu/test_adversarial_gpu.sh "$prefix/bin/ptxgate" "$root" "$out/installed/adversarial"
}

main_fixtures() {
  "$bin" check --quiet --output "$out/fixtures" \
    tests/fixtures/gemm_bf16_nt/off_by_one.json tests/fixtures/gemm_bf16_nt/syntax_error.json
  [[ $? == 1 ]] # both fail, as they must
}
main_shard() { # 1|2: exit 1 expected (the examples that miss the sm_90a targets)
  "$bin" check --shard "$1/2" --output "$out/main$1" tasks/*/examples
  local rc=$?
  [[ $rc == 1 || $rc == 0 ]]
}
main_merge() {
  "$bin" merge --output "$out/reports" "$out/main1/results.json" "$out/main2/results.json"
  [[ $? == 1 ]]
}
part_speed() {
  step speed suite_speed python3 bench/suite_speed.py --ptxgate "$bin" --root "$root" \
    --out "$out/speed" --copies "${PTXGATE_BENCH_COPIES:-0}" ${PTXGATE_BENCH_ARGS:-}
}
interface_examples() {
  "$bin" check --output "$out/interfaces" tasks/gemm_bf16_nt/examples/{params_struct,tmap_global,persistent_cluster,tile_schedule,flags_include}.json \
    tasks/mha_fwd_d128/examples/flags_include.json
  local rc=$?
  main_table "$out/interfaces/results.json"
  [[ $rc == 0 ]] # every example passes every workload it supports (issue 15's done-when)
}
part_interfaces() {
  gpu_test interfaces test_interfaces_gpu
  step interfaces interface_examples interface_examples
}
part_calibration() { step calibration ptxgate_bench "$build/ptxgate_bench" 20 10 50; }
part_main1() {
  step main1 fixtures_fail main_fixtures
  step main1 main_job_shard_1 main_shard 1
}
part_main2() {
  step main2 main_job_shard_2 main_shard 2
  if [[ -f "$out/main1/results.json" ]]; then
    step main2 main_job_merge main_merge
    [[ -f "$out/reports/results.json" ]] && main_table "$out/reports/results.json"
  fi
}
main_table() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
g = r["environment"]["gpu"] or {}
print(f"GPU: {g.get('name')}  driver {r['environment']['driver_version']}  "
      f"cuBLASLt {r['environment']['cublaslt_version']}  ptxas {r['environment']['ptxas_version']}")
subw = 2 + max([len(s["task"] + "/" + s["name"]) for s in r["submissions"]] + [10])
wlw = 2 + max([len(w["name"]) for s in r["submissions"] for w in s["workloads"]] + [8])
print(f"{'submission':<{subw}}{'workload':<{wlw}}{'correct':<9}{'max|err|':>10}{'cand TF/s':>11}"
      f"{'vendor TF/s':>13}{'speedup [95% CI]':>26}  perf  instructions")
for s in r["submissions"]:
    for w in s["workloads"]:
        st = {x["stage"]: x for x in w["stages"]}
        c, p = st.get("correctness", {}), st.get("performance", {})
        d = p.get("details", {})
        cand, base, sp = d.get("candidate", {}), d.get("baseline", {}), d.get("speedup", {})
        fmt = lambda v, f: (f % v) if isinstance(v, (int, float)) else "-"
        spd = (f"{sp['estimate']:.3f} [{sp['ci_low']:.3f}, {sp['ci_high']:.3f}]"
               if sp and sp.get("estimate") is not None else "-")
        print(f"{s['task'] + '/' + s['name']:<{subw}}{w['name']:<{wlw}}{c.get('status', '-'):<9}"
              f"{fmt(w.get('max_absolute_error'), '%.3g'):>10}{fmt(cand.get('tflops'), '%.1f'):>11}"
              f"{fmt(base.get('tflops'), '%.1f'):>13}{spd:>26}  {p.get('status', '-')}"
              f"  instr {st.get('instructions', {}).get('status', '-')}")
print(f"verdict {r['verdict']} exit {r['exit_code']}  counts {r['counts']}")
PY
}

export bin build root out
export -f interface_examples main_table main_fixtures main_shard main_merge installed_unpack installed_check installed_refresh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv >"$out/nvidia-smi.txt" 2>&1
head -2 "$out/nvidia-smi.txt"
t_all=$(date +%s)
IFS=, read -ra wanted <<<"$parts"
for p in "${wanted[@]}"; do
  if [[ " ${all_parts[*]} speed calibration " != *" $p "* ]]; then
    echo "gpu-suite.sh: unknown part '$p' (parts: ${all_parts[*]})" >&2; exit 2
  fi
  echo "== part $p"
  "part_$p"
done
echo "== this call: $(($(date +%s) - t_all)) s; summary of every part run into $out:"
awk -F'\t' 'BEGIN { printf "%-12s %-34s %-40s %8s\n", "part", "test", "result", "seconds" }
            { printf "%-12s %-34s %-40s %8s\n", $1, $2, $3, $4; s += $4 }
            END { printf "%-12s %-34s %-40s %8.1f\n", "total", "", "", s }' "$out/summary.tsv"
exit $failed
