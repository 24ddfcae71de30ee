# observe.cmake -- [probes], [statistics] and [time] steady_tolerance of `insdg run`
# (issue 16), included from tests/CMakeLists.txt after run.cmake (its insdg_run_test).
# check_observe.py checks each output against a computation of its own:
#  strouhal             test_strouhal: the lift's period detector on synthetic signals
#  run_observe          tests/cases/run_observe.ini on 1 rank, 1 block: probes.csv against
#                       the element polynomials of every step's field file (a monomial fit
#                       here), a vertex probe against its nodal value, all against the exact
#                       Taylor vortex (at step 0 the elements sharing an edge or a vertex
#                       agree to round-off: the interpolant is continuous); velocity_change
#                       against the vortex's exact decay rate; u/v/p_mean and _rms against the field files of the
#                       window, the force statistics against diagnostics.csv
#  run_observe_mpi2     the same on 2 ranks, 4 blocks (another element numbering): probes.csv
#                       equal to the solvers' tolerance (the fields of two decompositions differ
#                       by 7e-10 here; the DG jumps at the vertex and edge probes are 1e-3)
#  run_observe_restart  tests/cases/run_observe_ckpt.ini: a restart in place from the
#                       step-2 checkpoint keeps probes.csv's rows 0, 2 and appends 4, byte
#                       for byte the uninterrupted run's, with the same statistics
#  run_observe_refused_*  restarts from that checkpoint whose averages cannot go on (other
#                       force boundaries, another window start before it): status 2, one
#                       line, nothing written; run_observe_later: a window starting after
#                       the checkpoint starts afresh
#  run_periodic         an exactly periodic lift (frequency 10): its Strouhal number, and the
#                       force statistics against diagnostics.csv
#  run_observe_refused_damaged_*  a checkpoint whose force history or averaged field was
#                       changed after it was written: refused by the checksums (status 2)
#  run_steady           the Kovasznay flow stops at steady state before final_time
set(_check_observe /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_observe.py)

add_executable(test_strouhal ${CMAKE_CURRENT_SOURCE_DIR}/test_strouhal.c)
target_include_directories(test_strouhal PRIVATE ${PROJECT_SOURCE_DIR}/tasks ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_strouhal PRIVATE insdg_tasks ${M_LIB})
add_test(NAME strouhal COMMAND test_strouhal)
set_tests_properties(strouhal PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "test_strouhal: ok")

set(_observe_points inside=0.3,0.2 vertex=0.06919096858518971,-0.005650272699776675
    edge=-0.005787815906993787,-0.004962295413515825 outflow=0.5,0.1)
# the exact Taylor vortex (k = 2 pi, nu = 0.01) and its vorticity dv/dx - du/dy
set(_observe_exact "u=-sin(2*pi*y)*exp(-4*pi*pi*0.01*t)" "v=sin(2*pi*x)*exp(-4*pi*pi*0.01*t)"
    "p=-cos(2*pi*x)*cos(2*pi*y)*exp(-8*pi*pi*0.01*t)"
    "vorticity=2*pi*(cos(2*pi*x)+cos(2*pi*y))*exp(-4*pi*pi*0.01*t)")

insdg_run_test(run_observe 1 run_observe.ini --blocks 1)
add_test(NAME check_run_observe_probes COMMAND ${_check_observe} probes ${_run_out}/run_observe
         --points ${_observe_points} --node vertex --steps 0 1 2 3 4 5
         --exact ${_observe_exact} --tolerance u=2e-3 v=2e-3 p=2e-2 vorticity=0.15)
# the velocity change per unit time of a Taylor vortex is its exact decay (e^{k^2 nu dt} - 1)/dt
add_test(NAME check_run_observe_change COMMAND ${_check_observe} change ${_run_out}/run_observe
         --rate 0.39478417604357434 --rtol 2e-3)
add_test(NAME check_run_observe_statistics COMMAND ${_check_observe} statistics ${_run_out}/run_observe
         --start 0.02 --not-periodic)
set_tests_properties(check_run_observe_probes check_run_observe_statistics check_run_observe_change PROPERTIES LABELS mpi
                     FIXTURES_REQUIRED run_observe_out PASS_REGULAR_EXPRESSION "check_observe: ok")

insdg_run_test(run_observe_mpi2 2 run_observe.ini --blocks 4)
add_test(NAME check_run_observe_mpi2 COMMAND ${_check_observe} same ${_run_out}/run_observe ${_run_out}/run_observe_mpi2
         --rtol 1e-8)
