# ref.cmake -- tests of the reference triangle (src/ref_tri.c), included from
# tests/CMakeLists.txt. One executable; each ctest entry runs one group of checks for
# N = 1..INSDG_NMAX ("negative" feeds broken operators and requires the checks to fail).
add_executable(test_ref ${CMAKE_CURRENT_SOURCE_DIR}/test_ref.c)
target_link_libraries(test_ref PRIVATE insdg_core)

foreach(group deriv mass cubature lift faces projection interp negative)
  add_test(NAME ref_${group} COMMAND test_ref ${group})
  set_tests_properties(ref_${group} PROPERTIES LABELS unit)
endforeach()
