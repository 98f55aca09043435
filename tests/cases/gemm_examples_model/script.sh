#!/usr/bin/env bash
# The CPU model of the mma.sync and SIMT GEMM examples of gemm_fp32_nn, gemm_tf32_tn,
# gemm_bf16_nn_beta and gemm_bf16_nt_batched (harness.cpp, shim/cuda_model.h): each kernel's
# CUDA C++ runs on the CPU, one thread per CUDA thread, with every PTX instruction modelled,
# over ragged shapes against a double-precision reference, cp.async copies once at issue and
# once at the latest wait that allows them.
set -uo pipefail
cxx="${CXX:-g++}"
bin="$OUT.bin"
mkdir -p "$bin"
declare -A src=(
  [1]=tasks/gemm_fp32_nn/examples/simt_sgemm.cu
  [2]=tasks/gemm_tf32_tn/examples/mma_tf32.cu
  [3]=tasks/gemm_bf16_nn_beta/examples/mma_bf16_nn.cu
  [4]=tasks/gemm_bf16_nt_batched/examples/tiled_mma_batched.cu
)
rc=0
for k in 1 2 3 4; do
  echo "== ${src[$k]}"
  if ! "$cxx" -std=c++20 -O2 -pthread -w -x c++ -I "$CASE/shim" -include "$CASE/shim/cuda_model.h" \
       -DMODEL_KERNEL=$k -DMODEL_SOURCE="$ROOT/${src[$k]}" "$CASE/harness.cpp" -o "$bin/model$k"; then
    echo "FAIL: the model of ${src[$k]} does not compile"; rc=1; continue
  fi
  for mode in immediate deferred; do
    timeout 600 "$bin/model$k" "$mode" || { echo "FAIL: ${src[$k]} ($mode)"; rc=1; }
  done
done
exit $rc
