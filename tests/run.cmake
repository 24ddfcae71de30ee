# run.cmake -- `insdg run` end to end (tasks/run.c), included from tests/CMakeLists.txt.
# The case files are tests/cases/run_*.ini: the cases of cases/taylor_vortex and
# cases/kovasznay on their committed meshes, cut down to a few steps.
#  run_taylor           1 rank: 5 steps, 4 field files, forces and coefficients on two
#                       boundaries; check_run_taylor reads the directory back (json, csv,
#                       netCDF4) and bounds the L2 errors
#  run_taylor_starpu    the same with its one worker's tasks through StarPU (INSDG_DIRECT=0;
#                       run_taylor's run on the main thread, "direct"): bitwise the same
#  run_workers2         the same on 2 CPU workers (run_taylor: 1), 4 blocks: bitwise the same
#  run_host_worker      the same, the main thread driving one of the workers (INSDG_HOST_WORKER=1);
#                       run_mpi2_host_worker on 2 ranks of 2 workers against run_mpi1
#  run_helpers3         the same on 3 workers: the main thread and 2 helper threads (direct.h)
#  run_mpi2_helpers     2 ranks of 2 workers (a helper thread each) against run_mpi1
#  run_traced           the same on 2 workers with INSDG_TRACE: the trace holds the loop's
#                       tasks and host waits; the fields bitwise those of run_workers2
#  run_taylor_profiled  the same with STARPU_PROFILING=1: summary.json's "runtime" block
#  run_perfmodels       the same with INSDG_PERFMODELS=1 STARPU_CALIBRATE=1: StarPU history
#                       models of the codelets, fields bitwise those of run_taylor
#  run_taylor_neumann   1 rank, velocity data on every side: pure-Neumann pressure, errors
#                       up to a constant
#  run_kovasznay        1 rank, Kovasznay flow from the exact solution, a wall force
#  run_mpi2 / run_mpi1  the same short case on 2 ranks and on 1 rank with the same 4 blocks;
#                       check_run_mpi2 compares errors and the last diagnostics row: equal
#                       to 1e-6 (field round-off, amplified where an error or a force is a
#                       small difference of large terms)
#  run_mpi3             3 ranks, 7 blocks (2, 2, 3), against run_mpi1 the same way
#  run_mpi2_1block      2 ranks of one block each (mpirun's default shape on a node of 2
#                       cores: the halo exchanges inside the operators' tasks), the same way;
#                       run_mpi2_1block_starpu the same through StarPU's workers: bitwise
#  run_not_converged    a pressure solve allowed 2 iterations: exit status 4 after step 1,
#                       the message, that step's fields, summary with converged false
#  run_bad_*            user errors: exit 2, one line on stderr, nothing on stdout, before
#                       any work (singleton runs: under mpirun, Open MPI adds its own lines)
#  run_mpi2_nonfinite_later, run_mpi2_nonfinite_t0
#                       inflow data NaN from step 2 on part of one boundary, and infinite
#                       at t = 0: each rank evaluates the boundary data of its own faces
#                       only, so the ranks must agree: on 2 ranks, status 5 after step 2
#                       (status 2 before any step), the message once, no rank left waiting
set(_run_out ${CMAKE_CURRENT_BINARY_DIR}/run_out)
set(_run_cases ${CMAKE_CURRENT_SOURCE_DIR}/cases)
set(_check_run /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_run.py)

# name, ranks, case file (in tests/cases, or absolute), extra options; the output goes to run_out/<name> (cleared first)
function(insdg_run_test name nranks case)
  if(NOT IS_ABSOLUTE ${case})
    set(case ${_run_cases}/${case})
  endif()
  add_test(NAME ${name}_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_run_out}/${name})
  add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${nranks} $<TARGET_FILE:insdg> run
           ${case} --output ${_run_out}/${name} ${ARGN})
  set_tests_properties(${name}_clean PROPERTIES LABELS mpi FIXTURES_SETUP ${name}_clean)
  set_tests_properties(${name} PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 300
                       FIXTURES_REQUIRED ${name}_clean FIXTURES_SETUP ${name}_out
                       PASS_REGULAR_EXPRESSION "status: completed")
endfunction()

function(insdg_run_check name fixtures)
  add_test(NAME check_${name} COMMAND ${_check_run} ${_run_out}/${name} ${ARGN})
  set_tests_properties(check_${name} PROPERTIES LABELS mpi FIXTURES_REQUIRED "${fixtures}"
                       PASS_REGULAR_EXPRESSION "check_run: ok")
endfunction()

# the malloc insdg was linked with (CMakeLists.txt, INSDG_ALLOCATOR), as summary.json reports it
if(INSDG_JEMALLOC_LIB)
  set(_run_allocator jemalloc)
