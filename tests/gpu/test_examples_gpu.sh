#!/usr/bin/env bash
# GPU test: every bundled example and failure fixture on the real GPU, with the outcome each
# must have (tests/gpu/expect_examples.py). Exits 77 (skipped) with the reason without a GPU.
# usage: test_examples_gpu.sh PTXGATE REPO_ROOT OUT_DIR
set -uo pipefail
bin="$1" root="$2" out="$3"
# Without a usable GPU: skip within a second or two, before any offline work.
source "$(dirname "${BASH_SOURCE[0]}")/gpu_probe.sh"
pg_require_gpu "$bin"
cd "$root"
rm -rf "$out" && mkdir -p "$out"
"$bin" check --quiet --if-no-gpu fail --output "$out" \
  tasks/gemm_bf16_nt/examples tasks/gemm_fp16_nt/examples \
  tests/fixtures/gemm_bf16_nt/off_by_one.json tests/fixtures/gemm_bf16_nt/syntax_error.json \
  tests/fixtures/gemm_bf16_nt/ghost_branch.json tests/fixtures/gemm_bf16_nt/token_wgmma.json \
  >"$out/stdout" 2>"$out/stderr"
rc=$?
if python3 - "$out/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["environment"]["gpu"] is None else 1)
PY
then
  echo "SKIP: no usable GPU: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["environment"]["gpu_skip_reason"])' "$out/results.json")"
  exit 77
fi
echo "ptxgate exit code: $rc (expected 1: naive and the fixtures fail on purpose)"
python3 "$root/tests/gpu/expect_examples.py" "$out/results.json" || exit 1
[[ $rc == 1 ]] || { echo "FAIL: exit code $rc, expected 1"; exit 1; }
