/* ops.h -- the DG operators of the paper on one block of elements, CPU kernels.
 *
 *  insdg_op_local_gradient  Alg. "Local Gradient Kernel":   (ux, uy) = (D_x u, D_y u), element-local
 *  insdg_op_gradient        G p, central flux              eq. (INS_SD_4_1)
 *  insdg_op_divergence      D u, central flux              eq. (INS_SD_4_2)
 *  insdg_op_sipdg           A u = M^e(-L + lambda) u       eq. (ellipticOp3), Alg. "SIPDG Kernel"
 *  insdg_op_adv_volume      -G P . F(Ubar, Ut) at cubature points      eq. (KSS_3), Alg. SAV
 *  insdg_op_adv_surface     + sum_f J^f/J L_c n.F*  (local Lax-Friedrichs)  eq. (KSS_3), Alg. SAS
 *  insdg_op_advection       N(U)      = volume + surface with Ubar = Ut = U  eq. (INS_SD_2)
 *  insdg_op_subcycle        Ntilde(Ubar, Ut)                               eq. (INS_CUB_N)
 *
 * Every kernel is a function of one block's arrays (block.h): fields are [K][Np] doubles
 * of the block; the exterior trace comes from the block through mapP, from the field's
 * halo array when mapP points past K*Np. Kernels are specialised at compile time for each
 * N = 1..INSDG_NMAX (ops_kernels.inc included once per N) and dispatched by b->N.
 *
 * Results are strong-form nodal values (M^{-1} applied) except insdg_op_sipdg, which
 * returns the weak form J M (...) so that the assembled matrix is symmetric.
 *
 * Boundary conditions per face come as codes (block.h, INSDG_BC_*) for the field at hand,
 * and boundary data as arrays g[K][3*Nfp] at the face nodes (NULL means zero):
 *  - gradient / divergence: Dirichlet means the flux value is g (u* = g); Neumann means
 *    the interior value (u* = u-).  (For the pressure gradient, velocity walls and inflow
 *    are Neumann for p, and outflow is Dirichlet for p: paper §2.1.)
 *  - sipdg: Dirichlet: u+ = 2g - u-, grad u+ = grad u-; Neumann: u+ = u-,
 *    grad u+ = -grad u- + 2 g n, so that n.{grad u} = g (g = 0 in insdg_op_sipdg, which
 *    is linear): on a Dirichlet face g is the value, on a Neumann face the normal
 *    derivative. The affine part insdg_op_sipdg_data(u = 0, g) moves the data to the
 *    right-hand side.
 *  - advection: Dirichlet: exterior value g; Neumann: exterior = interior.
 */
#ifndef INSDG_OPS_H
#define INSDG_OPS_H

#include "block.h"
#include "ref_tri.h"

/* Operator data derived from the reference element, laid out for the kernels
   (transposed so that inner loops run over contiguous output nodes). */