else()
  set(_run_allocator system)
endif()
# What the runs' main thread does (tasks/runtime.h): in CPU-only builds a rank of one CPU
# worker runs its tasks itself (scheduler "direct") and INSDG_HOST_WORKER=1 makes it drive a
# worker; GPU-path builds (StarPU with CUDA or HIP) leave every task to StarPU's scheduler.
if((INSDG_STARPU_HAS_CUDA AND TARGET insdg_cuda) OR (INSDG_STARPU_HAS_HIP AND TARGET insdg_hip))
  set(_run_direct "")
  set(_run_home "")
  set(_run_drives "")
  set(_run_helpers "")
else()
  set(_run_direct --scheduler direct --main-thread "runs the tasks")
  set(_run_home --scheduler insdg-home --main-thread submits)
  set(_run_drives --main-thread "drives a worker")
  set(_run_helpers --scheduler direct --main-thread "runs the tasks with helpers")
endif()
insdg_run_test(run_taylor 1 run_taylor.ini --blocks 4)
set_property(TEST run_taylor APPEND PROPERTY ENVIRONMENT STARPU_NCPU=1)
insdg_run_check(run_taylor run_taylor_out --steps 5 --files 4 --forces right left --coefficients
                --max-error u=1e-3 v=1e-3 p=5e-3 --coarse cholesky --allocator ${_run_allocator} ${_run_direct})

# one worker through StarPU (INSDG_DIRECT=0) instead of the main thread: the same fields, bitwise
insdg_run_test(run_taylor_starpu 1 run_taylor.ini --blocks 4)
set_property(TEST run_taylor_starpu APPEND PROPERTY ENVIRONMENT STARPU_NCPU=1 INSDG_DIRECT=0)
insdg_run_check(run_taylor_starpu "run_taylor_starpu_out;run_taylor_out" --steps 5 --files 4 --forces right left
                --coefficients ${_run_home} --compare ${_run_out}/run_taylor --rtol 0)

# 2 CPU workers on the same 4 blocks: the same iterations and bitwise the same fields
insdg_run_test(run_workers2 1 run_taylor.ini --blocks 4)
set_property(TEST run_workers2 APPEND PROPERTY ENVIRONMENT STARPU_NCPU=2)
insdg_run_check(run_workers2 run_workers2_out --steps 5 --files 4 --forces right left --coefficients
                --max-error u=1e-3 v=1e-3 p=5e-3 --workers 2 ${_run_helpers} --compare ${_run_out}/run_taylor --rtol 0)
set_property(TEST check_run_workers2 APPEND PROPERTY FIXTURES_REQUIRED run_taylor_out)

# the same through StarPU's scheduler (INSDG_DIRECT=0) with the main thread driving one of
# the 2 workers (INSDG_HOST_WORKER=1): its waits run that worker's tasks; the fields
# bitwise those of run_taylor
insdg_run_test(run_host_worker 1 run_taylor.ini --blocks 4)
set_property(TEST run_host_worker APPEND PROPERTY ENVIRONMENT STARPU_NCPU=2 INSDG_DIRECT=0 INSDG_HOST_WORKER=1)
insdg_run_check(run_host_worker "run_host_worker_out;run_taylor_out" --steps 5 --files 4 --forces right left --coefficients
                --workers 2 ${_run_drives} --compare ${_run_out}/run_taylor --rtol 0)
# and on 2 ranks of 2 workers and 2 blocks each: against run_mpi1, to round-off
insdg_run_test(run_mpi2_host_worker 2 run_taylor_mpi.ini --blocks 4)
set_property(TEST run_mpi2_host_worker APPEND PROPERTY ENVIRONMENT STARPU_NCPU=2 INSDG_DIRECT=0 INSDG_HOST_WORKER=1)
insdg_run_check(run_mpi2_host_worker "run_mpi1_out;run_mpi2_host_worker_out" --steps 2 --files 3 --forces right
                --max-error u=5e-3 ${_run_drives} --compare ${_run_out}/run_mpi1 --rtol 1e-6)

# 3 workers on the 4 blocks, the main thread and 2 helper threads running them (direct.h:
# blocks 0 and 3 on the main thread, 1 and 2 on the helpers): bitwise those of run_taylor
insdg_run_test(run_helpers3 1 run_taylor.ini --blocks 4)
set_property(TEST run_helpers3 APPEND PROPERTY ENVIRONMENT STARPU_NCPU=3)
insdg_run_check(run_helpers3 "run_helpers3_out;run_taylor_out" --steps 5 --files 4 --forces right left --coefficients
                --workers 3 ${_run_helpers} --compare ${_run_out}/run_taylor --rtol 0)
