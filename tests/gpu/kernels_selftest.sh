#!/usr/bin/env bash
# kernels_selftest.sh — build tests/gpu/kernels_selftest.cu in a temp dir and run it.
#
# Usage: tests/gpu/kernels_selftest.sh [selftest options...]
#   e.g. tests/gpu/kernels_selftest.sh                      all five workloads + timing
#        tests/gpu/kernels_selftest.sh --only m257          one workload
#        tests/gpu/kernels_selftest.sh --skip-slow          no naive/handwritten/off_by_one on 8192x7168x5120
#        SANITIZE=1 tests/gpu/kernels_selftest.sh           the 257x513x1000 workload under compute-sanitizer
#                                                           memcheck, racecheck and synccheck (no timing)
# Environment: CUDA_HOME (default /usr/local/cuda), NVCC (default $CUDA_HOME/bin/nvcc),
#              ARCH (default sm_90a), SANITIZE (0/1).
# Exit status: the self-test's (0 all expectations met, 1 failure, 77 no GPU), or 1 when the
# build fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
NVCC="${NVCC:-$CUDA_HOME/bin/nvcc}"
ARCH="${ARCH:-sm_90a}"
SANITIZE="${SANITIZE:-0}"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/kernels_selftest.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

libdir="$CUDA_HOME/targets/x86_64-linux/lib"
[ -d "$libdir" ] || libdir="$CUDA_HOME/lib64"

# SASS for $ARCH only: -arch=sm_90a would also embed (and assemble) compute_90 PTX, which has no
# wgmma or setmaxnreg.
gencode="-gencode=arch=compute_${ARCH#sm_},code=$ARCH"
echo "build: $NVCC -O2 $gencode -lineinfo $here/kernels_selftest.cu -lcublas"
if ! "$NVCC" -O2 "$gencode" -lineinfo -Xptxas --warn-on-spills \
        -o "$tmp/kernels_selftest" "$here/kernels_selftest.cu" \
        -L"$libdir" -lcublas -Xlinker -rpath -Xlinker "$libdir"; then
    echo "FAIL: build of kernels_selftest.cu failed"
    exit 1
fi

export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
set +e
if [ "$SANITIZE" = "1" ]; then
    san="$CUDA_HOME/bin/compute-sanitizer"
    rc=0
    for tool in memcheck racecheck synccheck; do
        "$san" --tool "$tool" --error-exitcode 3 "$tmp/kernels_selftest" --root "$root" \
            --only m257_n513_k1000 --no-timing "$@"
        r=$?
        echo "compute-sanitizer $tool m257_n513_k1000: exit $r"
        [ $r -eq 0 ] || rc=$r
    done
else
    "$tmp/kernels_selftest" --root "$root" "$@"
    rc=$?
fi
set -e
exit $rc
