#!/usr/bin/env bash
# GPU test: a launch above the device's limits (2048 threads per block; 300000 bytes of dynamic
# shared memory; a cluster of 32 blocks) is an input error found before anything runs: exit 2,
# the message names the manifest field and the limit, is exactly the message the offline check
# gives from data/arch (tests/cases/launch_limits_offline), and no report file is written.
# Exits 77 (skipped) with the reason without a GPU.
# usage: test_launch_limit_gpu.sh PTXGATE REPO_ROOT OUT_DIR
set -uo pipefail
bin="$1" root="$2" out="$3"
# Without a usable GPU: skip within a second or two, before any offline work.
source "$(dirname "${BASH_SOURCE[0]}")/gpu_probe.sh"
pg_require_gpu "$bin"
cd "$root"
rm -rf "$out" && mkdir -p "$out"
"$bin" check --quiet --if-no-gpu skip --workloads m257_n513_k1000 --output "$out/probe2" \
  tests/cases/offline_noop/m.json >/dev/null 2>&1
reason=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["environment"]["gpu_skip_reason"] or "")' "$out/probe2/results.json")
if [[ -n "$reason" ]]; then echo "SKIP: no usable GPU: $reason"; exit 77; fi
"$bin" check --quiet --output "$out/run" tests/fixtures/gemm_bf16_nt/block_too_large.json \
  >"$out/stdout" 2>"$out/stderr"
rc=$?
cat "$out/stderr"
fail=0
[[ $rc == 2 ]] || { echo "FAIL: exit $rc, expected 2"; fail=1; }
grep -q "block_too_large.json: field 'launches\[0\].block'" "$out/stderr" || { echo "FAIL: field not named"; fail=1; }
grep -q "block x = 2048 exceeds the limit 1024" "$out/stderr" || { echo "FAIL: limit not named"; fail=1; }
[[ ! -e "$out/run" || -z "$(ls -A "$out/run")" ]] || { echo "FAIL: report files left behind"; fail=1; }
for f in block_too_large smem_too_large threads_too_many cluster_too_large; do
  "$bin" check --quiet --output "$out/gpu.$f" "tests/fixtures/gemm_bf16_nt/$f.json" >/dev/null 2>"$out/gpu.$f.err"
  rc=$?
  "$bin" check --quiet --no-gpu --output "$out/off.$f" "tests/fixtures/gemm_bf16_nt/$f.json" >/dev/null 2>"$out/off.$f.err"
  cat "$out/gpu.$f.err"
  [[ $rc == 2 ]] || { echo "FAIL: $f: exit $rc, expected 2"; fail=1; }
  cmp -s "$out/gpu.$f.err" "$out/off.$f.err" || { echo "FAIL: $f: the offline message differs: $(cat "$out/off.$f.err")"; fail=1; }
  [[ ! -e "$out/gpu.$f" || -z "$(ls -A "$out/gpu.$f")" ]] || { echo "FAIL: $f: report files left behind"; fail=1; }
done
exit $fail
