# Operator and mesh-geometry tests (src/mesh.c, src/block.c, src/ops_cpu.c).
add_executable(test_ops test_ops.c)
target_link_libraries(test_ops PRIVATE insdg_core)
add_test(NAME ops_exactness COMMAND test_ops ${INSDG_TEST_MESHES})
set_tests_properties(ops_exactness PROPERTIES LABELS unit)
