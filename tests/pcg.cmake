# PCG on the task graph: manufactured solutions (convergence) and decomposition invariance (mpi).
add_executable(test_pcg test_pcg.c)
target_link_libraries(test_pcg PRIVATE insdg_tasks)
add_test(NAME pcg_convergence COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_pcg> converge 6 ${INSDG_TEST_MESHES}/hole41.msh)
set_tests_properties(pcg_convergence PROPERTIES LABELS convergence ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 600)
set(_d ${CMAKE_CURRENT_BINARY_DIR})
foreach(cfg "1;1;2;w1" "1;7;2;w2" "3;7;1;r3")
  list(GET cfg 0 ranks)
  list(GET cfg 1 blocks)
  list(GET cfg 2 ncpu)
  list(GET cfg 3 tag)
  add_test(NAME pcg_solve_${tag} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} $<TARGET_FILE:test_pcg>
           solve 4 12 ${blocks} ${_d}/pcg_${tag}.bin)
  set_tests_properties(pcg_solve_${tag} PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=${ncpu}"
                       FIXTURES_SETUP pcg_dumps)
endforeach()
add_test(NAME pcg_solve_w1_again COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_pcg>
         solve 4 12 7 ${_d}/pcg_w1b.bin)
set_tests_properties(pcg_solve_w1_again PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=1" FIXTURES_SETUP pcg_dumps)
# 7 blocks: 1 worker vs 2 workers bitwise; 1 rank vs 3 ranks to round-off, iterations +-2;
# 1 block vs 7 blocks to round-off
# the same solve with PCG's tail as three tasks per block and its start as five (a
# preconditioner PCG does not recognise): bitwise what the fused tail (insdg_task_pcg_tail)
# and start (insdg_then_pcg_start) give
add_test(NAME pcg_solve_w2_unfused COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_pcg>
         solve 4 12 7 ${_d}/pcg_w2u.bin unfused)
set_tests_properties(pcg_solve_w2_unfused PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=2" FIXTURES_SETUP pcg_dumps)
add_test(NAME pcg_tail_fused_bitwise COMMAND ${CMAKE_COMMAND} -E compare_files ${_d}/pcg_w2u.bin ${_d}/pcg_w2.bin)
set_tests_properties(pcg_tail_fused_bitwise PROPERTIES LABELS mpi FIXTURES_REQUIRED pcg_dumps)
add_test(NAME pcg_workers_bitwise COMMAND ${CMAKE_COMMAND} -E compare_files ${_d}/pcg_w1b.bin ${_d}/pcg_w2.bin)
add_test(NAME pcg_ranks_roundoff COMMAND $<TARGET_FILE:test_pcg> compare ${_d}/pcg_w2.bin ${_d}/pcg_r3.bin 1e-9 2)
add_test(NAME pcg_blocks_roundoff COMMAND $<TARGET_FILE:test_pcg> compare ${_d}/pcg_w1.bin ${_d}/pcg_w2.bin 1e-9 2)
set_tests_properties(pcg_workers_bitwise pcg_ranks_roundoff pcg_blocks_roundoff PROPERTIES LABELS mpi FIXTURES_REQUIRED pcg_dumps)

# pMG-AMG: iterations bounded (Poisson, Dirichlet, 1e-8) by the solver issue's target, 12
# (docs/solvers.md: 9-11 with the defaults; 16-50 with the old point-Jacobi Chebyshev(2)),
# and the same decomposition invariance as PCG above (flexible PCG, K-cycle AMG at degree 1)
foreach(N 1 2 4 6 8)
  add_test(NAME pmg_iterations_N${N} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_pcg> pmg ${N} 12 4 12)
  set_tests_properties(pmg_iterations_N${N} PROPERTIES LABELS unit ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 300)
endforeach()
add_test(NAME pmg_neumann_N3 COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_pcg> pmg 3 12 4 12 neumann)
set_tests_properties(pmg_neumann_N3 PROPERTIES LABELS unit ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 300)
# the coarse solve: the tests above take the sparse Cholesky (Dirichlet; each checks it was
# chosen) or the AMG (Neumann: Ac singular); these force the AMG, and the banded Cholesky,
# on Dirichlet
foreach(N 2 4)
  add_test(NAME pmg_iterations_amg_N${N} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_pcg> pmg ${N} 12 4 12 amg)
  set_tests_properties(pmg_iterations_amg_N${N} PROPERTIES LABELS unit ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 300)
endforeach()
add_test(NAME pmg_iterations_band_N4 COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_pcg> pmg 4 12 4 12 band)
set_tests_properties(pmg_iterations_band_N4 PROPERTIES LABELS unit ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 300)
# pb1, pb3: 3 blocks on one rank, and on three ranks of one block each, where every exchange
# (the SIPDG's, the SpMV's) is made inside the task that reads the halo and every dot task
# sums the ranks' values itself (tasks/README.md): the same blocks, the same bits
foreach(cfg "1;7;1;pw1" "1;7;2;pw2" "3;7;1;pr3" "1;3;1;pb1" "3;3;1;pb3")
  list(GET cfg 0 ranks)
  list(GET cfg 1 blocks)
  list(GET cfg 2 ncpu)
  list(GET cfg 3 tag)
  add_test(NAME pmg_solve_${tag} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} $<TARGET_FILE:test_pcg>
           solve 4 12 ${blocks} ${_d}/pmg_${tag}.bin pmg)
  set_tests_properties(pmg_solve_${tag} PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=${ncpu}"
                       FIXTURES_SETUP pmg_dumps TIMEOUT 300)
endforeach()
# the same solves with no work fused into the operators' tasks (PCG's p update with its
# gradient and A p with p.Ap; pMG's Chebyshev steps, restrictions and the aggregation in the
# SIPDG's or SpMV's task): bitwise what the fused tasks give, on one rank and on three
# (where the SIPDG runs in parts and the work follows its cut part)
foreach(cfg "1;7;2;pw2" "3;7;1;pr3")
  list(GET cfg 0 ranks)
  list(GET cfg 1 blocks)
  list(GET cfg 2 ncpu)
  list(GET cfg 3 tag)
  add_test(NAME pmg_solve_${tag}_separate COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks}
           $<TARGET_FILE:test_pcg> solve 4 12 ${blocks} ${_d}/pmg_${tag}s.bin pmg-separate)
  set_tests_properties(pmg_solve_${tag}_separate PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=${ncpu}"
                       FIXTURES_SETUP pmg_dumps TIMEOUT 300)
  add_test(NAME pmg_fused_bitwise_${tag} COMMAND ${CMAKE_COMMAND} -E compare_files ${_d}/pmg_${tag}s.bin ${_d}/pmg_${tag}.bin)
  set_tests_properties(pmg_fused_bitwise_${tag} PROPERTIES LABELS mpi FIXTURES_REQUIRED pmg_dumps)
