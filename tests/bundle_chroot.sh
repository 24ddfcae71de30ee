#!/usr/bin/env bash
# bundle_chroot.sh BUNDLE.tar.xz -- the ctest `bundle_no_gpu` (label bundle): the GPU
# bundle of tools/gpu-bundle.sh must run where none of our Debian packages are. It builds
# a root that holds only
#   - glibc (the files of Debian's libc6 and libc-bin),
#   - a shell and the commands gpu-check.sh calls (bash, coreutils, sed, grep, mawk, tar,
#     gzip and the libraries they link: what any Linux machine has),
#   - CUDA's runtime libraries (/usr/local/cuda's library folder, bound read-only),
#   - the unpacked bundle,
# and runs `gpu-check.sh --no-gpu` there (chroot in a private mount namespace, with /proc,
# /sys and /dev bound): Open MPI starts 2 ranks, StarPU starts with 0 CUDA workers,
# insdg runs the Taylor vortex on 1 and 2 ranks. gpu-check.sh also fails if any library of
# the bundle resolves outside the bundle, glibc and CUDA's folder. Needs root.
set -euo pipefail
bundle="$(realpath "$1")"
[ -f "$bundle" ] || { echo "bundle_chroot: $bundle not found: make it with tools/gpu-bundle.sh" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bundle_chroot: needs root (chroot, mounts)" >&2; exit 1; }
cuda_lib="$(realpath /usr/local/cuda/lib64)"
[ -e "$cuda_lib/libcudart.so.13" ] || { echo "bundle_chroot: no CUDA 13 runtime in $cuda_lib" >&2; exit 1; }

root="$(mktemp -d /tmp/insdg-bundle-root.XXXXXX)"
trap 'rm -rf "$root"' EXIT
# Debian's merged /usr: /bin, /lib, /lib64, /sbin are links into /usr
mkdir -p "$root/usr/bin" "$root/usr/lib" "$root/usr/lib64" "$root/usr/sbin"
for d in bin lib lib64 sbin; do ln -s "usr/$d" "$root/$d"; done
# the packages' files (regular files and links), each under /usr
for p in libc6 libc-bin bash libtinfo6 coreutils libacl1 libattr1 libselinux1 libpcre2-8-0 libgmp10 \
         sed grep mawk tar gzip; do
  dpkg -L "$p" | while read -r f; do
    [ -d "$f" ] && [ ! -L "$f" ] && continue
    [ -e "$f" ] || [ -L "$f" ] || continue
    case "$f" in /usr/*) dst="$root$f" ;; *) dst="$root/usr$f" ;; esac
    mkdir -p "$(dirname "$dst")"
    cp -a "$f" "$dst"
  done
done
ln -sf mawk "$root/usr/bin/awk"
[ -e "$root/usr/bin/sh" ] || ln -s bash "$root/usr/bin/sh"   # /bin/sh: tar runs gzip through it
mkdir -p "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/opt" "$root/usr/local/cuda/lib64" "$root/etc"
chmod 1777 "$root/tmp"
echo "root:x:0:0:root:/root:/bin/bash" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
echo "127.0.0.1 localhost $(uname -n)" >"$root/etc/hosts"
tar -C "$root/opt" -xJf "$bundle"
echo "bundle_chroot: root $root: $(du -sm --exclude=opt "$root" | cut -f1) MiB of system files, bundle $(du -sm "$root/opt" | cut -f1) MiB"

unshare -m --propagation private bash -euc '
  root=$1 cuda_lib=$2
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  mount --bind "$cuda_lib" "$root/usr/local/cuda/lib64"
  mount -o remount,bind,ro "$root/usr/local/cuda/lib64"
  exec chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp TMPDIR=/tmp \
    /bin/bash /opt/insdg-gpu/gpu-check.sh --no-gpu --out /tmp/results
' _ "$root" "$cuda_lib"
