#!/usr/bin/env bash
# gpu-check.sh -- the GPU checks of insdg on a machine that has none of our Debian
# packages: glibc >= 2.36, the CUDA 13 runtime libraries and an NVIDIA GPU are all it
# needs. It lives at the top of the bundle that tools/gpu-bundle.sh makes, and runs
# everything from the bundle (insdg, test_gpu, bench_gpu, StarPU with CUDA, Open MPI).
#
#   gpu-check.sh [--out DIR] [--no-gpu] [--quick] [--cases "LIST"] [--no-mpi]
#
# With a GPU (the default):
#   a. test_gpu (every kernel and version against the CPU kernels, N = 1..10), then
#      compute-sanitizer memcheck (N = 1..2) and racecheck (N = 2) when it is on PATH, and
#      memcheck on 5 steps of insdg run on the CUDA worker;
#   b. bench_gpu: the kernels against the device's empirical roofline, CSV and plots;
#   c. insdg run of the Taylor vortex (N = 6, 42 triangles, 300 steps; and N = 4 on 1990
#      triangles, 100 steps, the bench_step case) and of a short square cylinder (N = 5,
#      Ns = 8, 20 steps), each with STARPU_NCUDA=1 and again on CPU workers only
#      (STARPU_NCUDA=0); the L2 errors (Taylor) and the last diagnostics row must agree to
#      1e-10 relative (INSDG_CHECK_RTOL), or to the solvers' tolerance 1e-8
#      (INSDG_CHECK_SOLVER_RTOL) when a last-bit difference moved a convergence test and
#      the iteration counts differ; ms per step by stage and StarPU's profile (time
#      in tasks vs in the runtime, summary.json "runtime") for both;
#   d. mpirun -np 2 with both ranks on the one GPU, against the 1-rank GPU run (5 steps),
#      and no rank warned of fewer cores than workers;
#   e. StarPU's performance-model samples of these runs.
# --no-gpu: the bundle's CPU path only (Open MPI starts, StarPU starts with 0 CUDA
#   workers, insdg run on CPU workers, 1 and 2 ranks); this is what the ctest `bundle`
#   runs in a root holding only glibc, the bundle and CUDA's runtime libraries.
# --quick: no sanitizers, no bench_gpu; c. on the small Taylor case only.
# --cases "LIST": the cases of c. (taylor6, taylor4_big, cylinder5, and cylinder_curved: the
#     circular cylinder at Re 20 on curved elements, N = 6, 20 steps; default all four,
#     or taylor6 with --quick).
# --no-mpi: skip d. (two ranks on the GPU).
# INSDG_CHECK_RUN_LIMIT: seconds one run may take (300).
#
# Results: DIR (default ./gpu-check-results) holds at most 8 files, no folders:
#   gpu-check.log (everything printed), summary.txt (the verdicts and tables),
#   bench_gpu.csv, plots.tar.gz, runs.tar.gz (each run's summary.json, diagnostics.csv,
#   log), perfmodels.tar.gz (StarPU's sampling directory), sanitizer.log.
# Exit status: 0 when every check passed, 1 when one failed (summary.txt says which),
# 2 on bad usage or a bundle that cannot start (a library not found).
set -uo pipefail

B="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUTDIR="$PWD/gpu-check-results"
GPU=1
QUICK=0
CASES=""
NOMPI=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUTDIR="$2"; shift 2 ;;
    --no-gpu) GPU=0; shift ;;
    --quick) QUICK=1; shift ;;
    --cases) CASES="$2"; shift 2 ;;
    --no-mpi) NOMPI=1; shift ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
RTOL="${INSDG_CHECK_RTOL:-1e-10}"
SOLVER_RTOL="${INSDG_CHECK_SOLVER_RTOL:-1e-8}"   # the cases' solver tolerance (Taylor: 1e-8)
RUN_LIMIT="${INSDG_CHECK_RUN_LIMIT:-300}"   # seconds for one run of insdg or a test