# and 2 ranks of 2 workers (a helper thread each) and 2 blocks each: against run_mpi1, to round-off
insdg_run_test(run_mpi2_helpers 2 run_taylor_mpi.ini --blocks 4)
set_property(TEST run_mpi2_helpers APPEND PROPERTY ENVIRONMENT STARPU_NCPU=2)
insdg_run_check(run_mpi2_helpers "run_mpi1_out;run_mpi2_helpers_out" --steps 2 --files 3 --forces right
                --max-error u=5e-3 ${_run_helpers} --compare ${_run_out}/run_mpi1 --rtol 1e-6)

# the same case traced (INSDG_TRACE, 2 workers): every task and host wait in the trace,
# the fields bitwise those of run_workers2
insdg_run_test(run_traced 1 run_taylor.ini --blocks 4)
set_property(TEST run_traced APPEND PROPERTY ENVIRONMENT STARPU_NCPU=2 INSDG_TRACE=${_run_out}/run_traced/trace.txt)
insdg_run_check(run_traced "run_traced_out;run_workers2_out" --steps 5 --files 4 --forces right left --coefficients
                --profiled --compare ${_run_out}/run_workers2 --rtol 0 --trace ${_run_out}/run_traced/trace.txt)

# the same case with StarPU's worker profiling: summary.json's "runtime" (tasks, time in tasks)
insdg_run_test(run_taylor_profiled 1 run_taylor.ini)
set_property(TEST run_taylor_profiled APPEND PROPERTY ENVIRONMENT STARPU_PROFILING=1)
insdg_run_check(run_taylor_profiled run_taylor_profiled_out --steps 5 --files 4 --forces right left --coefficients
                --max-error u=1e-3 v=1e-3 p=5e-3 --profiled)

# StarPU performance models of the codelets (INSDG_PERFMODELS=1, STARPU_CALIBRATE=1): a
# history per codelet in the run's own STARPU_HOME, block_op with one entry per operator
# of the step at least; the fields bitwise those of run_taylor. run_taylor_profiled, with
# its own STARPU_HOME too, must leave none.
insdg_run_test(run_perfmodels 1 run_taylor.ini --blocks 4)
set_property(TEST run_perfmodels APPEND PROPERTY ENVIRONMENT STARPU_NCPU=1 INSDG_PERFMODELS=1 STARPU_CALIBRATE=1
             STARPU_HOME=${_run_out}/run_perfmodels/starpu_home)
insdg_run_check(run_perfmodels "run_perfmodels_out;run_taylor_out" --steps 5 --files 4 --forces right left
                --coefficients --compare ${_run_out}/run_taylor --rtol 0)
add_test(NAME check_run_perfmodels_models
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_perfmodels.py
                 ${_run_out}/run_perfmodels/starpu_home insdg_block_op=5 insdg_vec=10 insdg_spmv insdg_block_op_then=3
                 insdg_spmv_then
                 insdg_pmg_prolong_grad)
set_tests_properties(check_run_perfmodels_models PROPERTIES LABELS mpi FIXTURES_REQUIRED run_perfmodels_out
                     PASS_REGULAR_EXPRESSION "check_perfmodels: ok")
set_property(TEST run_taylor_profiled APPEND PROPERTY ENVIRONMENT STARPU_HOME=${_run_out}/run_taylor_profiled/starpu_home)
add_test(NAME check_run_taylor_profiled_no_models
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_perfmodels.py
                 ${_run_out}/run_taylor_profiled/starpu_home --absent)
set_tests_properties(check_run_taylor_profiled_no_models PROPERTIES LABELS mpi
                     FIXTURES_REQUIRED run_taylor_profiled_out PASS_REGULAR_EXPRESSION "check_perfmodels: ok")

# an exact field that is zero: its L2 error has no relative value (the log says so; it
# printed "relative nan"), summary.json's "relative" is null
insdg_run_test(run_zero_exact 1 run_zero_exact.ini)
set_tests_properties(run_zero_exact PROPERTIES PASS_REGULAR_EXPRESSION
                     "L2 error of p: [0-9.e+-]+ \\(the exact p is zero: no relative error\\)")
add_test(NAME check_run_zero_exact COMMAND /usr/bin/python3 -c
         "import json, sys; e = json.load(open(sys.argv[1]))['errors']; ok = e['p']['relative'] is None and e['u']['relative'] > 0; print('zero exact: ok' if ok else e); sys.exit(0 if ok else 1)"
         ${_run_out}/run_zero_exact/summary.json)
