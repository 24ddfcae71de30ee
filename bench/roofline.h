/* roofline.h -- empirical single-core CPU roofline probe for insdg.
 *
 * StarPU-free, MPI-free C11. The operator kernels run single-threaded per
 * block, so every number here is for ONE core (the calling thread).
 *
 * Conventions:
 *   - Bandwidth: STREAM triad a[i] = b[i] + s*c[i] on arrays far larger than
 *     the last-level cache, counted as 24 bytes per element (read b, read c,
 *     write a) exactly as STREAM does, i.e. WITHOUT the write-allocate read
 *     of a. The true DRAM traffic with write-allocate is 32 B/element, so
 *     multiply by 32/24 for that view (bench_roofline prints both).
 *   - Compute: double precision fused multiply-add, 2 flops per FMA.
 *   - Every measurement is the best (minimum time) of several repetitions.
 */
#ifndef INSDG_ROOFLINE_H
#define INSDG_ROOFLINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Wall-clock seconds from CLOCK_MONOTONIC (arbitrary origin). */
double insdg_wtime(void);

/* CPU model name from /proc/cpuinfo ("unknown CPU" if unavailable).
 * Returns a pointer to a static buffer; not thread-safe on the first call. */
const char *insdg_roofline_cpu_name(void);

/* Last-level cache size in bytes (sysconf, then sysfs); 0 if unknown. */
size_t insdg_roofline_llc_bytes(void);

/* Bytes per array used by the triad (each of the three arrays). */
size_t insdg_roofline_stream_array_bytes(void);

/* Single-core STREAM-triad bandwidth in GB/s (1e9 B/s, 24 B/element): the best of the
 * triad as the vectoriser compiles it and the triad in 32-byte vectors (roofline.c). */
double insdg_roofline_stream_gbs(void);

/* Single-core peak double-precision FMA throughput in GFLOP/s (1e9 flop/s,
 * 2 flop per FMA): the largest of the probes below. */
double insdg_roofline_fma_gflops(void);

/* The same probe written as plain C arrays and left to the auto-vectoriser
 * (gcc -O3 -march=native). This is the width compiled operator code gets:
 * on AVX-512 Intel parts gcc prefers 256-bit (ymm) vectors, so this can be
 * half of the 512-bit peak. */
double insdg_roofline_fma_gflops_autovec(void);

/* The 256-bit peak: the larger of the auto-vectorised probe and the same chains written
 * with 32-byte GNU vector types (which do not depend on the compiler's vectoriser: clang
 * leaves the auto-vectorised probe's fma() calls scalar). */
double insdg_roofline_fma_gflops_vec256(void);

/* The same probe written with 64-byte GNU vector types (zmm with AVX-512F,
 * two ymm otherwise): the widest-vector hardware peak. */
double insdg_roofline_fma_gflops_vec512(void);

/* A probe for measuring the roofline again and again beside a benchmark (bench_ops times
 * each operator between probe passes, so that its bound is measured in the same minutes as
 * it: on a shared virtual machine the memory bandwidth and clock drift by up to 2x over
 * minutes). create allocates and touches the triad's arrays (as insdg_roofline_stream_gbs);
 * stream_gbs times one triad pass; fma_gflops times one ~10 ms run of the FMA probe that
 * ran fastest at its first call (which measures all three, as insdg_roofline_fma_gflops).
 * Take the best of several calls. NULL when the arrays cannot be allocated. */
typedef struct insdg_roofline_probe insdg_roofline_probe;
insdg_roofline_probe *insdg_roofline_probe_create(void);
double insdg_roofline_probe_stream_gbs(insdg_roofline_probe *p);
double insdg_roofline_probe_fma_gflops(insdg_roofline_probe *p);
void insdg_roofline_probe_destroy(insdg_roofline_probe *p);

/* Checksum of all results computed so far; print it so that nothing can be
 * optimised away. */
double insdg_roofline_checksum(void);

#ifdef __cplusplus
}
#endif

#endif /* INSDG_ROOFLINE_H */
