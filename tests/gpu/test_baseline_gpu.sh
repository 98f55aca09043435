#!/usr/bin/env bash
# GPU test of stored baselines (docs/baselines.md), once for a GEMM task (cuBLASLt) and once for
# an attention task (cuDNN), each on one workload:
#   1. `baseline refresh` into a temporary folder writes <gpu-key>/<task>.json, which loads
#      (`baseline show`) and holds the workload with a pinned configuration and an interval;
#   2. `check` of the task's accepted kernel against it pins the stored configuration (same
#      library version) and finds no drift;
#   3. with the stored times edited to claim the library 10 % faster, `check --on-drift=fail`
#      reports runner drift as an infrastructure error (exit 3) while the comparisons stay live.
# Prints what it saw. Exits 77 (skipped) with the reason without a GPU.
# usage: test_baseline_gpu.sh PTXGATE REPO_ROOT OUT_DIR
set -uo pipefail
bin="$1" root="$2" out="$3"
# Without a usable GPU: skip within a second or two, before any offline work.
source "$(dirname "${BASH_SOURCE[0]}")/gpu_probe.sh"
pg_require_gpu "$bin"
cd "$root"
rm -rf "$out" && mkdir -p "$out"
fail=0

one_task() { # TASK WORKLOAD CANDIDATE
  local task=$1 wl=$2 cand=$3 dir="$out/$1"
  mkdir -p "$dir"
  "$bin" baseline refresh --quiet --baselines "$dir/b" --workloads "$wl" "$task" \
    >"$dir/refresh.stdout" 2>"$dir/refresh.stderr"
  local rc=$?
  if [[ $rc == 3 ]] && grep -q "needs a GPU" "$dir/refresh.stderr"; then
    echo "SKIP: no usable GPU: $(cat "$dir/refresh.stderr")"
    exit 77
  fi
  echo "== $task: refresh exit $rc"
  cat "$dir/refresh.stdout" "$dir/refresh.stderr"
  local file
  file=$(find "$dir/b" -name "$task.json" -print -quit)
  if [[ $rc != 0 || -z "$file" ]]; then echo "FAIL: refresh wrote no baseline"; fail=1; return; fi
  "$bin" baseline show --baselines "$dir/b" "$task" >"$dir/show.stdout" 2>&1 ||
    { cat "$dir/show.stdout"; echo "FAIL: show"; fail=1; return; }
  sed -n '1,12p' "$dir/show.stdout"
  run_check() { # NAME EXTRA-ARGS...
    local name=$1
    shift
    "$bin" check --quiet --no-energy --instructions warn --workloads "$wl" --baselines "$dir/b" \
      --output "$dir/$name" "$@" "$cand" >"$dir/$name.stdout" 2>"$dir/$name.stderr"
    echo "$name: exit $?" | tee "$dir/$name.rc"
  }
  run_check same
  cp "$file" "$dir/stored.json"
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
  python3 - "$dir" "$wl" <<'PY' || fail=1
import json, sys
out, wl = sys.argv[1], sys.argv[2]
fails = 0
def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1
stored = json.load(open(f"{out}/stored.json"))
w = stored["workloads"].get(wl)
check(w is not None, f"the file holds {wl}")
lib = w["vendor"]["library"]
config_key = "configuration" if lib == "cudnn" else "algorithm_config"
stored_config = w["vendor"]["configuration" if lib == "cudnn" else "algorithm"]
check(bool(stored["gpu_key"]) and bool(stored["environment"]["gpu_name"]),
      f"gpu key {stored['gpu_key']}, GPU {stored['environment']['gpu_name']}, {lib}")
t = w["time"]
check(0 < t["ci_low_ms"] <= t["median_ms"] <= t["ci_high_ms"],
      f"stored {lib} {t['median_ms']} ms [{t['ci_low_ms']}, {t['ci_high_ms']}]")
print("stored configuration:", json.dumps(stored_config))
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
check(sb.get("algorithm_source") == "pinned", "the stored configuration was pinned (same library version)")
check(sb.get(config_key) == stored_config, "the pinned configuration is the stored one")
if lib == "cublaslt":
    check(sb.get("algorithm_reproducible") is True, "cuBLASLt kept every pinned attribute")
else:
    check(det["baseline"].get("heuristics") == "pinned", "cuDNN's plan came from the pin, not the heuristics")
check(dr.get("verdict") == "none", f"no drift against the fresh baseline: {dr.get('verdict')} ratio {dr.get('ratio')}")
check(open(f"{out}/same.rc").read().strip().endswith("exit 0"), "check of the accepted kernel against the fresh baseline passes")
r, p = perf("drift")
dr = p["details"].get("baseline_drift", {})
print("drift: performance", p["status"], "—", p["message"][:400])
print("drift: baseline_drift", json.dumps(dr))
check(open(f"{out}/drift.rc").read().strip().endswith("exit 3"), "the edited baseline gives exit 3")
check(p["status"] == "error" and "runner drift" in p["message"], "the performance stage reports runner drift as an infrastructure error")
check(dr.get("verdict") == "slower" and dr.get("ratio", 0) > 1.05, f"drift: slower, ratio {dr.get('ratio')}")
cmps = {c["name"]: c["verdict"] for c in p["details"].get("comparisons", [])}
main = "candidate_vs_cudnn" if lib == "cudnn" else "candidate_vs_cublaslt"
check(cmps.get(main) in ("PASS", "FAST", "INCONCLUSIVE"), f"the live comparison still decided: {cmps}")
check(any("runner drift" in n for n in r["baselines"]["notes"]), "the drift is a note of the run")
sys.exit(1 if fails else 0)
PY
}

one_task gemm_bf16_nt m2048_n2048_k2048 tasks/gemm_bf16_nt/examples/wgmma_tma.json
one_task mha_fwd_d128 b4_h48_s1024_d128 tasks/mha_fwd_d128/examples/flash_fwd.json
exit $fail
