#!/usr/bin/env bash
# Launch limits are checked offline from the architecture's table (data/arch/sm_90a.json,
# "launch_limits"): dynamic shared memory above the opt-in maximum (a 300000-byte manifest used
# to pass offline and fail only on the GPU), threads per block, blocks per cluster. Each is an
# input error (exit 2) naming the manifest field and the limit, with no report written, and the
# message is exactly the one the GPU path gives (here the device limits a fake worker reports
# for an H200, tests/fakes/fake_worker.py, as the GPU test tests/gpu/test_launch_limit_gpu.sh
# checks on a real one).
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
mkdir -p "$OUT"
fx="$ROOT/tests/fixtures/gemm_bf16_nt"
expect() { # fixture field message
  local name=$1 field=$2 msg=$3
  "$BIN" check --no-gpu --output "$OUT/$name.offline" "$fx/$name.json" >/dev/null 2>"$OUT/$name.offline.err"
  local rc_off=$?
  PTXGATE_WORKER="$ROOT/tests/fakes/fake_worker.py" FAKE_WORKER_LOG="$OUT/$name.worker.log" \
    "$BIN" check --output "$OUT/$name.gpu" "$fx/$name.json" >/dev/null 2>"$OUT/$name.gpu.err"
  local rc_gpu=$?
  local want="ptxgate: $fx/$name.json: field '$field': workload 'm8192_n7168_k5120': $msg"
  check "$name offline: exit 2 (got $rc_off)" [ "$rc_off" = 2 ]
  check "$name on the (fake) GPU: exit 2 (got $rc_gpu)" [ "$rc_gpu" = 2 ]
  check "$name offline: the message names the field and the limit" \
    bash -c '[ "$(cat "$1")" = "$2" ] || { echo "  got:  $(cat "$1")"; echo "  want: $2"; false; }' _ "$OUT/$name.offline.err" "$want"
  check "$name: the GPU path gives the same message" cmp -s "$OUT/$name.offline.err" "$OUT/$name.gpu.err"
  for p in offline gpu; do
    check "$name $p: no report written" bash -c '[ ! -e "$1" ] || [ -z "$(ls -A "$1")" ]' _ "$OUT/$name.$p"
  done
}
expect smem_too_large "launches[0].dynamic_shared_bytes" \
  "300000 bytes of dynamic shared memory exceed the opt-in limit of 232448 bytes on sm_90a"
expect threads_too_many "launches[0].block" "2048 threads per block exceed the limit 1024 on sm_90a"
expect cluster_too_large "launches[0].cluster" \
  "a cluster of 8 x 4 x 1 = 32 blocks exceeds the limit of 16 blocks (8 portable, more with the non-portable opt-in, which ptxgate sets) on sm_90a"
expect block_too_large "launches[0].block" "block x = 2048 exceeds the limit 1024 on sm_90a"
exit $fail
