/* curved_kernels.h -- what the curved-element operators (curved_elem.inc) read: one
 * struct of plain pointers, host pointers for the CPU path (ops_curved.c) and device
 * pointers for the GPU path (cuda/curved.cu), so that both run the same element code.
 * Valid C and C++.
 *
 * Curved element k (0..n-1 in the arrays below) is block-local element e (mapP, the
 * block's affine sgeo and the fields are indexed by e); on the CPU k is the mesh-wide
 * curved index (block->cindex[e]), on the GPU the position in the block's own compact
 * copy of its curved elements' geometry.
 */
#ifndef INSDG_CURVED_KERNELS_H
#define INSDG_CURVED_KERNELS_H

typedef struct insdg_curved_ctx {
  int K, Np, Nfp, Ncub, Nfcub;
  const int *mapP;            /* [K][3Nfp] the block's face map (block.h) */
  const int *face_nodes;      /* [3Nfp] */
  const double *esgeo;        /* [K][3][INSDG_NSGEO] the block's affine face factors (tau) */
  const double *Dr, *Ds;      /* [Np][Np] row-major */
  const double *cub_interp;   /* [Ncub][Np] */
  const double *face_interp;  /* [Nfcub][Nfp] */
  const double *Mf;           /* [Nfp][Nfp] */
  const double *cub_Dr, *cub_Ds;   /* [Ncub][Np] */
  /* per curved element k, the layouts of insdg_curved (curved.h) */
  const double *vgeo, *sgeo, *cgeo, *fcgeo, *M, *invM;
} insdg_curved_ctx;

/* A velocity-like pair: fields, halos (exterior traces at mapP >= K Np), boundary data
   (NULL: zero), as insdg_vec_in (ops.h). */
typedef struct insdg_curved_pair {
  const double *u, *v, *u_halo, *v_halo, *gu, *gv;
} insdg_curved_pair;

#endif
