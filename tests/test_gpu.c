/* test_gpu.c -- every GPU kernel (cuda/insdg_gpu.h) against its CPU kernel, in double
 * precision, on random data.
 *
 * For N = 1..INSDG_GPU_NMAX, on a jittered rectangle generated in code (no files; 308
 * triangles, with Dirichlet and Neumann sides) cut into three blocks of 101, 200 and 7
 * elements (halos on both sides of the middle block; a last block smaller than one
 * thread block of every kernel, so tails are exercised), whose bottom, top and left
 * sides are bulged into cubic curves (curved.h: every block has curved and affine
 * elements, and the curved ones see Dirichlet and Neumann faces, so the element
 * operators' curved path, cuda/curved.cu, is checked with the affine one), and for every
 * version of the four studied kernels:
 *   - inputs are drawn fresh from a seeded generator for every check, on the whole
 *     mesh, and the halos gathered from them (insdg_block_gather_halo);
 *   - outputs are poisoned before each run (every byte 0xFF, a NaN), and have a guard
 *     zone of 64 poisoned doubles behind them that must come back untouched; outputs
 *     that the kernel adds to are set to random values, the same on both sides;
 *   - the check is max_i |gpu_i - cpu_i| / max_i |cpu_i| <= 1e-12, no NaN or Inf in the
 *     output (an unwritten element stays NaN), and a nonzero reference;
 *   - dot products: |gpu - cpu| <= 1e-12 sum_i |x_i y_i| (their summation orders differ
 *     by construction: a tree on the GPU, a sequential sum on the CPU).
 * The CPU references are the functions of src/ops.h, src/csr.h and src/assemble.h, called
 * directly; where the CPU code is a StarPU codelet (vector updates and mass matrices of
 * tasks/vec_tasks.c, transfers of tasks/pmg.c, the LSERK stage of tasks/ins.c, the
 * Chebyshev steps of tasks/pmg.c, the pack of tasks/ops_tasks.c) the test has a plain-C
 * copy of the codelet's loop, marked "reference (codelet)".
 * Every GPU call's return code is checked (a runtime failure stops the program) and the
 * device is synchronised after every kernel, so asynchronous faults are caught there.
 * A self-check first proves the checker fails on a wrong result and on an unwritten one.
 *
 * Usage: test_gpu [NMIN [NMAX]]. Exit status: 0 all passed, 1 a failure (also: no GPU).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "block.h"
#include "csr.h"
#include "curved.h"
#include "error.h"
#include "insdg_gpu.h"
#include "mesh.h"
#include "ops.h"
#include "ops_curved.h"
#include "ref_tri.h"

#include "expect.h"

#define TOL 1e-12
#define GUARD 64

/* ---- checked GPU calls -------------------------------------------------------------- */
#define GPU(call)                                                                                        \
  do {                                                                                                   \
    const int rc_ = (call);                                                                              \
    if (rc_ != INSDG_GPU_OK) {                                                                           \
      printf("FAIL %s:%d: %s returned %d (%s) %s\n", __FILE__, __LINE__, #call, rc_, insdg_gpu_strerror(rc_), \
             insdg_gpu_last_error());                                                                    \
      exit(1);                                                                                           \
    }                                                                                                    \
  } while (0)

/* a kernel launch: return code, then a device synchronisation for asynchronous faults */
#define LAUNCH(call)                                                                                     \
  do {                                                                                                   \
    GPU(call);                                                                                           \
    GPU(insdg_gpu_synchronize());                                                                        \
  } while (0)

/* ---- random numbers (splitmix64) ----------------------------------------------------- */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void)   /* [-1, 1) */
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return 2.0 * ((double)(z >> 11) / 9007199254740992.0) - 1.0;
}
static void fill(double *a, size_t n)
{
  for (size_t i = 0; i < n; ++i) a[i] = urand();
}
static void fill_positive(double *a, size_t n)
{
  for (size_t i = 0; i < n; ++i) a[i] = 1.5 + urand();
}
static double *dalloc(size_t n) { return insdg_malloc(sizeof(double) * (n > 0 ? n : 1)); }

/* ---- device buffers with a guard zone ------------------------------------------------ */
typedef struct {
  double *d;
  size_t n;
} dbuf;

static dbuf dnew(size_t n)
{
  dbuf b = {NULL, n};
  GPU(insdg_gpu_malloc((void **)&b.d, sizeof(double) * (n + GUARD)));
  GPU(insdg_gpu_memset(b.d, 0xFF, sizeof(double) * (n + GUARD)));
  return b;
}
static void dfree(dbuf *b)
{
  GPU(insdg_gpu_free(b->d));
  b->d = NULL;
}
static void poison(dbuf b) { GPU(insdg_gpu_memset(b.d, 0xFF, sizeof(double) * (b.n + GUARD))); }
/* poison (guard included), then the first n values from h */
static void put(dbuf b, const double *h)
{
  poison(b);
  GPU(insdg_gpu_memcpy_h2d(b.d, h, sizeof(double) * b.n));
}
/* the first n values into h; the guard must still hold the poison */
static void get(dbuf b, double *h, const char *what)
{
  unsigned char *tmp = insdg_malloc(sizeof(double) * (b.n + GUARD));
  GPU(insdg_gpu_memcpy_d2h(tmp, b.d, sizeof(double) * (b.n + GUARD)));
  memcpy(h, tmp, sizeof(double) * b.n);
  size_t bad = 0;
  for (size_t k = sizeof(double) * b.n; k < sizeof(double) * (b.n + GUARD); ++k) bad += tmp[k] != 0xFF;
  EXPECT(bad == 0, "%s: %zu bytes written past the end of the output", what, bad);
  free(tmp);
}
static int *dput_int(const int *h, size_t n)
{
  int *d = NULL;
  GPU(insdg_gpu_malloc((void **)&d, sizeof(int) * (n > 0 ? n : 1)));
  GPU(insdg_gpu_memcpy_h2d(d, h, sizeof(int) * n));
  return d;
}

/* ---- the comparison ------------------------------------------------------------------- */
typedef struct {
  double rel;       /* max |gpu - cpu| / max |cpu| */
  size_t nonfinite; /* NaN or Inf in the GPU result */
  double refmax;
} cmp_result;

static cmp_result compare(const double *gpu, const double *cpu, size_t n)
{
  cmp_result r = {0, 0, 0};
  double dmax = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!isfinite(gpu[i])) {
      ++r.nonfinite;
      continue;
    }
    dmax = fmax(dmax, fabs(gpu[i] - cpu[i]));
    r.refmax = fmax(r.refmax, fabs(cpu[i]));
  }
  r.rel = r.refmax > 0 ? dmax / r.refmax : dmax;
  return r;
}