typedef struct insdg_ops {
  const insdg_ref *ref;
  double *DrT, *DsT;       /* [Np][Np]   DrT[j][i] = Dr[i][j] */
  double *LIFTT;           /* [3Nfp][Np] */
  double *cub_interpT;     /* [Np][Ncub] */
  double *cub_PrT, *cub_PsT;  /* [Ncub][Np] */
  double *cub_LIFTT;       /* [3Nfcub][Np] */
  /* for the one-element CPU kernels (N <= 6 or 7, OPS_TILES_* in ops_kernels.inc) and the
     element groups: DrT, DsT and LIFTT with rows zero-padded from Np to npad (Np rounded up
     to that N's vector width, KVW in ops_kernels.inc), 64-byte aligned; DrTp, DsTp and
     LIFTTp one allocation, in that order (DsTp = DrTp + Np npad, LIFTTp = DsTp + Np npad):
     D at low N applies the three as one matrix */
  int npad;
  double *DrTp, *DsTp, *LIFTTp;
  /* D's one product with the element's own traces folded into the derivatives: [Dr'; Ds'; LIFT]
     transposed and padded as DrTp (an allocation of its own, 2 Np + 3 Nfp rows), Dr' = Dr - (1/2) LIFT S_r,
     Ds' = Ds - (1/2) LIFT S_s, where S_r, S_s restrict a nodal field to the face nodes scaled by
     the reference normals times the face lengths over 2, (0, 1, -1) for r and (-1, 1, 0) for s
     on faces 0, 1, 2. On an affine element (Fscale/2) n_f = (sigma_r,f (rx, ry) + sigma_s,f
     (sx, sy)) / 2, so the own half of D's central flux, LIFT ((Fscale/2) n.U-), is LIFT (S_r a +
     S_s c) / 2 with a = rx u + ry v, c = sx u + sy v: D u = Dr' a + Ds' c + LIFT ((Fscale/2)
     n.U+), the exterior traces only (ops_kernels.inc, div_ext). docs/numerics.md "D with the
     own traces folded". */
  double *DcTp;
  /* SIPDG's last step in one product (ops_kernels.inc, sipdg): Au = J [M | M Dr | M Ds | M LIFT]
     [lambda u; qr; qs; s]. SKTp: that matrix transposed, 3 Np + 3 Nfp rows padded as above (its
     first Np rows M's, skipped when lambda = 0); SKT: the same unpadded, [3 Np + 3 Nfp][Np]
     (the tiles); SKrows (Np <= 24, else NULL): its rows in blocks, [M | M Dr | M Ds] each
     zero-padded to 8 ceil(Np / 8), then the Nfp columns of M LIFT of each face zero-padded to 8,
     aligned (the AVX-512 register SIPDG: at N = 2, 3 its product as dot products of these rows,
     REG_ROWS; at N = 5 the last row's output, REG_DOT; ops_sipdg_reg.inc) */
  double *SKTp, *SKT, *SKrows;
  /* where INSDG_SKROWS_PACK(Np) (N = 3: tails of two nodes), the three blocks' tails of an SKrows
     row packed into the first block's tail, [M | M Dr | M Ds] columns 8, 9 of each in lanes 0-5,
     the other blocks' tails zero (-DINSDG_SIPDG_REG_PACK=0: not packed, three ymm tails) */
#ifndef INSDG_SIPDG_REG_PACK
#define INSDG_SIPDG_REG_PACK 1
#endif
#define INSDG_SKROWS_PACK(Np) (INSDG_SIPDG_REG_PACK && (Np) > 8 && (Np) <= 10)
  double *MT, *invMT;      /* [Np][Np] MT[j][i] = M[i][j], and the same of M^-1 */
  double *ML;              /* [Np][Np] L, L L^T = M (Cholesky), zeros above the diagonal */
  double *MLp;             /* the rows of L zero-padded to whole vectors of the build, aligned */
} insdg_ops;

insdg_ops *insdg_ops_create(const insdg_ref *ref);
void insdg_ops_destroy(insdg_ops *ops);

/* The elements per group if this build's CPU kernels of degree N run on groups of elements
   (src/ops_group.inc: N >= 6 with 4- or 8-double vectors; 4, 5 or 6 per group by the core and
   the vector width, ops_kernels.inc), whose G and SIPDG lift the face-weighted jumps face by face
   (one lift product, not two); 0 for the one-element and tile kernels. bench_ops counts each
   path's own flops. */
int insdg_ops_cpu_grouped(int N);

/* 1 if this build's CPU SIPDG of degree N keeps an element's values in registers
   (src/ops_sipdg_reg.inc: N = 2..5 under AVX-512 VL and FMA; src/ops_sipdg_avx2.inc: N = 2..4
   under AVX2 and FMA; by default on AMD Zen), which lifts
   face by face as the groups do and reads the block's nbr_row and nbr_face, not the face map,
   for its interior elements; else 0. bench_ops counts its own flops and bytes. */
int insdg_ops_cpu_sipdg_reg(int N);

/* How this build's CPU G and SIPDG of degree N lift their face-weighted jumps: bit 1 set if G
   lifts face by face (one lift product per face and the weighted sums: the groups and the
   one-element kernels), bit 2 if SIPDG does (the groups, the register and the one-element
   kernels); a clear bit: the tile kernels' two lift products over all faces. bench_ops counts
   the flops of the path that runs. */
int insdg_ops_cpu_lift_faces(int N);

/* The CPU kernels' operator families: G (the local gradient, G and its surface part), D (D and
   its parts), SIPDG, and the others (advection, mass, element blocks and products, mass norms). */
enum { INSDG_OPS_FAM_G = 1, INSDG_OPS_FAM_D = 2, INSDG_OPS_FAM_S = 4, INSDG_OPS_FAM_O = 8, INSDG_OPS_FAM_ALL = 15 };

/* Doubles per vector of this build's CPU kernels of degree N and family fam (INSDG_OPS_FAM_*): 8
   under AVX-512, 4 under AVX, 2 else, and 4 where an AVX-512 build compiles them for 256-bit
   vectors (src/ops_cpu_ymm.c, CMake's INSDG_OPS_YMM_DEGREES). */
int insdg_ops_cpu_vector_width(int N, int fam);

