/* ops_cpu_ymm.c -- CPU kernels compiled for 256-bit vectors in a build for AVX-512 (gcc): the
 * AVX2 kernels and the choices ops_kernels.inc makes for them (on AMD Zen, those tuned on Zen 3),
 * for the degrees and operator families given below, where they run faster than the 8-double
 * ones. ops_cpu.c takes these entries in place of its own.
 *
 * Why: on AMD Zen 4 (AVX-512 run as two 256-bit halves) the build for AVX2 was faster than the
 * AVX-512 build at N = 3 and 5..7 (bench_ops, 2026-12-06, two alternations, ns per element,
 * AVX-512 -> AVX2: SIPDG at N = 3 99-101 -> 73-76, N = 5 198 -> 178-181, N = 6 286-287 ->
 * 270-273; G at N = 6 160-162 -> 143-144, N = 7 237 -> 208; D at N = 4 68-69 -> 62-63; in
 * cache too), and slower for G at N = 4, 5 (50-51 -> 57-59, 91-92 -> 96-97), SIPDG at N = 4
 * (99-100 -> 103-105) and, in cache, SIPDG at N = 2 (35.4 -> 38.2-38.9): CMake's
 * INSDG_OPS_YMM_DEGREES picks them per degree and family (docs/performance.md, "256-bit kernels
 * on Zen 4"; since session 59 the AVX-512 register SIPDG at N = 3, its product as dot products
 * of SK's rows, is faster than this file's, 59-60 against 61-64 ns in cache, and N = 3's SIPDG
 * is no longer taken from here by default). The same kernels with AVX-512's 32
 * registers (gcc's vector width alone set to 4 doubles) were not the same: SIPDG at N = 5 195
 * ns, D at N = 6 172 against 152. So this file is compiled with AVX-512 off (`#pragma GCC
 * target`), as the AVX2 build is.
 *
 * Results: each operator of each degree runs one of the two sets of kernels, whatever the
 * worker or block count; they differ from the AVX-512 kernels' at round-off (other sums'
 * orders).
 */
/* The degrees (bit N) whose kernels of each operator family (ops.h, INSDG_OPS_FAM_*) this file
   compiles and ops_cpu.c takes: INSDG_OPS_YMM_{G,D,S,O}_NMASK, each INSDG_OPS_YMM_NMASK unless
   given (CMake sets all four from INSDG_OPS_YMM_DEGREES). From N = 6 on the families of a
   degree go together: the two files pad the operators differently there. */
#ifndef INSDG_OPS_YMM_NMASK
#define INSDG_OPS_YMM_NMASK 0
#endif
#ifndef INSDG_OPS_YMM_G_NMASK
#define INSDG_OPS_YMM_G_NMASK INSDG_OPS_YMM_NMASK
#endif
#ifndef INSDG_OPS_YMM_D_NMASK
#define INSDG_OPS_YMM_D_NMASK INSDG_OPS_YMM_NMASK
#endif
#ifndef INSDG_OPS_YMM_S_NMASK
#define INSDG_OPS_YMM_S_NMASK INSDG_OPS_YMM_NMASK
#endif
#ifndef INSDG_OPS_YMM_O_NMASK
#define INSDG_OPS_YMM_O_NMASK INSDG_OPS_YMM_NMASK
#endif
#define YMM_ANY (INSDG_OPS_YMM_G_NMASK | INSDG_OPS_YMM_D_NMASK | INSDG_OPS_YMM_S_NMASK | INSDG_OPS_YMM_O_NMASK)

#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__) && YMM_ANY
#pragma GCC target("no-avx512f")
#define OPS_YMM_ON 1
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dense.h"
#include "error.h"
#include "ops.h"
#include "ops_curved.h"

#include "ops_cpu_table.h"

#ifdef OPS_YMM_ON
_Static_assert((YMM_ANY & ~0x1fc) == 0, "INSDG_OPS_YMM_*NMASK: degrees 2..8 only");
_Static_assert(((INSDG_OPS_YMM_G_NMASK ^ INSDG_OPS_YMM_D_NMASK) | (INSDG_OPS_YMM_G_NMASK ^ INSDG_OPS_YMM_S_NMASK) |
                (INSDG_OPS_YMM_G_NMASK ^ INSDG_OPS_YMM_O_NMASK)) >> 6 == 0,
               "INSDG_OPS_YMM_*NMASK: from N = 6 on, all families of a degree or none");
_Static_assert(OPS_VW == 4, "ops_cpu_ymm.c: AVX-512 off, AVX on");

#if YMM_ANY >> 2 & 1
#define N 2
#include "ops_kernels.inc"
#undef N
#define YMM_2 [2] = ENTRY(2),
#else
#define YMM_2
#endif
#if YMM_ANY >> 3 & 1
#define N 3
#include "ops_kernels.inc"
#undef N
#define YMM_3 [3] = ENTRY(3),
#else
#define YMM_3
#endif
#if YMM_ANY >> 4 & 1
#define N 4
#include "ops_kernels.inc"
#undef N
#define YMM_4 [4] = ENTRY(4),
#else
#define YMM_4
#endif
#if YMM_ANY >> 5 & 1
#define N 5
#include "ops_kernels.inc"
#undef N
#define YMM_5 [5] = ENTRY(5),
#else
#define YMM_5
#endif
#if YMM_ANY >> 6 & 1
#define N 6
#include "ops_kernels.inc"
#undef N
#define YMM_6 [6] = ENTRY(6),
#else
#define YMM_6
#endif
#if YMM_ANY >> 7 & 1
#define N 7
#include "ops_kernels.inc"
#undef N
#define YMM_7 [7] = ENTRY(7),
#else
#define YMM_7
#endif
#if YMM_ANY >> 8 & 1
#define N 8
#include "ops_kernels.inc"
#undef N
#define YMM_8 [8] = ENTRY(8),
#else
#define YMM_8
#endif

const kernel_table insdg_ops_ymm_kernels[INSDG_NMAX + 1] = {YMM_2 YMM_3 YMM_4 YMM_5 YMM_6 YMM_7 YMM_8};
#define USE(n)                                                                                                \
  ((INSDG_OPS_YMM_G_NMASK >> (n) & 1) * INSDG_OPS_FAM_G | (INSDG_OPS_YMM_D_NMASK >> (n) & 1) * INSDG_OPS_FAM_D | \
   (INSDG_OPS_YMM_S_NMASK >> (n) & 1) * INSDG_OPS_FAM_S | (INSDG_OPS_YMM_O_NMASK >> (n) & 1) * INSDG_OPS_FAM_O)
_Static_assert(INSDG_NMAX == 15, "ops_cpu_ymm.c: insdg_ops_ymm_use lists N = 0..15");
const unsigned char insdg_ops_ymm_use[INSDG_NMAX + 1] = {USE(0), USE(1), USE(2),  USE(3),  USE(4),  USE(5),  USE(6), USE(7),
                                                         USE(8), USE(9), USE(10), USE(11), USE(12), USE(13), USE(14), USE(15)};
#else
const kernel_table insdg_ops_ymm_kernels[INSDG_NMAX + 1] = {{0}};
const unsigned char insdg_ops_ymm_use[INSDG_NMAX + 1] = {0};
#endif
