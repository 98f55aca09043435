#!/usr/bin/env bash
# attn_selftest.sh — compile the attention example kernels to PTX (as ptxgate does: nvcc -ptx
# -arch=$ARCH -lineinfo), build tests/gpu/attn_selftest.cu and run it.
#
# Usage: tests/gpu/attn_selftest.sh [selftest options...]
#   e.g. tests/gpu/attn_selftest.sh                    reduced-size workloads (B·H ≤ 6) + timing at
#                                                      B=4 H=48 S=4096 D=128
#        tests/gpu/attn_selftest.sh --only s1000       workloads whose name contains s1000
#        tests/gpu/attn_selftest.sh --full             also the full B=4 H=48 S=4096 D=128 workload
#                                                      against the (slow) reference
#        SANITIZE=1 tests/gpu/attn_selftest.sh         S=77 and S=1000/D=64 under compute-sanitizer
#                                                      memcheck, racecheck and synccheck (no timing)
# Environment: CUDA_HOME (default /usr/local/cuda), NVCC (default $CUDA_HOME/bin/nvcc),
#              ARCH (default sm_90a), SANITIZE (0/1).
# Exit status: the self-test's (0 all expectations met, 1 failure, 77 no GPU), or 1 when a build
# fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
NVCC="${NVCC:-$CUDA_HOME/bin/nvcc}"
ARCH="${ARCH:-sm_90a}"
SANITIZE="${SANITIZE:-0}"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/attn_selftest.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

ptx() {   # ptx OUT_NAME SOURCE
    if ! "$NVCC" -ptx -arch="$ARCH" -lineinfo -o "$tmp/$1" "$root/$2"; then
        echo "FAIL: nvcc -ptx $2 failed"
        exit 1
    fi
}
ptx fwd.ptx tasks/mha_fwd_d128/examples/flash_fwd.cu
ptx fwd_causal.ptx tasks/mha_fwd_d128_causal/examples/flash_fwd.cu
ptx bwd.ptx tasks/mha_bwd_d128/examples/flash_bwd.cu
ptx bwd_causal.ptx tasks/mha_bwd_d128_causal/examples/flash_bwd.cu
ptx wrong_dv.ptx tests/fixtures/mha_bwd_d128/wrong_dv/wrong_dv.cu

libdir="$CUDA_HOME/targets/x86_64-linux/lib"
[ -d "$libdir" ] || libdir="$CUDA_HOME/lib64"
echo "build: $NVCC -O2 -arch=$ARCH -lineinfo $here/attn_selftest.cu"
if ! "$NVCC" -O2 -arch="$ARCH" -lineinfo -o "$tmp/attn_selftest" "$here/attn_selftest.cu" \
        -Xlinker -rpath -Xlinker "$libdir"; then
    echo "FAIL: build of attn_selftest.cu failed"
    exit 1
fi

export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
set +e
if [ "$SANITIZE" = "1" ]; then
    san="$CUDA_HOME/bin/compute-sanitizer"
    rc=0
    for only in s77 s1000_d64; do
        for tool in memcheck racecheck synccheck; do
            "$san" --tool "$tool" --error-exitcode 3 "$tmp/attn_selftest" --ptx-dir "$tmp" \
                --only "$only" --no-timing "$@"
            r=$?
            echo "compute-sanitizer $tool $only: exit $r"
            [ $r -eq 0 ] || rc=$r
        done
    done
else
    "$tmp/attn_selftest" --ptx-dir "$tmp" "$@"
    rc=$?
fi
set -e
exit $rc