/* A velocity-like pair on a block with its halos and its Dirichlet data. */
typedef struct {
  const double *u, *v;             /* [K][Np] */
  const double *u_halo, *v_halo;   /* [nhalo], may be NULL when the block has no halo */
  const double *gu, *gv;           /* [K][3Nfp] Dirichlet data at face nodes, or NULL (zero) */
} insdg_vec_in;

void insdg_op_local_gradient(const insdg_ops *op, const insdg_block *b, const double *u,
                             double *ux, double *uy);

void insdg_op_gradient(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                       const double *g, const double *p, const double *p_halo,
                       double *px, double *py);

void insdg_op_divergence(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                         const insdg_vec_in *U, double *divu);

/* The volume and surface halves of G and D (the task layer runs them as separate tasks,
   so that volume work never waits for a halo): gradient = local_gradient then
   gradient_surface (adds); divergence = divergence_volume (writes) then
   divergence_surface (adds). The composition is bitwise the fused operator. */
void insdg_op_gradient_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                               const double *p, const double *p_halo, double *px, double *py);
void insdg_op_divergence_volume(const insdg_ops *op, const insdg_block *b, const double *u, const double *v,
                                double *divu);
void insdg_op_divergence_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                                 const insdg_vec_in *U, double *divu);

/* ux, uy: insdg_op_local_gradient of u; *_halo: their exterior traces. */
void insdg_op_sipdg(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                    double lambda, const double *u, const double *ux, const double *uy,
                    const double *u_halo, const double *ux_halo, const double *uy_halo,
                    double *Au);

/* The same with boundary data g [K][3Nfp] (NULL: zero): values on Dirichlet faces, normal
   derivatives on Neumann faces: A u + (the data's part). */
void insdg_op_sipdg_data(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                         double lambda, const double *u, const double *ux, const double *uy,
                         const double *u_halo, const double *ux_halo, const double *uy_halo, double *Au);

/* The same on the block's elements [e_begin, e_end) only (the rest of Au untouched); each
   element's result is the same bits as in the whole-block call. The halo arrays are not
   read for elements below b->Kin (they may be NULL when e_end <= b->Kin). */
void insdg_op_sipdg_elements(const insdg_ops *op, const insdg_block *b, const signed char *bc, const double *g,
                             double lambda, const double *u, const double *ux, const double *uy,
                             const double *u_halo, const double *ux_halo, const double *uy_halo, double *Au,
                             int e_begin, int e_end);

/* Writes Nu, Nv. */
void insdg_op_adv_volume(const insdg_ops *op, const insdg_block *b, const double *ub,
                         const double *vb, const double *ut, const double *vt,
                         double *Nu, double *Nv);

/* Adds to Nu, Nv. The dissipation is lambda_factor * max(|n.Ubar-|, |n.Ubar+|):
   1 for the linear subcycling operator, 2 for N(U) (the flux Jacobian of u (x) u has
   eigenvalues n.u and 2 n.u). */
void insdg_op_adv_surface(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                          double lambda_factor, const insdg_vec_in *Ubar, const insdg_vec_in *Ut,
                          double *Nu, double *Nv);

/* z = alpha J M r on each element (inverse = 0), or z = J^-1 M^-1 r (inverse = 1, alpha
   unused); curved elements with their own mass matrices. */
void insdg_op_mass(const insdg_ops *op, const insdg_block *b, int inverse, double alpha, const double *r, double *z);

/* z_e = B_e r_e on each of K elements of op's degree with B [K][Np][Np] row-major, every
   B_e symmetric (its rows are read as its columns), r and z [K][Np]. */
void insdg_op_element_blocks(const insdg_ops *op, int K, const double *B, const double *r, double *z);

/* out[e] = d_e^T M d_e (the reference mass matrix, no Jacobian) for the n elements of x [n][Np],
   d_e = x_e - y_e (y NULL: x_e), computed as |L^T d_e|^2 (op->ML): a sum of squares, never
   negative. The squared L2 norms of the diagnostics (tasks/observe.c). */
void insdg_op_mass_norms(const insdg_ops *op, int n, const double *x, const double *y, double *out);

/* y_e = A x_e (accumulate: y_e += A x_e) on each of K elements of degree N: A [Np(N)][n]
   given transposed (AT [n][Np(N)]), x [K][n], y [K][Np(N)] (the p-multigrid transfers). */
void insdg_op_element_product(int N, int K, int n, const double *AT, const double *x, int accumulate, double *y);

void insdg_op_advection(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                        const insdg_vec_in *U, double *Nu, double *Nv);

void insdg_op_subcycle(const insdg_ops *op, const insdg_block *b, const signed char *bc,
                       const insdg_vec_in *Ubar, const insdg_vec_in *Ut, double *Nu, double *Nv);

#endif
