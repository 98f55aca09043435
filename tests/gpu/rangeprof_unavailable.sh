#!/usr/bin/env bash
# Under another profiler (Nsight Compute) the range profiler must answer "unavailable" with the
# cause and the fix, never a count (docs/instructions-runtime.md). Skips (77) without a GPU or
# without ncu.
# usage: rangeprof_unavailable.sh PATH/TO/rangeprof_calibration
set -uo pipefail
bin="$1"
"$bin" probe >/dev/null 2>&1
rc=$?
if [[ $rc != 0 ]]; then
  "$bin" probe
  exit 77
fi
ncu="$(command -v ncu || true)"
[[ -n "$ncu" ]] || ncu="${CUDA_HOME:-/usr/local/cuda}/bin/ncu"
if [[ ! -x "$ncu" ]]; then
  echo "SKIP: ncu (Nsight Compute) not found on PATH or in the CUDA toolkit"
  exit 77
fi
# Profile no kernel (the filter matches none): ncu is only there to hold CUPTI.
out="$("$ncu" --kernel-name regex:^no_kernel_has_this_name$ "$bin" unavailable 2>&1)"
echo "$out"
if grep -q '^PASS: unavailable as expected' <<<"$out"; then
  exit 0
fi
echo "FAIL: no 'PASS: unavailable as expected' under ncu"
exit 1