mkdir -p "$OUTDIR" || exit 2
OUTDIR="$(cd "$OUTDIR" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")" || exit 2
LOG="$OUTDIR/gpu-check.log"
SUMMARY="$OUTDIR/summary.txt"
: >"$LOG"
: >"$SUMMARY"
exec > >(tee -a "$LOG") 2>&1

FAILED=()
say() { echo "$*" | tee -a "$SUMMARY"; }
pass() { say "PASS  $*"; }
fail() { say "FAIL  $*"; FAILED+=("$*"); }

# ---- the bundle's environment -------------------------------------------------------------
# CUDA's runtime libraries: where the machine keeps them (CUDA_HOME, /usr/local/cuda, the
# loader's cache); the bundle carries none of them.
cuda_libdirs=""
for d in "${CUDA_HOME:-}/lib64" "${CUDA_HOME:-}/lib" /usr/local/cuda/lib64 /usr/local/cuda/lib \
         /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -e "$d/libcudart.so.13" ] && cuda_libdirs="$cuda_libdirs:$d"
done
export LD_LIBRARY_PATH="$B/lib${cuda_libdirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$B/bin:$PATH"
# Open MPI, relocated into the bundle: its plugins, help files and configuration
export OPAL_PREFIX="$B"
export OPAL_PKGLIBDIR="$B/lib/openmpi3" OPAL_PKGDATADIR="$B/share/openmpi" OPAL_SYSCONFDIR="$B/etc/openmpi"
export PMIX_MCA_mca_base_component_path="$B/lib/pmix"
export OMPI_MCA_plm_rsh_agent=false                     # one node: never ssh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader                          # no network plugins on one node
export STARPU_SILENT=1 STARPU_HOME="$WORK/starpu"      # perfmodels of these runs: part e
export OPENBLAS_NUM_THREADS=1
export HWLOC_HIDE_ERRORS=1

say "gpu-check: bundle $B ($(cat "$B/VERSION" 2>/dev/null || echo '?')), $(date -u +%FT%TZ), $(uname -n)"
say "  glibc $(ldd --version 2>/dev/null | head -1 | awk '{print $NF}'), $(nproc) cores, CUDA libraries in '${cuda_libdirs#:}'"
if [ "$GPU" = 1 ] && command -v nvidia-smi >/dev/null; then
  say "  $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)"
fi
missing=$(for f in "$B"/bin/insdg "$B"/bin/test_gpu "$B"/bin/bench_gpu "$B"/bin/orterun "$B"/bin/orted; do
            [ -x "$f" ] && ldd "$f" 2>&1 | grep "not found"; done | sort -u)
if [ -n "$missing" ]; then
  say "gpu-check: the bundle cannot start, libraries not found:"
  say "$missing"
  exit 2
fi