static int nchecks = 0;
static double worst = 0;

static void check(const char *what, int N, int block, int version, const double *gpu, const double *cpu, size_t n)
{
  const cmp_result r = compare(gpu, cpu, n);
  ++nchecks;
  if (r.nonfinite == 0) worst = fmax(worst, r.rel);
  EXPECT(r.nonfinite == 0 && r.rel <= TOL && r.refmax > 0,
         "N=%d block %d %s v%d: rel error %.3e, %zu non-finite of %zu, max |ref| %.3e", N, block, what, version, r.rel,
         r.nonfinite, n, r.refmax);
}

/* GPU output buffer -> host -> compare with cpu */
static void check_buf(const char *what, int N, int block, int version, dbuf b, const double *cpu)
{
  double *h = dalloc(b.n);
  get(b, h, what);
  check(what, N, block, version, h, cpu, b.n);
  free(h);
}

/* ---- one degree ------------------------------------------------------------------------ */
typedef struct {
  const insdg_mesh *m;
  const insdg_ref *ref;
  const insdg_ops *op;
  insdg_gpu_ref R;
  int N, Np, Nfp;
  size_t nglob;   /* K * Np of the whole mesh */
} level;

typedef struct {
  insdg_block *b;
  insdg_gpu_block B;
  signed char *bc;    /* host [K][3] */
  signed char *d_bc;  /* device */
  size_t n, nf;       /* K*Np, K*3*Nfp */
  int id;
  double *d_work;     /* the surface operators' curved work (insdg_gpu_curved_work_doubles), or NULL */
} blk;

/* a field on the whole mesh, its block part and halo on the host and on the device */
typedef struct {
  double *glob, *halo;
  const double *part;   /* glob + e0*Np */
  dbuf d, dh;
} field;

static field field_new(const level *L, const blk *B)
{
  field f;
  f.glob = dalloc(L->nglob);
  fill(f.glob, L->nglob);
  f.halo = dalloc((size_t)B->b->nhalo);
  insdg_block_gather_halo(B->b, f.glob, f.halo);
  f.part = f.glob + (size_t)B->b->e0 * L->Np;
  f.d = dnew(B->n);
  put(f.d, f.part);
  f.dh = dnew((size_t)B->b->nhalo);
  put(f.dh, f.halo);
  return f;
}
static void field_free(field *f)
{
  free(f->glob), free(f->halo);
  dfree(&f->d), dfree(&f->dh);
}
static const double *dh_or_null(const field *f, const blk *B) { return B->b->nhalo > 0 ? f->dh.d : NULL; }

/* random boundary data [K][3Nfp] on host and device */
typedef struct {
  double *h;
  dbuf d;
} bdata;
static bdata bdata_new(const blk *B)
{
  bdata g = {dalloc(B->nf), dnew(B->nf)};
  fill(g.h, B->nf);
  put(g.d, g.h);
  return g;
}
static void bdata_free(bdata *g) { free(g->h), dfree(&g->d); }

/* an in/out field the kernel adds to: the same random start on both sides */
static double *start_values(dbuf d, size_t n)
{
  double *h = dalloc(n);
  fill(h, n);
  put(d, h);
  return h;
}

static void test_local_gradient(const level *L, const blk *B)
{
  for (int v = 0; v < INSDG_GPU_NVERSIONS; ++v) {
    field u = field_new(L, B);
    double *ux = dalloc(B->n), *uy = dalloc(B->n);
    insdg_op_local_gradient(L->op, B->b, u.part, ux, uy);
    dbuf dux = dnew(B->n), duy = dnew(B->n);
    LAUNCH(insdg_gpu_local_gradient(&L->R, &B->B, v, u.d.d, dux.d, duy.d, NULL));
    check_buf("local_gradient ux", L->N, B->id, v, dux, ux);
    check_buf("local_gradient uy", L->N, B->id, v, duy, uy);
    field_free(&u), free(ux), free(uy), dfree(&dux), dfree(&duy);
  }
}

static void test_gradient(const level *L, const blk *B)
{
  for (int fused = 0; fused < 2; ++fused) {
    field p = field_new(L, B);
    bdata g = bdata_new(B);
    dbuf dpx = dnew(B->n), dpy = dnew(B->n);
    double *px = dalloc(B->n), *py = dalloc(B->n);
    if (fused) {
      insdg_op_gradient(L->op, B->b, B->bc, g.h, p.part, p.halo, px, py);
      LAUNCH(insdg_gpu_gradient(&L->R, &B->B, B->d_bc, g.d.d, p.d.d, dh_or_null(&p, B), dpx.d, dpy.d, NULL));
    } else {
      double *s = start_values(dpx, B->n);
      memcpy(px, s, sizeof(double) * B->n), free(s);
      s = start_values(dpy, B->n);
      memcpy(py, s, sizeof(double) * B->n), free(s);
      insdg_op_gradient_surface(L->op, B->b, B->bc, g.h, p.part, p.halo, px, py);
      LAUNCH(insdg_gpu_gradient_surface(&L->R, &B->B, B->d_bc, g.d.d, p.d.d, dh_or_null(&p, B), dpx.d, dpy.d,
                                        B->d_work, NULL));
    }
    check_buf(fused ? "gradient px" : "gradient_surface px", L->N, B->id, 0, dpx, px);
    check_buf(fused ? "gradient py" : "gradient_surface py", L->N, B->id, 0, dpy, py);
    field_free(&p), bdata_free(&g), dfree(&dpx), dfree(&dpy), free(px), free(py);
  }
}

static void test_divergence(const level *L, const blk *B)
{
  for (int which = 0; which < 3; ++which) {   /* volume, surface, fused */
    field u = field_new(L, B), v = field_new(L, B);
    bdata gu = bdata_new(B), gv = bdata_new(B);
    const insdg_vec_in U = {u.part, v.part, u.halo, v.halo, gu.h, gv.h};
    const insdg_gpu_vec_in dU = {u.d.d, v.d.d, dh_or_null(&u, B), dh_or_null(&v, B), gu.d.d, gv.d.d};
    dbuf dd = dnew(B->n);
    double *div = dalloc(B->n);
    const char *name = which == 0 ? "divergence_volume" : which == 1 ? "divergence_surface" : "divergence";
    if (which == 0) {
      insdg_op_divergence_volume(L->op, B->b, u.part, v.part, div);
      LAUNCH(insdg_gpu_divergence_volume(&L->R, &B->B, u.d.d, v.d.d, dd.d, NULL));
    } else if (which == 1) {
      double *s = start_values(dd, B->n);
      memcpy(div, s, sizeof(double) * B->n), free(s);
      insdg_op_divergence_surface(L->op, B->b, B->bc, &U, div);
      LAUNCH(insdg_gpu_divergence_surface(&L->R, &B->B, B->d_bc, &dU, dd.d, B->d_work, NULL));
    } else {
      insdg_op_divergence(L->op, B->b, B->bc, &U, div);
      LAUNCH(insdg_gpu_divergence(&L->R, &B->B, B->d_bc, &dU, dd.d, NULL));
    }
    check_buf(name, L->N, B->id, 0, dd, div);
    field_free(&u), field_free(&v), bdata_free(&gu), bdata_free(&gv), dfree(&dd), free(div);
  }
}

