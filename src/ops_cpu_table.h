/* ops_cpu_table.h -- the table of one degree's CPU kernels, shared by the translation units
 * that instantiate ops_kernels.inc: ops_cpu.c (every degree, at the build's vector width) and
 * ops_cpu_ymm.c (the degrees a build compiles for 256-bit vectors under AVX-512). Include it
 * after any `#pragma GCC target`: OPS_VW follows the ISA macros in force.
 */
#ifndef INSDG_OPS_CPU_TABLE_H
#define INSDG_OPS_CPU_TABLE_H

#include "ops.h"

/* doubles per vector register of the translation unit: the one-element kernels (N <= 6 or 7)
   work in whole vectors of this many lanes */
#if defined(__AVX512F__)
#define OPS_VW 8
#elif defined(__AVX__)
#define OPS_VW 4
#else
#define OPS_VW 2
#endif

#define PASTE(a, b) a##b
#define XPASTE(a, b) PASTE(a, b)
#define KFN(name) XPASTE(name, N)

typedef struct {
  void (*local_gradient)(const insdg_ops *, const insdg_block *, const double *, double *, double *);
  void (*gradient)(const insdg_ops *, const insdg_block *, const signed char *, const double *,
                   const double *, const double *, double *, double *);
  void (*divergence)(const insdg_ops *, const insdg_block *, const signed char *,
                     const insdg_vec_in *, double *);
  void (*gradient_surface)(const insdg_ops *, const insdg_block *, const signed char *, const double *,
                           const double *, const double *, double *, double *);
  void (*divergence_volume)(const insdg_ops *, const insdg_block *, const double *, const double *, double *);
  void (*divergence_surface)(const insdg_ops *, const insdg_block *, const signed char *, const insdg_vec_in *,
                             double *);
  void (*sipdg)(const insdg_ops *, const insdg_block *, const signed char *, const double *, double, const double *,
                const double *, const double *, const double *, const double *, const double *,
                double *, int, int);
  void (*adv_volume)(const insdg_ops *, const insdg_block *, const double *, const double *,
                     const double *, const double *, double *, double *);
  void (*adv_surface)(const insdg_ops *, const insdg_block *, const signed char *, double,
                      const insdg_vec_in *, const insdg_vec_in *, double *, double *);
  void (*mass)(const insdg_ops *, const insdg_block *, int, double, const double *, double *);
  void (*element_blocks)(int, const double *, const double *, double *);
  void (*element_product)(int, int, const double *, const double *, int, double *);
  void (*mass_norms)(const insdg_ops *, int, const double *, const double *, double *);
  int mlp_ld;   /* row length of op->MLp (mass_norms' rows of L): whole vectors of vw doubles */
  int npad;   /* the padded operators' row length for this N's one-element kernels */
  int grouped;   /* elements per group where the kernels run on groups (ops_group.inc), else 0 */
  int sipdg_reg;   /* SIPDG with its values in registers (ops_sipdg_reg.inc, ops_sipdg_avx2.inc) */
  int lift_faces;   /* bit 1: G, bit 2: SIPDG lift face by face (insdg_ops_cpu_lift_faces) */
  int vw;   /* doubles per vector of the translation unit that compiled them (OPS_VW) */
} kernel_table;

#define ENTRY(n)                                                                                    \
  {local_gradient##n, gradient##n,  divergence##n,   gradient_surface##n, divergence_volume##n,       \
   divergence_surface##n, sipdg##n, adv_volume##n, adv_surface##n, mass##n, element_blocks##n, element_product##n, mass_norms##n, \
   mnv##n * OPS_VW, npad##n, grouped##n, sipdg_reg##n, lift_faces##n, OPS_VW}

/* ops_cpu_ymm.c's kernels: entry N filled where that file compiled degree N, else zeros; and
   for each N the operator families (INSDG_OPS_FAM_* bits, ops.h) that take them */
extern const kernel_table insdg_ops_ymm_kernels[INSDG_NMAX + 1];
extern const unsigned char insdg_ops_ymm_use[INSDG_NMAX + 1];

#endif
