#!/bin/bash
# gpu-mps-probe.sh -- on a GPU machine, from the repository root with build/insdg-gpu-bundle.tar.xz
# (tools/gpu-bundle.sh): the Taylor vortex N = 6 for 5 steps on 1 rank and 2 ranks sharing the
# GPU, without and with the MPS daemon; prints the s per step of each (docs/performance.md).
R=$PWD; cd /tmp && tar xJf $R/build/insdg-gpu-bundle.tar.xz; B=/tmp/insdg-gpu
export LD_LIBRARY_PATH=$B/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib PATH=$B/bin:$PATH OPAL_PREFIX=$B
export OPAL_PKGLIBDIR=$B/lib/openmpi3 OPAL_PKGDATADIR=$B/share/openmpi OPAL_SYSCONFDIR=$B/etc/openmpi
export PMIX_MCA_mca_base_component_path=$B/lib/pmix OMPI_MCA_plm_rsh_agent=false OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader STARPU_SILENT=1
mkdir -p /tmp/mps && C=/tmp/mps/t6.ini
sed -e "s|^mesh *=.*|mesh = $B/cases/taylor_vortex/square.msh|" -e "s|^final_time *=.*|final_time = 0.05|" \
    -e "s|^output *=.*|output = /tmp/mps/unused|" -e "s|^interval *=.*|interval = 0|" $B/cases/taylor_vortex/taylor_vortex.ini > $C
go() { echo "== $1"; shift; timeout 120 env STARPU_NCUDA=1 STARPU_NCPU=1 STARPU_WORKERS_NOBIND=1 "$@" 2>&1 | grep -E "s per step|internal error|insdg: error" | tail -2; }
go "1 rank" insdg run $C --output /tmp/mps/r1
go "2 ranks, no MPS" orterun -np 2 insdg run $C --output /tmp/mps/r2
nvidia-cuda-mps-control -d && echo "MPS daemon started" || echo "MPS daemon did not start"
go "2 ranks, MPS" orterun -np 2 insdg run $C --output /tmp/mps/r2mps
go "1 rank, MPS" insdg run $C --output /tmp/mps/r1mps
echo quit | nvidia-cuda-mps-control