static void test_sipdg(const level *L, const blk *B)
{
  for (int v = 0; v < INSDG_GPU_NVERSIONS; ++v)
    for (int with_g = 0; with_g < 2; ++with_g) {
      field u = field_new(L, B), ux = field_new(L, B), uy = field_new(L, B);
      bdata g = bdata_new(B);
      const double lambda = with_g ? 1.3 : 0.0;
      double *Au = dalloc(B->n);
      insdg_op_sipdg_data(L->op, B->b, B->bc, with_g ? g.h : NULL, lambda, u.part, ux.part, uy.part, u.halo, ux.halo,
                          uy.halo, Au);
      dbuf dAu = dnew(B->n);
      LAUNCH(insdg_gpu_sipdg(&L->R, &B->B, v, B->d_bc, with_g ? g.d.d : NULL, lambda, u.d.d, ux.d.d, uy.d.d,
                             dh_or_null(&u, B), dh_or_null(&ux, B), dh_or_null(&uy, B), dAu.d, NULL));
      check_buf(with_g ? "sipdg (data, lambda 1.3)" : "sipdg (g NULL, lambda 0)", L->N, B->id, v, dAu, Au);
      field_free(&u), field_free(&ux), field_free(&uy), bdata_free(&g), free(Au), dfree(&dAu);
    }
}

static void test_advection(const level *L, const blk *B)
{
  for (int v = 0; v < INSDG_GPU_NVERSIONS; ++v) {   /* volume */
    field ub = field_new(L, B), vb = field_new(L, B), ut = field_new(L, B), vt = field_new(L, B);
    double *Nu = dalloc(B->n), *Nv = dalloc(B->n);
    insdg_op_adv_volume(L->op, B->b, ub.part, vb.part, ut.part, vt.part, Nu, Nv);
    dbuf dNu = dnew(B->n), dNv = dnew(B->n);
    LAUNCH(insdg_gpu_adv_volume(&L->R, &B->B, v, ub.d.d, vb.d.d, ut.d.d, vt.d.d, dNu.d, dNv.d, NULL));
    check_buf("adv_volume Nu", L->N, B->id, v, dNu, Nu);
    check_buf("adv_volume Nv", L->N, B->id, v, dNv, Nv);
    field_free(&ub), field_free(&vb), field_free(&ut), field_free(&vt);
    free(Nu), free(Nv), dfree(&dNu), dfree(&dNv);
  }
  for (int v = 0; v < INSDG_GPU_NVERSIONS; ++v)   /* surface, both dissipation factors */
    for (int lf = 1; lf <= 2; ++lf) {
      field ub = field_new(L, B), vb = field_new(L, B), ut = field_new(L, B), vt = field_new(L, B);
      bdata g[4] = {bdata_new(B), bdata_new(B), bdata_new(B), bdata_new(B)};
      const insdg_vec_in Ub = {ub.part, vb.part, ub.halo, vb.halo, g[0].h, g[1].h};
      const insdg_vec_in Ut = {ut.part, vt.part, ut.halo, vt.halo, g[2].h, g[3].h};
      const insdg_gpu_vec_in dUb = {ub.d.d, vb.d.d, dh_or_null(&ub, B), dh_or_null(&vb, B), g[0].d.d, g[1].d.d};
      const insdg_gpu_vec_in dUt = {ut.d.d, vt.d.d, dh_or_null(&ut, B), dh_or_null(&vt, B), g[2].d.d, g[3].d.d};
      dbuf dNu = dnew(B->n), dNv = dnew(B->n);
      double *Nu = start_values(dNu, B->n), *Nv = start_values(dNv, B->n);
      insdg_op_adv_surface(L->op, B->b, B->bc, (double)lf, &Ub, &Ut, Nu, Nv);
      LAUNCH(insdg_gpu_adv_surface(&L->R, &B->B, v, B->d_bc, (double)lf, &dUb, &dUt, dNu.d, dNv.d, B->d_work, NULL));
      check_buf(lf == 1 ? "adv_surface Nu (factor 1)" : "adv_surface Nu (factor 2)", L->N, B->id, v, dNu, Nu);
      check_buf(lf == 1 ? "adv_surface Nv (factor 1)" : "adv_surface Nv (factor 2)", L->N, B->id, v, dNv, Nv);
      field_free(&ub), field_free(&vb), field_free(&ut), field_free(&vt);
      for (int k = 0; k < 4; ++k) bdata_free(&g[k]);
      free(Nu), free(Nv), dfree(&dNu), dfree(&dNv);
    }
  for (int which = 0; which < 2; ++which) {   /* N(U) and Ntilde(Ubar, Ut) */
    field ub = field_new(L, B), vb = field_new(L, B), ut = field_new(L, B), vt = field_new(L, B);
    bdata g[4] = {bdata_new(B), bdata_new(B), bdata_new(B), bdata_new(B)};
    const insdg_vec_in Ub = {ub.part, vb.part, ub.halo, vb.halo, g[0].h, g[1].h};
    const insdg_vec_in Ut = {ut.part, vt.part, ut.halo, vt.halo, g[2].h, g[3].h};
    const insdg_gpu_vec_in dUb = {ub.d.d, vb.d.d, dh_or_null(&ub, B), dh_or_null(&vb, B), g[0].d.d, g[1].d.d};
    const insdg_gpu_vec_in dUt = {ut.d.d, vt.d.d, dh_or_null(&ut, B), dh_or_null(&vt, B), g[2].d.d, g[3].d.d};
    double *Nu = dalloc(B->n), *Nv = dalloc(B->n);
    dbuf dNu = dnew(B->n), dNv = dnew(B->n);
    if (which == 0) {
      insdg_op_advection(L->op, B->b, B->bc, &Ub, Nu, Nv);
      LAUNCH(insdg_gpu_advection(&L->R, &B->B, B->d_bc, &dUb, dNu.d, dNv.d, NULL));
    } else {
      insdg_op_subcycle(L->op, B->b, B->bc, &Ub, &Ut, Nu, Nv);
      LAUNCH(insdg_gpu_subcycle(&L->R, &B->B, B->d_bc, &dUb, &dUt, dNu.d, dNv.d, NULL));
    }
    check_buf(which == 0 ? "advection N(U) Nu" : "subcycle Nu", L->N, B->id, 0, dNu, Nu);
    check_buf(which == 0 ? "advection N(U) Nv" : "subcycle Nv", L->N, B->id, 0, dNv, Nv);
    field_free(&ub), field_free(&vb), field_free(&ut), field_free(&vt);
    for (int k = 0; k < 4; ++k) bdata_free(&g[k]);
    free(Nu), free(Nv), dfree(&dNu), dfree(&dNv);
  }
}

