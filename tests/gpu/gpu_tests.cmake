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
set_tests_properties(gpu.device_smoke gpu.device_fault gpu.device_hang gpu.timing_smoke PROPERTIES
  SKIP_RETURN_CODE 77
  TIMEOUT 900)
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
