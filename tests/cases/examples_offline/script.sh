#!/usr/bin/env bash
# The main job without a GPU: every bundled example passes the offline stages (nvcc -ptx,
# ptxas), GPU stages are listed as skipped with the reason, exit 0.
set -uo pipefail
"$BIN" check --no-gpu --output "$OUT" tasks/*/examples >"$OUT.stdout" 2>"$OUT.stderr"
rc=$?
cat "$OUT.stdout"
[[ $rc == 0 ]] || { echo "FAIL: exit $rc, expected 0"; cat "$OUT.stderr"; exit 1; }
grep -q "GPU stages not run: GPU stages disabled by --no-gpu" "$OUT.stdout" || { echo "FAIL: no skip reason"; exit 1; }
n=$(grep -c "^  assemble     pass" "$OUT.stdout")
[[ $n -ge 4 ]] || { echo "FAIL: only $n submissions assembled"; exit 1; }
grep -q "skipped  GPU stages disabled by --no-gpu" "$OUT.stdout" || { echo "FAIL: skipped stages not listed"; exit 1; }
for f in results.json junit.xml summary.md; do [[ -s "$OUT/$f" ]] || { echo "FAIL: $f missing"; exit 1; }; done
grep -q "progress\|\[gemm_bf16_nt/" "$OUT.stderr" || { echo "FAIL: no progress on stderr"; exit 1; }
