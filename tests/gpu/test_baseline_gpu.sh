#!/usr/bin/env bash
# GPU test of stored baselines (docs/baselines.md) on one workload of gemm_bf16_nt:
#   1. `baseline refresh` into a temporary folder writes <gpu-key>/gemm_bf16_nt.json, which
#      loads (`baseline show`) and holds the workload with an algorithm and an interval;
#   2. `check` against it pins the stored algorithm (same cuBLASLt) and finds no drift;
#   3. with the stored times edited to claim cuBLASLt 10 % faster, `check --on-drift=fail`
#      reports runner drift as an infrastructure error (exit 3) while the comparisons stay live.
# Prints what it saw. Exits 77 (skipped) with the reason without a GPU.
# usage: test_baseline_gpu.sh PTXGATE REPO_ROOT OUT_DIR
set -uo pipefail
bin="$1" root="$2" out="$3"
wl=m2048_n2048_k2048
cd "$root"
rm -rf "$out" && mkdir -p "$out"
"$bin" baseline refresh --quiet --baselines "$out/b" --workloads "$wl" gemm_bf16_nt \
  >"$out/refresh.stdout" 2>"$out/refresh.stderr"
rc=$?
if [[ $rc == 3 ]] && grep -q "needs a GPU" "$out/refresh.stderr"; then
  echo "SKIP: no usable GPU: $(cat "$out/refresh.stderr")"
  exit 77
fi
echo "refresh: exit $rc"
cat "$out/refresh.stdout" "$out/refresh.stderr"
file=$(find "$out/b" -name gemm_bf16_nt.json -print -quit)
if [[ $rc != 0 || -z "$file" ]]; then echo "FAIL: refresh wrote no baseline"; exit 1; fi
key=$(basename "$(dirname "$file")")
"$bin" baseline show --baselines "$out/b" >"$out/show.stdout" 2>&1 || { cat "$out/show.stdout"; echo "FAIL: show"; exit 1; }

run_check() { # NAME EXTRA-ARGS...
  local name=$1
  shift
  "$bin" check --quiet --no-energy --workloads "$wl" --baselines "$out/b" --output "$out/$name" "$@" \
    tasks/gemm_bf16_nt/examples/tiled_mma.json >"$out/$name.stdout" 2>"$out/$name.stderr"
  echo "$name: exit $?" | tee "$out/$name.rc"
}
run_check same
cp "$file" "$out/stored.json"
python3 - "$file" "$wl" <<'PY'
import json, sys
path, wl = sys.argv[1], sys.argv[2]
b = json.load(open(path))
t = b["workloads"][wl]["time"]
for k in ("median_ms", "ci_low_ms", "ci_high_ms"):
    t[k] = round(t[k] * 0.9, 6)
json.dump(b, open(path, "w"), indent=2, sort_keys=True)
PY
run_check drift --on-drift=fail

python3 - "$out" "$key" "$wl" <<'PY'
import json, sys
out, key, wl = sys.argv[1], sys.argv[2], sys.argv[3]
fails = 0
def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1
stored = json.load(open(f"{out}/stored.json"))
w = stored["workloads"].get(wl)
check(w is not None, f"the file holds {wl}")
check(stored["gpu_key"] == key and stored["environment"]["gpu_name"], f"gpu key {key}, GPU {stored['environment']['gpu_name']}")
t = w["time"]
check(0 < t["ci_low_ms"] <= t["median_ms"] <= t["ci_high_ms"], f"stored cuBLASLt {t['median_ms']} ms [{t['ci_low_ms']}, {t['ci_high_ms']}]")
print("stored algorithm:", w["vendor"]["algorithm"])
def perf(name):
    r = json.load(open(f"{out}/{name}/results.json"))
    wl_ = r["submissions"][0]["workloads"][0]
    return r, next(s for s in wl_["stages"] if s["stage"] == "performance")
r, p = perf("same")
det = p["details"]
sb, dr = det.get("stored_baseline", {}), det.get("baseline_drift", {})
print("same: performance", p["status"], "—", p["message"])
print("same: stored_baseline", json.dumps(sb))
print("same: baseline_drift", json.dumps(dr))
print("same: notes", r["baselines"]["notes"])
check(sb.get("algorithm_source") == "pinned", "the stored algorithm was pinned (same cuBLASLt)")
check(sb.get("algorithm_config") == w["vendor"]["algorithm"], "the pinned configuration is the stored one")
check(sb.get("algorithm_reproducible") is True, "cuBLASLt kept every pinned attribute")
check(dr.get("verdict") == "none", f"no drift against the fresh baseline: {dr.get('verdict')} ratio {dr.get('ratio')}")
check(open(f"{out}/same.rc").read().strip().endswith("exit 0"), "check against the fresh baseline passes")
r, p = perf("drift")
dr = p["details"].get("baseline_drift", {})
print("drift: performance", p["status"], "—", p["message"])
print("drift: baseline_drift", json.dumps(dr))
check(open(f"{out}/drift.rc").read().strip().endswith("exit 3"), "the edited baseline gives exit 3")
check(p["status"] == "error" and "runner drift" in p["message"], "the performance stage reports runner drift as an infrastructure error")
check(dr.get("verdict") == "slower" and dr.get("ratio", 0) > 1.05, f"drift: slower, ratio {dr.get('ratio')}")
cmps = {c["name"]: c["verdict"] for c in p["details"].get("comparisons", [])}
check(cmps.get("candidate_vs_cublaslt") in ("PASS", "FAST", "INCONCLUSIVE"), f"the live comparison still decided: {cmps}")
check(any("runner drift" in n for n in r["baselines"]["notes"]), "the drift is a note of the run")
sys.exit(1 if fails else 0)
PY
