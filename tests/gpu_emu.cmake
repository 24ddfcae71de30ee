# gpu_emu.cmake -- the GPU kernel sources (cuda/*.cu) run on the CPU by the emulation of
# tests/gpu_emu/gpu_emu.h, checked by the same test_gpu.c as on a GPU: CI has no GPU, and
# this is how it still checks every kernel's indexing, barriers and arithmetic against
# the CPU kernels (label unit; split in two ranges of N so that ctest -j runs them side by
# side). The launches k<<<...>>>(...) are rewritten at build time by emulate_launches.py
# into the build directory; the sources themselves are never copied by hand.
include(${PROJECT_SOURCE_DIR}/cuda/sources.cmake)
enable_language(CXX)
if(NOT INSDG_SYSTEM_PYTHON)
  set(INSDG_SYSTEM_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with numpy and netCDF4 (Debian's)")
endif()
set(_emu_dir ${CMAKE_CURRENT_BINARY_DIR}/gpu_emu)
set(_emu_srcs "")
foreach(src IN LISTS INSDG_GPU_SOURCES)
  set(out ${_emu_dir}/${src}.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_emu_dir}
    COMMAND ${INSDG_SYSTEM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/gpu_emu/emulate_launches.py
            ${PROJECT_SOURCE_DIR}/cuda/${src}.cu ${out}
    DEPENDS ${PROJECT_SOURCE_DIR}/cuda/${src}.cu ${CMAKE_CURRENT_LIST_DIR}/gpu_emu/emulate_launches.py
    COMMENT "emulate_launches ${src}.cu -> gpu_emu/${src}.cpp"
    VERBATIM)
  list(APPEND _emu_srcs ${out})
endforeach()
add_library(insdg_gpu_emu STATIC ${_emu_srcs})
target_compile_definitions(insdg_gpu_emu PUBLIC INSDG_GPU_EMULATE)
target_include_directories(insdg_gpu_emu PUBLIC ${PROJECT_SOURCE_DIR}/cuda
                           PRIVATE ${CMAKE_CURRENT_LIST_DIR}/gpu_emu ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/io)
# the kernels' #pragma unroll is for nvcc/hipcc
target_compile_options(insdg_gpu_emu PRIVATE -Wno-unknown-pragmas)
set_target_properties(insdg_gpu_emu PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)

add_executable(test_gpu_emu ${CMAKE_CURRENT_LIST_DIR}/test_gpu.c)
target_include_directories(test_gpu_emu PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_gpu_emu PRIVATE insdg_gpu_emu ${INSDG_GPU_REF_LIB})
set_target_properties(test_gpu_emu PROPERTIES LINKER_LANGUAGE CXX)
foreach(range "1;5" "6;10")
  list(GET range 0 _lo)
  list(GET range 1 _hi)
  add_test(NAME gpu_kernels_emulated_${_lo}_${_hi} COMMAND test_gpu_emu ${_lo} ${_hi})
  set_tests_properties(gpu_kernels_emulated_${_lo}_${_hi} PROPERTIES LABELS unit TIMEOUT 600)
endforeach()

# The benchmark end to end on the emulation (its timings mean nothing there): every launch
# of bench/bench_gpu.c is valid, the CSV is written, and tools/plot_gpu_roofline.py draws it.
add_executable(bench_gpu_emu ${PROJECT_SOURCE_DIR}/bench/bench_gpu.c)
target_link_libraries(bench_gpu_emu PRIVATE insdg_gpu_emu ${INSDG_GPU_REF_LIB})
set_target_properties(bench_gpu_emu PROPERTIES LINKER_LANGUAGE CXX)
set(_emu_csv ${CMAKE_CURRENT_BINARY_DIR}/gpu_emu/bench_gpu_emu.csv)
add_test(NAME bench_gpu_emulated
         COMMAND bench_gpu_emu --kmin 64 --nmax 3 --reps 1 --copy-mib 4 --sweep --csv ${_emu_csv})
set_tests_properties(bench_gpu_emulated PROPERTIES LABELS unit TIMEOUT 600 FIXTURES_SETUP bench_gpu_emu_csv)
add_test(NAME plot_gpu_roofline_emulated
         COMMAND ${INSDG_SYSTEM_PYTHON} ${PROJECT_SOURCE_DIR}/tools/plot_gpu_roofline.py ${_emu_csv}
                 --out ${CMAKE_CURRENT_BINARY_DIR}/gpu_emu/plots)
set_tests_properties(plot_gpu_roofline_emulated PROPERTIES LABELS unit FIXTURES_REQUIRED bench_gpu_emu_csv
                     PASS_REGULAR_EXPRESSION "gpu_roofline_sipdg.png")
# --sweep rows (this build compiles the tuned candidate only) and their tables: the TUNED
# table gpu_table.py gives must name the build's own choice at N = 2, e.g. local_gradient's (TUNED_MMA: 20)
add_test(NAME gpu_table_emulated
         COMMAND ${INSDG_SYSTEM_PYTHON} ${PROJECT_SOURCE_DIR}/tools/gpu_table.py ${_emu_csv})
set_tests_properties(gpu_table_emulated PROPERTIES LABELS unit FIXTURES_REQUIRED bench_gpu_emu_csv
                     PASS_REGULAR_EXPRESSION "local_gradient: \\{0, [0-9]+, 20, [0-9]+, -1")
# the GPU-vs-CPU verdict of gpu-check.sh (tools/compare_runs.py) on run directories it makes
add_test(NAME compare_runs_verdicts COMMAND ${INSDG_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_compare_runs.py)
set_tests_properties(compare_runs_verdicts PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "test_compare_runs: ok")

# The StarPU CUDA codelets of tasks/ end to end on the emulation: the tasks library built
# again with INSDG_GPU_CODELETS_ON_CPU (tasks/starpu_gpu.h: each codelet's CUDA function
# runs as its CPU function, on the emulated kernels), and insdg_cudaemu, the program on
# it. A short Taylor case that calls every codelet with a CUDA implementation (3 blocks:
# halos; subcycling: both advection kernels; Jacobi velocity solves whose diagonal is
# rebuilt when the start-up changes lambda; p-multigrid 3 > 2 > 1: transfers and the
# degree-1 SpMV) runs with insdg and with insdg_cudaemu; the errors and the last
# diagnostics row must agree to 1e-8 relative (kernels agree to 1e-12; the solves, to
# their tolerance 1e-10, amplify the difference), and to 1e-6 on 2 ranks (the tolerance of
# run_mpi2: a different reduction order). Timings mean nothing here.
get_target_property(_tasks_srcs insdg_tasks SOURCES)
get_target_property(_tasks_dir insdg_tasks SOURCE_DIR)
list(TRANSFORM _tasks_srcs PREPEND ${_tasks_dir}/)
add_library(insdg_tasks_cudaemu STATIC ${_tasks_srcs} ${_tasks_dir}/starpu_gpu.c)
target_compile_definitions(insdg_tasks_cudaemu PRIVATE INSDG_GPU_CODELETS_ON_CPU INSDG_VERSION="${PROJECT_VERSION}")
target_include_directories(insdg_tasks_cudaemu PRIVATE ${CMAKE_BINARY_DIR}/tasks/generated)
add_dependencies(insdg_tasks_cudaemu insdg_build_info)
# the CPU functions of the codelets are not listed in this build
target_compile_options(insdg_tasks_cudaemu PRIVATE -Wno-unused-function)
target_include_directories(insdg_tasks_cudaemu PUBLIC ${_tasks_dir})
target_link_libraries(insdg_tasks_cudaemu PUBLIC insdg_partition insdg_io_nc insdg_case insdg_core
                                                 PkgConfig::STARPUMPI MPI::MPI_C insdg_gpu_emu)
add_executable(insdg_cudaemu ${PROJECT_SOURCE_DIR}/cli/main.c)
target_link_libraries(insdg_cudaemu PRIVATE insdg_tasks_cudaemu)
set_target_properties(insdg_cudaemu PROPERTIES LINKER_LANGUAGE CXX)

set(_gpu_case ${CMAKE_CURRENT_SOURCE_DIR}/cases/run_taylor_gpu.ini)
# name, program, ranks, blocks, workers
foreach(_run "insdg;insdg;1;3;1" "insdg_cudaemu;insdg_cudaemu;1;3;1" "insdg_cudaemu_mpi2;insdg_cudaemu;2;4;1"
             "insdg_cudaemu_w2;insdg_cudaemu;1;3;2")
  list(GET _run 0 _name)
  list(GET _run 1 _prog)
  list(GET _run 2 _ranks)
  list(GET _run 3 _blocks)
  list(GET _run 4 _ncpu)
  add_test(NAME codelets_${_name}_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_run_out}/codelets_${_name})
  add_test(NAME codelets_${_name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${_ranks}
           $<TARGET_FILE:${_prog}> run ${_gpu_case} --output ${_run_out}/codelets_${_name} --blocks ${_blocks})
  set_tests_properties(codelets_${_name}_clean PROPERTIES LABELS unit FIXTURES_SETUP codelets_${_name}_clean)
  set_tests_properties(codelets_${_name} PROPERTIES LABELS unit TIMEOUT 600
                       ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=${_ncpu}"
                       FIXTURES_REQUIRED codelets_${_name}_clean FIXTURES_SETUP codelets_${_name}_out
                       PASS_REGULAR_EXPRESSION "status: completed")
endforeach()
add_test(NAME check_codelets_cuda_emulated
         COMMAND ${_check_run} ${_run_out}/codelets_insdg_cudaemu --steps 4 --files 1 --forces right left --coefficients
                 --max-error u=1e-2 v=1e-2
                 p=5e-2 --compare ${_run_out}/codelets_insdg --rtol 1e-8)
set_tests_properties(check_codelets_cuda_emulated PROPERTIES LABELS unit
                     FIXTURES_REQUIRED "codelets_insdg_out;codelets_insdg_cudaemu_out"
                     PASS_REGULAR_EXPRESSION "check_run: ok")
# the GPU codelets on two workers (two emulated devices): bitwise what one gives, as on CPUs
add_test(NAME check_codelets_cuda_emulated_w2
         COMMAND ${_check_run} ${_run_out}/codelets_insdg_cudaemu_w2 --steps 4 --files 1 --forces right left
                 --coefficients --compare ${_run_out}/codelets_insdg_cudaemu --rtol 0)
set_tests_properties(check_codelets_cuda_emulated_w2 PROPERTIES LABELS unit
                     FIXTURES_REQUIRED "codelets_insdg_cudaemu_out;codelets_insdg_cudaemu_w2_out"
                     PASS_REGULAR_EXPRESSION "check_run: ok")
# the same on 2 ranks (halos between ranks through the exchange tasks), to round-off as for the CPU runs
add_test(NAME check_codelets_cuda_emulated_mpi2
         COMMAND ${_check_run} ${_run_out}/codelets_insdg_cudaemu_mpi2 --steps 4 --files 1 --forces right left
                 --coefficients --compare ${_run_out}/codelets_insdg --rtol 1e-6)
set_tests_properties(check_codelets_cuda_emulated_mpi2 PROPERTIES LABELS unit
                     FIXTURES_REQUIRED "codelets_insdg_out;codelets_insdg_cudaemu_mpi2_out"
                     PASS_REGULAR_EXPRESSION "check_run: ok")

# The curved path of the codelets (cuda/curved.cu through tasks/ops_tasks.c and the mass
# tasks): the curved annulus case of tests/curved.cmake (run_couette, 3 blocks, each with
# curved elements) with insdg_cudaemu, against insdg's run to 1e-8 relative; the net force
# on the inner cylinder is zero (~1e-14, round-off), so 1e-12 absolute for it.
add_test(NAME codelets_couette_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_run_out}/codelets_couette)
add_test(NAME codelets_couette COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:insdg_cudaemu> run
         ${CMAKE_CURRENT_SOURCE_DIR}/cases/run_couette.ini --output ${_run_out}/codelets_couette --blocks 3)
set_tests_properties(codelets_couette_clean PROPERTIES LABELS unit FIXTURES_SETUP codelets_couette_clean)
set_tests_properties(codelets_couette PROPERTIES LABELS "unit;curved" TIMEOUT 600
                     ENVIRONMENT "${INSDG_MPI_ENV};STARPU_NCPU=1" FIXTURES_REQUIRED codelets_couette_clean
                     FIXTURES_SETUP codelets_couette_out PASS_REGULAR_EXPRESSION "status: completed")
add_test(NAME check_codelets_couette
         COMMAND ${_check_run} ${_run_out}/codelets_couette --steps 5 --files 1 --forces inner --coefficients
                 --max-error u=1e-3 v=1e-3 p=2e-2 --compare ${_run_out}/run_couette --rtol 1e-8 --atol 1e-12)
set_tests_properties(check_codelets_couette PROPERTIES LABELS "unit;curved"
                     FIXTURES_REQUIRED "codelets_couette_out;run_couette_out" PASS_REGULAR_EXPRESSION "check_run: ok")
