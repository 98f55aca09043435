#!/usr/bin/env bash
# The adversarial cases that are caught without a GPU (their `expect` says `mode offline`), in
# one `ptxgate check --no-gpu` run, checked by check.py. Exits 77 (skipped) without nvcc: the
# cases are CUDA sources.
# usage: run_offline.sh PTXGATE REPO_ROOT OUT_DIR
set -uo pipefail
bin="$1" root="$2" out="$3"
cd "$root"
if ! command -v nvcc >/dev/null && [[ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]]; then
  echo "SKIP: nvcc not found"; exit 77
fi
rm -rf "$out" && mkdir -p "$out"
manifests=()
for dir in tests/adversarial/*/; do
  [[ -f "$dir/expect" ]] && grep -qx "mode offline" "$dir/expect" && manifests+=("$dir$(basename "$dir").json")
done
((${#manifests[@]})) || { echo "FAIL: no offline case"; exit 1; }
"$bin" check --no-gpu --quiet --workloads m257_n513_k1000 --output "$out/results" "${manifests[@]}" \
  >"$out/stdout" 2>"$out/stderr"
rc=$?
[[ $rc == 1 ]] || { echo "FAIL: exit code $rc, expected 1"; cat "$out/stdout" "$out/stderr"; exit 1; }
python3 tests/adversarial/check.py "$out/results/results.json" tests/adversarial --mode offline
