# partition.cmake -- tests of partition/ (METIS blocks, renumbering, pair halos),
# included from tests/CMakeLists.txt (INSDG_TEST_MESHES = tests/meshes).
#  partition  layouts for several (ranks, blocks per rank) on hole41.msh and a generated
#             rectangle: coverage, renumbered mesh, pair halos, the gradient on blocks
#             equal bitwise to one block, determinism, errors
add_executable(test_partition ${CMAKE_CURRENT_SOURCE_DIR}/test_partition.c)
target_link_libraries(test_partition PRIVATE insdg_partition insdg_core)
add_test(NAME partition COMMAND test_partition ${INSDG_TEST_MESHES}/hole41.msh)
set_tests_properties(partition PROPERTIES LABELS unit TIMEOUT 60)
