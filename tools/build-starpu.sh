#!/usr/bin/env bash
# Build Debian's StarPU 1.3.10 source package (1.3.10+dfsg-2) into a private prefix, with
# MPI, 128 CPU workers per process, 8 CUDA devices, blocking drivers and, where nvcc
# exists, CUDA (patched for CUDA 13 by tools/starpu-cuda13.patch); an idle worker that
# polls yields its core between polls and polls 200 us before it blocks
# (tools/starpu-idle-workers.patch).
#
#   tools/build-starpu.sh [--prefix P] [--no-cuda] [--no-blocking-drivers] [--workdir W] [-j N]
#
#   --prefix P               install prefix (default: build/starpu in the repository)
#   --no-cuda                build without CUDA even where nvcc exists
#   --no-blocking-drivers    keep StarPU's default non-blocking (polling) drivers
#   --workdir W              download, source and build tree (default: build/starpu-src)
#   -j N                     parallel make jobs (default: nproc)
#
# The source comes through a private APT configuration (APT_CONFIG under the work
# directory: its own sources.list with one deb-src line for bookworm from the system's
# mirror, its own lists and cache); no system file is changed. Needs dpkg-dev (installed
# with apt-get when missing), a C compiler, make, mpicc and hwloc (tools/install-deps.sh).
# Idempotent: a stamp file in the prefix records the version, the options and the patches;
# when it matches, nothing is done. Then configure insdg with
#   cmake -S . -B build-cudastarpu -DINSDG_STARPU_PREFIX=P
# or PKG_CONFIG_PATH=P/lib/pkgconfig.
set -euo pipefail

DEB_VERSION=1.3.10+dfsg-2
VERSION=1.3.10
SUITE=bookworm

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
patch_files=("$repo/tools/starpu-cuda13.patch" "$repo/tools/starpu-idle-workers.patch")   # in this order
prefix=$repo/build/starpu
work=$repo/build/starpu-src
want_cuda=yes
blocking=yes
jobs=$(nproc)

die() { echo "build-starpu: error: $*" >&2; exit 1; }
say() { echo "build-starpu: $*"; }
usage() { sed -n '2,14s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --workdir) [ $# -ge 2 ] || die "--workdir needs a directory"; work=$2; shift 2 ;;
    --workdir=*) work=${1#--workdir=}; shift ;;
    --no-cuda) want_cuda=no; shift ;;
    --no-blocking-drivers) blocking=no; shift ;;
    -j) [ $# -ge 2 ] || die "-j needs a number"; jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done
[ -n "$prefix" ] || die "empty --prefix"
prefix=$(realpath -m -- "$prefix")
work=$(realpath -m -- "$work")
for f in "${patch_files[@]}"; do [ -f "$f" ] || die "missing $f"; done

# ---- CUDA: on where nvcc exists (/usr/local/cuda/bin/nvcc or on PATH), unless --no-cuda.
# configure must be told explicitly: /usr/local holds CUDA links here, so it would turn
# CUDA on by itself unless --disable-cuda.
cuda_dir=""
if [ "$want_cuda" = yes ]; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    cuda_dir=/usr/local/cuda
  elif nvcc_path=$(command -v nvcc 2>/dev/null); then
    cuda_dir=$(dirname "$(dirname "$nvcc_path")")
  fi
fi

configure_args=(
  "--prefix=$prefix"
  --disable-opencl --disable-build-doc --disable-build-examples --disable-build-tests
  --disable-fortran --disable-starpufft --disable-socl
  --enable-maxcpus=128 --enable-maxcudadev=8 --disable-static --enable-mpi
)
if [ "$blocking" = yes ]; then
  configure_args+=(--enable-blocking-drivers)
else
  configure_args+=(--disable-blocking-drivers)
fi
if [ -n "$cuda_dir" ]; then
  configure_args+=("--with-cuda-dir=$cuda_dir" "NVCCFLAGS=-Xcompiler -fPIC")
  options="CUDA $cuda_dir"
else
  configure_args+=(--disable-cuda)
  options="no CUDA"
fi
options+=", MPI, max CPUs 128, max CUDA devices 8"
if [ "$blocking" = yes ]; then options+=", blocking drivers"; else options+=", non-blocking drivers"; fi

patch_sum=$(cat "${patch_files[@]}" | sha256sum | cut -c1-16)
stamp_file=$prefix/build-starpu.stamp
stamp="StarPU $DEB_VERSION; $options; patch $patch_sum; configure ${configure_args[*]}"

# ---- already built?
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] &&
   [ -f "$prefix/lib/pkgconfig/starpumpi-1.3.pc" ] && [ -f "$prefix/include/starpu/1.3/starpu_config.h" ]; then
  say "$prefix already holds StarPU $VERSION ($options)"
  say "use PKG_CONFIG_PATH=$prefix/lib/pkgconfig or cmake -DINSDG_STARPU_PREFIX=$prefix"
  exit 0
fi

# ---- prerequisites
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ! command -v dpkg-source >/dev/null || ! command -v patch >/dev/null; then
  say "installing dpkg-dev (apt-get source needs dpkg-source)"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends dpkg-dev patch ||
    die "could not install dpkg-dev"
fi
for tool in cc make mpicc pkg-config; do
  command -v "$tool" >/dev/null || die "'$tool' not found: run tools/install-deps.sh first"
done
pkg-config --exists hwloc || die "hwloc (libhwloc-dev) not found: run tools/install-deps.sh first"
if [ -n "$cuda_dir" ] && [ ! -x "$cuda_dir/bin/nvcc" ]; then
  die "nvcc not found at $cuda_dir/bin/nvcc"
