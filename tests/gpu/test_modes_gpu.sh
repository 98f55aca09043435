#!/usr/bin/env bash
# GPU test: the two timing modes and a timed accepted-kernel comparison on one workload.
# tiled_mma (bf16, 4096^3) is checked in cold and in sustained mode with naive as the accepted
# kernel: both runs must time four arms, decide the cuBLASLt comparison the same way, and call
# tiled_mma FAST against naive. Prints the numbers of both modes. Exits 77 without a GPU.
# usage: test_modes_gpu.sh PTXGATE REPO_ROOT OUT_DIR
set -uo pipefail
bin="$1" root="$2" out="$3"
# Without a usable GPU: skip within a second or two, before any offline work.
source "$(dirname "${BASH_SOURCE[0]}")/gpu_probe.sh"
pg_require_gpu "$bin"
cd "$root"
rm -rf "$out" && mkdir -p "$out"
for mode in cold sustained; do
  "$bin" check --quiet --if-no-gpu fail --mode "$mode" --workloads m4096_n4096_k4096 \
    --accepted-kernel tasks/gemm_bf16_nt/examples/naive.json --output "$out/$mode" \
    tasks/gemm_bf16_nt/examples/tiled_mma.json >"$out/$mode.stdout" 2>"$out/$mode.stderr"
  echo "$mode: exit $?"
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
runs = {m: json.load(open(f"{out}/{m}/results.json")) for m in ("cold", "sustained")}
if runs["cold"]["environment"]["gpu"] is None:
    print("SKIP: no usable GPU: " + str(runs["cold"]["environment"]["gpu_skip_reason"]))
    sys.exit(77)
fails = 0
def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1
verdicts = {}
print("| mode | candidate ms | cuBLASLt ms | accepted (naive) ms | speedup [CI] | vs accepted | copies | decision s | energy/launch J |")
print("|---|--:|--:|--:|---|---|--:|--:|--:|")
for m, r in runs.items():
    w = r["submissions"][0]["workloads"][0]
    p = next(s for s in w["stages"] if s["stage"] == "performance")
    det = p["details"]
    cmps = {c["name"]: c for c in det.get("comparisons", [])}
    sp = det.get("speedup", {})
    acc = cmps.get("candidate_vs_accepted", {})
    e = det.get("energy", {}).get("candidate", {})
    print(f"| {m} | {det['candidate']['median_ms']:.4f} | {det['baseline']['median_ms']:.4f} | "
          f"{det.get('accepted', {}).get('median_ms', float('nan')):.4f} | "
          f"{sp.get('estimate', 0):.3f} [{sp.get('ci_low', 0):.3f}, {sp.get('ci_high', 0):.3f}] | "
          f"{acc.get('verdict')} | {det['block']['rotated_copies']} | {det.get('decision_s', 0):.2f} | "
          f"{e.get('energy_per_launch_j')} |")
    check(det.get("mode") == m, f"{m}: mode recorded as {det.get('mode')}")
    check(p["status"] == "pass", f"{m}: performance {p['status']}: {p['message']}")
    check(acc.get("verdict") == "FAST", f"{m}: tiled_mma vs naive (accepted) is FAST: {acc.get('verdict')}")
    check("accepted" in det, f"{m}: the accepted kernel was timed")
    v = next((s for s in w["stages"] if s["stage"] == "verify"), None)
    # Cold mode refills the candidate's inputs before every timed launch; sustained graphs cannot,
    # and the verify stage is their check.
    refilled = v["details"].get("timed_launches", 0) if v else 0
    check(v is not None and v["status"] == "pass" and (refilled > 0) == (m == "cold"),
          f"{m}: verify {v and v['status']} after {refilled} refilled timed launches: {v and v['message']}")
    verdicts[m] = cmps.get("candidate_vs_cublaslt", {}).get("verdict")
sus_perf = next(s for s in runs["sustained"]["submissions"][0]["workloads"][0]["stages"]
                if s["stage"] == "performance")
check(sus_perf["details"]["block"]["rotated_copies"] >= 2,
      "sustained: rotated copies cover 3x L2 (4096^3 bf16 set = 96 MiB -> 2 copies)")
check(verdicts["cold"] == verdicts["sustained"], f"cuBLASLt verdicts agree across modes: {verdicts}")
sys.exit(1 if fails else 0)
PY
