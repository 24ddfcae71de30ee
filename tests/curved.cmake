# curved.cmake -- curved (isoparametric) boundary elements (src/curved.c, src/ops_curved.c):
# the annulus meshes of tests/meshes/annulus.py, then test_curved (geometry, exactness,
# symmetry, Poisson convergence curved vs straight). Label: curved.
set(INSDG_CURVED_MESHES ${CMAKE_CURRENT_BINARY_DIR}/curved_meshes)
add_test(NAME curved_meshes COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/meshes/annulus_set.sh ${INSDG_CURVED_MESHES} 6 4)
set_tests_properties(curved_meshes PROPERTIES FIXTURES_SETUP curved_meshes LABELS "unit;curved")

add_executable(test_curved test_curved.c)
target_link_libraries(test_curved PRIVATE insdg_core)
add_test(NAME curved_operators COMMAND test_curved ${INSDG_CURVED_MESHES} 4 4)
set_tests_properties(curved_operators PROPERTIES FIXTURES_REQUIRED curved_meshes LABELS "unit;curved")
