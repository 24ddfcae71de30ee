# gpu.cmake -- bench_gpu, the GPU kernels against the device's empirical roofline (paper
# §5.1; cuda/README.md), linked against insdg_cuda where nvcc was found, else insdg_hip;
# where both exist bench_gpu_hip is the HIP build's (linked, for an AMD GPU).
set(_insdg_gpu_libs "")
if(TARGET insdg_cuda)
  list(APPEND _insdg_gpu_libs insdg_cuda)
endif()
if(TARGET insdg_hip)
  list(APPEND _insdg_gpu_libs insdg_hip)
endif()
foreach(_lib IN LISTS _insdg_gpu_libs)
  set(_exe bench_gpu)
  if(NOT _lib STREQUAL "insdg_cuda" AND TARGET insdg_cuda)
    set(_exe bench_gpu_hip)
  endif()
  add_executable(${_exe} ${CMAKE_CURRENT_LIST_DIR}/bench_gpu.c)
  target_link_libraries(${_exe} PRIVATE ${_lib} ${INSDG_GPU_REF_LIB})
  set_target_properties(${_exe} PROPERTIES LINKER_LANGUAGE C)
endforeach()
