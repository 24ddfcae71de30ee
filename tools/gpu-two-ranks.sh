#!/usr/bin/env bash
# gpu-two-ranks.sh -- chase the intermittent wrong results of two ranks on one GPU
# (docs/performance.md "The element products on the FP64 tensor cores, and two ranks on
# one GPU"): gpu-check.sh's taylor6_short case (N = 6, 5 steps) run by the bundle's insdg
# and by other insdg binaries (built against the same bundle's libraries, e.g. of older
# commits, xz-compressed or not), one line per run: exit status, seconds, the u error
# relative to the exact solution's norm, the last diagnostics row. 1 rank gives u error
# 2.0170e-04 and max_div_u 1.115158e-02 at step 5; a wrong run is far from it.
#
# On the GPU machine, from the repository root, with the bundle unpacked at .dev/insdg-gpu:
#   tools/gpu-two-ranks.sh                      # the settings: 1 rank, 1 rank 2 blocks, 2 ranks
#                                               # (CPU only, no CPU worker, unpipelined), then
#                                               # each binary of .dev/bis: 2 ranks, 1 rank 2 blocks
#   DIAG_BIS=dir tools/gpu-two-ranks.sh         # binaries from .dev/dir; each 2 ranks twice
#   DIAG_STATS=1 DIAG_BIS=dir tools/gpu-two-ranks.sh   # repeats: 8 x 2 ranks, 4 x eager,
#                                               # 4 x unpipelined, 6 x each binary of .dev/dir
#   DIAG_SETS=$'plain 10\nnoasync 10 STARPU_DISABLE_ASYNCHRONOUS_COPY=1' tools/gpu-two-ranks.sh
#                                               # per line: a name, a count of 2-rank runs, settings
# DIAG_WORK: the work directory (/tmp/diag); DIAG_GPU=0: CPU workers only (a dry run without
# a GPU). The run directories go to $OUT/diag.tgz or $OUT/stats.tgz (OUT: /tmp by default).
set -u
R=$(cd "$(dirname "$0")/.." && pwd); B=$R/.dev/insdg-gpu; W=${DIAG_WORK:-/tmp/diag}; rm -rf $W; mkdir -p $W/out $W/runs
cuda_libdirs=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do [ -e "$d/libcudart.so.13" ] && cuda_libdirs="$cuda_libdirs:$d"; done
export LD_LIBRARY_PATH="$B/lib${cuda_libdirs}" PATH="$B/bin:$PATH" OPAL_PREFIX="$B"
export OPAL_PKGLIBDIR="$B/lib/openmpi3" OPAL_PKGDATADIR="$B/share/openmpi" OPAL_SYSCONFDIR="$B/etc/openmpi"
export PMIX_MCA_mca_base_component_path="$B/lib/pmix" OMPI_MCA_plm_rsh_agent=false
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader
export STARPU_SILENT=1 STARPU_HOME=$W/starpu OPENBLAS_NUM_THREADS=1 HWLOC_HIDE_ERRORS=1
C=$B/cases
sed -e "s|^mesh *=.*|mesh = $C/taylor_vortex/square.msh|" -e "s|^final_time *=.*|final_time = 0.05|" \
    -e "s|^output *=.*|output = $W/out/unused|" -e "s|^interval *=.*|interval = 0|" \
    -e "s|^checkpoint_interval_seconds *=.*|checkpoint_interval_seconds = 0|" $C/taylor_vortex/taylor_vortex.ini > $W/t6.ini
for x in $R/.dev/${DIAG_BIS:-bis}/*.xz; do [ -e "$x" ] && xz -dk "$x" && chmod +x "${x%.xz}"; done
GPU=${DIAG_GPU:-1}
one() {   # NAME BIN NP ENV... [-- ARGS]
  local name=$1 bin=$2 np=$3; shift 3
  local envs=() args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  [ $# -gt 0 ] && shift && args=("$@")
  local cmd=("$bin" run $W/t6.ini --output $W/out/$name "${args[@]}")
  [ "$np" -gt 1 ] && cmd=(orterun -np $np --bind-to none "${cmd[@]}")
  local t0=$SECONDS
  timeout 60 env "${envs[@]}" "${cmd[@]}" < /dev/null > $W/runs/$name.log 2>&1; local rc=$?
  local last=$(tail -1 $W/out/$name/diagnostics.csv 2>/dev/null)
  printf "%-22s rc=%s %3ss err_u=%s | %s\n" "$name" "$rc" "$((SECONDS-t0))" \
    "$(grep -o '"relative": *[-0-9.eE+]*' $W/out/$name/summary.json 2>/dev/null | head -1 | sed 's/.*: *//')" "$(echo "$last" | cut -c1-110)"
}
NC=$([ "$GPU" = 1 ] && echo 1 || echo 0)
if [ -n "${DIAG_SETS:-}" ]; then   # "NAME COUNT ENV=VALUE..." per line: COUNT 2-rank runs each
  one head_1r $B/bin/insdg 1 STARPU_NCUDA=$NC STARPU_NCPU=1
  while read -r name count envs; do
    [ -n "$name" ] || continue
    for i in $(seq "$count"); do one ${name}_$i $B/bin/insdg 2 STARPU_NCUDA=$NC STARPU_NCPU=1 $envs; done
  done <<< "$DIAG_SETS"
  tar czf ${OUT:-/tmp}/sets.tgz -C $W runs out 2>/dev/null
  exit 0
