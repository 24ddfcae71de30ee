/* port_probe.c -- what the vector instructions of the CPU kernels cost on this core, counted
 * in 256-bit multiply-add slots: the time of one ymm vfmadd231pd at its full rate (two per
 * cycle on the x86 cores of docs/performance.md). It answers what instruction counts alone
 * cannot: how much of the multiply-add pipes a permute, an extract or a 512-bit multiply-add
 * takes, so that a kernel's instruction mix (objdump of its hot loop) gives the time its
 * arithmetic needs at best, beside the time it takes (bench_ops).
 *
 * Each probe runs 4 to 12 independent chains of one instruction kind in registers, so the
 * time is the instructions' throughput, not their latency, for R iterations (best of three):
 *   alone        the kind by itself, in slots per instruction;
 *   beside_ymm   the time 4 of them add to 10 independent ymm multiply-adds, in slots per
 *                instruction: 0 where they run on other pipes, 1 where each takes a
 *                multiply-add's place;
 *   beside_zmm   the time 8 of them add to 8 zmm multiply-adds (AVX-512 only).
 * A result of 0.3 means the scheduler fitted most of them beside the multiply-adds.
 *
 * x86-64 with AVX2 and FMA (AVX-512F/VL for the zmm rows), chosen at run time: the file
 * builds on any target (elsewhere it prints that it has nothing to probe).
 *
 * Usage: port_probe [--iterations R]     (default 20000000)
 * Prints a header and one line per instruction kind:
 *   port_probe: <kind> alone=<slots> beside_ymm=<slots> beside_zmm=<slots|->
 * Exit status 0; 2 on a bad argument; 0 with "skipped" where the CPU lacks AVX2 and FMA.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define T2 __attribute__((target("avx2,fma"), noinline))
#define T5 __attribute__((target("avx2,fma,avx512f,avx512vl"), noinline))

/* chains: a0.. the kind's (12 ymm alone, 4 beside ymm multiply-adds; 8 zmm), f0.. the
   multiply-adds' beside it (10 ymm: four latencies' worth at two per cycle, or 8 zmm); an empty
   asm per iteration holds them in registers. With AVX2 alone there are 16 ymm registers, so the
   ymm probes use at most 16 values, constants included. */
#define E4(M) M(0) M(1) M(2) M(3)
#define E8(M) E4(M) M(4) M(5) M(6) M(7)
#define E10(M) E8(M) M(8) M(9)
#define E12(M) E10(M) M(10) M(11)
#define CONSTS                                                                                \
  const __m256d cy = _mm256_set1_pd(0.999999);                                                \
  const __m256i iy = _mm256_set_epi64x(0, 3, 1, 2);                                           \
  (void)cy, (void)iy;
#define CONSTS5                                                                               \
  CONSTS const __m512d cz = _mm512_set1_pd(0.999999);                                         \
  const __m512i iz = _mm512_set_epi64(9, 3, 12, 1, 8, 5, 14, 0);                              \
  (void)cz, (void)iz;
#define HOLD(v) __asm__ volatile("" : "+v"(v));
#define USE(v) s += v[0];
#define RET                                                                                   \
  t = now() - t;                                                                              \
  if (s == 12345.678) puts(""); /* the chains' results used */                                \
  return t;

#define DA_Y(i) __m256d a##i = _mm256_set1_pd(1.0 + i);
#define DF_Y(i) __m256d f##i = _mm256_set1_pd(2.0 + i);
#define DF_Z(i) __m512d f##i = _mm512_set1_pd(2.0 + i);
#define FMA_Y(i) f##i = _mm256_fmadd_pd(f##i, cy, cy);
#define FMA_Z(i) f##i = _mm512_fmadd_pd(f##i, cz, cz);
#define DA_Z(i) __m512d a##i = _mm512_set1_pd(1.0 + i);
/* one kind: alone (EA chains of DA), 4 beside 10 ymm multiply-adds, 8 beside 8 zmm ones; tgt and
   CST the target and constants of the first two (AVX2 where the kind is), the third AVX-512 */
