# verify.cmake -- the verification scripts of tools/ in their --quick mode (label verify),
# included from tests/CMakeLists.txt. Each runs `insdg run` a few times (one process, one
# StarPU worker) on a small subset of its study, writes into build/tests/verify/<name>
# (never into docs/ or cases/) and exits non-zero when a measured rate misses its
# expectation (docs/verification.md gives the full runs and the tolerances):
#  verify_taylor_spatial   N = 2, 3 on the 36- and 144-triangle meshes, T = 0.1: u rate
#                          >= N + 0.5, p rate >= N - 0.5
#  verify_taylor_temporal  N = 6, Ns = 0 and 2, dt = 0.01 and 0.005, T = 0.2: order >= 1.7;
#                          largest stable dt (T = 1) scanned from 0.02 to 0.08 for Ns = 0, 8:
#                          Ns = 8's more than twice Ns = 0's
#  verify_kovasznay        N = 2..5 on the Kovasznay mesh, T = 0.1: the error falls by >= 2
#                          per order
#  verify_couette          circular Couette flow on curved annulus meshes, N = 2..4 and
#                          N = 3 on 16 and 64 triangles: curved error falls >= 3x per order,
#                          h-rate >= N + 0.5; the polygon's stalls (rate <= 2.6)
# Python: INSDG_SYSTEM_PYTHON (tests/ugrid.cmake), the one with numpy and matplotlib.
if(NOT INSDG_SYSTEM_PYTHON)
  set(INSDG_SYSTEM_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with numpy and netCDF4 (Debian's)")
endif()
foreach(_study taylor_spatial taylor_temporal kovasznay couette)
  add_test(NAME verify_${_study}
           COMMAND ${INSDG_SYSTEM_PYTHON} ${CMAKE_SOURCE_DIR}/tools/verify_${_study}.py --quick
                   --insdg $<TARGET_FILE:insdg> --workdir ${CMAKE_CURRENT_BINARY_DIR}/verify/${_study})
  set_tests_properties(verify_${_study} PROPERTIES LABELS verify ENVIRONMENT "${INSDG_MPI_ENV};MPLBACKEND=Agg"
                       TIMEOUT 300 PASS_REGULAR_EXPRESSION "all checks passed")
endforeach()
