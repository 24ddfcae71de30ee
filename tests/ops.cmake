# Operator and mesh-geometry tests (src/mesh.c, src/block.c, src/ops_cpu.c).
add_executable(test_ops test_ops.c)
target_link_libraries(test_ops PRIVATE insdg_core)
add_test(NAME ops_exactness COMMAND test_ops ${INSDG_TEST_MESHES})
set_tests_properties(ops_exactness PROPERTIES LABELS unit)

# The same test on the kernels as a native build compiles them for an AVX2 or an AVX-512
# machine (4- or 8-double vectors: the one-element kernels' padding and, from N = 6, the
# element groups of src/ops_group.inc). CI builds without -march=native, where those code
# paths are not compiled at all; these variants are what test them there. avx512_ge5 has
# what native builds for AMD Zen 4 take (gcc 12's -march=native there: znver3 with AVX-512,
# so OPS_AMD_ZEN): the groups of five elements, the SIPDG with its values in registers at
# N = 2, 4, 5 (ops_kernels.inc, OPS_GROUP_SIZE and INSDG_SIPDG_REG), and the kernels its
# INSDG_OPS_YMM_DEGREES compiles for 256-bit vectors with the AVX2 choices (src/ops_cpu_ymm.c;
# CMakeLists.txt: G at N = 2, 3, 6, 7, D at 3..7, SIPDG at 3, 6, 7, the rest at 3, 5, 6, 7), so one
# build mixes both, by degree and below N = 6 by operator;
# avx2_ge6 what they take for AMD Zen with AVX2 only (Zen 3): groups of six, D in one
# product up to N = 4 (OPS_ONE_CHAIN_NMAX), the SIPDG's AVX2 register form for N = 2..4
# (ops_sipdg_avx2.inc), its element pairs at N = 5 (INSDG_SIPDG_PAIRS) and D's at N = 4, 5
# (INSDG_D_PAIRS). Each is skipped (77) on a CPU without the instructions.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
  get_target_property(_core_sources insdg_core SOURCES)
  list(TRANSFORM _core_sources PREPEND ${CMAKE_SOURCE_DIR}/)
  foreach(_isa avx2 avx2_ge6 avx512 avx512_ge5)
    if(_isa STREQUAL "avx2")
      set(_flags -mavx2 -mfma)
    elseif(_isa STREQUAL "avx2_ge6")
      set(_flags -mavx2 -mfma -DOPS_GROUP_GE=6 -DOPS_ONE_CHAIN_NMAX=4 -DINSDG_SIPDG_REG=1 -DINSDG_SIPDG_PAIRS=1 -DINSDG_D_PAIRS=1)
    elseif(_isa STREQUAL "avx512")
      set(_flags -mavx512f -mavx512dq -mavx512vl -mfma)
    else()
      set(_flags -mavx512f -mavx512dq -mavx512vl -mfma -DOPS_AMD_ZEN=1 -DINSDG_OPS_YMM_G_NMASK=0xcc -DINSDG_OPS_YMM_D_NMASK=0xf8
                  -DINSDG_OPS_YMM_S_NMASK=0xc8 -DINSDG_OPS_YMM_O_NMASK=0xe8)
    endif()
    add_library(insdg_core_${_isa} STATIC EXCLUDE_FROM_ALL ${_core_sources})
    target_compile_options(insdg_core_${_isa} PRIVATE ${_flags})
    target_include_directories(insdg_core_${_isa} PUBLIC ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/io)
    target_link_libraries(insdg_core_${_isa} PUBLIC PkgConfig::LAPACKE ${OPENBLAS_LIB} ${M_LIB})
    add_executable(test_ops_${_isa} test_ops.c)
    target_compile_options(test_ops_${_isa} PRIVATE ${_flags})
    target_link_libraries(test_ops_${_isa} PRIVATE insdg_core_${_isa})
    add_test(NAME ops_exactness_${_isa} COMMAND test_ops_${_isa} ${INSDG_TEST_MESHES})
    set_tests_properties(ops_exactness_${_isa} PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
  endforeach()
endif()

# bench_ops' --nbr-shift diagnostic (docs/performance.md, session 47; nothing timed or
# compared): SIPDG at N = 2..4 (the register kernel where the build has it) with the rows
# nbr_row points at shifted past either end of the block, clamped to it; each degree's
# header with the rows' distances, then its row. (A ; in the regex would split it into two
# alternatives, either of which would pass.)
foreach(_shift -1000 1000)
  add_test(NAME bench_ops_nbr_shift_${_shift} COMMAND $<TARGET_FILE:bench_ops> --in-cache --kmin 50 --nmin 2 --nmax 4
           --ops 3 --seconds 0.001 --repeats 1 --nbr-shift ${_shift})
  set_tests_properties(bench_ops_nbr_shift_${_shift} PROPERTIES LABELS unit
                       PASS_REGULAR_EXPRESSION "farther: [0-9. ]+%. --nbr-shift: rows moved, results wrong\n 4 +[0-9]+  SIPDG A")
endforeach()
