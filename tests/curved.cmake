# curved.cmake -- curved (isoparametric) boundary elements (src/curved.c, src/ops_curved.c):
# the annulus meshes of tests/meshes/annulus.py, then test_curved (geometry, exactness,
# symmetry, Poisson convergence curved vs straight). Label: curved.
set(INSDG_CURVED_MESHES ${CMAKE_CURRENT_BINARY_DIR}/curved_meshes)
add_test(NAME curved_meshes COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/meshes/annulus_set.sh ${INSDG_CURVED_MESHES} 6 4)
set_tests_properties(curved_meshes PROPERTIES FIXTURES_SETUP curved_meshes LABELS "unit;curved")

add_executable(test_curved test_curved.c)
target_link_libraries(test_curved PRIVATE insdg_core insdg_io_nc)
add_test(NAME curved_operators COMMAND test_curved ${INSDG_CURVED_MESHES} 4 4)
set_tests_properties(curved_operators PROPERTIES FIXTURES_REQUIRED curved_meshes LABELS "unit;curved")

# The whole solver on curved elements through `insdg run`: circular Couette flow on the
# order-4 annulus (tests/cases/run_couette.ini), errors and forces checked by check_run.py,
# the probes in curved elements (one between a chord and its arc) against the exact flow,
# and the same on 2 ranks and 4 blocks (curved elements on both ranks) to 1e-8
insdg_run_test(run_couette 1 run_couette.ini --blocks 3)
set_property(TEST run_couette APPEND PROPERTY LABELS curved)
insdg_run_check(run_couette run_couette_out --steps 5 --files 1 --forces inner --coefficients
                --max-error u=1e-3 v=1e-3 p=2e-2)
insdg_run_test(run_couette_mpi2 2 run_couette.ini --blocks 4)
set_property(TEST run_couette_mpi2 APPEND PROPERTY LABELS curved)
add_test(NAME check_run_couette_probes
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_couette_probes.py ${_run_out}/run_couette
                 ${_run_out}/run_couette_mpi2)
set_tests_properties(check_run_couette_probes PROPERTIES LABELS "mpi;curved"
                     FIXTURES_REQUIRED "run_couette_out;run_couette_mpi2_out" PASS_REGULAR_EXPRESSION "couette probes: ok")
