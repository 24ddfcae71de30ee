#!/bin/bash
# gpu-rank.sh COMMAND... -- give this rank one GPU of its node, then run COMMAND.
# Used by insdg-nvidia.sbatch and insdg-amd.sbatch between the launcher and insdg: the
# rank's index on its node (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK, or srun's SLURM_LOCALID)
# picks the device among those the job was given (CUDA_VISIBLE_DEVICES or
# ROCR_VISIBLE_DEVICES as Slurm set them, else all: 0, 1, ...). INSDG_GPU_VENDOR: nvidia
# (default) or amd.
set -eu
local_rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-0}}
if [ "${INSDG_GPU_VENDOR:-nvidia}" = amd ]; then var=ROCR_VISIBLE_DEVICES; else var=CUDA_VISIBLE_DEVICES; fi
given=${!var:-}
if [ -n "$given" ]; then
  IFS=, read -r -a devices <<<"$given"
  if [ "$local_rank" -ge "${#devices[@]}" ]; then
    echo "gpu-rank.sh: rank $local_rank of this node has no GPU ($var=$given): one rank per GPU" >&2
    exit 2
  fi
  export "$var=${devices[$local_rank]}"
else
  export "$var=$local_rank"
fi
exec "$@"