/* reference (codelet): V_INVMASS and V_MASS of tasks/vec_tasks.c (curved elements: their
   own M_J, src/ops_curved.c) */
static void ref_mass(const level *L, const blk *B, int inverse, double alpha, const double *r, double *z)
{
  const insdg_ref *ref = L->ref;
  const int Np = ref->Np;
  for (int e = 0; e < B->b->K; ++e) {
    const double J = B->b->vgeo[(size_t)e * INSDG_NVGEO + INSDG_J];
    const double scale = inverse ? 1.0 / J : alpha * J;
    const double *A = inverse ? ref->invM : ref->M;
    for (int i = 0; i < Np; ++i) {
      double sum = 0;
      for (int j = 0; j < Np; ++j) sum += A[i * Np + j] * r[(size_t)e * Np + j];
      z[(size_t)e * Np + i] = scale * sum;
    }
  }
  if (B->b->ncurved) insdg_curved_mass(B->b, inverse, alpha, r, z);
}

static void test_mass(const level *L, const blk *B)
{
  for (int inverse = 0; inverse < 2; ++inverse) {
    field r = field_new(L, B);
    double *z = dalloc(B->n);
    ref_mass(L, B, inverse, 0.7, r.part, z);
    dbuf dz = dnew(B->n);
    if (inverse) LAUNCH(insdg_gpu_inverse_mass(&L->R, &B->B, r.d.d, dz.d, NULL));
    else LAUNCH(insdg_gpu_mass(&L->R, &B->B, 0.7, r.d.d, dz.d, NULL));
    check_buf(inverse ? "inverse_mass" : "mass", L->N, B->id, 0, dz, z);
    field_free(&r), free(z), dfree(&dz);
  }
}

/* reference (codelet): transfer_cpu of tasks/pmg.c */
static void ref_transfer(int prolong, int K, int Npf, int Npc, const double *P, const double *src, double *dst)
{
  for (int e = 0; e < K; ++e) {
    if (prolong) {
      const double *c = src + (size_t)e * Npc;
      double *f = dst + (size_t)e * Npf;
      for (int i = 0; i < Npf; ++i) {
        double s = 0;
        for (int j = 0; j < Npc; ++j) s += P[i * Npc + j] * c[j];
        f[i] += s;
      }
    } else {
      const double *f = src + (size_t)e * Npf;
      double *c = dst + (size_t)e * Npc;
      for (int j = 0; j < Npc; ++j) c[j] = 0;
      for (int i = 0; i < Npf; ++i)
        for (int j = 0; j < Npc; ++j) c[j] += P[i * Npc + j] * f[i];
    }
  }
}

/* the pMG smoother's element-block Jacobi: z_e = B_e r_e, a dense Np x Np block per element */
static void test_block_jacobi(const level *L, const blk *B)
{
  const int Np = L->Np;
  const size_t n = B->n, nb = n * (size_t)Np;
  double *Bm = dalloc(nb), *r = dalloc(n), *z = dalloc(n);
  fill(Bm, nb), fill(r, n);
  for (size_t i = 0; i < n; ++i) {
    const size_t e0 = i - i % (size_t)Np;
    double s = 0;
    for (int j = 0; j < Np; ++j) s += Bm[i * (size_t)Np + j] * r[e0 + j];
    z[i] = s;
  }
  dbuf dB = dnew(nb), dr = dnew(n), dz = dnew(n);
  put(dB, Bm), put(dr, r), poison(dz);
  LAUNCH(insdg_gpu_block_jacobi(n, Np, dB.d, dr.d, dz.d, NULL));
  check_buf("block_jacobi", L->N, B->id, 0, dz, z);
  free(Bm), free(r), free(z), dfree(&dB), dfree(&dr), dfree(&dz);
}

static void test_transfers(const level *L, const blk *B)
{
  if (L->N < 2) return;
  const int coarse[3] = {(L->N + 1) / 2, L->N - 1, L->N - 2};   /* N - 2: pmg.c's default from N = 5 */
  for (int c = 0; c < 3; ++c) {
    const int Nc = coarse[c];
    if (Nc < 1) continue;
    insdg_ref *rc = insdg_ref_create(Nc);
    const int Npf = L->Np, Npc = rc->Np, K = B->b->K;
    double *P = dalloc((size_t)Npf * Npc);
    insdg_ref_interp_matrix(rc, L->ref, P);
    dbuf dP = dnew((size_t)Npf * Npc);
    put(dP, P);
    /* prolong: fine += P coarse */
    double *xc = dalloc((size_t)K * Npc), *xf = dalloc((size_t)K * Npf);
    fill(xc, (size_t)K * Npc);
    dbuf dxc = dnew((size_t)K * Npc), dxf = dnew((size_t)K * Npf);
    put(dxc, xc);
    double *f0 = start_values(dxf, (size_t)K * Npf);
    memcpy(xf, f0, sizeof(double) * K * Npf), free(f0);
    ref_transfer(1, K, Npf, Npc, P, xc, xf);
    LAUNCH(insdg_gpu_pmg_prolong(L->N, Nc, K, dP.d, dxc.d, dxf.d, NULL));
    static const char *const prolong_name[3] = {"pmg_prolong (N -> ceil(N/2))", "pmg_prolong (N -> N-1)",
                                                "pmg_prolong (N -> N-2)"};
    static const char *const restrict_name[3] = {"pmg_restrict (N -> ceil(N/2))", "pmg_restrict (N -> N-1)",
                                                 "pmg_restrict (N -> N-2)"};
    check_buf(prolong_name[c], L->N, B->id, 0, dxf, xf);
    /* restrict: coarse = P^T fine */
    fill(xf, (size_t)K * Npf);
    put(dxf, xf);
    poison(dxc);
    ref_transfer(0, K, Npf, Npc, P, xf, xc);
    LAUNCH(insdg_gpu_pmg_restrict(L->N, Nc, K, dP.d, dxf.d, dxc.d, NULL));
    check_buf(restrict_name[c], L->N, B->id, 0, dxc, xc);
    free(P), free(xc), free(xf), dfree(&dP), dfree(&dxc), dfree(&dxf);
    insdg_ref_destroy(rc);
  }
}

