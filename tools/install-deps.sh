#!/usr/bin/env bash
# Install insdg's build and run dependencies from Debian's packages (bookworm). Idempotent:
# does nothing when everything is already installed. Needs root (or sudo).
#   --slurm  also Slurm's daemons, client and munge, for the ctest label slurm (CI); left out
#            by default: on a machine with systemd their packages start the daemons
set -euo pipefail
packages=(
  build-essential pkg-config cmake
  liblapacke-dev libopenblas-dev        # reference element and tests (LAPACK), BLAS
  gmsh                                  # meshes for the cases and the demonstration
  libopenmpi-dev openmpi-bin libstarpu-dev starpu-tools libmetis-dev   # StarPU-MPI runtime, METIS blocks
  libjemalloc-dev                       # malloc of the task-graph programs (CMakeLists.txt, INSDG_ALLOCATOR)
  libnetcdf-dev libnetcdf-mpi-dev netcdf-bin libinih-dev libmuparser-dev   # I/O: parallel NetCDF, case files
  hipcc libamdhip64-dev                 # compiles the HIP build of the GPU kernels
  libhypre-dev                          # hypre BoomerAMG for the solver comparison
  python3-numpy python3-matplotlib python3-netcdf4 python3-xarray      # tools/ plots; xarray: the CF check of tests/check_ugrid.py
  xz-utils mawk dpkg-dev patch          # GPU bundle (tools/gpu-bundle.sh, tests/bundle_chroot.sh), StarPU source
  clang libclang-rt-14-dev              # libFuzzer targets of the input readers (tests/fuzz)
)
[ "${1:-}" = "--slurm" ] && packages+=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
