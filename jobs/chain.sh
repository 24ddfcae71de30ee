# chain.sh -- sourced by the batch scripts in jobs/: run one link of an insdg job chain.
#
#   insdg_chain CASE OUTDIR LAUNCHER...   (LAUNCHER...: the command line before "insdg run",
#                                         e.g. mpirun, or "mpirun jobs/gpu-rank.sh")
#
# Starts `LAUNCHER... $INSDG run CASE --output OUTDIR [--restart NEWEST]` in the background,
# passes USR1/TERM (Slurm's warning before the time limit, --signal=B:USR1@LEAD) on to it,
# and acts on insdg's exit status (docs/user_guide.md "Exit status"): 0 done; 3 (stopped,
# checkpoint written) resubmit this job script to start after this job with the same
# arguments (INSDG_JOB_SCRIPT: the script as submitted); anything else ends the chain.
# Guards: a stop without a newer checkpoint, or INSDG_MAX_LINKS jobs in the chain
# (default 50), end it too. Returns insdg's status.

INSDG=${INSDG:-insdg}

insdg_newest_checkpoint() { ls -1 "$1"/checkpoint_*.nc 2>/dev/null | sort | tail -n 1; }

insdg_chain() {
  local case=$1 out=$2 link=${INSDG_CHAIN_LINK:-1} max=${INSDG_MAX_LINKS:-50}
  shift 2
  local restart=() before after pid status
  before=$(insdg_newest_checkpoint "$out")
  [ -n "$before" ] && restart=(--restart "$before")
  echo "insdg-job: job ${SLURM_JOB_ID:-?} link $link of at most $max: ${SLURM_NTASKS:-1} rank(s), ${restart[*]:-from t = 0}"
  # bash runs a trap only between commands: insdg runs in the background and we wait for it
  "$@" "$INSDG" run "$case" --output "$out" "${restart[@]}" &
  pid=$!
  trap 'echo "insdg-job: time limit near: asking insdg to checkpoint and stop"; kill -USR1 $pid' USR1 TERM
  while :; do
    wait $pid
    status=$?
    kill -0 $pid 2>/dev/null || break   # wait returned because of the trap: insdg still runs
  done
  trap - USR1 TERM
  case $status in
    0) echo "insdg-job: the case is complete" ;;
    3)
      after=$(insdg_newest_checkpoint "$out")
      if [ -z "$after" ] || [ "$after" = "$before" ]; then
        echo "insdg-job: stopped without a new checkpoint: the chain ends here" >&2
      elif [ "$link" -ge "$max" ]; then
        echo "insdg-job: $max jobs in this chain: not resubmitting (INSDG_MAX_LINKS)" >&2
      elif INSDG_CHAIN_LINK=$((link + 1)) sbatch --dependency=afterany:"$SLURM_JOB_ID" "${INSDG_JOB_SCRIPT:-$0}" "$case" "$out"; then
        echo "insdg-job: stopped at $(basename "$after"); resubmitted to continue from it"
      else
        echo "insdg-job: resubmission failed: the chain ends here" >&2
      fi
      ;;
    *) echo "insdg-job: insdg exited with status $status: the chain ends here (docs/user_guide.md, Exit status)" >&2 ;;
  esac
  return $status
}
