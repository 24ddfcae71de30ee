# bad_inputs.cmake -- the bad-input corpus (tests/bad_inputs/README.md), included from
# tests/CMakeLists.txt. One test per case of tests/bad_inputs/corpus.txt:
#  bad_input_<name>               run_corpus.py runs the case's insdg command and checks
#                                 the exit status, the one message line on stderr (it holds
#                                 the case's fragment) and, for status 2, that nothing was
#                                 written; label mpi when the command is `insdg run` or
#                                 `insdg demo`, unit otherwise
#  bad_input_fixture_ckpt_clean   the checkpoints the @CKPT@ cases restart from: the short
#  bad_input_fixture_ckpt         Taylor case with checkpoints (tests/cases/run_taylor_ckpt.ini,
#  bad_input_fixture_ckpt_damage  one rank under mpirun) into <build>/tests/bad_inputs/ckpt,
#                                 then damaged copies of its checkpoint_000002.nc
#                                 (damage_checkpoint.py)
set(_bi_src ${CMAKE_CURRENT_SOURCE_DIR}/bad_inputs)
set(_bi_out ${CMAKE_CURRENT_BINARY_DIR}/bad_inputs)
set(_bi_ckpt ${_bi_out}/ckpt)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_bi_src}/corpus.txt ${_bi_src}/run_corpus.py)
file(MAKE_DIRECTORY ${_bi_out})

add_test(NAME bad_input_fixture_ckpt_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${_bi_ckpt})
add_test(NAME bad_input_fixture_ckpt COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:insdg> run
         ${CMAKE_CURRENT_SOURCE_DIR}/cases/run_taylor_ckpt.ini --output ${_bi_ckpt})
add_test(NAME bad_input_fixture_ckpt_damage COMMAND /usr/bin/python3 ${_bi_src}/damage_checkpoint.py ${_bi_ckpt})
set_tests_properties(bad_input_fixture_ckpt_clean PROPERTIES LABELS mpi FIXTURES_SETUP bad_input_ckpt_clean)
set_tests_properties(bad_input_fixture_ckpt PROPERTIES LABELS mpi ENVIRONMENT "${INSDG_MPI_ENV}" TIMEOUT 120
                     FIXTURES_REQUIRED bad_input_ckpt_clean FIXTURES_SETUP bad_input_ckpt_run
                     PASS_REGULAR_EXPRESSION "checkpoint .*checkpoint_000002.nc")
set_tests_properties(bad_input_fixture_ckpt_damage PROPERTIES LABELS mpi TIMEOUT 60
                     FIXTURES_REQUIRED bad_input_ckpt_run FIXTURES_SETUP bad_input_ckpt
                     PASS_REGULAR_EXPRESSION "damage_checkpoint: ok")

# the cases: "NAME LABEL ckpt|-" per line
execute_process(COMMAND /usr/bin/python3 ${_bi_src}/run_corpus.py --list --corpus ${_bi_src}/corpus.txt
                OUTPUT_VARIABLE _bi_list ERROR_VARIABLE _bi_err RESULT_VARIABLE _bi_status)
if(NOT _bi_status EQUAL 0)
  message(SEND_ERROR "tests/bad_inputs/corpus.txt: ${_bi_err}")
endif()
string(REGEX REPLACE "\n$" "" _bi_list "${_bi_list}")
string(REPLACE "\n" ";" _bi_list "${_bi_list}")
set(_bi_tests bad_input_fixture_ckpt_clean bad_input_fixture_ckpt bad_input_fixture_ckpt_damage)
foreach(_line IN LISTS _bi_list)
  string(REPLACE " " ";" _f "${_line}")
  list(GET _f 0 _name)
  list(GET _f 1 _label)
  list(GET _f 2 _ckpt)
  add_test(NAME bad_input_${_name}
           COMMAND /usr/bin/python3 ${_bi_src}/run_corpus.py --insdg $<TARGET_FILE:insdg> --out-root ${_bi_out}
                   --ckpt ${_bi_ckpt} ${_name})
  set_tests_properties(bad_input_${_name} PROPERTIES LABELS ${_label} TIMEOUT 60 ENVIRONMENT "${INSDG_MPI_ENV}"
                       PASS_REGULAR_EXPRESSION "run_corpus: ok")
  if(_ckpt STREQUAL "ckpt")
    set_property(TEST bad_input_${_name} APPEND PROPERTY FIXTURES_REQUIRED bad_input_ckpt)
  endif()
  list(APPEND _bi_tests bad_input_${_name})
endforeach()

# StarPU's first start in the build directory comes first (tests/CMakeLists.txt gives every
# test defined before its end this fixture; this file may be included after that)
if(TEST starpu_bus_calibration)
  foreach(_t IN LISTS _bi_tests)
    get_property(_req TEST ${_t} PROPERTY FIXTURES_REQUIRED)
    if(NOT "starpu_bus" IN_LIST _req)
      set_property(TEST ${_t} APPEND PROPERTY FIXTURES_REQUIRED starpu_bus)
    endif()
  endforeach()
endif()
