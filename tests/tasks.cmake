# Task-graph tests: decomposition invariance (label mpi).
add_executable(test_tasks test_tasks.c)
target_link_libraries(test_tasks PRIVATE insdg_tasks)
set(INSDG_MPI_ENV "STARPU_SILENT=1;STARPU_WORKERS_NOBIND=1;STARPU_NOPENCL=0;STARPU_HOME=${CMAKE_BINARY_DIR};OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_hwloc_base_binding_policy=none")
function(insdg_mpi_test name nranks)
  add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${nranks} $<TARGET_FILE:test_tasks> ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120)
endfunction()
set(_mesh ${INSDG_TEST_MESHES}/hole41.msh)
insdg_mpi_test(tasks_1rank_1block 1 ${_mesh} 4 1)
insdg_mpi_test(tasks_1rank_7blocks 1 ${_mesh} 4 7)
insdg_mpi_test(tasks_2ranks_8blocks 2 ${_mesh} 3 8)
insdg_mpi_test(tasks_3ranks_7blocks 3 ${_mesh} 4 7)
insdg_mpi_test(tasks_3ranks_3blocks 3 ${_mesh} 2 3)

# bitwise the same for 1 and 2 CPU workers
add_test(NAME tasks_workers1 COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_tasks> ${_mesh} 5 7 --dump ${CMAKE_CURRENT_BINARY_DIR}/tasks_w1.bin)
add_test(NAME tasks_workers2 COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_tasks> ${_mesh} 5 7 --dump ${CMAKE_CURRENT_BINARY_DIR}/tasks_w2.bin)
set_tests_properties(tasks_workers1 PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=1" FIXTURES_SETUP tasks_w)
set_tests_properties(tasks_workers2 PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=2" FIXTURES_SETUP tasks_w)
add_test(NAME tasks_workers_bitwise COMMAND ${CMAKE_COMMAND} -E compare_files ${CMAKE_CURRENT_BINARY_DIR}/tasks_w1.bin ${CMAKE_CURRENT_BINARY_DIR}/tasks_w2.bin)
set_tests_properties(tasks_workers_bitwise PROPERTIES LABELS mpi FIXTURES_REQUIRED tasks_w)

# the demonstration end to end: 2 ranks, 6 blocks, NetCDF out, read back by netCDF4
add_test(NAME demo_mpi2 COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:insdg> demo ${_mesh}
         --order 3 --blocks 6 --output ${CMAKE_CURRENT_BINARY_DIR}/demo_mpi2.nc)
set_tests_properties(demo_mpi2 PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" FIXTURES_SETUP demo_nc
                     PASS_REGULAR_EXPRESSION "wrote .*demo_mpi2.nc")
add_test(NAME demo_mpi2_read COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/ncsummary.py ${CMAKE_CURRENT_BINARY_DIR}/demo_mpi2.nc)
set_tests_properties(demo_mpi2_read PROPERTIES LABELS mpi FIXTURES_REQUIRED demo_nc
                     PASS_REGULAR_EXPRESSION "sipdg_p")
# bad options and too many blocks are user errors: one line, status 2
add_test(NAME demo_bad_blocks COMMAND ${CMAKE_COMMAND} -DCMD=$<TARGET_FILE:insdg>\;demo\;${_mesh}\;--blocks\;0
         "-DREGEX=--blocks: '0' is not an integer" -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_user_error.cmake)
add_test(NAME demo_too_many_blocks COMMAND ${CMAKE_COMMAND} -DCMD=$<TARGET_FILE:insdg>\;demo\;${_mesh}\;--blocks\;5000
         "-DREGEX=5000 blocks .*use fewer blocks" -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_user_error.cmake)
set_tests_properties(demo_bad_blocks demo_too_many_blocks PROPERTIES LABELS unit ENVIRONMENT "${INSDG_MPI_ENV}")

# worker binding (tasks/runtime.h): one worker per core bound, fewer workers than cores
# unbound (two runs side by side would otherwise share the first core). Not under
# INSDG_MPI_ENV, which unbinds every worker; skipped (77) on one core and with a CUDA StarPU.
# StarPU started in two rounds on a node's ranks: the first of each bus-file name alone
add_executable(test_init_order test_init_order.c)
target_link_libraries(test_init_order PRIVATE insdg_tasks)
add_test(NAME init_order_3ranks COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:test_init_order>)
set_tests_properties(init_order_3ranks PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "test_init_order: 0 failure")

add_executable(test_binding test_binding.c)
target_link_libraries(test_binding PRIVATE insdg_tasks)
add_test(NAME binding_fewer_workers_unbound COMMAND $<TARGET_FILE:test_binding> unbound)
add_test(NAME binding_one_per_core_bound COMMAND $<TARGET_FILE:test_binding> bound)
set_tests_properties(binding_fewer_workers_unbound PROPERTIES LABELS unit SKIP_RETURN_CODE 77
                     ENVIRONMENT "STARPU_SILENT=1;STARPU_NCPU=1;STARPU_HOME=${CMAKE_BINARY_DIR}")
set_tests_properties(binding_one_per_core_bound PROPERTIES LABELS unit SKIP_RETURN_CODE 77
                     ENVIRONMENT "STARPU_SILENT=1;STARPU_HOME=${CMAKE_BINARY_DIR};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")

# how an idle worker waits (tools/starpu-idle-workers.patch): it yields its core to the main
# thread (the process confined to one core: the idle worker's CPU time against the main
# thread's); with its yields giving the busy main thread whole time slices, it polls by
# sleeping (asleep in three quarters of the samples at least); it blocks after its poll (one
# of two idle workers blocked 20 ms on); it polls for STARPU_IDLE_POLL_US (300 ms: both still
# running 20 ms on)
add_executable(test_idle_worker test_idle_worker.c)
target_link_libraries(test_idle_worker PRIVATE insdg_tasks)
set(_idle_env "STARPU_SILENT=1;STARPU_NCUDA=0;STARPU_HOME=${CMAKE_BINARY_DIR};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
add_test(NAME idle_worker_yields COMMAND $<TARGET_FILE:test_idle_worker> yield)
add_test(NAME idle_worker_sleeps COMMAND $<TARGET_FILE:test_idle_worker> sleeps)
add_test(NAME idle_worker_blocks COMMAND $<TARGET_FILE:test_idle_worker> blocks)
add_test(NAME idle_worker_polls COMMAND $<TARGET_FILE:test_idle_worker> polls)
set_tests_properties(idle_worker_yields PROPERTIES LABELS unit SKIP_RETURN_CODE 77 ENVIRONMENT "${_idle_env};STARPU_NCPU=1")
set_tests_properties(idle_worker_sleeps PROPERTIES LABELS unit SKIP_RETURN_CODE 77 ENVIRONMENT "${_idle_env};STARPU_NCPU=1")
set_tests_properties(idle_worker_blocks PROPERTIES LABELS unit SKIP_RETURN_CODE 77 ENVIRONMENT "${_idle_env};STARPU_NCPU=2")
set_tests_properties(idle_worker_polls PROPERTIES LABELS unit SKIP_RETURN_CODE 77
                     ENVIRONMENT "${_idle_env};STARPU_NCPU=2;STARPU_IDLE_POLL_US=300000")

# the scheduling policy of CPU-only runs (tasks/sched_home.h): a worker takes a busy one's
# tasks, and its own before another's
add_executable(test_sched_home test_sched_home.c)
target_link_libraries(test_sched_home PRIVATE insdg_tasks)
add_test(NAME sched_home COMMAND $<TARGET_FILE:test_sched_home>)
set_tests_properties(sched_home PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 120
                     ENVIRONMENT "${_idle_env};STARPU_WORKERS_NOBIND=1")

# pausing the workers whose cores another process takes (tasks/taken_cores.h): the rule on
# made-up windows; a busy child process on worker 1's core pauses it, its end resumes it
# (the process given two cores where the machine has them; alone: other tests' processes
# would be other processes too)
add_executable(test_taken_cores test_taken_cores.c)
target_link_libraries(test_taken_cores PRIVATE insdg_tasks)
add_test(NAME taken_cores_rule COMMAND $<TARGET_FILE:test_taken_cores> rule)
set_tests_properties(taken_cores_rule PROPERTIES LABELS unit)
cmake_host_system_information(RESULT _ncores QUERY NUMBER_OF_LOGICAL_CORES)
find_program(INSDG_TASKSET taskset)
# busy: StarPU's workers; busy_direct: the main thread and a helper thread (tasks/direct.h)
foreach(_mode busy busy_direct)
  if(INSDG_TASKSET AND _ncores GREATER 1)
    add_test(NAME taken_cores_${_mode} COMMAND ${INSDG_TASKSET} -c 0,1 $<TARGET_FILE:test_taken_cores> ${_mode})
  else()
    add_test(NAME taken_cores_${_mode} COMMAND $<TARGET_FILE:test_taken_cores> ${_mode})
  endif()
  set_tests_properties(taken_cores_${_mode} PROPERTIES LABELS unit SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 60
                       ENVIRONMENT "${_idle_env}")
endforeach()

# more workers than the cores a rank may use: one warning naming the counts and the way out
# (tasks/runtime.c); as many workers as cores: none. taskset gives the rank one core.
find_program(INSDG_TASKSET taskset)
if(INSDG_TASKSET)
  add_test(NAME warn_workers_over_cores COMMAND ${INSDG_TASKSET} -c 0 $<TARGET_FILE:insdg> demo ${_mesh} --output ${CMAKE_CURRENT_BINARY_DIR}/warn_demo.nc)
  set_tests_properties(warn_workers_over_cores PROPERTIES LABELS unit
                       ENVIRONMENT "STARPU_SILENT=1;STARPU_NCPU=2;STARPU_HOME=${CMAKE_BINARY_DIR}"
                       PASS_REGULAR_EXPRESSION "insdg: warning: rank 0 may run on 1 core\\(s\\) but has 2 (workers|polling threads) \\(2 CPU \\+ 0 GPU")
  # its own output file: the two can run at once under ctest -j, and wrote the same one. That
  # was taken for the cause of this test's one failure in a ctest -j2 run (2026-12-05), but it
  # failed once more with its own file (session 47, output lost; alone, in 15 repeats under
  # load and in later full runs it passed): cause unknown, watch for it with --output-on-failure
  add_test(NAME no_warning_workers_fit_cores COMMAND ${INSDG_TASKSET} -c 0 $<TARGET_FILE:insdg> demo ${_mesh} --output ${CMAKE_CURRENT_BINARY_DIR}/warn_demo_fit.nc)
  set_tests_properties(no_warning_workers_fit_cores PROPERTIES LABELS unit
                       ENVIRONMENT "STARPU_SILENT=1;STARPU_NCPU=1;STARPU_HOME=${CMAKE_BINARY_DIR}"
                       FAIL_REGULAR_EXPRESSION "insdg: warning")
endif()

# bench/core_latency (bench_step.py runs it before each round; nothing timed is compared):
# on two CPUs its result line with a round trip; confined to one CPU, exit 3 and the reason
add_test(NAME core_latency COMMAND $<TARGET_FILE:core_latency> --rounds 2000 --batches 3)
set_tests_properties(core_latency PROPERTIES LABELS unit SKIP_RETURN_CODE 3
                     PASS_REGULAR_EXPRESSION "core_latency: round_trip_ns=[0-9]+\\.[0-9] min=[0-9.]+ max=[0-9.]+ cpus=[0-9]+,[0-9]+")
if(INSDG_TASKSET)
  add_test(NAME core_latency_one_cpu COMMAND ${INSDG_TASKSET} -c 0 $<TARGET_FILE:core_latency>)
  set_tests_properties(core_latency_one_cpu PROPERTIES LABELS unit WILL_FAIL TRUE TIMEOUT 30)
  add_test(NAME core_latency_one_cpu_message COMMAND ${INSDG_TASKSET} -c 0 $<TARGET_FILE:core_latency>)
  set_tests_properties(core_latency_one_cpu_message PROPERTIES LABELS unit TIMEOUT 30
                       PASS_REGULAR_EXPRESSION "core_latency: this process may use fewer than two CPUs")
endif()
