#!/usr/bin/env bash
# gpu-bundle.sh -- everything insdg needs on a GPU machine that has none of our Debian
# packages, in one tar.xz: insdg, test_gpu and bench_gpu built against the project's
# StarPU with CUDA (tools/build-starpu.sh) for sm_80 and sm_90; their library closure
# except glibc and CUDA's own libraries (StarPU, Open MPI with its plugins, help files,
# orterun/orted, PMIx plugins, METIS, NetCDF/HDF5, muparser, inih, OpenBLAS, LAPACKE,
# hwloc, ...); the cases; and gpu-check.sh (tools/gpu-check.sh), the one command to run
# there:
#
#   tar xJf insdg-gpu-bundle.tar.xz && insdg-gpu/gpu-check.sh --out results
#
# Usage: tools/gpu-bundle.sh [--out FILE] [--build DIR] [--max-mib M]
#   --out      the bundle (default build/insdg-gpu-bundle.tar.xz)
#   --build    the CUDA build of insdg (default build-cuda; configured and built here)
#   --max-mib  fail when the bundle is larger (default 48)
# Needs nvcc (/usr/local/cuda/bin or PATH) and the Debian packages of tools/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
OUT="$ROOT/build/insdg-gpu-bundle.tar.xz"
BUILD="$ROOT/build-cuda"
MAX_MIB=48
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$(realpath -m "$2")"; shift 2 ;;
    --build) BUILD="$(realpath -m "$2")"; shift 2 ;;
    --max-mib) MAX_MIB="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "gpu-bundle: unknown option $1" >&2; exit 2 ;;
  esac
done
export PATH="/usr/local/cuda/bin:$PATH"
command -v nvcc >/dev/null || { echo "gpu-bundle: nvcc not found (CUDA toolkit needed)" >&2; exit 1; }

# ---- 1. StarPU with CUDA, insdg against it ---------------------------------------------------
# StarPU's blocking drivers (tools/build-starpu.sh's default, for CPU runs) turn the CUDA
# workers' task pipeline off (STARPU_CUDA_PIPELINE = 0: one task at a time, a stream
# synchronisation after each); a GPU node gives its CUDA workers their cores anyway, so
# the bundle's StarPU keeps StarPU's polling drivers.
STARPU="$ROOT/build/starpu-gpu"
bash tools/build-starpu.sh --prefix "$STARPU" --no-blocking-drivers
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DINSDG_NATIVE=OFF -DINSDG_HIP=OFF \
    -DINSDG_STARPU_PREFIX="$STARPU" -DCMAKE_CUDA_ARCHITECTURES="80;90"
fi
grep -q '^INSDG_STARPU_HAS_CUDA:INTERNAL=1' "$BUILD/CMakeCache.txt" ||
  { echo "gpu-bundle: $BUILD is not built against a StarPU with CUDA" >&2; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target insdg test_gpu bench_gpu

# ---- 2. the tree ---------------------------------------------------------------------------
STAGE="$ROOT/build/bundle"
B="$STAGE/insdg-gpu"
rm -rf "$STAGE"
mkdir -p "$B/bin" "$B/lib/openmpi3" "$B/lib/pmix" "$B/share" "$B/etc" "$B/tools" "$B/cases/bench"
cp "$BUILD/insdg" "$BUILD/tests/test_gpu" "$BUILD/bench/bench_gpu" "$B/bin/"
cp "$(command -v orterun)" "$(command -v orted)" "$B/bin/"
ln -s orterun "$B/bin/mpirun"
cp tools/gpu-check.sh "$B/"
cp tools/compare_runs.py tools/plot_gpu_roofline.py "$B/tools/"
for c in taylor_vortex square_cylinder kovasznay cylinder; do cp -r "cases/$c" "$B/cases/"; done
gmsh -2 -v 0 -format msh41 -setnumber h 0.035 cases/taylor_vortex/square.geo -o "$B/cases/bench/square_h0.035.msh"
echo "insdg $(git describe --always --dirty 2>/dev/null || echo unknown), StarPU $(cat "$STARPU/build-starpu.stamp" 2>/dev/null | head -1), built $(date -u +%F) on $(. /etc/os-release; echo "$PRETTY_NAME")" >"$B/VERSION"

# Open MPI's plugins (dlopened, so ldd of the programs does not see them): all but those
# for networks a one-node GPU check does not use and whose libraries we do not carry.
OMPI_PKGLIB="$(ompi_info --path pkglibdir --parsable | sed 's/.*://')"
OMPI_DATA="$(ompi_info --path pkgdatadir --parsable | sed 's/.*://')"
OMPI_ETC="$(ompi_info --path sysconfdir --parsable | sed 's/.*://')"
network='libucp|libuct|libucs|libucm|libfabric|libibverbs|librdmacm|libpsm|libhcoll|libmxm|libnl-|libxpmem|libknem|libjvm|libjava'
for p in "$OMPI_PKGLIB"/*.so; do
  ldd "$p" 2>/dev/null | grep -qE "$network" || cp "$p" "$B/lib/openmpi3/"
done
PMIX_PLUGINS="$(dirname "$(realpath "$(ldd "$OMPI_PKGLIB"/mca_pmix_ext3x.so | awk '/libpmix\.so/{print $3}')")")/pmix"
cp "$PMIX_PLUGINS"/*.so "$B/lib/pmix/"
cp -r "$OMPI_DATA" "$B/share/openmpi"
cp -r "$OMPI_ETC" "$B/etc/openmpi"

# ---- 3. the library closure: everything ldd resolves, but glibc and CUDA -------------------
# glibc= and cuda=: the libraries the GPU machine must have, one definition for the bundle
# and for gpu-check.sh, which fails on any other library found outside the bundle
eval "$(grep -E "^(glibc|cuda)='" tools/gpu-check.sh)"
objects=("$B"/bin/insdg "$B"/bin/test_gpu "$B"/bin/bench_gpu "$B"/bin/orterun "$B"/bin/orted
         "$B"/lib/openmpi3/*.so "$B"/lib/pmix/*.so)
ldd "${objects[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r soname path; do
    if [[ "$soname" =~ $glibc || "$soname" =~ $cuda ]]; then continue; fi
    [ -e "$B/lib/$soname" ] || cp -L "$path" "$B/lib/$soname"
  done
if ldd "${objects[@]}" 2>/dev/null | grep -q "not found"; then
  echo "gpu-bundle: unresolved libraries:" >&2
  ldd "${objects[@]}" 2>/dev/null | grep "not found" | sort -u >&2
  exit 1
fi
strip --strip-unneeded "$B"/lib/*.so* "$B"/lib/openmpi3/*.so "$B"/lib/pmix/*.so "$B"/bin/orte* 2>/dev/null || true

# ---- 4. the archive ---------------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
tar -C "$STAGE" -cf - insdg-gpu | xz -T0 -6 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
mib=$(( ($(stat -c %s "$OUT") + 1048575) / 1048576 ))
echo "gpu-bundle: $OUT: $mib MiB ($(find "$B/lib" -name '*.so*' | wc -l) libraries, $(du -sm "$B" | cut -f1) MiB unpacked)"
echo "gpu-bundle: on the GPU machine: tar xJf $(basename "$OUT") && insdg-gpu/gpu-check.sh --out results"
if [ "$mib" -gt "$MAX_MIB" ]; then
  echo "gpu-bundle: the bundle is larger than $MAX_MIB MiB" >&2
  exit 1
fi
