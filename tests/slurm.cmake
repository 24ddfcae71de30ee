# jobs/insdg-cpu.sbatch on a real one-node Slurm that the test starts and stops itself
# (tests/check_slurm.py): a 2-rank job equal to mpirun's, the continuation chain after a
# USR1 bitwise equal to an uninterrupted run, a finished case not resubmitted, a failure
# ending the chain. Skipped (77) without Slurm (tools/install-deps.sh --slurm; CI installs
# it). Label slurm; serial: the one node's 2 CPUs go to one job at a time.
add_test(NAME slurm_cpu_jobs COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_slurm.py
         $<TARGET_FILE:insdg> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/slurm_work)
set_tests_properties(slurm_cpu_jobs PROPERTIES LABELS slurm TIMEOUT 900 RUN_SERIAL TRUE SKIP_RETURN_CODE 77
                     ENVIRONMENT "STARPU_HOME=${CMAKE_BINARY_DIR}")
