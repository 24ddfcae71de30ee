# ugrid.cmake -- tests of the parallel UGRID writer (io/ugrid.c), included from
# tests/CMakeLists.txt (INSDG_TEST_MESHES = tests/meshes).
#  ugrid_write_npR  test_ugrid at R = 1, 2, 3 ranks (rectangle at 1, hole41.msh at 2 and
#                   3; at 3 the last rank owns no element): two records, the .tmp/rename
#                   protocol and the error paths
#  ugrid_check_npR  check_ugrid.py reads that file with netCDF4-python and ncdump: UGRID
#                   attributes, sizes, sub-triangle geometry, values (runs after the write,
#                   through a fixture)
# Python is /usr/bin/python3 on purpose: the pyenv python3 on PATH has no numpy.
add_executable(test_ugrid ${CMAKE_CURRENT_SOURCE_DIR}/test_ugrid.c)
target_link_libraries(test_ugrid PRIVATE insdg_io_nc)

set(INSDG_SYSTEM_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with numpy and netCDF4 (Debian's)")

foreach(_np 1 2 3)
  if(_np EQUAL 1)
    set(_mesh rect)
  else()
    set(_mesh ${INSDG_TEST_MESHES}/hole41.msh)
  endif()
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/ugrid_np${_np}.nc)
  add_test(NAME ugrid_write_np${_np}
           COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe
                   ${MPIEXEC_NUMPROC_FLAG} ${_np} $<TARGET_FILE:test_ugrid> ${_mesh} ${_out})
  add_test(NAME ugrid_check_np${_np}
           COMMAND ${INSDG_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_ugrid.py ${_out})
  set_tests_properties(ugrid_write_np${_np} PROPERTIES
                       FIXTURES_SETUP ugrid_np${_np} LABELS mpi TIMEOUT 120
                       ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1")
  set_tests_properties(ugrid_check_np${_np} PROPERTIES
                       FIXTURES_REQUIRED ugrid_np${_np} LABELS mpi TIMEOUT 60)
endforeach()