/* vector kernels on the block's n values; references (codelet): vec_tasks.c, ins.c, pmg.c */
static void test_vectors(const level *L, const blk *B)
{
  const size_t n = B->n;
  double *x = dalloc(n), *y = dalloc(n), *z = dalloc(n), *w = dalloc(n), *h = dalloc(n);
  dbuf dx = dnew(n), dy = dnew(n), dz = dnew(n), dw = dnew(n), dscal = dnew(2);
  const int N = L->N, id = B->id;
  /* axpy, xpay with c = sign num / den read on the device */
  const double scal[2] = {0.8 + 0.1 * urand(), 1.7 + 0.1 * urand()};
  put(dscal, scal);
  const insdg_gpu_coef c = {-1.0, dscal.d, dscal.d + 1};
  const double cv = -1.0 * scal[0] / scal[1];
  fill(x, n), fill(y, n), put(dx, x), put(dy, y);
  for (size_t i = 0; i < n; ++i) y[i] += cv * x[i];
  LAUNCH(insdg_gpu_axpy(n, c, dx.d, dy.d, NULL));
  check_buf("axpy", N, id, 0, dy, y);
  fill(x, n), fill(y, n), put(dx, x), put(dy, y);
  for (size_t i = 0; i < n; ++i) y[i] = x[i] + cv * y[i];
  LAUNCH(insdg_gpu_xpay(n, dx.d, c, dy.d, NULL));
  check_buf("xpay", N, id, 0, dy, y);
  /* axpby: beta = 0 must not read y (poisoned), beta != 0 */
  fill(x, n), put(dx, x), poison(dy);
  for (size_t i = 0; i < n; ++i) y[i] = 0.3 * x[i];
  LAUNCH(insdg_gpu_axpby(n, 0.3, dx.d, 0.0, dy.d, NULL));
  check_buf("axpby (beta 0, y poisoned)", N, id, 0, dy, y);
  fill(x, n), fill(y, n), put(dx, x), put(dy, y);
  for (size_t i = 0; i < n; ++i) y[i] = 0.3 * x[i] + -1.1 * y[i];
  LAUNCH(insdg_gpu_axpby(n, 0.3, dx.d, -1.1, dy.d, NULL));
  check_buf("axpby", N, id, 0, dy, y);
  /* copy, sub, jacobi */
  fill(x, n), put(dx, x), poison(dy);
  LAUNCH(insdg_gpu_copy(n, dx.d, dy.d, NULL));
  check_buf("copy", N, id, 0, dy, x);
  fill(x, n), fill(y, n), put(dx, x), put(dy, y), poison(dz);
  for (size_t i = 0; i < n; ++i) z[i] = x[i] - y[i];
  LAUNCH(insdg_gpu_sub(n, dx.d, dy.d, dz.d, NULL));
  check_buf("sub", N, id, 0, dz, z);
  fill_positive(x, n), fill(y, n), put(dx, x), put(dy, y), poison(dz);
  for (size_t i = 0; i < n; ++i) z[i] = x[i] * y[i];
  LAUNCH(insdg_gpu_jacobi(n, dx.d, dy.d, dz.d, NULL));
  check_buf("jacobi", N, id, 0, dz, z);
  /* LSERK stage (tasks/ins.c): res = -dt rhs + a res; w = b res + 1.0 w; a = 0 does not read res */
  for (int first = 0; first < 2; ++first) {
    const double a = first ? 0.0 : -0.4178904745, b = 0.3792103129, dt = 0.013;
    fill(x, n), fill(y, n), fill(w, n), put(dx, x), put(dw, w);
    if (first) poison(dy);
    else put(dy, y);
    for (size_t i = 0; i < n; ++i) {
      y[i] = a == 0.0 ? -dt * x[i] : -dt * x[i] + a * y[i];
      w[i] = b * y[i] + 1.0 * w[i];
    }
    LAUNCH(insdg_gpu_lserk_stage(n, a, b, dt, dx.d, dy.d, dw.d, NULL));
    check_buf(first ? "lserk res (a 0, res poisoned)" : "lserk res", N, id, 0, dy, y);
    check_buf(first ? "lserk w (a 0)" : "lserk w", N, id, 0, dw, w);
  }
  /* Chebyshev (pmg.c): the CPU sequence of task updates, the GPU's fused steps */
  {
    const double theta = 2.3, inv_theta = 1.0 / theta, c_r = 0.71, c_d = 0.23;
    double *dinv = dalloc(n), *bb = dalloc(n), *Ad = dalloc(n), *r = dalloc(n), *d = dalloc(n), *xx = dalloc(n),
           *zz = dalloc(n);
    dbuf ddinv = dnew(n), dbb = dnew(n), dAd = dnew(n), dr = dnew(n), dd = dnew(n), dxx = dnew(n);
    for (int zero = 1; zero >= 0; --zero) {
      fill_positive(dinv, n), fill(bb, n), fill(Ad, n), fill(xx, n);
      put(ddinv, dinv), put(dbb, bb), put(dAd, Ad), poison(dr), poison(dd);
      if (zero) poison(dxx);
      else put(dxx, xx);
      /* reference: copy/sub; jacobi; axpby(1/theta, z, 0, d); copy or axpby(1, d, 1, x) */
      for (size_t i = 0; i < n; ++i) {
        r[i] = zero ? bb[i] : bb[i] - Ad[i];
        zz[i] = dinv[i] * r[i];
        d[i] = inv_theta * zz[i];
        xx[i] = zero ? d[i] : 1.0 * d[i] + 1.0 * xx[i];
      }
      LAUNCH(insdg_gpu_chebyshev_first(n, zero, inv_theta, ddinv.d, dbb.d, zero ? NULL : dAd.d, dr.d, dd.d, dxx.d,
                                       NULL));
      check_buf(zero ? "chebyshev_first r (zero guess)" : "chebyshev_first r", N, id, 0, dr, r);
      check_buf(zero ? "chebyshev_first d (zero guess)" : "chebyshev_first d", N, id, 0, dd, d);
      check_buf(zero ? "chebyshev_first x (zero guess)" : "chebyshev_first x", N, id, 0, dxx, xx);
    }
    /* a later step: axpby(-1, Ad, 1, r); jacobi; axpby(c_r, z, c_d, d); axpby(1, d, 1, x) */
    fill(Ad, n), put(dAd, Ad);
    for (size_t i = 0; i < n; ++i) {
      r[i] = -1.0 * Ad[i] + 1.0 * r[i];
      zz[i] = dinv[i] * r[i];
      d[i] = c_r * zz[i] + c_d * d[i];
      xx[i] = 1.0 * d[i] + 1.0 * xx[i];
    }
    LAUNCH(insdg_gpu_chebyshev_step(n, c_r, c_d, ddinv.d, dAd.d, dr.d, dd.d, dxx.d, NULL));
    check_buf("chebyshev_step r", N, id, 0, dr, r);
    check_buf("chebyshev_step d", N, id, 0, dd, d);
    check_buf("chebyshev_step x", N, id, 0, dxx, xx);
    free(dinv), free(bb), free(Ad), free(r), free(d), free(xx), free(zz);
    dfree(&ddinv), dfree(&dbb), dfree(&dAd), dfree(&dr), dfree(&dd), dfree(&dxx);
  }
  /* dots: three components, the first x.x */
  {
    fill(x, n), fill(y, n), fill(z, n), fill(w, n);
    put(dx, x), put(dy, y), put(dz, z), put(dw, w);
    const double *X[3] = {dx.d, dy.d, dz.d}, *Y[3] = {dx.d, dz.d, dw.d};
    const double *hx[3] = {x, y, z}, *hy[3] = {x, z, w};
    dbuf dpart = dnew(3), dwork = dnew(3 * INSDG_GPU_DOTS_BLOCKS);
    LAUNCH(insdg_gpu_dots(n, 3, X, Y, dpart.d, dwork.d, NULL));
    double part[3];
    get(dpart, part, "dots");
    for (int k = 0; k < 3; ++k) {
      double s = 0, sabs = 0;   /* reference (codelet): V_DOTS, sequential */
      for (size_t i = 0; i < n; ++i) s += hx[k][i] * hy[k][i], sabs += fabs(hx[k][i] * hy[k][i]);
      ++nchecks;
      const double err = fabs(part[k] - s) / sabs;
      if (isfinite(part[k])) worst = fmax(worst, err);
      EXPECT(isfinite(part[k]) && err <= TOL, "N=%d block %d dots[%d]: %.17g vs %.17g, error %.3e of sum |xy|", N, id,
             k, part[k], s, err);
    }
    /* deterministic: the same bits again */
    double again[3];
    LAUNCH(insdg_gpu_dots(n, 3, X, Y, dpart.d, dwork.d, NULL));
    get(dpart, again, "dots");
    EXPECT(!memcmp(part, again, sizeof part), "N=%d block %d dots: a second run gave other bits", N, id);
    dfree(&dpart), dfree(&dwork);
  }
  /* halo pack: buf[k] = field[halo_src[k]] of a field on the whole mesh */
  {
    const size_t nh = (size_t)B->b->nhalo;
    double *glob = dalloc(L->nglob), *buf = dalloc(nh);
    fill(glob, L->nglob);
    dbuf dglob = dnew(L->nglob), dbuf_ = dnew(nh);
    put(dglob, glob);
    int *didx = dput_int(B->b->halo_src, nh);
    insdg_block_gather_halo(B->b, glob, buf);   /* = pack_cpu over the block's pairs */
    LAUNCH(insdg_gpu_pack(nh, didx, dglob.d, dbuf_.d, NULL));
    if (nh > 0) check_buf("pack (halo_src)", N, id, 0, dbuf_, buf);
    GPU(insdg_gpu_free(didx));
    free(glob), free(buf), dfree(&dglob), dfree(&dbuf_);
  }
  free(x), free(y), free(z), free(w), free(h);
  dfree(&dx), dfree(&dy), dfree(&dz), dfree(&dw), dfree(&dscal);
}

