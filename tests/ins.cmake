# Navier-Stokes step: Taylor vortex temporal convergence (label convergence).
add_executable(test_ins test_ins.c)
target_link_libraries(test_ins PRIVATE insdg_tasks)
# BDF/EXT orders 1 and 2 without subcycling, and order 2 with 2 subcycles per step
# (subcycled: T = 0.2 from 10 steps, so that dt / Ns stays below LSERK4's stability limit)
foreach(cfg "1;0;0.4" "2;0;0.4" "2;2;0.2")
  list(GET cfg 0 S)
  list(GET cfg 1 Ns)
  list(GET cfg 2 T)
  add_test(NAME ins_taylor_temporal_S${S}_Ns${Ns} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_ins>
           temporal 6 4 ${T} ${S} ${Ns})
  set_tests_properties(ins_taylor_temporal_S${S}_Ns${Ns} PROPERTIES LABELS convergence ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 600)
endforeach()
