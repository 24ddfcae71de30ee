# gmsh.cmake -- tests of the Gmsh reader (io/gmsh.c) and of the mesh checks as a user
# sees them, included from tests/CMakeLists.txt (INSDG_TEST_MESHES = tests/meshes).
#  gmsh_read    reads the valid meshes and small hand-written files, checks the errors
#               (syntax, absurd node coordinates, duplicated triangles through mesh.c)
#  gmsh_fuzz    4000 deterministic mutations of the valid meshes (a few seconds)
#  gmsh_cli_*   `insdg mesh bad_xxx.msh` must exit 2 with one line on stderr naming the
#               file, the line and what is wrong (see tests/meshes/README.md); the
#               message names the element (or two elements, or the node) by its Gmsh tag
add_executable(test_gmsh ${CMAKE_CURRENT_SOURCE_DIR}/test_gmsh.c)
target_link_libraries(test_gmsh PRIVATE insdg_core)
add_test(NAME gmsh_read COMMAND test_gmsh ${INSDG_TEST_MESHES})

add_executable(fuzz_gmsh ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_gmsh.c)
target_link_libraries(fuzz_gmsh PRIVATE insdg_core)
add_test(NAME gmsh_fuzz COMMAND fuzz_gmsh ${INSDG_TEST_MESHES} 4000)
set_tests_properties(gmsh_read gmsh_fuzz PROPERTIES LABELS unit TIMEOUT 60)

# name, then the regex its one-line message must match (after "insdg: error: <dir>/")
set(INSDG_BAD_MESHES
  bad_truncated   "bad_truncated\\.msh:122: unexpected end of file in \\$Elements \\(expected 58 elements, read 20\\)"
  bad_elemtype    "bad_elemtype\\.msh:70: element 24: unsupported element type 3 \\(4-node quadrangle\\)"
  bad_version     "bad_version\\.msh:2: unsupported Gmsh format version 3\\.0"
  bad_number      "bad_number\\.msh:19: malformed number '0\\.5x'"
  bad_inverted    "bad_inverted\\.msh:71: element 25: .*inverted"
  bad_degenerate  "bad_degenerate\\.msh:73: element 27: .*degenerate"
  bad_degenerate2 "bad_degenerate2\\.msh:73: element 27: .*degenerate"
  bad_threefaces  "bad_threefaces\\.msh:106: element 59: .*three"
  bad_nophys      "bad_nophys\\.msh:[0-9]+: element [0-9]+: .*no physical group"
  bad_duplicate   "bad_duplicate\\.msh:105: elements 19 and 59 have the same three nodes"
  bad_nan_coord   "bad_nan_coord\\.msh:35: node 22: y = nan is not a finite number"
  bad_huge_coord  "bad_huge_coord\\.msh:35: node 22: x = 4\\.308090314147045e\\+20 is too large")

set(_bad ${INSDG_BAD_MESHES})
while(_bad)
  list(POP_FRONT _bad _name _regex)
  add_test(NAME gmsh_cli_${_name}
           COMMAND ${CMAKE_COMMAND}
                   -DCMD=$<TARGET_FILE:insdg>\;mesh\;${INSDG_TEST_MESHES}/${_name}.msh
                   "-DREGEX=^insdg: error: .*/${_regex}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_user_error.cmake)
  set_tests_properties(gmsh_cli_${_name} PROPERTIES LABELS unit)
endwhile()