#define KIND(id, tgt, CST, DA, EA, OP)                                                        \
  static tgt double id##_0(long R)                                                            \
  {                                                                                           \
    CST EA(DA) double t = now(), s = 0;                                                       \
    for (long r = 0; r < R; ++r) {                                                            \
      EA(OP) EA(HOLD_A)                                                                       \
    }                                                                                         \
    EA(USE_A) RET                                                                             \
  }                                                                                           \
  static tgt double id##_1(long R)                                                            \
  {                                                                                           \
    CST E4(DA) E10(DF_Y) double t = now(), s = 0;                                             \
    for (long r = 0; r < R; ++r) {                                                            \
      E10(FMA_Y) E4(OP) E4(HOLD_A) E10(HOLD_F)                                                \
    }                                                                                         \
    E4(USE_A) E10(USE_F) RET                                                                  \
  }                                                                                           \
  static T5 double id##_2(long R)                                                             \
  {                                                                                           \
    CONSTS5 E8(DA) E8(DF_Z) double t = now(), s = 0;                                          \
    for (long r = 0; r < R; ++r) {                                                            \
      E8(FMA_Z) E8(OP) E8(HOLD_A) E8(HOLD_F)                                                  \
    }                                                                                         \
    E8(USE_A) E8(USE_F) RET                                                                   \
  }
/* on ymm values alone 12 chains, on zmm 8 */
#define KIND_Y(id, tgt, OP) KIND(id, tgt, CONSTS, DA_Y, E12, OP)
#define KIND_Z(id, OP) KIND(id, T5, CONSTS5, DA_Z, E8, OP)
#define HOLD_A(i) HOLD(a##i)
#define HOLD_F(i) HOLD(f##i)
#define USE_A(i) USE(a##i)
#define USE_F(i) USE(f##i)

/* the kinds, each a step of chain a_i */
#define O_FMA_Y(i) a##i = _mm256_fmadd_pd(a##i, cy, cy);
#define O_ADD_Y(i) a##i = _mm256_add_pd(a##i, cy);
#define O_PERMI_Y(i) a##i = _mm256_permute4x64_pd(a##i, 0x1B);
#define O_UNPACK_Y(i) a##i = _mm256_unpacklo_pd(a##i, cy);
#define O_P2F128_Y(i) a##i = _mm256_permute2f128_pd(a##i, cy, 0x21);
#define O_BCAST_Y(i) a##i = _mm256_broadcastsd_pd(_mm256_castpd256_pd128(a##i));
#define O_PERMV_Y(i) a##i = _mm256_permutexvar_pd(iy, a##i);
#define O_PERM2_Y(i) a##i = _mm256_permutex2var_pd(a##i, iy, cy);
#define O_FMA_Z(i) a##i = _mm512_fmadd_pd(a##i, cz, cz);
#define O_PERMV_Z(i) a##i = _mm512_permutexvar_pd(iz, a##i);
#define O_PERM2_Z(i) a##i = _mm512_permutex2var_pd(a##i, iz, cz);
#define O_EXTRACT_Z(i) a##i = _mm512_zextpd256_pd512(_mm512_extractf64x4_pd(a##i, 1));
#define O_INSERT_Z(i) a##i = _mm512_insertf64x4(a##i, cy, 1);

KIND_Y(p_fma_y, T2, O_FMA_Y)
KIND_Y(p_add_y, T2, O_ADD_Y)
KIND_Y(p_permi_y, T2, O_PERMI_Y)
KIND_Y(p_unpack_y, T2, O_UNPACK_Y)
KIND_Y(p_p2f128_y, T2, O_P2F128_Y)
KIND_Y(p_bcast_y, T2, O_BCAST_Y)
KIND_Y(p_permv_y, T5, O_PERMV_Y)
KIND_Y(p_perm2_y, T5, O_PERM2_Y)
KIND_Z(p_fma_z, O_FMA_Z)
KIND_Z(p_permv_z, O_PERMV_Z)
KIND_Z(p_perm2_z, O_PERM2_Z)
KIND_Z(p_extract_z, O_EXTRACT_Z)
KIND_Z(p_insert_z, O_INSERT_Z)