# Nothing but glibc and CUDA may come from outside the bundle: every other library of every
# program and plugin must resolve inside it (a Debian library found on this machine would
# hide a gap that a bare GPU machine shows).
glibc='^(ld-linux-x86-64|libc|libm|libpthread|libdl|librt|libresolv|libutil|libanl|libnss_[a-z]+|libBrokenLocale|libmvec|libthread_db|libc_malloc_debug)\.so'
cuda='^(libcuda|libcudart|libcublas|libcublasLt|libcusparse|libnvJitLink|libcufft|libcurand|libcusolver|libnvrtc|libnvidia-[a-z-]+)\.so'
outside=$(for f in "$B"/bin/* "$B"/lib/*.so* "$B"/lib/openmpi3/*.so "$B"/lib/pmix/*.so; do ldd "$f" 2>/dev/null; done |
  awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u | while read -r so path; do
    case "$path" in "$B"/*) continue ;; esac
    [[ "$so" =~ $glibc || "$so" =~ $cuda ]] || echo "$so => $path"
  done)
if [ -n "$outside" ]; then
  fail "libraries found outside the bundle (not glibc, not CUDA): $(echo $outside)"
else
  pass "every library of the bundle resolves inside it, to glibc or to CUDA's"
fi

# run NAME ENV... -- COMMAND...: a logged run under $WORK/runs/NAME
run() {
  local name="$1"; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  mkdir -p "$WORK/runs/$name"
  echo "+ ${envs[*]} $*"
  local t0=$SECONDS
  timeout "$RUN_LIMIT" env "${envs[@]}" "$@" >"$WORK/runs/$name/log" 2>&1
  local rc=$?
  [ $rc = 124 ] && echo "  (stopped after $RUN_LIMIT s)" >>"$WORK/runs/$name/log"
  tail -n 4 "$WORK/runs/$name/log"
  echo "  ($name: exit status $rc, $((SECONDS - t0)) s)"
  return $rc
}

# a case file cut short: CASE OUT.ini MESH FINAL_TIME [ORDER] (the first "order =" is the degree)
shorten() {
  local src="$1" dst="$2" mesh="$3" final="$4" order="${5:-0}"
  awk -v n="$order" '!d && n > 0 && /^order *=/ {print "order = " n; d = 1; next} {print}' "$src" |
    sed -e "s|^mesh *=.*|mesh = $mesh|" -e "s|^final_time *=.*|final_time = $final|" \
        -e "s|^output *=.*|output = $WORK/out/unused|" -e "s|^interval *=.*|interval = 0|" \
        -e "s|^checkpoint_interval_seconds *=.*|checkpoint_interval_seconds = 0|" >"$dst"
}

# a number from a run's summary.json: KEY (a top-level number) or a dotted path of two
json_get() {
  tr -d '\n' <"$1" | sed -E 's/[[:space:]]+/ /g' | grep -oE "\"$2\": ?[-0-9.eE+]+" | head -1 | sed -E 's/.*: ?//'
}

mkdir -p "$WORK/cases" "$WORK/out"
C="$B/cases"
shorten "$C/taylor_vortex/taylor_vortex.ini" "$WORK/cases/taylor6.ini" "$C/taylor_vortex/square.msh" 3
shorten "$C/taylor_vortex/taylor_vortex.ini" "$WORK/cases/taylor4_big.ini" "$C/bench/square_h0.035.msh" 0.0625 4
sed -i -e "s|^dt *=.*|dt = 6.25e-4|" "$WORK/cases/taylor4_big.ini"
shorten "$C/taylor_vortex/taylor_vortex.ini" "$WORK/cases/taylor6_short.ini" "$C/taylor_vortex/square.msh" 0.05
shorten "$C/square_cylinder/square_cylinder.ini" "$WORK/cases/cylinder5.ini" "$C/square_cylinder/square_cylinder.msh" 1
shorten "$C/cylinder/cylinder_re20.ini" "$WORK/cases/cylinder_curved.ini" "$C/cylinder/cylinder.msh" 0.2

# ---- --no-gpu: the CPU path of the bundle ------------------------------------------------------
if [ "$GPU" = 0 ]; then
  say "== CPU path of the bundle (--no-gpu)"
  if run mpi_hello -- orterun -np 2 "$B/bin/insdg" version; then pass "orterun -np 2 starts two insdg"; else fail "orterun -np 2"; fi
  if run cpu1 STARPU_NCUDA=0 STARPU_NCPU=1 -- "$B/bin/insdg" run "$WORK/cases/taylor6_short.ini" --output "$WORK/out/cpu1" &&
     grep -q "status: completed" "$WORK/runs/cpu1/log"; then
    pass "insdg run on 1 CPU worker, 0 CUDA workers: $(grep 'L2 error of u' "$WORK/runs/cpu1/log" | head -1)"
  else fail "insdg run on CPU (1 rank)"; fi
  if run cpu2r STARPU_NCUDA=0 STARPU_NCPU=1 STARPU_WORKERS_NOBIND=1 -- orterun -np 2 "$B/bin/insdg" run \
       "$WORK/cases/taylor6_short.ini" --output "$WORK/out/cpu2r" &&
     grep -q "status: completed" "$WORK/runs/cpu2r/log"; then
    e1=$(json_get "$WORK/out/cpu1/summary.json" relative); e2=$(json_get "$WORK/out/cpu2r/summary.json" relative)
    if awk -v a="$e1" -v b="$e2" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(a>0 && d<=1e-6*a)}'; then
      pass "insdg run on 2 ranks: u error $e2 (1 rank: $e1)"
    else fail "2 ranks' u error $e2 differs from 1 rank's $e1 by more than 1e-6"; fi
  else fail "insdg run on 2 ranks"; fi
  w=$(json_get "$WORK/out/cpu1/summary.json" cuda_workers)
  if [ "$w" = 0 ]; then pass "StarPU started with 0 CUDA workers"; else fail "cuda_workers = '$w', expected 0"; fi
else
  # ---- a. the kernels against the CPU kernels; sanitizers -------------------------------------
  say "== a. test_gpu"
  if run test_gpu -- "$B/bin/test_gpu"; then pass "test_gpu, N = 1..10, every kernel and version"
  else fail "test_gpu"; fi
  if [ "$QUICK" = 1 ]; then
    say "SKIP  compute-sanitizer (--quick)"
  elif command -v compute-sanitizer >/dev/null; then
    : >"$OUTDIR/sanitizer.log"
    compute-sanitizer --tool memcheck "$B/bin/test_gpu" 1 2 >>"$OUTDIR/sanitizer.log" 2>&1
    compute-sanitizer --tool racecheck "$B/bin/test_gpu" 2 2 >>"$OUTDIR/sanitizer.log" 2>&1
    echo "== compute-sanitizer memcheck insdg run (5 steps on the CUDA worker)" >>"$OUTDIR/sanitizer.log"
    STARPU_NCUDA=1 STARPU_NCPU=1 compute-sanitizer --tool memcheck "$B/bin/insdg" run "$WORK/cases/taylor6_short.ini" \
      --output "$WORK/out/memcheck" >>"$OUTDIR/sanitizer.log" 2>&1 || true
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUTDIR/sanitizer.log" | tee -a "$SUMMARY"
    if grep -qE "ERROR SUMMARY: [1-9]|[1-9][0-9]* errors" "$OUTDIR/sanitizer.log" ||
       [ "$(grep -c "ERROR SUMMARY: 0 errors" "$OUTDIR/sanitizer.log")" -ne 2 ]; then fail "compute-sanitizer"
    else pass "compute-sanitizer: memcheck and racecheck on test_gpu, memcheck on insdg run"; fi
  else
    say "SKIP  compute-sanitizer (not on PATH)"
  fi

  # ---- b. the kernels against the empirical roofline ------------------------------------------
  if [ "$QUICK" = 0 ]; then
    say "== b. bench_gpu"
    if run bench_gpu -- "$B/bin/bench_gpu" --csv "$OUTDIR/bench_gpu.csv"; then
      pass "bench_gpu ($(grep -c . "$OUTDIR/bench_gpu.csv") CSV rows)"
      grep -E "^# (device|device-to-device|shared)" "$WORK/runs/bench_gpu/log" | tee -a "$SUMMARY"
      if command -v python3 >/dev/null && python3 "$B/tools/plot_gpu_roofline.py" "$OUTDIR/bench_gpu.csv" --out "$WORK/plots"; then
        tar czf "$OUTDIR/plots.tar.gz" -C "$WORK" plots
      fi
    else fail "bench_gpu"; fi
  fi

  # ---- c. insdg run on the GPU and on the CPU ---------------------------------------------------
  say "== c. insdg run: CUDA worker vs CPU workers"
  cases="taylor6"
  [ "$QUICK" = 0 ] && cases="taylor6 taylor4_big cylinder5 cylinder_curved"
  [ -n "$CASES" ] && cases="$CASES"
  for c in $cases; do
    # INSDG_PERFMODELS with STARPU_CALIBRATE: every task's time goes into the codelets'
    # history models (perfmodels.tar.gz, for bench/perfmodels/<device>/)
    run "${c}_gpu" STARPU_NCUDA=1 STARPU_NCPU=1 STARPU_PROFILING=1 INSDG_PERFMODELS=1 STARPU_CALIBRATE=1 -- \
      "$B/bin/insdg" run "$WORK/cases/$c.ini" --output "$WORK/out/${c}_gpu" || true
    run "${c}_cpu" STARPU_NCUDA=0 STARPU_NCPU=1 STARPU_PROFILING=1 INSDG_PERFMODELS=1 STARPU_CALIBRATE=1 -- \
      "$B/bin/insdg" run "$WORK/cases/$c.ini" --output "$WORK/out/${c}_cpu" || true
    if python3 "$B/tools/compare_runs.py" "$WORK/out/${c}_gpu" "$WORK/out/${c}_cpu" --rtol "$RTOL" \
         --rtol-solver "$SOLVER_RTOL" \
         --label "$c: CUDA vs CPU" --expect-cuda 1 >>"$SUMMARY"; then pass "$c: GPU run agrees with the CPU run"
    else fail "$c: GPU run vs CPU run"; fi
  done

  # ---- d. two ranks on the one GPU ---------------------------------------------------------------
  if [ "$NOMPI" = 1 ]; then
    say "SKIP  d. two ranks on the GPU (--no-mpi)"
  else
  say "== d. mpirun -np 2, both ranks on the GPU"
  # 5 steps: two ranks cost a StarPU-MPI message per block pair and field (docs/performance.md)
  run taylor6_short_gpu STARPU_NCUDA=1 STARPU_NCPU=1 -- "$B/bin/insdg" run "$WORK/cases/taylor6_short.ini" \
    --output "$WORK/out/taylor6_short_gpu" || true
  # --bind-to none: Open MPI binds each of two ranks to one core by default, where the polling
  # CUDA worker, the CPU worker and StarPU-MPI's thread take turns (100x slower, measured);
  # unbound, insdg gives each rank half of the node's cores (tasks/runtime.c)
  run taylor6_short_gpu2r STARPU_NCUDA=1 STARPU_NCPU=1 -- \
    orterun -np 2 --bind-to none "$B/bin/insdg" run "$WORK/cases/taylor6_short.ini" --output "$WORK/out/taylor6_short_gpu2r" || true
  if python3 "$B/tools/compare_runs.py" "$WORK/out/taylor6_short_gpu2r" "$WORK/out/taylor6_short_gpu" --rtol 1e-5 \
       --label "taylor6_short: 2 ranks vs 1 rank on the GPU" --expect-cuda 1 >>"$SUMMARY"; then
    pass "2 ranks on one GPU agree with 1 rank"
  else fail "2 ranks on one GPU"; fi
  # each rank must have found cores enough for its polling threads (tasks/runtime.c warns)
  if grep -q "insdg: warning: rank .* core" "$WORK/runs/taylor6_short_gpu2r/log"; then
    fail "2 ranks on one GPU: $(grep -m1 "insdg: warning: rank" "$WORK/runs/taylor6_short_gpu2r/log" | cut -c1-160)"
  else pass "2 ranks on one GPU: each rank has cores enough for its workers"; fi
  fi
fi

# ---- e. and the results, packed ------------------------------------------------------------------
[ -d "$WORK/starpu" ] && tar czf "$OUTDIR/perfmodels.tar.gz" -C "$WORK" starpu
(cd "$WORK" && for d in out/*/; do n=$(basename "$d"); cp "$d"/summary.json "runs/$n/" 2>/dev/null;
   cp "$d"/diagnostics.csv "runs/$n/" 2>/dev/null; done; tar czf "$OUTDIR/runs.tar.gz" runs cases)
rm -rf "$WORK"
if [ ${#FAILED[@]} -eq 0 ]; then
  say "gpu-check: all checks passed"
  exit 0
fi
say "gpu-check: ${#FAILED[@]} check(s) failed: ${FAILED[*]}"
exit 1
