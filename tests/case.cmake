# case.cmake -- tests of the case-file reader (io/case.c), included from
# tests/CMakeLists.txt. The case files are in tests/cases (good.ini sets every key,
# minimal.ini only the required ones, bad_*.ini one mistake each).
#  case_read       test_case: every value of the good files, defaults, expressions, paths,
#                  the boundary check, and messages of small inline files
#  case_fuzz       3000 deterministic mutations of good.ini and minimal.ini
#  case_cli_*      `case_check bad_xxx.ini [mesh boundary names]` must exit 2 with one
#                  line on stderr naming the file, the line and the section or key
set(INSDG_TEST_CASES ${CMAKE_CURRENT_SOURCE_DIR}/cases)

add_executable(test_case ${CMAKE_CURRENT_SOURCE_DIR}/test_case.c)
target_link_libraries(test_case PRIVATE insdg_case ${M_LIB})
add_test(NAME case_read COMMAND test_case ${INSDG_TEST_CASES})

add_executable(fuzz_case ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_case.c)
target_link_libraries(fuzz_case PRIVATE insdg_case)
add_test(NAME case_fuzz COMMAND fuzz_case ${INSDG_TEST_CASES} 3000)

add_executable(case_check ${CMAKE_CURRENT_SOURCE_DIR}/case_check.c)
target_link_libraries(case_check PRIVATE insdg_case)
add_test(NAME case_cli_good COMMAND case_check ${INSDG_TEST_CASES}/good.ini
         bottom right top left)
set_tests_properties(case_read case_fuzz case_cli_good PROPERTIES LABELS unit TIMEOUT 120)

# name; the mesh boundary names to check against ("-": none; ',' separates names);
# the regex its one-line message must match (after "insdg: error: <dir>/")
set(INSDG_BAD_CASES
  bad_unknown_section  "-"  "bad_unknown_section\\.ini:18: \\[solver\\]: unknown section"
  bad_unknown_key      "-"  "bad_unknown_key\\.ini:10: \\[time\\] final: unknown key"
  bad_missing_dt       "-"  "bad_missing_dt\\.ini:8: \\[time\\] dt: missing required key"
  bad_order            "-"  "bad_order\\.ini:4: \\[case\\] order: 16 is out of range \\(1\\.\\.15\\)"
  bad_expression       "-"  "bad_expression\\.ini:15: \\[initial\\] u: malformed expression 'sin\\(x'"
  bad_unknown_variable "-"  "bad_unknown_variable\\.ini:16: \\[initial\\] v: unknown variable 'z'"
  bad_nu_x             "-"  "bad_nu_x\\.ini:6: \\[physics\\] nu: uses 'x', but this value must be a constant"
  bad_inflow_no_v      "-"  "bad_inflow_no_v\\.ini:18: \\[boundary\\.left\\] v: missing required key"
  bad_preconditioner   "-"  "bad_preconditioner\\.ini:15: \\[pressure_solver\\] preconditioner: unknown preconditioner 'multigrid'"
  bad_duplicate_key    "-"  "bad_duplicate_key\\.ini:10: \\[time\\] dt: duplicate key \\(first on line 9\\)"
  bad_missing_boundary "bottom,right,top,left,outlet"
                            "bad_missing_boundary\\.ini:0: \\[boundary\\.outlet\\]: missing section for the mesh boundary 'outlet'"
  bad_extra_boundary   "bottom,right,top"
                            "bad_extra_boundary\\.ini:18: \\[boundary\\.left\\]: the mesh has no boundary"
  bad_circular         "-"  "bad_circular\\.ini:6: \\[constants\\] a: unknown variable 'b'"
  bad_wall_p           "-"  "bad_wall_p\\.ini:24: \\[boundary\\.right\\] p: not allowed on a wall"
  bad_time_order       "-"  "bad_time_order\\.ini:11: \\[time\\] order: 3 is out of range \\(1\\.\\.2\\)"
  bad_substeps         "-"  "bad_substeps\\.ini:12: \\[time\\] substeps: -1 is out of range"
  bad_dt               "-"  "bad_dt\\.ini:9: \\[time\\] dt: 0 must be > 0"
  bad_start            "-"  "bad_start\\.ini:13: \\[time\\] start: unknown start 'exactly' \\(known: lower_order exact\\)"
  bad_start_no_exact   "-"  "bad_start_no_exact\\.ini:13: \\[time\\] start: start = exact needs an \\[exact\\] section"
  bad_type             "-"  "bad_type\\.ini:23: \\[boundary\\.right\\] type: unknown boundary type 'slip'"
  bad_forces           "-"  "bad_forces\\.ini:30: \\[output\\] forces: 'cylinder' has no \\[boundary\\.NAME\\] section"
  bad_syntax           "-"  "bad_syntax\\.ini:7: syntax error"
  bad_mesh             "-"  "bad_mesh\\.ini:3: \\[case\\] mesh: cannot read '.*nonexistent\\.msh'")

set(_bad ${INSDG_BAD_CASES})
while(_bad)
  list(POP_FRONT _bad _name _names _regex)
  set(_cmd $<TARGET_FILE:case_check>\;${INSDG_TEST_CASES}/${_name}.ini)
  if(NOT _names STREQUAL "-")
    string(REPLACE "," ";" _names "${_names}")
    set(_cmd "${_cmd};${_names}")
  endif()
  add_test(NAME case_cli_${_name}
           COMMAND ${CMAKE_COMMAND} "-DCMD=${_cmd}" "-DREGEX=^insdg: error: .*/${_regex}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_user_error.cmake)
  set_tests_properties(case_cli_${_name} PROPERTIES LABELS unit)
endwhile()
