#!/bin/bash
# gpu-ranks-probe.sh -- on a GPU machine, from the repository root with
# build/insdg-gpu-bundle.tar.xz (tools/gpu-bundle.sh): the Taylor vortex N = 6 for 5 steps
# on 1 rank and on 2 ranks sharing the GPU, with the cores each rank may use varied (Open
# MPI's default binding of two ranks: one core each; 2 and 3 cores each; unbound, where
# insdg splits the node between them), and with --mps also under the MPS daemon. Prints
# each run's s per step and insdg's warnings (docs/performance.md "GPU"); then one traced run
# of 1 rank and of 2 unbound ranks (INSDG_TRACE, for tools/trace_summary.py), packed with the
# log into $PROBE_OUT/probe.tar.gz (default /tmp/probe).
#   bash tools/gpu-ranks-probe.sh [--mps | --mps-only]   (PROBE_NCUDA=0: on CPU workers only)
# --mps-only: 1 rank and 2 unbound ranks, without and with the MPS daemon, nothing else.
R=$PWD; cd /tmp && tar xJf $R/build/insdg-gpu-bundle.tar.xz; B=/tmp/insdg-gpu
export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib PATH=$B/bin:$PATH OPAL_PREFIX=$B
export OPAL_PKGLIBDIR=$B/lib/openmpi3 OPAL_PKGDATADIR=$B/share/openmpi OPAL_SYSCONFDIR=$B/etc/openmpi
export PMIX_MCA_mca_base_component_path=$B/lib/pmix OMPI_MCA_plm_rsh_agent=false OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader STARPU_SILENT=1
mkdir -p /tmp/probe && C=/tmp/probe/t6.ini && exec > >(tee /tmp/probe/probe.log) 2>&1
sed -e "s|^mesh *=.*|mesh = $B/cases/taylor_vortex/square.msh|" -e "s|^final_time *=.*|final_time = 0.05|" \
    -e "s|^output *=.*|output = /tmp/probe/unused|" -e "s|^interval *=.*|interval = 0|" $B/cases/taylor_vortex/taylor_vortex.ini > $C
n=0
go() {
  local what="$1"; shift; n=$((n + 1))
  echo "== $what"
  [ "$1" = orterun ] && "${@:1:$#-1}" grep -h Cpus_allowed_list /proc/self/status | sort | tr '\n' ' ' && echo
  timeout 90 env STARPU_NCUDA=${PROBE_NCUDA:-1} STARPU_NCPU=1 ${TRACE:+INSDG_TRACE=$TRACE} "$@" run $C --output /tmp/probe/r$n 2>&1 |
    grep -E "s per step|internal error|insdg: error|insdg: warning" | sort -u | tail -4
}
# the log and the traces, into $PROBE_OUT/probe.tar.gz
pack() {
  mkdir -p "${PROBE_OUT:-/tmp/probe}" &&
    tar czf "${PROBE_OUT:-/tmp/probe}/probe.tar.gz" -C /tmp/probe probe.log $(cd /tmp/probe && ls trace* 2>/dev/null)
}
go "1 rank, all cores" insdg
if [ "${1:-}" = --mps-only ]; then
  go "2 ranks, unbound (--bind-to none: insdg splits the node)" orterun -np 2 --bind-to none insdg
  nvidia-cuda-mps-control -d && echo "MPS daemon started" || echo "MPS daemon did not start"
  go "2 ranks, unbound, MPS" orterun -np 2 --bind-to none insdg
  go "1 rank, MPS" insdg
  TRACE=/tmp/probe/trace2r_mps go "2 ranks, unbound, MPS, traced" orterun -np 2 --bind-to none insdg
  echo quit | nvidia-cuda-mps-control
  pack
  exit 0
fi
go "1 rank, 1 core (taskset -c 0)" taskset -c 0 insdg
go "2 ranks, Open MPI's default binding (1 core each)" orterun -np 2 insdg
go "2 ranks, Open MPI's default binding, CPU workers only" orterun -np 2 -x STARPU_NCUDA=0 insdg
go "2 ranks, 2 cores each (--map-by slot:PE=2)" orterun -np 2 --map-by slot:PE=2 insdg
go "2 ranks, 3 cores each (--map-by slot:PE=3)" orterun -np 2 --map-by slot:PE=3 insdg
go "2 ranks, unbound (--bind-to none: insdg splits the node)" orterun -np 2 --bind-to none insdg
if [ "${1:-}" = --mps ]; then
  nvidia-cuda-mps-control -d && echo "MPS daemon started" || echo "MPS daemon did not start"
  go "2 ranks, unbound, MPS" orterun -np 2 --bind-to none insdg
  go "1 rank, MPS" insdg
  echo quit | nvidia-cuda-mps-control
fi
TRACE=/tmp/probe/trace1r go "1 rank, all cores, traced" insdg
TRACE=/tmp/probe/trace2r go "2 ranks, unbound, traced" orterun -np 2 --bind-to none insdg
pack
