# jobs/insdg-cpu.sbatch on a real one-node Slurm that the test starts and stops itself
# (tests/check_slurm.py): a 2-rank job equal to mpirun's, the continuation chain after a
# USR1 bitwise equal to an uninterrupted run, a finished case not resubmitted, a failure
# ending the chain. Skipped (77) without Slurm (tools/install-deps.sh --slurm; CI installs
# it). Label slurm; serial: the one node's 2 CPUs go to one job at a time.
# The chain's case: the short Taylor case for 3000 steps (checkpoints every 500). Slurm's
# signal path (scancel -> slurmctld -> slurmd -> the script's trap -> mpirun -> ranks) took
# more than the 0.75 s a 300-step case left on a fast CI machine, which finished first; 3000
# steps leave it seconds.
string(REPLACE "final_time = 3\n" "final_time = 30\n" _chain_text "${_sig_text}")
string(REPLACE "interval = 1\n" "interval = 5\n" _chain_text "${_chain_text}")
string(REPLACE "checkpoint_interval_steps = 100" "checkpoint_interval_steps = 500" _chain_text "${_chain_text}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/cases/run_slurm_chain.ini "${_chain_text}")
add_test(NAME slurm_cpu_jobs COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_slurm.py
         $<TARGET_FILE:insdg> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/slurm_work)
set_tests_properties(slurm_cpu_jobs PROPERTIES LABELS slurm TIMEOUT 900 RUN_SERIAL TRUE SKIP_RETURN_CODE 77
                     ENVIRONMENT "STARPU_HOME=${CMAKE_BINARY_DIR}")

# The GPU job scripts cannot run here (no GPU): their syntax, and gpu-rank.sh's choice of
# device: rank i of a node gets the i-th of the GPUs Slurm gave the job (or GPU i), a rank
# beyond them is refused (status 2).
add_test(NAME jobs_scripts_syntax COMMAND sh -c "for f in \"$0\"/*.sbatch \"$0\"/*.sh; do bash -n \"$f\" || exit 1; done; echo syntax ok" ${CMAKE_SOURCE_DIR}/jobs)
set_tests_properties(jobs_scripts_syntax PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "syntax ok")
set(_gr ${CMAKE_SOURCE_DIR}/jobs/gpu-rank.sh)
add_test(NAME jobs_gpu_rank COMMAND sh -c "set -e; a=$(CUDA_VISIBLE_DEVICES=4,5,6 OMPI_COMM_WORLD_LOCAL_RANK=1 \"$0\" printenv CUDA_VISIBLE_DEVICES); b=$(env -u CUDA_VISIBLE_DEVICES SLURM_LOCALID=3 \"$0\" printenv CUDA_VISIBLE_DEVICES); c=$(INSDG_GPU_VENDOR=amd ROCR_VISIBLE_DEVICES=0,1 OMPI_COMM_WORLD_LOCAL_RANK=0 \"$0\" printenv ROCR_VISIBLE_DEVICES); if CUDA_VISIBLE_DEVICES=0 OMPI_COMM_WORLD_LOCAL_RANK=1 \"$0\" true 2>/dev/null; then d=accepted; else d=refused; fi; echo \"devices $a $b $c $d\"" ${_gr})
set_tests_properties(jobs_gpu_rank PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "devices 5 3 0 refused")