fi

mkdir -p "$work"
start=$(date +%s)

# ---- source: apt-get source through a private APT configuration
dsc=$work/download/starpu_$DEB_VERSION.dsc
if [ ! -f "$dsc" ]; then
  # The mirror of the system's bookworm/main 'deb' lines (apt-cache policy reads both the
  # one-line and the deb822 formats); deb.debian.org if none is found.
  mirror=$(apt-cache policy 2>/dev/null | awk -v s="$SUITE/main" '$3 == s && $2 ~ /^https?:/ {print $2; exit}')
  mirror=${mirror:-http://deb.debian.org/debian}
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  signed=""
  [ -f "$keyring" ] && signed="[signed-by=$keyring] "
  apt_dir=$work/apt
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources.list.d" "$work/download"
  echo "deb-src ${signed}$mirror $SUITE main" > "$apt_dir/sources.list"
  cat > "$apt_dir/apt.conf" <<EOF
Dir::Etc::sourcelist "$apt_dir/sources.list";
Dir::Etc::sourceparts "$apt_dir/sources.list.d";
Dir::State::lists "$apt_dir/lists";
Dir::Cache "$apt_dir/cache";
Dir::Cache::archives "$apt_dir/cache/archives";
APT::Sandbox::User "root";
EOF
  say "fetching starpu=$DEB_VERSION from $mirror (deb-src, private APT_CONFIG=$apt_dir/apt.conf)"
  export APT_CONFIG=$apt_dir/apt.conf
  apt-get -q update || die "apt-get update (private sources list) failed"
  (cd "$work/download" && apt-get -q source --download-only "starpu=$DEB_VERSION") ||
    die "apt-get source starpu=$DEB_VERSION failed"
  unset APT_CONFIG
  [ -f "$dsc" ] || die "apt-get source left no $dsc"
fi

# ---- unpack (with Debian's patches) and apply ours; redone when the patch changes
src=$work/src
if [ ! -f "$src/.insdg-patched" ] || [ "$(cat "$src/.insdg-patched")" != "$patch_sum" ]; then
  rm -rf "$src"
  say "unpacking $(basename "$dsc")"
  # (The files were checked by apt against the signed Sources index; dpkg-source's own
  # check of the .dsc signature needs debian-keyring, hence its log rather than the screen.)
  dpkg-source -x "$dsc" "$src" > "$work/dpkg-source.out" 2>&1 ||
    { cat "$work/dpkg-source.out" >&2; die "dpkg-source -x failed"; }
  for f in "${patch_files[@]}"; do
    say "applying $(basename "$f")"
    patch -d "$src" -p1 --forward --quiet < "$f" || die "$(basename "$f") does not apply"
  done
  echo "$patch_sum" > "$src/.insdg-patched"
fi
grep -q 'AC_ARG_ENABLE(blocking-drivers' "$src/configure.ac" ||
  die "this StarPU source has no --enable-blocking-drivers"

# ---- configure, make, install (out of tree: one build dir per option set)
if [ -n "$cuda_dir" ]; then bdir=$work/build-cuda; else bdir=$work/build-nocuda; fi
[ "$blocking" = yes ] || bdir+=-nonblocking
rm -rf "$bdir"
mkdir -p "$bdir"
[ -z "$cuda_dir" ] || export PATH="$cuda_dir/bin:$PATH"
say "configure ($options) in $bdir"
(cd "$bdir" && "$src/configure" "${configure_args[@]}" > configure.out 2>&1) ||
  { tail -n 30 "$bdir/configure.out" >&2; die "configure failed (log: $bdir/configure.out)"; }
conf_h=$bdir/include/starpu_config.h
grep -q '^#define STARPU_USE_MPI 1' "$conf_h" || die "configure left MPI off (is mpicc working?) -- see $bdir/configure.out"
if [ -n "$cuda_dir" ]; then
  grep -q '^#define STARPU_USE_CUDA 1' "$conf_h" || die "configure left CUDA off -- see $bdir/configure.out"
else
  ! grep -q '^#define STARPU_USE_CUDA 1' "$conf_h" || die "configure turned CUDA on despite --disable-cuda"
fi
say "make -j$jobs (log: $bdir/make.out)"
make -C "$bdir" -j"$jobs" > "$bdir/make.out" 2>&1 ||
  { grep -n -m 20 -E 'error|Error' "$bdir/make.out" >&2 || true; die "make failed (log: $bdir/make.out)"; }
say "make install into $prefix"
# What an earlier run of this script installed there (other options) goes first.
if [ -f "$stamp_file" ]; then
  rm -rf "$stamp_file" "$prefix"/include/starpu "$prefix"/lib/libstarpu* "$prefix"/lib/libsocl* \
         "$prefix"/lib/pkgconfig/*starpu* "$prefix"/lib/pkgconfig/socl* "$prefix"/lib/starpu \
         "$prefix"/share/starpu "$prefix"/bin/starpu_*
fi
make -C "$bdir" install > "$bdir/install.out" 2>&1 || die "make install failed (log: $bdir/install.out)"
[ -f "$prefix/lib/pkgconfig/starpumpi-1.3.pc" ] || die "no $prefix/lib/pkgconfig/starpumpi-1.3.pc after install"
echo "$stamp" > "$stamp_file"

say "StarPU $VERSION ($options) installed in $prefix in $(( $(date +%s) - start )) s"
say "prefix: $prefix"
say "pkg-config path: $prefix/lib/pkgconfig  (PKG_CONFIG_PATH=$prefix/lib/pkgconfig, or cmake -DINSDG_STARPU_PREFIX=$prefix)"