set_tests_properties(check_run_observe_mpi2 PROPERTIES LABELS mpi FIXTURES_REQUIRED "run_observe_out;run_observe_mpi2_out"
                     PASS_REGULAR_EXPRESSION "check_observe: ok")

# the uninterrupted run, then a restart in place (what a requeued job does) from step 2
set(_obs ${CMAKE_CURRENT_BINARY_DIR}/run_observe_ckpt)
add_test(NAME run_observe_full COMMAND sh -c "rm -rf \"$0\" && \"$1\" -n 1 \"$2\" run \"$3\" --output \"$0\""
         ${_obs}/full ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:insdg> ${_run_cases}/run_observe_ckpt.ini)
set_tests_properties(run_observe_full PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120
                     FIXTURES_SETUP run_observe_full PASS_REGULAR_EXPRESSION "status: completed")
add_test(NAME run_observe_restart COMMAND sh -c
         "rm -rf \"$0\" && cp -r \"$1\" \"$0\" && \"$2\" -n 1 \"$3\" run \"$4\" --output \"$0\" --restart \"$0/checkpoint_000002.nc\""
         ${_obs}/cont ${_obs}/full ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:insdg> ${_run_cases}/run_observe_ckpt.ini)
set_tests_properties(run_observe_restart PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120
                     FIXTURES_REQUIRED run_observe_full FIXTURES_SETUP run_observe_cont
                     PASS_REGULAR_EXPRESSION "restarted from .* at step 2")
add_test(NAME check_run_observe_restart COMMAND /usr/bin/python3 -c
         "import json, netCDF4, numpy, sys
a, b = sys.argv[1], sys.argv[2]
pa, pb = (open(d + '/probes.csv').read() for d in (a, b))
steps = [int(l.split(',')[0]) for l in pb.splitlines()[1:]]
sa, sb = (json.load(open(d + '/summary.json'))['statistics'] for d in (a, b))
fa, fb = (netCDF4.Dataset(d + '/fields_000004.nc') for d in (a, b))
same = all(numpy.array_equal(fa[v][:], fb[v][:]) for v in ('u_mean', 'v_mean', 'p_mean', 'u_rms', 'v_rms', 'p_rms'))
ok = pa == pb and steps == [0, 2, 4] and sa == sb and sa['samples'] == 4 and same
print('restart: probes.csv rows', steps, 'equal' if pa == pb else 'DIFFERENT', '; statistics', 'equal' if sa == sb else 'DIFFERENT', sa['samples'], '; fields', 'bitwise equal' if same else 'DIFFERENT')
sys.exit(0 if ok else 1)"
         ${_obs}/full ${_obs}/cont)
set_tests_properties(check_run_observe_restart PROPERTIES LABELS mpi FIXTURES_REQUIRED run_observe_cont
                     PASS_REGULAR_EXPRESSION "bitwise equal")

# the steady stop: the last row of diagnostics.csv the first below the tolerance, status
# completed (exit 0), stop_reason steady, the log saying so
insdg_run_test(run_steady 1 run_steady.ini)
set_tests_properties(run_steady PROPERTIES PASS_REGULAR_EXPRESSION "steady: the relative velocity change per unit time")
add_test(NAME check_run_steady COMMAND ${_check_observe} steady ${_run_out}/run_steady --tolerance 0.05)
set_tests_properties(check_run_steady PROPERTIES LABELS mpi FIXTURES_REQUIRED run_steady_out
                     PASS_REGULAR_EXPRESSION "check_observe: ok")

# restarts whose statistics cannot go on are refused before anything is written (status 2,
# one line): the checkpoint's window has other force boundaries, or another start that
# began before it; a window that starts after the checkpoint starts afresh (2 steps)
file(READ ${_run_cases}/run_observe_ckpt.ini _obs_text)
string(REPLACE "../../cases/taylor_vortex/square.msh" "${CMAKE_CURRENT_SOURCE_DIR}/../cases/taylor_vortex/square.msh"
       _obs_text "${_obs_text}")