set_tests_properties(check_run_zero_exact PROPERTIES LABELS mpi FIXTURES_REQUIRED run_zero_exact_out
                     PASS_REGULAR_EXPRESSION "zero exact: ok")

insdg_run_test(run_taylor_neumann 1 run_taylor_neumann.ini)
# pure-Neumann pressure: its aggregated coarse matrix is singular, so the AMG solves it
insdg_run_check(run_taylor_neumann run_taylor_neumann_out --steps 3 --files 1 --max-error u=1e-3 v=1e-3 p=5e-3
                --coarse amg)

insdg_run_test(run_kovasznay 1 run_kovasznay.ini --blocks 3)
insdg_run_check(run_kovasznay run_kovasznay_out --steps 4 --files 1 --forces bottom
                --max-error u=2e-3 v=1e-2 p=1e-2)

insdg_run_test(run_mpi1 1 run_taylor_mpi.ini --blocks 4)
insdg_run_test(run_mpi2 2 run_taylor_mpi.ini --blocks 4)
insdg_run_check(run_mpi2 "run_mpi1_out;run_mpi2_out" --steps 2 --files 3 --forces right --max-error u=5e-3
                --compare ${_run_out}/run_mpi1 --rtol 1e-6)
insdg_run_test(run_mpi2_1block 2 run_taylor_mpi.ini --blocks 2)
set_property(TEST run_mpi2_1block APPEND PROPERTY ENVIRONMENT STARPU_NCPU=1)
insdg_run_check(run_mpi2_1block "run_mpi1_out;run_mpi2_1block_out" --steps 2 --files 3 --forces right --max-error u=5e-3
                --compare ${_run_out}/run_mpi1 --rtol 1e-6 ${_run_direct})
# the same through StarPU's worker on each rank (INSDG_DIRECT=0): bitwise the direct run's
insdg_run_test(run_mpi2_1block_starpu 2 run_taylor_mpi.ini --blocks 2)
set_property(TEST run_mpi2_1block_starpu APPEND PROPERTY ENVIRONMENT STARPU_NCPU=1 INSDG_DIRECT=0)
insdg_run_check(run_mpi2_1block_starpu "run_mpi2_1block_out;run_mpi2_1block_starpu_out" --steps 2 --files 3
                --forces right ${_run_home} --compare ${_run_out}/run_mpi2_1block --rtol 0)
insdg_run_test(run_mpi3 3 run_taylor_mpi.ini --blocks 7)
insdg_run_check(run_mpi3 "run_mpi1_out;run_mpi3_out" --steps 2 --files 3 --forces right --max-error u=5e-3
                --compare ${_run_out}/run_mpi1 --rtol 1e-6)

# a solve that does not converge: status 4 (not a user error), the run stops after writing
add_test(NAME run_not_converged_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_run_out}/run_not_converged)
add_test(NAME run_not_converged COMMAND sh -c "\"$0\" run \"$1\" --output \"$2\"; echo \"exit status $?\""
         $<TARGET_FILE:insdg> ${_run_cases}/run_not_converged.ini ${_run_out}/run_not_converged)
set_tests_properties(run_not_converged_clean PROPERTIES LABELS mpi FIXTURES_SETUP run_not_converged_clean)
set_tests_properties(run_not_converged PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 60
                     FIXTURES_REQUIRED run_not_converged_clean FIXTURES_SETUP run_not_converged_out
                     PASS_REGULAR_EXPRESSION "step 1: the pressure solve did not converge.*exit status 4")
insdg_run_check(run_not_converged run_not_converged_out --steps 1 --files 1 --forces right --status "not converged")

# boundary data that is not finite, on 2 ranks (the header above)
add_test(NAME run_mpi2_nonfinite_later COMMAND sh -c "\"$0\" -np 2 \"$1\" run \"$2\" --output \"$3\" --progress log 2>&1; echo \"exit status $?\""
         ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:insdg> ${_run_cases}/run_nonfinite_later.ini ${_run_out}/run_mpi2_nonfinite_later)
set_tests_properties(run_mpi2_nonfinite_later PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=1" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "step 2: the boundary data is not finite: [^\n]*run_nonfinite_later\\.ini:38: \\[boundary\\.left\\] u: [^\n]* t = 0\\.02 [^\n]*stopping.*status: not finite.*exit status 5"
                     FAIL_REGULAR_EXPRESSION "is not finite at.*is not finite at;step 3/")
add_test(NAME run_mpi2_nonfinite_t0 COMMAND sh -c "\"$0\" -np 2 \"$1\" run \"$2\" --output \"$3\" 2>&1; echo \"exit status $?\""
         ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:insdg> ${CMAKE_CURRENT_SOURCE_DIR}/bad_inputs/nonfinite_boundary_t0.ini
         ${_run_out}/run_mpi2_nonfinite_t0)
