#!/usr/bin/env bash
# run.sh [SECONDS] [BUILD_DIR] -- run each libFuzzer target of tests/fuzz for SECONDS
# (default 60) of wall time, one after the other, from a scratch copy of its committed seeds.
#
#   BUILD_DIR  the clang build with -DINSDG_FUZZ=ON (default build-fuzz; README.md)
#   FUZZ_TARGETS="gmsh case checkpoint_nc"   which targets (the default). checkpoint, the
#              raw-bytes one, is left out: after a few hundred damaged files in one
#              process, HDF5 1.10.8's own state is corrupted and it crashes on inputs that
#              pass alone (README.md, "Findings"); name it to run it.
#   FUZZ_SCRATCH=DIR   where corpora, logs, crash files and the readers' temporary files go
#                      (default a new directory under ${TMPDIR:-/tmp}; kept at the end)
#   FUZZ_JOBS=N        libFuzzer -fork=N: N processes per target (default 1; on a machine of
#                      your own, N cores give N CPU-seconds per second)
#   FUZZ_ARGS="..."    more libFuzzer flags (e.g. -max_len=65536)
# The committed seeds are only read: new inputs libFuzzer finds go to the scratch corpus.
# Exit status 1 when any target reports a crash, leak, timeout or out-of-memory (the
# reproducer's path is printed), 2 on a usage or build error.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD/tests/fuzz

seconds=${1:-60}
build=${2:-build-fuzz}
targets=${FUZZ_TARGETS:-gmsh case checkpoint_nc}
jobs=${FUZZ_JOBS:-1}
case "$seconds" in '' | *[!0-9]*) echo "run.sh: SECONDS must be a whole number: $seconds" >&2; exit 2 ;; esac
case "$jobs" in '' | *[!0-9]* | 0) echo "run.sh: FUZZ_JOBS must be a positive number: $jobs" >&2; exit 2 ;; esac

scratch=${FUZZ_SCRATCH:-$(mktemp -d "${TMPDIR:-/tmp}/insdg-fuzz.XXXXXX")}
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
echo "run.sh: ${seconds} s per target, build $build, scratch $scratch"

stamp=$(date +%Y%m%d-%H%M%S)   # this run's crash files: DIR/TARGET/artifacts-STAMP/
failed=0
for t in $targets; do
  exe=$build/tests/fuzz/fuzz_${t}_lf
  if [ ! -x "$exe" ]; then
    echo "run.sh: $exe not built (cmake --build $build --target fuzz_${t}_lf)" >&2
    exit 2
  fi
  exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
  dir=$scratch/$t
  art=$dir/artifacts-$stamp
  mkdir -p "$dir/corpus" "$art" "$dir/tmp"
  cp -n "$src/seeds/$t/"* "$dir/corpus/" 2>/dev/null || true
  extra=()
  [ "$t" = case ] && extra+=("-dict=$src/case.dict")
  # the structured checkpoint input needs ~100 bytes to reach the variables: let it grow
  [ "$t" = checkpoint_nc ] && extra+=("-max_len=1024" "-len_control=0")
  [ "$jobs" -gt 1 ] && extra+=("-fork=$jobs" "-ignore_crashes=0")
  log=$dir/fuzz-$stamp.log
  echo "run.sh: fuzz_${t}_lf for ${seconds} s (log $log)"
  asan=${ASAN_OPTIONS:-detect_leaks=1}
  # HDF5 allocates and frees much per input: a smaller quarantine keeps the RSS well under
  # the limit (the default 256 MiB of freed blocks, plus fragmentation, reached 620 MiB)
  case "$t" in checkpoint*) [ -n "${ASAN_OPTIONS:-}" ] || asan=$asan:quarantine_size_mb=64 ;; esac
  status=0
  # libFuzzer runs in the scratch directory (its fork mode writes there), its inputs'
  # temporary files under dir/tmp (TMPDIR, read by fuzz_common.h); leaks inside HDF5 and
  # NetCDF are not reported (lsan.supp)
  (cd "$dir" && TMPDIR=$dir/tmp ASAN_OPTIONS=$asan \
    LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/lsan.supp:print_suppressions=0} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$exe" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$art/" "${extra[@]}" ${FUZZ_ARGS:-} corpus) >"$log" 2>&1 || status=$?
  grep -E '^(#[0-9]+[[:space:]]+(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)' "$log" |
    sed "s/^/  $t: /" || true
  # slow-unit-* files (an input over libFuzzer's -report_slow_units, 10 s) are reported, not failures
  slow=$(find "$art" -type f -name 'slow-unit-*' | sort)
  for u in $slow; do echo "run.sh: fuzz_${t}_lf: a slow input (over 10 s): $u" >&2; done
  crashes=$(find "$art" -type f ! -name 'slow-unit-*' | sort)
  if [ "$status" -ne 0 ] || [ -n "$crashes" ]; then
    failed=1
    echo "run.sh: fuzz_${t}_lf FAILED (exit $status); the report:" >&2
    grep -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error|invariant broken|SUMMARY' "$log" |
      head -n 20 >&2 || true
    for c in $crashes; do echo "run.sh: reproducer: $c  (rerun: $exe $c)" >&2; done
    [ -n "$crashes" ] || echo "run.sh: no reproducer written; see $log" >&2
  fi
done

if [ "$failed" -ne 0 ]; then
  echo "run.sh: FAILED; everything is under $scratch" >&2
  exit 1
fi
echo "run.sh: no crash, leak, timeout or out-of-memory; corpora and logs under $scratch"