/* the multiply-adds alone: 10 ymm, 8 zmm per iteration */
static T2 double fma10_y(long R)
{
  CONSTS E10(DF_Y) double t = now(), s = 0;
  for (long r = 0; r < R; ++r) {
    E10(FMA_Y) E10(HOLD_F)
  }
  E10(USE_F) RET
}
static T5 double fma8_z(long R)
{
  CONSTS5 E8(DF_Z) double t = now(), s = 0;
  for (long r = 0; r < R; ++r) {
    E8(FMA_Z) E8(HOLD_F)
  }
  E8(USE_F) RET
}

typedef double (*probe_fn)(long);
typedef struct {
  const char *kind;
  probe_fn alone, beside_y, beside_z;
  int n_alone;   /* instructions of the kind per iteration alone: 12 on ymm chains, 8 on zmm */
  int avx512;    /* the kind itself needs AVX-512 */
} probe;

static double best(probe_fn fn, long R)
{
  double t = 1e30;
  for (int k = 0; k < 3; ++k) {
    const double x = fn(R);
    if (x < t) t = x;
  }
  return t;
}

#define PY(name, id, z) {name, id##_0, id##_1, id##_2, 12, z}
#define PZ(name, id) {name, id##_0, id##_1, id##_2, 8, 1}

int main(int argc, char **argv)
{
  long R = 20000000;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
      char *end;
      R = strtol(argv[++i], &end, 10);
      if (*end || R < 1000) {
        fprintf(stderr, "port_probe: --iterations takes an integer >= 1000\n");
        return 2;
      }
    } else {
      fprintf(stderr, "usage: port_probe [--iterations R]\n");
      return 2;
    }
  }
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    printf("port_probe: skipped (this CPU has no AVX2 and FMA)\n");
    return 0;
  }
  const int z = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  const probe P[] = {
      PY("vfmadd_ymm", p_fma_y, 0),          PY("vaddpd_ymm", p_add_y, 0),
      PY("vpermpd_ymm_imm", p_permi_y, 0),   PY("vunpcklpd_ymm", p_unpack_y, 0),
      PY("vperm2f128_ymm", p_p2f128_y, 0),   PY("vbroadcastsd_ymm_reg", p_bcast_y, 0),
      PY("vpermpd_ymm_index", p_permv_y, 1), PY("vpermt2pd_ymm", p_perm2_y, 1),
      PZ("vfmadd_zmm", p_fma_z),             PZ("vpermpd_zmm_index", p_permv_z),
      PZ("vpermt2pd_zmm", p_perm2_z),        PZ("vextractf64x4_zmm", p_extract_z),
      PZ("vinsertf64x4_zmm", p_insert_z),
  };
  const double f10 = best(fma10_y, R), slot = f10 / (10.0 * (double)R);   /* the slot */
  const double f8z = z ? best(fma8_z, R) : 0.0;
  printf("# port_probe: one slot = one ymm multiply-add at full rate = %.3f ns (%ld iterations, best of 3)\n",
         1e9 * slot, R);
  if (z) printf("# 8 zmm multiply-adds alone: %.2f slots each\n", f8z / (8.0 * (double)R) / slot);
  printf("# alone: slots per instruction; beside_ymm / beside_zmm: slots each adds to 10 ymm / 8 zmm "
         "multiply-adds\n");
  for (size_t k = 0; k < sizeof P / sizeof P[0]; ++k) {
    if (P[k].avx512 && !z) {
      printf("port_probe: %s skipped (no AVX-512F/VL)\n", P[k].kind);
      continue;
    }
    const double a = best(P[k].alone, R) / (P[k].n_alone * (double)R) / slot;
    const double by = (best(P[k].beside_y, R) - f10) / (4.0 * (double)R) / slot;
    if (z) {
      const double bz = (best(P[k].beside_z, R) - f8z) / (8.0 * (double)R) / slot;
      printf("port_probe: %s alone=%.2f beside_ymm=%.2f beside_zmm=%.2f\n", P[k].kind, a, by, bz);
    } else
      printf("port_probe: %s alone=%.2f beside_ymm=%.2f beside_zmm=-\n", P[k].kind, a, by);
  }
  return 0;
}
#else
int main(void)
{
  (void)now;
  printf("port_probe: skipped (not an x86-64 build)\n");
  return 0;
}
#endif