string(REPLACE "forces = right left" "forces = right" _obs_forces "${_obs_text}")
string(REPLACE "start = 0.01" "start = 0" _obs_window "${_obs_text}")
string(REPLACE "start = 0.01" "start = 0.03" _obs_later "${_obs_text}")
foreach(_v forces window later)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/cases/run_observe_${_v}.ini "${_obs_${_v}}")
endforeach()
set(_obs_regex_forces "checkpoint_000002\\.nc: its statistics are of the forces on other boundaries \\(t fx_right fy_right fx_left fy_left\\)")
set(_obs_regex_window "checkpoint_000002\\.nc: its statistics are over a window from t = 0\\.01")
foreach(_v forces window)
  add_test(NAME run_observe_refused_${_v} COMMAND ${CMAKE_COMMAND}
           "-DCMD=$<TARGET_FILE:insdg>;run;${CMAKE_CURRENT_BINARY_DIR}/cases/run_observe_${_v}.ini;--output;${_obs}/refused_${_v};--restart;${_obs}/full/checkpoint_000002.nc"
           "-DREGEX=^insdg: error: --restart: .*${_obs_regex_${_v}}"
           -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_user_error.cmake)
  set_tests_properties(run_observe_refused_${_v} PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}"
                       FIXTURES_REQUIRED run_observe_full)
endforeach()
add_test(NAME run_observe_later COMMAND sh -c
         "rm -rf \"$0\" && \"$1\" run \"$2\" --output \"$0\" --restart \"$3\" && /usr/bin/python3 -c \"import json,sys; s=json.load(open(sys.argv[1]))['statistics']; print('samples', s['samples'], s['first_time']); sys.exit(0 if s['samples'] == 2 and abs(s['first_time'] - 0.03) < 1e-12 else 1)\" \"$0/summary.json\""
         ${_obs}/later $<TARGET_FILE:insdg> ${CMAKE_CURRENT_BINARY_DIR}/cases/run_observe_later.ini ${_obs}/full/checkpoint_000002.nc)
set_tests_properties(run_observe_later PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120
                     FIXTURES_REQUIRED run_observe_full PASS_REGULAR_EXPRESSION "samples 2 0.03")

# the lift's frequency end to end: a uniform flow with an oscillating cross-stream
# component has an exactly periodic lift of frequency 10 on its bottom (run_periodic.ini)
insdg_run_test(run_periodic 1 run_periodic.ini)
add_test(NAME check_run_periodic COMMAND ${_check_observe} statistics ${_run_out}/run_periodic --start 0.1
         --no-fields --strouhal 10)
set_tests_properties(check_run_periodic PROPERTIES LABELS mpi FIXTURES_REQUIRED run_periodic_out
                     PASS_REGULAR_EXPRESSION "check_observe: ok")

# the statistics in a checkpoint have checksums: a changed value of the force history
# (statistics_series) or of an averaged field (statistics_u_mean, in the element
# checksums) is refused on restart
foreach(_v series:statistics_series u_mean:statistics_u_mean)
  string(REPLACE ":" ";" _parts ${_v})
  list(GET _parts 0 _what)
  list(GET _parts 1 _var)
  add_test(NAME run_observe_damaged_${_what} COMMAND sh -c
           "cp \"$0\" \"$1\" && /usr/bin/python3 -c \"import netCDF4,sys; d=netCDF4.Dataset(sys.argv[1],'a'); v=d[sys.argv[2]]; x=v[:]; x.flat[0] += 1e-12; v[:]=x; d.close()\" \"$1\" \"$2\""
           ${_obs}/full/checkpoint_000002.nc ${_obs}/damaged_${_what}.nc ${_var})
  set_tests_properties(run_observe_damaged_${_what} PROPERTIES LABELS mpi FIXTURES_REQUIRED run_observe_full
                       FIXTURES_SETUP run_observe_damaged_${_what})
  # status 2, the one error line, and no diagnostics.csv or probes.csv left in the new directory
  add_test(NAME run_observe_refused_damaged_${_what} COMMAND sh -c
           "rm -rf \"$1\"; \"$0\" run \"$2\" --output \"$1\" --restart \"$3\" > /dev/null 2> \"$1.err\"; s=$?; cat \"$1.err\"; test $s -eq 2 && test ! -e \"$1/diagnostics.csv\" && test ! -e \"$1/probes.csv\" && echo refused"
           $<TARGET_FILE:insdg> ${_obs}/refused_damaged_${_what} ${_run_cases}/run_observe_ckpt.ini ${_obs}/damaged_${_what}.nc)
  set_tests_properties(run_observe_refused_damaged_${_what} PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}"
                       FIXTURES_REQUIRED run_observe_damaged_${_what}
                       PASS_REGULAR_EXPRESSION "damaged_${_what}\\.nc: corrupted checkpoint: [^\n]*\nrefused")
endforeach()
