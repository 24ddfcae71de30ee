#!/bin/sh
# annulus_set.sh DIR QMAX LEVELS -- the annulus meshes of test_curved: ann_q<Q>_l<L>.msh for
# Q = 1..QMAX (Q = 1: the polygon) and L = 0..LEVELS-1 (1 * 2^L layers of 8 * 2^L cells),
# alternately in Gmsh formats 2.2 and 4.1 (both readers see curved meshes).
set -e
dir=$1 qmax=$2 levels=$3
here=$(dirname "$0")
mkdir -p "$dir"
q=1
while [ "$q" -le "$qmax" ]; do
  l=0
  while [ "$l" -lt "$levels" ]; do
    nr=$((1 << l)) nt=$((8 << l)) fmt=2.2
    [ $(((q + l) % 2)) -eq 1 ] && fmt=4.1
    python3 "$here/annulus.py" "$dir/ann_q${q}_l${l}.msh" --nr $nr --nt $nt --order $q --format $fmt
    l=$((l + 1))
  done
  q=$((q + 1))
done
