#!/usr/bin/env bash
# `check` with stored baselines but no GPU: with --gpu-key the file is found and validated
# offline; the accepted kernel's hashes differ from the fixture's (they are made up), which is a
# note of the run in results.json, on stdout and in summary.md; the run still passes.
set -uo pipefail
"$BIN" check --quiet --no-gpu --instructions warn --gpu-key h200-sxm --baselines tests/data/baselines --output "$OUT" \
  tasks/gemm_bf16_nt/examples/tiled_mma.json >"$OUT.stdout" 2>"$OUT.stderr"
rc=$?
cat "$OUT.stdout"
[[ $rc == 0 ]] || { echo "FAIL: exit $rc, expected 0"; cat "$OUT.stderr"; exit 1; }
grep -q "^baseline note: gemm_bf16_nt: the accepted kernel changed since the baseline was measured: manifest tasks/gemm_bf16_nt/examples/wgmma_tma.json (sha256 3f1c2a9be0d4… stored" "$OUT.stdout" ||
  { echo "FAIL: no note about the accepted kernel"; exit 1; }
grep -q "^\*\*Stored baselines:\*\* tests/data/baselines · GPU key h200-sxm (--gpu-key) · missing baseline: measure · runner drift: warn beyond 5.0 %" "$OUT/summary.md" ||
  { echo "FAIL: summary.md lacks the baselines line"; cat "$OUT/summary.md"; exit 1; }
python3 - "$OUT/results.json" <<'PY' || exit 1
import json, sys
b = json.load(open(sys.argv[1]))["baselines"]
t = b["tasks"][0]
assert b["gpu_key"] == "h200-sxm" and b["dir"] == "tests/data/baselines", b
assert t["status"] == "found" and t["measured_utc"] == "2026-11-30T09:12:44Z", t
assert t["accepted_kernel_note"].startswith("the accepted kernel changed"), t
assert t["algorithm_pinning"] is False and t["fingerprint_changes"] == [], t  # no live GPU
PY
# ptxgate report reproduces the summary from results.json alone.
"$BIN" report --output "$OUT/again" "$OUT/results.json" >/dev/null || { echo "FAIL: report"; exit 1; }
cmp "$OUT/summary.md" "$OUT/again/summary.md" || { echo "FAIL: report differs"; exit 1; }
# A folder without the task's file: a note under the default policy, and --on-missing-baseline
# is validated.
mkdir -p "$OUT/empty"
"$BIN" check --quiet --no-gpu --instructions warn --gpu-key h200-sxm --baselines "$OUT/empty" --output "$OUT/m" \
  tasks/gemm_bf16_nt/examples/tiled_mma.json >"$OUT.stdout" 2>&1
grep -q "^baseline note: gemm_bf16_nt: no stored baseline at $OUT/empty/h200-sxm/gemm_bf16_nt.json (--on-missing-baseline=measure)" "$OUT.stdout" ||
  { echo "FAIL: no missing-baseline note"; cat "$OUT.stdout"; exit 1; }
"$BIN" check --no-gpu --on-missing-baseline maybe --output "$OUT/m" tasks/gemm_bf16_nt/examples/tiled_mma.json 2>"$OUT.stderr"
[[ $? == 2 ]] && grep -q "expected 'measure', 'warn' or 'fail'" "$OUT.stderr" || { echo "FAIL: bad policy accepted"; exit 1; }
"$BIN" check --no-gpu --gpu-key H200 --baselines "$OUT/empty" --output "$OUT/m" tasks/gemm_bf16_nt/examples/tiled_mma.json 2>"$OUT.stderr"
[[ $? == 2 ]] && grep -q "field '--gpu-key'" "$OUT.stderr" || { echo "FAIL: bad key accepted"; cat "$OUT.stderr"; exit 1; }
"$BIN" check --no-gpu --baselines "$OUT/none" --output "$OUT/m" tasks/gemm_bf16_nt/examples/tiled_mma.json 2>"$OUT.stderr"
[[ $? == 2 ]] && grep -q "field '--baselines': expected a folder of stored baselines: no such folder" "$OUT.stderr" || { echo "FAIL: missing folder accepted"; cat "$OUT.stderr"; exit 1; }
echo ok
