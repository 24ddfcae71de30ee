# CSR kernels, the probed SIPDG matrix and aggregation AMG (src/csr.c, src/assemble.c, src/amg.c).
add_executable(test_amg test_amg.c)
target_link_libraries(test_amg PRIVATE insdg_core insdg_partition)
add_test(NAME amg COMMAND test_amg)
set_tests_properties(amg PROPERTIES LABELS unit TIMEOUT 60)