set_tests_properties(run_mpi2_nonfinite_t0 PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=1" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "insdg: error: [^\n]*nonfinite_boundary_t0\\.ini:[0-9]+: \\[boundary\\.left\\] u: [^\n]*is not finite at [^\n]* t = 0 .*exit status 2"
                     FAIL_REGULAR_EXPRESSION "is not finite at.*is not finite at;step 1/")

# user errors, each before any work; the command's words are separated by '|' here
set(_insdg $<TARGET_FILE:insdg>)
set(INSDG_RUN_BAD
  bad_case      "${_insdg}|run|${_run_cases}/bad_dt.ini"
                "^insdg: error: .*bad_dt\\.ini:9: \\[time\\] dt: 0 must be > 0"
  bad_boundary  "${_insdg}|run|${_run_cases}/run_missing_boundary.ini"
                "^insdg: error: .*run_missing_boundary\\.ini:0: \\[boundary\\.right\\]: missing section for the mesh boundary 'right'"
  bad_no_file   "${_insdg}|run|${_run_cases}/nonexistent.ini"
                "^insdg: error: .*nonexistent\\.ini: cannot open the case file"
  bad_blocks    "${_insdg}|run|${_run_cases}/run_taylor.ini|--blocks|5000"
                "5000 blocks .*use fewer blocks"
  bad_output    "${_insdg}|run|${_run_cases}/run_taylor.ini|--output|/dev/null/out"
                "^insdg: error: /dev/null/out: cannot create the output directory"
  bad_restart   "${_insdg}|run|${_run_cases}/run_taylor.ini|--restart|x.nc"
                "^insdg: error: --restart: x\\.nc: cannot open the checkpoint"
  bad_option    "${_insdg}|run|${_run_cases}/run_taylor.ini|--final-time|1"
                "^insdg: error: unknown option '--final-time'"
  bad_progress  "${_insdg}|run|${_run_cases}/run_taylor.ini|--progress|fancy"
                "^insdg: error: --progress: 'fancy' is not one of auto, line, log")
set(_bad ${INSDG_RUN_BAD})
while(_bad)
  list(POP_FRONT _bad _name _cmd _regex)
  string(REPLACE "|" ";" _cmd "${_cmd}")
  add_test(NAME run_${_name} COMMAND ${CMAKE_COMMAND} "-DCMD=${_cmd}" "-DREGEX=${_regex}"
           -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_user_error.cmake)
  set_tests_properties(run_${_name} PROPERTIES LABELS unit ENVIRONMENT "${INSDG_MPI_ENV}")
endwhile()
# no CPU worker: refused at start-up (it was an internal error at the first CPU-only task)
add_test(NAME run_bad_no_cpu_worker COMMAND ${CMAKE_COMMAND} "-DCMD=${_insdg};run;${_run_cases}/run_taylor.ini"
         "-DREGEX=^insdg: error: no CPU worker \\(STARPU_NCPU=0\\?\\): insdg needs at least one"
         -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_user_error.cmake)
