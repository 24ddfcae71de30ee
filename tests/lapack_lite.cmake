# lapack_lite.cmake -- src/lapack_lite, the stand-in for LAPACK/BLAS of INSDG_GPU_ONLY
# builds: the reference-element tests (test_ref.c) rerun on a reference element built
# with it (ref_lite_*), and, where the real libraries exist, a direct comparison
# (test_lapack_lite.c). Label unit.
if(NOT INSDG_REF_LITE_LIB)
  add_library(insdg_ref_lite STATIC ${PROJECT_SOURCE_DIR}/src/ref_tri.c ${PROJECT_SOURCE_DIR}/src/error.c
                                    ${PROJECT_SOURCE_DIR}/src/lapack_lite/lapack_lite.c)
  target_include_directories(insdg_ref_lite PUBLIC ${PROJECT_SOURCE_DIR}/src
                                                   ${PROJECT_SOURCE_DIR}/src/lapack_lite/include)
  find_library(INSDG_LITE_M_LIB m)
  if(INSDG_LITE_M_LIB)
    target_link_libraries(insdg_ref_lite PUBLIC ${INSDG_LITE_M_LIB})
  endif()
  set(INSDG_REF_LITE_LIB insdg_ref_lite)
endif()
add_executable(test_ref_lite ${CMAKE_CURRENT_LIST_DIR}/test_ref.c)
target_link_libraries(test_ref_lite PRIVATE ${INSDG_REF_LITE_LIB})
foreach(group deriv mass cubature lift faces projection interp negative)
  add_test(NAME ref_lite_${group} COMMAND test_ref_lite ${group})
  set_tests_properties(ref_lite_${group} PROPERTIES LABELS unit)
endforeach()

if(TARGET insdg_core)   # the real LAPACKE and CBLAS are there to compare with
  add_executable(test_lapack_lite ${CMAKE_CURRENT_LIST_DIR}/test_lapack_lite.c
                                  ${PROJECT_SOURCE_DIR}/src/lapack_lite/lapack_lite.c)
  target_include_directories(test_lapack_lite PRIVATE ${PROJECT_SOURCE_DIR}/src/lapack_lite ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(test_lapack_lite PRIVATE insdg_core)
  add_test(NAME lapack_lite COMMAND test_lapack_lite)
  set_tests_properties(lapack_lite PROPERTIES LABELS unit)
endif()
