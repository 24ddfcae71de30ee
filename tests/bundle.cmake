# bundle.cmake -- the project's StarPU and the GPU bundle (tools/build-starpu.sh,
# tools/gpu-bundle.sh), in a build against a StarPU with more than Debian's 4 CPU workers.
#  run_workers16       insdg on 16 CPU workers (hwloc shows a synthetic 16-core machine):
#                      summary.json must say 16, the results bitwise those of run_taylor; Debian's StarPU caps it at 4
#  bundle_no_gpu       (label bundle; with a CUDA StarPU) the bundle of tools/gpu-bundle.sh,
#                      unpacked into a root with only glibc, a shell and CUDA's libraries,
#                      runs `gpu-check.sh --no-gpu` (tests/bundle_chroot.sh)
if(INSDG_STARPU_MAXCPUS GREATER 4)
  insdg_run_test(run_workers16 1 run_taylor.ini --blocks 4)
  # its own bus files (STARPU_HOSTNAME): StarPU sees 16 CPUs where the process's binding,
  # which names the files otherwise (tasks/runtime.c), holds the machine's
  set_property(TEST run_workers16 APPEND PROPERTY ENVIRONMENT
               "STARPU_NCPU=16;HWLOC_SYNTHETIC=pack:1 core:16 pu:1;STARPU_HOSTNAME=insdg-synthetic16")
  insdg_run_check(run_workers16 run_workers16_out --steps 5 --files 4 --forces right left --coefficients
                  --max-error u=1e-3 v=1e-3 p=5e-3 --workers 16 --compare ${_run_out}/run_taylor --rtol 0)
  set_property(TEST check_run_workers16 APPEND PROPERTY FIXTURES_REQUIRED run_taylor_out)
endif()

if(INSDG_STARPU_HAS_CUDA AND TARGET insdg_cuda)
  set(INSDG_BUNDLE ${PROJECT_SOURCE_DIR}/build/insdg-gpu-bundle.tar.xz CACHE FILEPATH
      "The GPU bundle the test bundle_no_gpu unpacks (tools/gpu-bundle.sh makes it)")
  add_test(NAME bundle_no_gpu COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bundle_chroot.sh ${INSDG_BUNDLE})
  set_tests_properties(bundle_no_gpu PROPERTIES LABELS bundle TIMEOUT 600
                       PASS_REGULAR_EXPRESSION "gpu-check: all checks passed")
endif()
