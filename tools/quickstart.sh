#!/usr/bin/env bash
# Quick start: install dependencies (Debian), build insdg, mesh the square case with Gmsh,
# run the operator demonstration through the StarPU-MPI task graph on 2 ranks x 4 blocks,
# write the fields to NetCDF-UGRID, and read that file back with Python's netCDF4 (a
# reader that is not ours). Run from anywhere as root or a sudoer on Debian bookworm.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"

# mpirun as root in a container needs these; StarPU: quiet, no pinning on shared cores
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export STARPU_SILENT=1 STARPU_WORKERS_NOBIND=1

mkdir -p build/cases
for h in 0.2 0.1 0.05; do
  gmsh -2 -v 0 -format msh41 -setnumber h "$h" cases/square/square.geo -o "build/cases/square_h$h.msh"
done
./build/insdg mesh build/cases/square_h0.05.msh --order 4
for h in 0.2 0.1 0.05; do
  mpirun -np 2 ./build/insdg demo "build/cases/square_h$h.msh" --order 4 --blocks 8 \
    --output "build/cases/demo_h$h.nc"
done
/usr/bin/python3 tools/ncsummary.py build/cases/demo_h0.05.nc
