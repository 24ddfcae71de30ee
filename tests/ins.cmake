# Navier-Stokes step: Taylor vortex temporal convergence (label convergence).
add_executable(test_ins test_ins.c)
target_link_libraries(test_ins PRIVATE insdg_tasks)
foreach(S 1 2)
  add_test(NAME ins_taylor_temporal_S${S} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_ins> temporal 6 4 0.4 ${S})
  set_tests_properties(ins_taylor_temporal_S${S} PROPERTIES LABELS convergence ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 600)
endforeach()
