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

# the velocity preconditioner's default by the stiffness/mass ratio, and pmg_amg's step
add_test(NAME ins_velocity_pick COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_ins> vpick 4 4)
set_tests_properties(ins_velocity_pick PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 300)

# checkpoint/restart: bitwise equal to an uninterrupted run (EXT and subcycled), and the
# same checkpoint continued on 3 ranks equal to round-off
set(_d ${CMAKE_CURRENT_BINARY_DIR})
foreach(Ns 0 1)
  add_test(NAME ins_restart_bitwise_Ns${Ns} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_ins>
           restart 4 4 0.01 2 ${Ns} 3 ${_d}/ckpt_Ns${Ns}.nc ${_d}/restart1_Ns${Ns}.bin)
  set_tests_properties(ins_restart_bitwise_Ns${Ns} PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 300
                       FIXTURES_SETUP ckpt_Ns${Ns} PASS_REGULAR_EXPRESSION "ok: restarted run is bitwise equal")
endforeach()
add_test(NAME ins_restart_3ranks COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:test_ins>
         continue 4 4 0.01 2 0 3 ${_d}/ckpt_Ns0.nc ${_d}/restart3_Ns0.bin)
set_tests_properties(ins_restart_3ranks PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 300
                     FIXTURES_REQUIRED ckpt_Ns0 FIXTURES_SETUP ckpt3)
add_test(NAME ins_restart_3ranks_roundoff COMMAND $<TARGET_FILE:test_pcg> compare ${_d}/restart1_Ns0.bin ${_d}/restart3_Ns0.bin 1e-10 0)
set_tests_properties(ins_restart_3ranks_roundoff PROPERTIES LABELS mpi FIXTURES_REQUIRED "ckpt_Ns0;ckpt3")
# a checkpoint written in parallel by 2 ranks (each its own slab): bitwise on 2 ranks, and
# read back on 1 and on 3 ranks (other decompositions) equal to round-off to the 1-rank run
add_test(NAME ins_restart_bitwise_2ranks COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:test_ins>
         restart 4 4 0.01 2 0 3 ${_d}/ckpt_r2.nc ${_d}/restart2_r2.bin)
set_tests_properties(ins_restart_bitwise_2ranks PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 300
                     FIXTURES_SETUP ckpt_r2 PASS_REGULAR_EXPRESSION "ok: restarted run is bitwise equal")
foreach(R 1 3)
  add_test(NAME ins_restart_from2_on${R} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${R} $<TARGET_FILE:test_ins>
           continue 4 4 0.01 2 0 3 ${_d}/ckpt_r2.nc ${_d}/restart${R}_from2.bin)
  set_tests_properties(ins_restart_from2_on${R} PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 300
                       FIXTURES_REQUIRED ckpt_r2 FIXTURES_SETUP from2_on${R})
  add_test(NAME ins_restart_from2_on${R}_roundoff COMMAND $<TARGET_FILE:test_pcg> compare ${_d}/restart1_Ns0.bin
           ${_d}/restart${R}_from2.bin 1e-10 0)
  set_tests_properties(ins_restart_from2_on${R}_roundoff PROPERTIES LABELS mpi FIXTURES_REQUIRED "ckpt_Ns0;from2_on${R}")
endforeach()
