#!/usr/bin/env bash
# GPU test: the examples and failure fixtures on two workloads each, once unsharded and once as
# two shards merged with `ptxgate merge`. The shards re-measure, so the two are two honest runs:
# they must share the submissions and workloads, every offline, correctness and instruction
# result, and every performance verdict except flips at a comparison's boundary (an interval
# holding the threshold; PASS <-> FAST is never a flip), and the planned Holm family
# (tests/gpu/honest_runs.py says exactly what, with a unit test on synthetic results); then
# `ptxgate compare` of the two finds no correctness transition. Exits 77 (skipped) with the
# reason without a GPU.
# usage: test_shard_merge_gpu.sh PTXGATE REPO_ROOT OUT_DIR
set -uo pipefail
bin="$1" root="$2" out="$3"
# Without a usable GPU: skip within a second or two, before any offline work.
source "$(dirname "${BASH_SOURCE[0]}")/gpu_probe.sh"
pg_require_gpu "$bin"
cd "$root"
rm -rf "$out" && mkdir -p "$out"
args=(--quiet --if-no-gpu fail --no-energy --workloads m2048_n2048_k2048,m257_n513_k1000
      tasks/gemm_bf16_nt/examples tasks/gemm_fp16_nt/examples
      tests/fixtures/gemm_bf16_nt/off_by_one.json tests/fixtures/gemm_bf16_nt/syntax_error.json)
"$bin" check --output "$out/full" "${args[@]}" >"$out/full.stdout" 2>&1
full_rc=$?
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["environment"]["gpu"] is None else 1)' "$out/full/results.json"; then
  echo "SKIP: no usable GPU: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["environment"]["gpu_skip_reason"])' "$out/full/results.json")"
  exit 77
fi
fail=0
for i in 1 2; do
  "$bin" check --shard $i/2 --output "$out/s$i" "${args[@]}" >"$out/s$i.stdout" 2>&1
  echo "shard $i/2: exit $? ($(grep '^shard ' "$out/s$i.stdout"))"
done
"$bin" merge --output "$out/merged" "$out/s1/results.json" "$out/s2/results.json" >"$out/merge.stdout" 2>&1
merge_rc=$?
cat "$out/merge.stdout"
echo "unsharded exit $full_rc, merged exit $merge_rc"
# Two honest runs measure independently: a verdict at a comparison's boundary may differ (and
# with it the exit code); what they must share is checked by tests/gpu/honest_runs.py.
python3 "$root/tests/gpu/honest_runs.py" "$out/full/results.json" "$out/merged/results.json" || fail=1
python3 - "$out" <<'PY' || fail=1
import json, sys
out = sys.argv[1]
full = json.load(open(f"{out}/full/results.json"))
merged = json.load(open(f"{out}/merged/results.json"))
print("holm unsharded", full["holm"], "merged", merged["holm"])
ok = full["holm"]["m_planned"] == merged["holm"]["m_planned"]
print("Holm family planned:", "equal" if ok else "DIFFERENT")
sys.exit(0 if ok else 1)
PY
"$bin" compare --fail-on correctness --output "$out/cmp" "$out/full/results.json" "$out/merged/results.json" >"$out/cmp.stdout" 2>&1
cmp_rc=$?
cat "$out/cmp.stdout"
[[ $cmp_rc == 0 ]] || { echo "FAIL: compare found a correctness change between the runs"; fail=1; }
exit $fail
