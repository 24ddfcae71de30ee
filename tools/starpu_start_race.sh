#!/usr/bin/env bash
# StarPU's bus-file race at start-up (tasks/README.md, "Starting StarPU on the ranks of a
# node"), rerun: N times, on a new STARPU_HOME each time, one 1-rank run of a short Taylor
# vortex case, then the same case on 2 ranks (mpirun binds each to one core: both name
# their bus files <host>-1cpu); counts the 2-rank runs that fail and keeps their logs.
# Run it with the cores busy (e.g. two `while :; do :; done` loops) to widen the window.
#
#   tools/starpu_start_race.sh INSDG [N=20] [WORKDIR=/tmp/starpu-start-race]
set -u
insdg=$(realpath "${1:?usage: starpu_start_race.sh INSDG [N] [WORKDIR]}")
n=${2:-20}
work=${3:-/tmp/starpu-start-race}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export STARPU_SILENT=1 OPENBLAS_NUM_THREADS=1 HWLOC_HIDE_ERRORS=1 STARPU_HOME="$work/home"
sed -e "s|^mesh *=.*|mesh = $repo/cases/taylor_vortex/square.msh|" -e "s|^final_time *=.*|final_time = 0.01|" \
    -e "s|^output *=.*|output = $work/unused|" -e "s|^interval *=.*|interval = 0|" \
    "$repo/cases/taylor_vortex/taylor_vortex.ini" >"$work/case.ini"
fails=0
for i in $(seq 1 "$n"); do
  rm -rf "$work/home" "$work/out1" "$work/out2"
  STARPU_NCPU=1 "$insdg" run "$work/case.ini" --output "$work/out1" >"$work/log1" 2>&1
  if ! STARPU_NCPU=1 STARPU_WORKERS_NOBIND=1 mpirun -np 2 "$insdg" run "$work/case.ini" --output "$work/out2" \
       >"$work/log2" 2>&1; then
    fails=$((fails + 1))
    cp "$work/log2" "$work/fail_$i.log"
    grep -m1 "assert failure" "$work/log2"
  fi
done
echo "starpu_start_race: $fails of $n two-rank starts failed (logs: $work/fail_*.log)"