endforeach()
add_test(NAME pmg_workers_bitwise COMMAND ${CMAKE_COMMAND} -E compare_files ${_d}/pmg_pw1.bin ${_d}/pmg_pw2.bin)
add_test(NAME pmg_one_block_per_rank_bitwise COMMAND ${CMAKE_COMMAND} -E compare_files ${_d}/pmg_pb1.bin ${_d}/pmg_pb3.bin)
set_tests_properties(pmg_one_block_per_rank_bitwise PROPERTIES LABELS mpi FIXTURES_REQUIRED pmg_dumps)
add_test(NAME pmg_ranks_roundoff COMMAND $<TARGET_FILE:test_pcg> compare ${_d}/pmg_pw1.bin ${_d}/pmg_pr3.bin 1e-9 2)
set_tests_properties(pmg_workers_bitwise pmg_ranks_roundoff PROPERTIES LABELS mpi FIXTURES_REQUIRED pmg_dumps)

# solution projection: each guess against the A-orthogonal projection computed on the host
foreach(ranks 1 2)
  add_test(NAME pcg_projection_r${ranks} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} $<TARGET_FILE:test_pcg> projection 3)
  set_tests_properties(pcg_projection_r${ranks} PROPERTIES LABELS "unit;mpi" ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "ok zero right-hand side" FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()