set_tests_properties(run_bad_no_cpu_worker PROPERTIES LABELS unit ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=0")

# checkpoint and restart through `insdg run`: 4 steps with a checkpoint every 2; then a run
# restarted from the step-2 checkpoint must end with bitwise the same fields
set(_ck ${CMAKE_CURRENT_BINARY_DIR}/run_ckpt)
add_test(NAME run_checkpoint COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:insdg> run
         ${_run_cases}/run_taylor_ckpt.ini --output ${_ck}/full)
set_tests_properties(run_checkpoint PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120
                     FIXTURES_SETUP run_ckpt PASS_REGULAR_EXPRESSION "checkpoint .*checkpoint_000002.nc")
add_test(NAME run_restart COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:insdg> run
         ${_run_cases}/run_taylor_ckpt.ini --output ${_ck}/restarted --restart ${_ck}/full/checkpoint_000002.nc)
set_tests_properties(run_restart PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120
                     FIXTURES_REQUIRED run_ckpt FIXTURES_SETUP run_restarted PASS_REGULAR_EXPRESSION "restarted from .* at step 2")
add_test(NAME run_restart_bitwise COMMAND /usr/bin/python3 -c
         "import netCDF4, numpy, sys; a = netCDF4.Dataset(sys.argv[1]); b = netCDF4.Dataset(sys.argv[2]); ok = all(numpy.array_equal(a[v][:], b[v][:]) for v in ('u', 'v', 'p')); print('bitwise equal' if ok else 'DIFFERENT'); sys.exit(0 if ok else 1)"
         ${_ck}/full/fields_000004.nc ${_ck}/restarted/fields_000004.nc)
set_tests_properties(run_restart_bitwise PROPERTIES LABELS mpi FIXTURES_REQUIRED run_restarted)
# a restart into the run's own directory (what a Slurm job does) continues diagnostics.csv:
# rows 1-2 kept, 3-4 appended, the file byte for byte the uninterrupted run's
add_test(NAME run_continue_copy COMMAND sh -c "rm -rf \"$1\" && cp -r \"$0\" \"$1\"" ${_ck}/full ${_ck}/cont)
set_tests_properties(run_continue_copy PROPERTIES LABELS mpi FIXTURES_REQUIRED run_ckpt FIXTURES_SETUP run_cont_copy)
add_test(NAME run_continue COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:insdg> run
         ${_run_cases}/run_taylor_ckpt.ini --output ${_ck}/cont --restart ${_ck}/cont/checkpoint_000002.nc)
set_tests_properties(run_continue PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120
                     FIXTURES_REQUIRED run_cont_copy FIXTURES_SETUP run_cont PASS_REGULAR_EXPRESSION "restarted from .* at step 2")
add_test(NAME run_continue_csv COMMAND ${CMAKE_COMMAND} -E compare_files ${_ck}/full/diagnostics.csv ${_ck}/cont/diagnostics.csv)
set_tests_properties(run_continue_csv PROPERTIES LABELS mpi FIXTURES_REQUIRED run_cont)
# its summary counts what it did (steps 3-4) and, separately, the totals since t = 0: the
# mean iterations since the start equal the uninterrupted run's, this run's those of
# rows 3-4 of diagnostics.csv
add_test(NAME run_continue_summary COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_restart_summary.py
         ${_ck}/full ${_ck}/cont 2)
set_tests_properties(run_continue_summary PROPERTIES LABELS mpi FIXTURES_REQUIRED run_cont)

# The output directory when things go wrong (issue 17): a full file system (status 6, the
# file named, nothing claimed, no .tmp; skipped without root), half-written files of a
# killed run removed at the start, [output] checkpoints_kept
foreach(_io full leftovers kept)
  add_test(NAME run_io_${_io} COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_io_failures.py
           $<TARGET_FILE:insdg> ${_run_cases}/run_taylor_ckpt.ini ${CMAKE_CURRENT_BINARY_DIR}/out/io_${_io} ${_io})
  set_tests_properties(run_io_${_io} PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120 SKIP_RETURN_CODE 77)
endforeach()

# The case's solver options reach the time step: the short Taylor case with tight
# tolerances and each non-default preconditioner ends equal (errors, kinetic energy,
# divergence, forces to 1e-6 relative) to the run with the defaults. The case files are
# run_taylor_mpi.ini with [velocity_solver] / [pressure_solver] sections added, written
# into the build tree.
file(READ ${_run_cases}/run_taylor_mpi.ini _precond_base)
string(REPLACE "../../cases/taylor_vortex/square.msh" "${CMAKE_CURRENT_SOURCE_DIR}/../cases/taylor_vortex/square.msh"
       _precond_base "${_precond_base}")
set(_precond_ref "tolerance = 1e-11\n")
set(_precond_variants
    "ref|${_precond_ref}|${_precond_ref}|u=15:20 p=12:13"
    "jacobi_fullamg|${_precond_ref}preconditioner = jacobi\n|${_precond_ref}preconditioner = full_amg\n|u=19:22 p=1:1"
    "none_jacobi|${_precond_ref}preconditioner = none\n|${_precond_ref}preconditioner = jacobi\nmax_iterations = 5000\n|u=50:70 p=150:210"
    "pmg31|${_precond_ref}|${_precond_ref}preconditioner = pmg_amg\npmg_degrees = 3 1\n|u=15:20 p=18:20"
    "block_oldpmg|${_precond_ref}preconditioner = block_jacobi\n|${_precond_ref}pmg_smoother = jacobi\npmg_chebyshev_degree = 2\n|u=13:16 p=14.5:16"
    "vpmg|${_precond_ref}preconditioner = pmg_amg\n|${_precond_ref}|u=6:7 p=12:13")
foreach(_v IN LISTS _precond_variants)
  string(REPLACE "|" ";" _parts "${_v}")
  list(GET _parts 0 _name)
  list(GET _parts 1 _vel)
  list(GET _parts 2 _pre)
  list(GET _parts 3 _its)
  string(REPLACE " " ";" _its "${_its}")
  string(REPLACE "[initial]" "[velocity_solver]\n${_vel}\n[pressure_solver]\n${_pre}\n[initial]" _text "${_precond_base}")
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/cases/run_precond_${_name}.ini "${_text}")
  add_test(NAME run_precond_${_name}_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_run_out}/run_precond_${_name})
  add_test(NAME run_precond_${_name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:insdg> run
           ${CMAKE_CURRENT_BINARY_DIR}/cases/run_precond_${_name}.ini --output ${_run_out}/run_precond_${_name})
  set_tests_properties(run_precond_${_name}_clean PROPERTIES LABELS mpi FIXTURES_SETUP run_precond_${_name}_clean)
  set_tests_properties(run_precond_${_name} PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120
                       FIXTURES_REQUIRED run_precond_${_name}_clean FIXTURES_SETUP run_precond_${_name}_out
                       PASS_REGULAR_EXPRESSION "status: completed")
  # the mean iterations show which preconditioner ran (full AMG: this mesh is below
  # the AMG's coarse size, so it is a direct solve: 1 iteration)
  if(_name STREQUAL "ref")
    insdg_run_check(run_precond_ref run_precond_ref_out --steps 2 --files 3 --forces right --iterations ${_its})
  else()
    insdg_run_check(run_precond_${_name} "run_precond_ref_out;run_precond_${_name}_out" --steps 2 --files 3
                    --forces right --max-error u=5e-3 --compare ${_run_out}/run_precond_ref --rtol 1e-6
                    --iterations ${_its})
  endif()
endforeach()

# tools/cylinder_analysis.py (Strouhal number, mean drag, rms lift of the square-cylinder
# run) against a synthetic force history with known answers
add_test(NAME cylinder_analysis COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/test_cylinder_analysis.py)
set_tests_properties(cylinder_analysis PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "test_cylinder_analysis: ok")
# bench/bench_step.py's paired mode (before/after side by side) on a stand-in for insdg
add_test(NAME bench_pairs COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_pairs.py)
set_tests_properties(bench_pairs PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "test_bench_pairs: ok")
# tools/trace_gaps.py (where workers wait in a traced run) on a trace made by hand
add_test(NAME trace_gaps COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/test_trace_gaps.py)
set_tests_properties(trace_gaps PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "test_trace_gaps: ok")

# [time] start = exact: the history before t = 0 from the [exact] section, so that the
# first step is already BDF2 (and the subcycling's Ubar quadratic). The short Taylor case
# at N = 6, Ns = 2, dt = 0.01 to t = 0.05: relative u error 1.2e-4 with it, 1.35e-3 with
# the lower-order start (a BDF1 first step); the bound 3e-4 tells them apart.
string(REPLACE "order = 3" "order = 6" _start_text "${_precond_base}")
string(REPLACE "final_time = 0.02\norder = 2" "final_time = 0.05\norder = 2\nsubsteps = 2\nstart = exact" _start_text
       "${_start_text}")
string(REPLACE "interval = 0.01" "interval = 0.05" _start_text "${_start_text}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/cases/run_start_exact.ini "${_start_text}")
insdg_run_test(run_start_exact 1 ${CMAKE_CURRENT_BINARY_DIR}/cases/run_start_exact.ini)
insdg_run_check(run_start_exact run_start_exact_out --steps 5 --files 2 --forces right --max-error u=3e-4 v=3e-4)

# a run that diverges without overflowing (EXT at twice its stable dt): status 5, the
# message, "diverged" in summary.json, the last step's fields (N = 3, dt = 0.04: the
# speed passes 10 times the data's at step 13)
string(REPLACE "dt = 0.01\nfinal_time = 0.02" "dt = 0.04\nfinal_time = 2" _div_text "${_precond_base}")
string(REPLACE "interval = 0.01" "interval = 1" _div_text "${_div_text}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/cases/run_diverged.ini "${_div_text}")
add_test(NAME run_diverged_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_run_out}/run_diverged)
add_test(NAME run_diverged COMMAND sh -c "\"$0\" run \"$1\" --output \"$2\"; echo \"exit status $?\""
         $<TARGET_FILE:insdg> ${CMAKE_CURRENT_BINARY_DIR}/cases/run_diverged.ini ${_run_out}/run_diverged)
set_tests_properties(run_diverged_clean PROPERTIES LABELS mpi FIXTURES_SETUP run_diverged_clean)
set_tests_properties(run_diverged PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 60
                     FIXTURES_REQUIRED run_diverged_clean FIXTURES_SETUP run_diverged_out
                     PASS_REGULAR_EXPRESSION "step 13: max \\|u\\| = [^ ]+, more than 10 times the largest initial or boundary speed \\([^)]+\\): the run diverged.*exit status 5")
insdg_run_check(run_diverged run_diverged_out --steps 13 --files 2 --forces right --status "diverged")

# Stop and continue, as a batch job does (tests/check_signal.py): the short Taylor case for
# 300 steps with checkpoints every 100; SIGUSR1 to mpirun (which forwards it) or SIGTERM to
# each rank mid-run: exit 3, status "stopped", a checkpoint of the stop step; the chain of
# restarts ends bitwise equal to the uninterrupted run with the same diagnostics.csv; a
# restart from the final checkpoint takes no step (exit 0, "already complete").
file(READ ${_run_cases}/run_taylor_ckpt.ini _sig_text)
string(REPLACE "../../cases/taylor_vortex/square.msh" "${CMAKE_CURRENT_SOURCE_DIR}/../cases/taylor_vortex/square.msh"
       _sig_text "${_sig_text}")
string(REPLACE "final_time = 0.04" "final_time = 3" _sig_text "${_sig_text}")
string(REPLACE "interval = 0.02" "interval = 1" _sig_text "${_sig_text}")
string(REPLACE "checkpoint_interval_steps = 2" "checkpoint_interval_steps = 100" _sig_text "${_sig_text}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/cases/run_signal.ini "${_sig_text}")
foreach(_sig USR1:mpirun TERM:ranks)
  string(REPLACE ":" ";" _parts ${_sig})
  list(GET _parts 0 _s)
  list(GET _parts 1 _to)
  add_test(NAME run_signal_${_s}_${_to} COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_signal.py
           $<TARGET_FILE:insdg> ${CMAKE_CURRENT_BINARY_DIR}/cases/run_signal.ini ${_run_out}/run_signal_${_s}
           --ranks 2 --signal ${_s} --to ${_to})
  # not INSDG_MPI_ENV: with its unbound workers two ranks' spinning exchanges share a core
  # for whole time slices (0.4 s per step here); Open MPI's default binding, as users run it
  set_tests_properties(run_signal_${_s}_${_to} PROPERTIES LABELS mpi TIMEOUT 300
                       ENVIRONMENT "STARPU_SILENT=1;STARPU_HOME=${CMAKE_BINARY_DIR};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1"
                       PASS_REGULAR_EXPRESSION "check_signal: ok")
endforeach()

# tools/scaling.py without Slurm (mpirun): a strong-scaling study R = 1, 2 on the short case
# writes one CSV row per R with the step time, stages, iterations and memory
add_test(NAME scaling_strong_mpirun COMMAND sh -c "/usr/bin/python3 \"$0\" strong \"$1\" --ranks 1 2 --steps 4 --launcher mpirun --insdg \"$2\" --out \"$3\" && /usr/bin/python3 -c \"import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); ok=[int(x['ranks']) for x in r]==[1,2] and all(float(x['ms_per_step'])>0 and 0<float(x['setup_rss_mib'])<=float(x['max_rss_mib']) and x['K']=='42' for x in r); print('scaling csv ok' if ok else 'BAD', r); sys.exit(0 if ok else 1)\" \"$3/scaling.csv\""
         ${CMAKE_SOURCE_DIR}/tools/scaling.py ${_run_cases}/run_taylor_ckpt.ini $<TARGET_FILE:insdg> ${_run_out}/scaling_strong)
set_tests_properties(scaling_strong_mpirun PROPERTIES LABELS mpi TIMEOUT 300 PASS_REGULAR_EXPRESSION "scaling csv ok"
                     ENVIRONMENT "STARPU_SILENT=1;STARPU_HOME=${CMAKE_BINARY_DIR};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")

# Every case file under cases/ runs two steps (tests/check_shipped_cases.py: its mesh path
# absolute, final_time = 2 dt, statistics from t = 0): a shipped case that went stale fails.
add_test(NAME shipped_cases COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_shipped_cases.py
         $<TARGET_FILE:insdg> ${PROJECT_SOURCE_DIR}/cases ${CMAKE_CURRENT_BINARY_DIR}/shipped_cases)
set_tests_properties(shipped_cases PROPERTIES LABELS unit TIMEOUT 600 ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=1"
                     PASS_REGULAR_EXPRESSION "shipped cases: ok")

# A run without forces makes the velocity's local gradients only for its field files
# (tasks/observe.c): their vorticity must be dv/dx - du/dy of their own u, v
add_test(NAME check_run_taylor_neumann_vorticity
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_observe.py vorticity ${_run_out}/run_taylor_neumann)
set_tests_properties(check_run_taylor_neumann_vorticity PROPERTIES LABELS unit FIXTURES_REQUIRED run_taylor_neumann_out
                     PASS_REGULAR_EXPRESSION "check_observe: ok")
