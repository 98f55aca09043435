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
# attention_baseline: the attention reference against the CPU, cuDNN's SDPA graphs against the
# reference, cuDNN timed (run by tests/gpu/test_attention_baseline.sh, which also registers it).
add_executable(attention_baseline ${CMAKE_CURRENT_LIST_DIR}/attention_baseline.c)
target_link_libraries(attention_baseline PRIVATE ptxgate_device ptxgate m)