/* CSR products on the assembled SIPDG matrix of the whole mesh and on a rectangular
   aggregation-like matrix (the AMG's P) */
static void test_csr(const level *L, const signed char *bc_all)
{
  insdg_csr *A = insdg_assemble_sipdg(L->m, L->op, bc_all, 0.9);
  const int n = A->nrows;
  int *drp = dput_int(A->row_ptr, (size_t)n + 1), *dcol = dput_int(A->col, (size_t)A->nnz);
  dbuf dval = dnew((size_t)A->nnz), dxv = dnew((size_t)n), dbv = dnew((size_t)n), dyv = dnew((size_t)n);
  put(dval, A->val);
  double *x = dalloc((size_t)n), *b = dalloc((size_t)n), *y = dalloc((size_t)n);
  for (int mode = 0; mode < 3; ++mode) {
    fill(x, (size_t)n), fill(b, (size_t)n), fill(y, (size_t)n);
    put(dxv, x), put(dbv, b);
    if (mode == INSDG_GPU_SPMV_ADD) put(dyv, y);
    else poison(dyv);
    if (mode == INSDG_GPU_SPMV_SET) insdg_csr_matvec(A, x, y);
    else if (mode == INSDG_GPU_SPMV_RESIDUAL) insdg_csr_residual(A, x, b, y);
    else {
      double *t = dalloc((size_t)n);
      insdg_csr_matvec(A, x, t);
      for (int i = 0; i < n; ++i) y[i] += t[i];   /* reference: prolong_add of amg.c */
      free(t);
    }
    LAUNCH(insdg_gpu_csr_spmv(n, drp, dcol, dval.d, dxv.d, dbv.d, dyv.d, mode, NULL));
    check_buf(mode == 0 ? "csr y = A x" : mode == 1 ? "csr r = b - A x" : "csr y += A x", L->N, -1, 0, dyv, y);
  }
  GPU(insdg_gpu_free(drp));
  GPU(insdg_gpu_free(dcol));
  dfree(&dval), dfree(&dxv), dfree(&dbv), dfree(&dyv), free(x), free(b), free(y);
  /* P: n x nc, one entry 1.0 per row (piecewise constant aggregation), z += P e */
  const int nc = n / 5 + 1;
  insdg_csr *P = insdg_csr_create(n, nc, n);
  for (int i = 0; i < n; ++i) P->row_ptr[i + 1] = i + 1, P->col[i] = (int)((unsigned)(i * 7919) % (unsigned)nc), P->val[i] = 1.0;
  insdg_csr *R = insdg_csr_transpose(P);
  int *prp = dput_int(R->row_ptr, (size_t)nc + 1), *pcol = dput_int(R->col, (size_t)R->nnz);
  dbuf pval = dnew((size_t)R->nnz), px = dnew((size_t)n), py = dnew((size_t)nc);
  put(pval, R->val);
  double *hx = dalloc((size_t)n), *hy = dalloc((size_t)nc);
  fill(hx, (size_t)n), put(px, hx), poison(py);
  insdg_csr_matvec(R, hx, hy);
  LAUNCH(insdg_gpu_csr_spmv(nc, prp, pcol, pval.d, px.d, NULL, py.d, INSDG_GPU_SPMV_SET, NULL));
  check_buf("csr restrict R r (R = P^T)", L->N, -1, 0, py, hy);
  GPU(insdg_gpu_free(prp));
  GPU(insdg_gpu_free(pcol));
  dfree(&pval), dfree(&px), dfree(&py), free(hx), free(hy);
  insdg_csr_destroy(P), insdg_csr_destroy(R), insdg_csr_destroy(A);
}

