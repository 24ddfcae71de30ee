#!/usr/bin/env bash
# Quick start: install dependencies (Debian), build insdg, run the Taylor vortex case of
# the paper (§4.1) end to end (300 steps to t = 3 at N = 6, about 10 s on 2 cores) and
# show its L2 errors against the exact solution; then mesh the square with Gmsh, run the
# operator demonstration on 2 MPI ranks x 4 blocks, and read its NetCDF-UGRID file back
# with Python's netCDF4 (a reader that is not ours). Run as root or a sudoer on Debian
# bookworm, from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
export PATH="/usr/local/cuda/bin:$PATH"
bash tools/build-starpu.sh --no-cuda   # StarPU with sleeping idle workers, into build/starpu (~2 min once)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DINSDG_STARPU_PREFIX="$PWD/build/starpu" >/dev/null
cmake --build build -j "$(nproc)"

# mpirun as root in a container needs these; StarPU: quiet
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export STARPU_SILENT=1

# the real case: Navier-Stokes, case file in, NetCDF + diagnostics.csv + summary.json out
./build/insdg run cases/taylor_vortex/taylor_vortex.ini --output out/taylor_vortex
/usr/bin/python3 - <<'PY'
import json
s = json.load(open("out/taylor_vortex/summary.json"))
print("taylor_vortex: N=%d K=%d steps=%d wall %.1f s; relative L2 errors u %.2e v %.2e p %.2e" % (
    s["N"], s["K"], s["steps"], s["wall_seconds"], s["errors"]["u"]["relative"], s["errors"]["v"]["relative"],
    s["errors"]["p"]["relative"]))
PY

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
