#!/usr/bin/env bash
# gpu-tune.sh [--bin DIR] [--out DIR] [--ncu] -- the per-N tuning of the GPU element
# kernels (cuda/README.md, "Tuning"), on a GPU machine with CUDA (nothing else needed).
#
# Needs test_gpu and bench_gpu of a build with every launch candidate compiled:
#   cmake -S . -B build-gtune -DINSDG_GPU_ONLY=ON -DINSDG_GPU_TUNING=ON \
#         -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90
#   cmake --build build-gtune -j --target test_gpu bench_gpu
# (made here, or anywhere with nvcc: the two programs need only glibc and CUDA's runtime).
#   --bin DIR  where test_gpu and bench_gpu are (default: build-gtune/tests and
#              build-gtune/bench)
#   --only K   the sweep times these kernels alone (bench_gpu --only: e.g.
#              local_gradient,mass,inverse_mass); the test checks every kernel
#   --out DIR  results (default tune-results): test_tuning.log (every kernel and version,
#              then every candidate, against the CPU kernels), bench_sweep.log and
#              bench_gpu_sweep.csv (bench_gpu --sweep), tables.md (tools/gpu_table.py: the
#              fastest candidate per kernel and N, and the TUNED tables it gives),
#              nvidia-smi.txt; with --ncu, ncu.csv: Nsight Compute's speed-of-light,
#              memory and occupancy sections of the element kernels at N = 5 (NCU_N="5 8":
#              the degrees to profile).
# Exit status: 0, or 1 when the test fails or the benchmark stops.
set -uo pipefail
cd "$(dirname "$0")/.."
bin_test=build-gtune/tests bin_bench=build-gtune/bench out=tune-results ncu=0 only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin_test=$2 bin_bench=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --ncu) ncu=1; shift ;;
    --only) only=(--only "$2"); shift 2 ;;
    *) echo "usage: gpu-tune.sh [--bin DIR] [--out DIR] [--ncu] [--only KERNELS]" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
status=0
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
echo "gpu-tune: test_gpu (every candidate)"
if "$bin_test/test_gpu" > "$out/test_tuning.log" 2>&1; then echo "gpu-tune: test PASS"; else
  echo "gpu-tune: test FAIL"; status=1; fi
tail -1 "$out/test_tuning.log"
echo "gpu-tune: bench_gpu --sweep"
if ! "$bin_bench/bench_gpu" --sweep "${only[@]}" --csv "$out/bench_gpu_sweep.csv" > "$out/bench_sweep.log" 2>&1; then
  echo "gpu-tune: bench_gpu stopped:"; tail -3 "$out/bench_sweep.log"; status=1
fi
python3 tools/gpu_table.py "$out/bench_gpu_sweep.csv" > "$out/tables.md" 2>&1 || status=1
if [ "$ncu" = 1 ]; then
  # the tuned launches (the build's TUNED tables), a few launches of each kernel
  kern='regex:lg_blocked|sipdg_blocked|sav_chunked|sas_blocked|gradient_surface_kernel|divergence_volume_kernel|divergence_surface_kernel|mass_kernel|prolong_kernel|restrict_kernel'
  for N in ${NCU_N:-5}; do
    timeout 120 ncu --csv --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section LaunchStats --section ComputeWorkloadAnalysis -k "$kern" --launch-count 60 \
      "$bin_bench/bench_gpu" --nmin $N --nmax $N --reps 1 >> "$out/ncu.csv" 2> "$out/ncu.err" || true
  done
  tail -2 "$out/ncu.err" 2>/dev/null
fi
exit $status