/* argument errors are reported, nothing launched */
static void test_errors(const level *L, const blk *B)
{
  dbuf u = dnew(B->n), ux = dnew(B->n), uy = dnew(B->n);
  EXPECT(insdg_gpu_local_gradient(&L->R, &B->B, INSDG_GPU_NVERSIONS, u.d, ux.d, uy.d, NULL) == INSDG_GPU_EBADVERSION,
         "bad version not reported");
  insdg_gpu_block wrong = B->B;
  wrong.N = L->N % INSDG_GPU_NMAX + 1;
  EXPECT(insdg_gpu_local_gradient(&L->R, &wrong, 0, u.d, ux.d, uy.d, NULL) == INSDG_GPU_EBADN,
         "ref/block degree mismatch not reported");
  EXPECT(insdg_gpu_local_gradient(&L->R, &B->B, 0, NULL, ux.d, uy.d, NULL) == INSDG_GPU_EBADARG,
         "NULL input not reported");
  EXPECT(insdg_gpu_csr_spmv(1, NULL, NULL, NULL, NULL, NULL, NULL, 7, NULL) == INSDG_GPU_EBADARG, "bad mode not reported");
  EXPECT(insdg_gpu_pmg_prolong(3, 3, 1, u.d, u.d, ux.d, NULL) == INSDG_GPU_EBADN, "Nc >= Nf not reported");
  dfree(&u), dfree(&ux), dfree(&uy);
}

/* The checker itself must fail on a wrong result and on an unwritten one. */
static void self_check(const level *L, const blk *B)
{
  field u = field_new(L, B), other = field_new(L, B);
  double *ux = dalloc(B->n), *uy = dalloc(B->n), *h = dalloc(B->n);
  insdg_op_local_gradient(L->op, B->b, other.part, ux, uy);   /* the gradient of another field */
  dbuf dux = dnew(B->n), duy = dnew(B->n);
  GPU(insdg_gpu_local_gradient(&L->R, &B->B, 1, u.d.d, dux.d, duy.d, NULL));
  GPU(insdg_gpu_synchronize());
  get(dux, h, "self-check");
  const cmp_result wrong = compare(h, ux, B->n);
  EXPECT(wrong.rel > TOL, "self-check: a wrong result passed (rel %.3e)", wrong.rel);
  poison(dux);
  get(dux, h, "self-check");
  const cmp_result unwritten = compare(h, ux, B->n);
  EXPECT(unwritten.nonfinite == B->n, "self-check: poisoned output not seen as unwritten");
  printf("self-check: a wrong result gives rel %.2e, an unwritten one %zu NaN: both fail as they must\n", wrong.rel,
         unwritten.nonfinite);
  field_free(&u), field_free(&other), free(ux), free(uy), free(h), dfree(&dux), dfree(&duy);
}

/* A build with every launch candidate (INSDG_GPU_TUNING): the element kernels again with
   each candidate c, for the kernels where it fits at this N (the others keep their tuned
   choice). */
static void test_candidates(const level *L, const blk *B)
{
  for (int c = 0; c < INSDG_GPU_NCANDIDATES; ++c) {
    const int before = failures, checks = nchecks;
    int used = 0;
    for (int k = 0; k < INSDG_GPU_NKERNELS; ++k) {
      insdg_gpu_launch li;
      GPU(insdg_gpu_select_candidate(k, c));
      const int v = k <= INSDG_GPU_KERNEL_ADV_SURFACE ? INSDG_GPU_VERSION_DEFAULT : 0;
      if (insdg_gpu_launch_info(k, L->N, v, &li) == INSDG_GPU_OK) ++used;
      else GPU(insdg_gpu_select_candidate(k, -1));
    }
    test_local_gradient(L, B);
    test_gradient(L, B);
    test_divergence(L, B);
    test_sipdg(L, B);
    test_advection(L, B);
    test_mass(L, B);
    test_transfers(L, B);
    printf("N=%2d block %d candidate %d (%d kernels): %3d checks, %s\n", L->N, B->id, c, used, nchecks - checks,
           failures == before ? "all passed" : "FAILURES");
  }
  for (int k = 0; k < INSDG_GPU_NKERNELS; ++k) GPU(insdg_gpu_select_candidate(k, -1));
}

/* Bulge the faces of the named boundaries outward into cubic curves: the point at t of a
   face is its chord's plus 0.08 |face| (1 - t^2) along the outward normal. */
static void curve_sides(insdg_mesh *m, const char *const *names, int nnames)
{
  enum { Q = 3 };
  m->curve_q = Q;
  m->face_curve = insdg_malloc(sizeof(int) * 3 * (size_t)m->K);
  m->curve_x = insdg_malloc(sizeof(double) * 3 * (size_t)m->K * (Q + 1));
  m->curve_y = insdg_malloc(sizeof(double) * 3 * (size_t)m->K * (Q + 1));
  for (int e = 0; e < m->K; ++e)
    for (int f = 0; f < 3; ++f) {
      const int bnd = m->face_bnd[3 * e + f];
      int curved = 0;
      for (int k = 0; k < nnames; ++k) curved |= bnd >= 0 && bnd == insdg_mesh_boundary(m, names[k]);
      m->face_curve[3 * e + f] = curved ? m->ncurves : -1;
      if (!curved) continue;
      const int a = m->EToV[3 * e + f], b = m->EToV[3 * e + (f + 1) % 3];
      const double dx = m->vx[b] - m->vx[a], dy = m->vy[b] - m->vy[a];   /* counter-clockwise: outward is (dy, -dx) */
      for (int k = 0; k <= Q; ++k) {
        const double t = -1.0 + 2.0 * k / Q, s = 0.5 * (1.0 + t), bulge = 0.08 * (1.0 - t * t);
        m->curve_x[(size_t)m->ncurves * (Q + 1) + k] = m->vx[a] + s * dx + bulge * dy;
        m->curve_y[(size_t)m->ncurves * (Q + 1) + k] = m->vy[a] + s * dy - bulge * dx;
      }
      ++m->ncurves;
    }
}

