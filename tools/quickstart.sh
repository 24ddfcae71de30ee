#!/usr/bin/env bash
# Quick start: install dependencies (Debian), build insdg, mesh the square case with Gmsh,
# and run the operator demonstration at several orders. Run from anywhere as root or a
# sudoer on Debian bookworm.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
mkdir -p build/cases
for h in 0.2 0.1 0.05; do
  gmsh -2 -v 0 -format msh41 -setnumber h "$h" cases/square/square.geo -o "build/cases/square_h$h.msh"
done
./build/insdg mesh build/cases/square_h0.1.msh --order 4
for h in 0.2 0.1 0.05; do
  for N in 2 4 6; do
    ./build/insdg demo "build/cases/square_h$h.msh" --order "$N"
  done
done