fi
if [ -n "${DIAG_STATS:-}" ]; then   # repeated 2-rank runs: how often they go wrong
  one head_1r $B/bin/insdg 1 STARPU_NCUDA=$NC STARPU_NCPU=1
  for i in 1 2 3 4 5 6 7 8; do one head_2r_$i $B/bin/insdg 2 STARPU_NCUDA=$NC STARPU_NCPU=1; done
  for i in 1 2 3 4; do one head_2r_eager_$i $B/bin/insdg 2 STARPU_NCUDA=$NC STARPU_NCPU=1 STARPU_SCHED=eager; done
  for i in 1 2 3 4; do one head_2r_nopipe_$i $B/bin/insdg 2 STARPU_NCUDA=$NC STARPU_NCPU=1 STARPU_CUDA_PIPELINE=0; done
  for b in $R/.dev/${DIAG_BIS:-bis}/insdg-*; do [ -e "$b" ] || continue
    case "$b" in *.xz) continue ;; esac
    for i in 1 2 3 4 5 6; do one ${b##*/insdg-}_2r_$i $b 2 STARPU_NCUDA=$NC STARPU_NCPU=1; done
  done
  tar czf ${OUT:-/tmp}/stats.tgz -C $W runs out 2>/dev/null
  exit 0
fi
one head_1r      $B/bin/insdg 1 STARPU_NCUDA=$NC STARPU_NCPU=1
one head_2r      $B/bin/insdg 2 STARPU_NCUDA=$NC STARPU_NCPU=1
if [ -z "${DIAG_BIS:-}" ]; then
one head_1r_b2   $B/bin/insdg 1 STARPU_NCUDA=$NC STARPU_NCPU=1 -- --blocks 2
one head_2r_cpu  $B/bin/insdg 2 STARPU_NCUDA=0 STARPU_NCPU=1
one head_2r_ncpu0 $B/bin/insdg 2 STARPU_NCUDA=$NC STARPU_NCPU=0
one head_1r_b2_ncpu0 $B/bin/insdg 1 STARPU_NCUDA=$NC STARPU_NCPU=0 -- --blocks 2
one head_2r_nopipe $B/bin/insdg 2 STARPU_NCUDA=$NC STARPU_NCPU=1 STARPU_CUDA_PIPELINE=0
else
one head_2r_again $B/bin/insdg 2 STARPU_NCUDA=$NC STARPU_NCPU=1
one head_2r_sched_eager $B/bin/insdg 2 STARPU_NCUDA=$NC STARPU_NCPU=1 STARPU_SCHED=eager
one head_1r_b2_again $B/bin/insdg 1 STARPU_NCUDA=$NC STARPU_NCPU=1 -- --blocks 2
fi
for b in $R/.dev/${DIAG_BIS:-bis}/insdg-*; do [ -e "$b" ] || continue
  case "$b" in *.xz) continue ;; esac
  c=${b##*/insdg-}
  one ${c}_2r $b 2 STARPU_NCUDA=$NC STARPU_NCPU=1
  if [ -n "${DIAG_BIS:-}" ]; then one ${c}_2r_again $b 2 STARPU_NCUDA=$NC STARPU_NCPU=1
  else one ${c}_1r_b2 $b 1 STARPU_NCUDA=$NC STARPU_NCPU=1 -- --blocks 2; fi
done
head -3 $W/out/head_1r/diagnostics.csv | cut -c1-110
tar czf ${OUT:-/tmp}/diag.tgz -C $W runs out 2>/dev/null