static void test_degree(int N)
{
  insdg_ref *ref = insdg_ref_create(N);
  insdg_ops *op = insdg_ops_create(ref);
  insdg_mesh *m = insdg_mesh_rectangle(14, 11, 0.0, 1.3, -0.2, 0.9, 0.2, 7u + (unsigned)N);
  curve_sides(m, (const char *const[]){"bottom", "top", "left"}, 3);
  insdg_mesh_set_ref(m, ref);
  INSDG_CHECK(m->curved && m->curved->n > 0);
  for (int k = 0; k < m->curved->n; ++k) {
    double x, y;
    INSDG_CHECK(insdg_mesh_min_jacobian(m, m->curved->elem[k], &x, &y) > 0);
  }
  level L = {m, ref, op, {0}, N, ref->Np, ref->Nfp, (size_t)m->K * ref->Np};
  GPU(insdg_gpu_ref_create(ref, &L.R));
  /* Dirichlet bottom and top, Neumann left and right */
  signed char codes[INSDG_MAX_BOUNDARIES];
  for (int i = 0; i < INSDG_MAX_BOUNDARIES; ++i) codes[i] = INSDG_BC_NEUMANN;
  codes[insdg_mesh_boundary(m, "bottom")] = INSDG_BC_DIRICHLET;
  codes[insdg_mesh_boundary(m, "top")] = INSDG_BC_DIRICHLET;
  const int cut[4] = {0, 101, m->K - 7, m->K};
  INSDG_CHECK(m->K == 308);
  for (int k = 0; k < 3; ++k) {
    blk B = {0};
    B.id = k;
    B.b = insdg_block_create(m, cut[k], cut[k + 1]);
    B.n = (size_t)B.b->K * ref->Np, B.nf = (size_t)B.b->K * 3 * ref->Nfp;
    B.bc = insdg_malloc(3 * (size_t)B.b->K);
    insdg_block_bc_codes(B.b, codes, B.bc);
    GPU(insdg_gpu_malloc((void **)&B.d_bc, 3 * (size_t)B.b->K));
    GPU(insdg_gpu_memcpy_h2d(B.d_bc, B.bc, 3 * (size_t)B.b->K));
    GPU(insdg_gpu_block_create(B.b, &B.B));
    EXPECT(B.b->ncurved > 0 && B.b->ncurved < B.b->K && (B.B.curved != NULL) == (B.b->ncurved > 0),
           "N=%d block %d: %d curved of %d elements: the test needs both kinds", N, k, B.b->ncurved, B.b->K);
    const size_t nwork = insdg_gpu_curved_work_doubles(&B.B);
    EXPECT(nwork == 2 * (size_t)B.b->ncurved * ref->Np, "N=%d block %d: curved work %zu doubles", N, k, nwork);
    if (nwork) GPU(insdg_gpu_malloc((void **)&B.d_work, sizeof(double) * nwork));
    if (N == 1 && k == 1) self_check(&L, &B), test_errors(&L, &B);
    const int before = failures, checks = nchecks;
    test_local_gradient(&L, &B);
    test_gradient(&L, &B);
    test_divergence(&L, &B);
    test_sipdg(&L, &B);
    test_advection(&L, &B);
    test_mass(&L, &B);
    test_transfers(&L, &B);
    test_block_jacobi(&L, &B);
    test_vectors(&L, &B);
    printf("N=%2d block %d (K=%3d, %2d curved, %4d halo slots): %3d checks, %s\n", N, k, B.b->K, B.b->ncurved,
           B.b->nhalo, nchecks - checks, failures == before ? "all passed" : "FAILURES");
    if (insdg_gpu_tuning_build()) test_candidates(&L, &B);
    GPU(insdg_gpu_free(B.d_bc));
    GPU(insdg_gpu_free(B.d_work));
    insdg_gpu_block_destroy(&B.B);
    free(B.bc);
    insdg_block_destroy(B.b);
  }
  {
    insdg_block *all = insdg_block_create(m, 0, m->K);
    signed char *bc_all = insdg_malloc(3 * (size_t)m->K);
    insdg_block_bc_codes(all, codes, bc_all);
    const int before = failures, checks = nchecks;
    test_csr(&L, bc_all);
    printf("N=%2d CSR (%d rows): %d checks, %s\n", N, m->K * ref->Np, nchecks - checks,
           failures == before ? "all passed" : "FAILURES");
    free(bc_all);
    insdg_block_destroy(all);
  }
  insdg_gpu_ref_destroy(&L.R);
  insdg_mesh_destroy(m);
  insdg_ops_destroy(op);
  insdg_ref_destroy(ref);
}

int main(int argc, char **argv)
{
  int nmin = 1, nmax = INSDG_GPU_NMAX;
  if (argc > 1) nmin = nmax = atoi(argv[1]);
  if (argc > 2) nmax = atoi(argv[2]);
  if (nmin < 1 || nmax > INSDG_GPU_NMAX || nmin > nmax) {
    fprintf(stderr, "usage: test_gpu [NMIN [NMAX]], 1 <= NMIN <= NMAX <= %d\n", INSDG_GPU_NMAX);
    return 2;
  }
  const int ndev = insdg_gpu_device_count();
  if (ndev < 1) {
    printf("FAIL: no GPU visible (%s); this test (label gpu) needs one\n", insdg_gpu_last_error());
    return 1;
  }
  insdg_gpu_info info;
  GPU(insdg_gpu_set_device(0));
  GPU(insdg_gpu_device_info(0, &info));
  printf("device 0 of %d: %s, %d SMs, %.0f MHz, warp %d\n", ndev, info.name, info.sm_count, info.clock_khz / 1e3,
         info.warp_size);
  for (int N = nmin; N <= nmax; ++N) test_degree(N);
  printf("%d checks, %d failures; worst relative error %.3e (tolerance %.0e)\n", nchecks, failures, worst, TOL);
  return failures ? 1 : 0;
}
