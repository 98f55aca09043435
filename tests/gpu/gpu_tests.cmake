# GPU test programs (included from tests/CMakeLists.txt). device_smoke drives gate/device on a
# real GPU; without one it prints "SKIP: <reason>" and exits 77, which ctest records as skipped.
# Its "fault" and "hang" modes run alone because each leaves the device unusable.
add_executable(device_smoke ${CMAKE_CURRENT_LIST_DIR}/device_smoke.c)
target_link_libraries(device_smoke PRIVATE ptxgate_device ptxgate m)

add_test(NAME gpu.device_smoke COMMAND device_smoke)
add_test(NAME gpu.device_fault COMMAND device_smoke fault)
add_test(NAME gpu.device_hang COMMAND device_smoke hang)
# timing_smoke drives the measurement primitives (environment watch, CUPTI activity, one arm
# with both timers, sustained graphs) and prints events vs CUPTI times.
add_executable(timing_smoke ${CMAKE_CURRENT_LIST_DIR}/timing_smoke.c)
target_link_libraries(timing_smoke PRIVATE ptxgate_device ptxgate m)

add_test(NAME gpu.timing_smoke COMMAND timing_smoke)
# gemm_general: the generalized GEMM (layouts, batch, alpha/beta with C, fp32/bf16/fp16, tf32):
# the reference against the CPU (bitwise replay and an fp64 bound), cuBLASLt against the
# reference, the pinned and rotated-copies paths; one table.
add_executable(gemm_general ${CMAKE_CURRENT_LIST_DIR}/gemm_general.c)
target_link_libraries(gemm_general PRIVATE ptxgate_device ptxgate m)
add_test(NAME gpu.gemm_general COMMAND gemm_general)
# blaslt_fp8_output_modes: which D-scale / amax-of-D modes of an fp8 GEMM the installed cuBLASLt
# runs (a table; CUDA runtime and cuBLASLt called directly).
add_executable(blaslt_fp8_output_modes ${CMAKE_CURRENT_LIST_DIR}/blaslt_fp8_output_modes.c)
target_link_libraries(blaslt_fp8_output_modes PRIVATE CUDA::cublasLt CUDA::cudart)
add_test(NAME gpu.blaslt_fp8_output_modes COMMAND blaslt_fp8_output_modes)
set_tests_properties(gpu.device_smoke gpu.device_fault gpu.device_hang gpu.timing_smoke
  gpu.gemm_general gpu.blaslt_fp8_output_modes PROPERTIES
  SKIP_RETURN_CODE 77
  TIMEOUT 900)
# rangeprof_calibration: kernels of known instruction counts (rangeprof_kernels.cu, nvcc for
# sm_90a into a cubin, embedded like the reference fatbin) counted by the CUPTI range profiler;
# the expected counts, math ops and FLOPs are written in the test. Skips (77) without an sm_90
# GPU or when profiling is unavailable.
set(PG_RANGEPROF_GEN ${CMAKE_CURRENT_BINARY_DIR}/gpu)
file(MAKE_DIRECTORY ${PG_RANGEPROF_GEN})
add_custom_command(
  OUTPUT ${PG_RANGEPROF_GEN}/rangeprof_kernels.cubin
  COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} --cubin -O3 -arch=sm_90a
          -o ${PG_RANGEPROF_GEN}/rangeprof_kernels.cubin ${CMAKE_CURRENT_LIST_DIR}/rangeprof_kernels.cu
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/rangeprof_kernels.cu
  COMMENT "nvcc: range-profiler calibration kernels -> sm_90a cubin"
  VERBATIM)
add_custom_command(
  OUTPUT ${PG_RANGEPROF_GEN}/rangeprof_cubin.c
  COMMAND ${CMAKE_COMMAND} -DPG_EMBED_IN=${PG_RANGEPROF_GEN}/rangeprof_kernels.cubin
          -DPG_EMBED_OUT=${PG_RANGEPROF_GEN}/rangeprof_cubin.c -DPG_EMBED_NAME=pg_rangeprof_cubin
          -P ${PG_DEVICE_DIR}/device.cmake
  DEPENDS ${PG_RANGEPROF_GEN}/rangeprof_kernels.cubin ${PG_DEVICE_DIR}/device.cmake
  COMMENT "embedding the calibration cubin"
  VERBATIM)
add_executable(rangeprof_calibration ${CMAKE_CURRENT_LIST_DIR}/rangeprof_calibration.c
  ${PG_RANGEPROF_GEN}/rangeprof_cubin.c)
# cuda.h for CUtensorMap and the cuTensorMapEncodeTiled prototype (the function itself is looked
# up in the driver the device layer loaded).
target_include_directories(rangeprof_calibration PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(rangeprof_calibration PRIVATE ptxgate_device ptxgate m ${CMAKE_DL_LIBS})
add_test(NAME gpu.rangeprof_calibration COMMAND rangeprof_calibration)
set_tests_properties(gpu.rangeprof_calibration PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# The same binary under Nsight Compute: chip name and counting must be "unavailable" with a fix.
add_test(NAME gpu.rangeprof_unavailable
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/rangeprof_unavailable.sh $<TARGET_FILE:rangeprof_calibration>)
set_tests_properties(gpu.rangeprof_unavailable PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# tma_smoke: tensor maps encoded by the device layer and passed by value to the probe kernels of
# tma_probe.cu (compiled here to an sm_90a cubin), which check TMA's 128B-swizzle layout and
# zero fill and the wgmma descriptor/fragment layout the wgmma + TMA example relies on.
set(PG_TMA_PROBE_CUBIN ${CMAKE_CURRENT_BINARY_DIR}/tma_probe.cubin)
add_custom_command(
  OUTPUT ${PG_TMA_PROBE_CUBIN}
  COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} -cubin -arch=sm_90a -O3 -std=c++17
          -o ${PG_TMA_PROBE_CUBIN} ${CMAKE_CURRENT_LIST_DIR}/tma_probe.cu
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/tma_probe.cu ${PROJECT_SOURCE_DIR}/tasks/common/sm90_ptx.cuh
  COMMENT "nvcc: TMA and wgmma probe kernels -> cubin"
  VERBATIM)
add_custom_target(tma_probe_cubin DEPENDS ${PG_TMA_PROBE_CUBIN})
add_executable(tma_smoke ${CMAKE_CURRENT_LIST_DIR}/tma_smoke.c)
add_dependencies(tma_smoke tma_probe_cubin)
target_link_libraries(tma_smoke PRIVATE ptxgate_device ptxgate m)
add_test(NAME gpu.tma_smoke COMMAND tma_smoke ${PG_TMA_PROBE_CUBIN})
set_tests_properties(gpu.tma_smoke PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# attention_baseline: the attention reference against the CPU, cuDNN's SDPA graphs against the
# reference, cuDNN timed (run by tests/gpu/test_attention_baseline.sh, which also registers it).
add_executable(attention_baseline ${CMAKE_CURRENT_LIST_DIR}/attention_baseline.c)
target_link_libraries(attention_baseline PRIVATE ptxgate_device ptxgate m)
