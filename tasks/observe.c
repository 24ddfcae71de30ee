/* observe.c -- what the run looks at after a step (run_internal.h).
 *
 * The run "observes" the state after every step: it submits the divergence (and, when
 * forces or a field file need them, the element-local gradients of the velocity), copies
 * this rank's elements of the fields to the host (insdg_dfield_local) and reduces the
 * diagnostics over the ranks with one MPI_Allreduce for sums and one for maxima: no field
 * is gathered whole. The L2 errors
 * against [exact] and the field files come from the same local arrays.
 */
#include <math.h>
#include <stdlib.h>

#include "dense.h"
#include "dfield.h"
#include "ops_tasks.h"
#include "run_internal.h"
#include "curved.h"
#include "ugrid.h"

/* elements of this rank's blocks */
static int rank_elements(const insdg_tasks *T)
{
  int n = 0;
  for (int b = 0; b < T->L->B; ++b) n += T->L->block_rank[b] == T->rank ? T->L->block[b]->K : 0;
  return n;
}

observer *observer_create(insdg_tasks *T, const insdg_case *c, const signed char *bc_vel)
{
  observer *ob = insdg_calloc(1, sizeof *ob);
  ob->T = T, ob->c = c, ob->m = T->L->mesh, ob->bc_vel = bc_vel;
  const insdg_ref *r = ob->m->ref;
  for (int k = 0; k < NSCRATCH; ++k) ob->scratch[k] = insdg_dfield_create(T);
  const size_t n = (size_t)rank_elements(T) * r->Np;
  for (int k = 0; k < NLOCAL; ++k) ob->local[k] = new_array(n);
  ob->nlocal = rank_elements(T);
  ob->prev[0] = new_array(n), ob->prev[1] = new_array(n);
  for (int k = 0; k < 4; ++k) ob->norms[k] = new_array((size_t)ob->nlocal + 1);
  if (ob->m->curved) {
    const size_t np2 = (size_t)r->Np * r->Np;
    ob->curved_L = new_array((size_t)ob->m->curved->n * np2);
    for (int k = 0; k < ob->m->curved->n; ++k)
      INSDG_CHECK(insdg_cholesky_lower(r->Np, ob->m->curved->M + k * np2, ob->curved_L + k * np2) == 0);
  }
  for (int i = 0; i < c->nforces; ++i) ob->force_bnd[i] = insdg_mesh_boundary(ob->m, c->forces[i]);
  /* the face integrand is a polynomial of degree <= N in t: exact through the face cubature */
  ob->face_weight = new_array((size_t)r->Nfp);
  for (int q = 0; q < r->Nfcub; ++q)
    for (int j = 0; j < r->Nfp; ++j) ob->face_weight[j] += r->wfc[q] * r->face_interp[q * r->Nfp + j];
  return ob;
}

void observer_destroy(observer *ob)
{
  if (!ob) return;
  for (int k = 0; k < NSCRATCH; ++k) insdg_dfield_destroy(ob->scratch[k]);
  free(ob->face_weight);
  for (int k = 0; k < NLOCAL; ++k) free(ob->local[k]);
  free(ob->prev[0]), free(ob->prev[1]);
  for (int k = 0; k < 4; ++k) free(ob->norms[k]);
  free(ob->curved_L);
  free(ob);
}

void observe_fields(observer *ob, insdg_ins *ins, int gradients)
{
  insdg_dfield *u = insdg_ins_u(ins), *v = insdg_ins_v(ins), **sc = ob->scratch;
  ob->ins = ins, ob->have_gradients = 0;
  double *const *g = insdg_ins_boundary_now(ins);   /* the step's: not evaluated again */
  ob->gu = g[0], ob->gv = g[1];
  insdg_task_divergence(ob->bc_vel, ob->gu, ob->gv, u, v, sc[4]);
  const int kind[] = {F_U, F_V, F_P, F_DIV};
  insdg_dfield *src[] = {u, v, insdg_ins_p(ins), sc[4]};
  for (int k = 0; k < 4; ++k) insdg_dfield_local(src[k], ob->local[kind[k]], &ob->e_begin, &ob->e_end);
  if (gradients) observe_gradients(ob);
}

void observe_gradients(observer *ob)
{
  if (ob->have_gradients) return;
  insdg_dfield **sc = ob->scratch;
  insdg_task_local_gradient(insdg_ins_u(ob->ins), sc[0], sc[1]);
  insdg_task_local_gradient(insdg_ins_v(ob->ins), sc[2], sc[3]);
  for (int k = 0; k < 4; ++k) insdg_dfield_local(sc[k], ob->local[F_UX + k], &ob->e_begin, &ob->e_end);
  const size_t n = (size_t)(ob->e_end - ob->e_begin) * ob->m->ref->Np;
  for (size_t i = 0; i < n; ++i) ob->local[F_VORT][i] = ob->local[F_VX][i] - ob->local[F_UY][i];
  ob->have_gradients = 1;
}

/* |L^T d|^2 = d^T M_J d of a curved element, L L^T = M_J its mass matrix, d = x - y (y NULL: x) */
static double curved_norm2(const double *L, int Np, const double *x, const double *y)
{
  /* y = L^T d, row j of L (its column j of L^T) at a time, whole rows (the zeros above the
     diagonal add nothing) */
  double d[(INSDG_NMAX + 1) * (INSDG_NMAX + 2) / 2], t[(INSDG_NMAX + 1) * (INSDG_NMAX + 2) / 2];
  for (int i = 0; i < Np; ++i) d[i] = y ? x[i] - y[i] : x[i], t[i] = 0.0;
  for (int j = 0; j < Np; ++j) {
    const double dj = d[j], *Lj = L + (size_t)j * Np;
    for (int i = 0; i < Np; ++i) t[i] += Lj[i] * dj;
  }
  double s = 0;
  for (int i = 0; i < Np; ++i) s += t[i] * t[i];
  return s;
}

/* out[le] = d_e^T M_e d_e for this rank's elements, d = x - y (y NULL: x), M_e = J M
   (insdg_op_mass_norms, compiled for the degree) or a curved element's own mass matrix */
static void mass_norms(const observer *ob, const double *x, const double *y, double *out)
{
  const insdg_mesh *m = ob->m;
  const int nloc = ob->e_end - ob->e_begin, Np = m->ref->Np;
  INSDG_CHECK(ob->T->op->ref->N == m->ref->N);
  insdg_op_mass_norms(ob->T->op, nloc, x, y, out);
  for (int le = 0; le < nloc; ++le) {
    const int e = ob->e_begin + le, k = m->curved ? m->curved->index[e] : -1;
    const size_t o = (size_t)le * Np;
    if (k < 0) out[le] *= m->vgeo[(size_t)e * INSDG_NVGEO + INSDG_J];
    else out[le] = curved_norm2(ob->curved_L + (size_t)k * Np * Np, Np, x + o, y ? y + o : NULL);
  }
}

void observe_remember(observer *ob)
{
  const size_t n = (size_t)(ob->e_end - ob->e_begin) * ob->m->ref->Np;
  for (size_t i = 0; i < n; ++i) ob->prev[0][i] = ob->local[F_U][i], ob->prev[1][i] = ob->local[F_V][i];
  ob->have_prev = 1;
}

/* ||u^{n+1} - u^n|| / (dt ||u^{n+1}||) from the sums of the squared norms; a flow at rest
   that stays at rest has changed by 0 */
static double relative_change(double change2, double norm2, double dt)
{
  if (norm2 > 0) return sqrt(change2) / (dt * sqrt(norm2));
  return change2 > 0 ? INFINITY : 0;
}

/* fmax(m, x) for m not NaN (a NaN x is ignored, as fmax does), inline: fmax is a library
   call in a loop over every node (it must order signed zeros and NaNs) */
static inline double max_of(double m, double x) { return x > m ? x : m; }

/* local element le: max |D u|, max |u| / h (h = min face area/length), max |u| */
static void element_diagnostics(const observer *ob, int le, double *maxdiv, double *speed_over_h, double *max_speed)
{
  const insdg_ref *r = ob->m->ref;
  const int e = ob->e_begin + le;
  const double *u = ob->local[F_U] + (size_t)le * r->Np, *v = ob->local[F_V] + (size_t)le * r->Np;
  const double *div = ob->local[F_DIV] + (size_t)le * r->Np;
  double speed2 = 0, inv_h = 0;
  for (int i = 0; i < r->Np; ++i) speed2 = max_of(speed2, u[i] * u[i] + v[i] * v[i]), *maxdiv = max_of(*maxdiv, fabs(div[i]));
  const double speed = sqrt(speed2);
  for (int f = 0; f < 3; ++f) inv_h = max_of(inv_h, ob->m->sgeo[((size_t)e * 3 + f) * INSDG_NSGEO + INSDG_FSCALE]);
  *speed_over_h = max_of(*speed_over_h, speed * inv_h);
  *max_speed = max_of(*max_speed, speed);
}

/* The force of the fluid on face f of local element le:
   integral of p n - nu (grad u + grad u^T) n, n the face's outward normal (out of the fluid). */
static void face_force(const observer *ob, int le, int f, double nu, double F[2])
{
  const insdg_ref *r = ob->m->ref;
  const int e = ob->e_begin + le, k = ob->m->curved ? ob->m->curved->index[e] : -1;
  const double *sg = ob->m->sgeo + ((size_t)e * 3 + f) * INSDG_NSGEO;
  double nx = sg[INSDG_NX], ny = sg[INSDG_NY], sJ = sg[INSDG_SJ];
  for (int j = 0; j < r->Nfp; ++j) {
    if (k >= 0) {   /* a curved face: the normal and sJ of each node */
      const double *cs = ob->m->curved->sgeo + ((size_t)k * 3 * r->Nfp + f * r->Nfp + j) * CF_NF;
      nx = cs[CF_NX], ny = cs[CF_NY], sJ = cs[CF_SJ];
    }
    const size_t i = (size_t)le * r->Np + r->face_nodes[f * r->Nfp + j];
    const double p = ob->local[F_P][i], ux = ob->local[F_UX][i], uy = ob->local[F_UY][i];
    const double vx = ob->local[F_VX][i], vy = ob->local[F_VY][i];
    const double tx = p * nx - nu * (2 * ux * nx + (uy + vx) * ny);
    const double ty = p * ny - nu * ((uy + vx) * nx + 2 * vy * ny);
    F[0] += sJ * ob->face_weight[j] * tx, F[1] += sJ * ob->face_weight[j] * ty;
  }
}

diagnostics observe_diagnostics(observer *ob, double dt, int bad_data)
{
  const int nforces = ob->c->nforces, N = ob->m->ref->N, Nfp = ob->m->ref->Nfp;
  double sums[2 + 2 * INSDG_CASE_MAX_FORCES] = {0}, maxima[5] = {0};   /* [3]: the boundary speed, [4]: bad data */
  maxima[4] = bad_data ? 1.0 : 0.0;
  for (size_t ef = 3 * (size_t)ob->e_begin; ef < 3 * (size_t)ob->e_end; ++ef) {   /* the velocity data at t, */
    if (ob->m->face_bnd[ef] < 0) continue;                                          /* on boundary faces */
    for (size_t q = ef * Nfp; q < (ef + 1) * Nfp; ++q)
      maxima[3] = max_of(maxima[3], ob->gu[q] * ob->gu[q] + ob->gv[q] * ob->gv[q]);
  }
  maxima[3] = sqrt(maxima[3]);   /* speeds by their squares, one root: the same maximum */
  /* the elements' squared norms of u and v, and of their change since the remembered state */
  double *nu = ob->norms[0], *nv = ob->norms[1], *cu = ob->norms[2], *cv = ob->norms[3];
  mass_norms(ob, ob->local[F_U], NULL, nu), mass_norms(ob, ob->local[F_V], NULL, nv);
  if (ob->have_prev) mass_norms(ob, ob->local[F_U], ob->prev[0], cu), mass_norms(ob, ob->local[F_V], ob->prev[1], cv);
  for (int le = 0; le < ob->e_end - ob->e_begin; ++le) {
    sums[0] += 0.5 * (nu[le] + nv[le]);   /* the kinetic energy */
    element_diagnostics(ob, le, &maxima[0], &maxima[1], &maxima[2]);
    if (ob->have_prev) sums[1 + 2 * nforces] += cu[le] + cv[le];
    for (int f = 0; f < 3 && nforces; ++f) {
      const int b = ob->m->face_bnd[(ob->e_begin + le) * 3 + f];
      for (int k = 0; k < nforces; ++k)
        if (b >= 0 && b == ob->force_bnd[k]) face_force(ob, le, f, ob->c->nu, sums + 1 + 2 * k);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, 2 + 2 * nforces, MPI_DOUBLE, MPI_SUM, ob->T->comm);
  MPI_Allreduce(MPI_IN_PLACE, maxima, 5, MPI_DOUBLE, MPI_MAX, ob->T->comm);
  ob->speed_scale = fmax(ob->speed_scale, maxima[3]);
  diagnostics d = {.kinetic_energy = sums[0], .max_div = maxima[0], .cfl = dt * N * N * maxima[1],
                   .max_speed = maxima[2], .speed_scale = ob->speed_scale, .bad_data = maxima[4] > 0};
  for (int k = 0; k < nforces; ++k) d.force[k][0] = sums[1 + 2 * k], d.force[k][1] = sums[2 + 2 * k];
  d.velocity_change = ob->have_prev ? relative_change(sums[1 + 2 * nforces], 2 * sums[0], dt) : NAN;
  observe_remember(ob);
  return d;
}

/* ================================================================== errors ======== */

/* per local element: sum over cubature points of J w (h - ex)^2, J w ex^2, J w (h - ex),
   J w ex, J w, with h the computed field interpolated to the points */
static void error_sums(const observer *ob, const double *field, const insdg_expr *exact, double t, double s[5])
{
  const insdg_mesh *m = ob->m;
  const insdg_ref *r = m->ref;
  const int nloc = ob->e_end - ob->e_begin, Nc = r->Ncub;
  const size_t n = (size_t)nloc * Nc;
  double *x = new_array(n), *y = new_array(n), *h = new_array(n), *ex = new_array(n);
  for (int le = 0; le < nloc; ++le) {
    const size_t e = (size_t)(ob->e_begin + le);
    for (int c = 0; c < Nc; ++c) {
      const double *I = r->cub_interp + (size_t)c * r->Np;
      double xc = 0, yc = 0, hc = 0;
      for (int j = 0; j < r->Np; ++j)
        xc += I[j] * m->x[e * r->Np + j], yc += I[j] * m->y[e * r->Np + j], hc += I[j] * field[(size_t)le * r->Np + j];
      x[(size_t)le * Nc + c] = xc, y[(size_t)le * Nc + c] = yc, h[(size_t)le * Nc + c] = hc;
    }
  }
  insdg_expr_eval_many(exact, n, x, y, t, ex);
  for (size_t i = 0; i < n; ++i) {
    const size_t e = (size_t)ob->e_begin + i / Nc;
    const int k = m->curved ? m->curved->index[e] : -1;
    const double w = k < 0 ? r->wc[i % Nc] * m->vgeo[e * INSDG_NVGEO + INSDG_J]
                           : m->curved->cgeo[((size_t)k * Nc + i % Nc) * CC_NC + CC_J];
    const double d = h[i] - ex[i];
    s[0] += w * d * d, s[1] += w * ex[i] * ex[i], s[2] += w * d, s[3] += w * ex[i], s[4] += w;
  }
  free(x), free(y), free(h), free(ex);
}

/* L2 errors of the observed u, v, p against [exact]; the pressure up to a constant when it
   is pure Neumann (then only defined up to one) */
l2_errors compute_errors(const observer *ob, double t, int pure_neumann)
{
  l2_errors E = {{0}, {0}, {0}};
  const insdg_expr *exact[NERR] = {ob->c->exact_u, ob->c->exact_v, ob->c->exact_p};
  const int field[NERR] = {F_U, F_V, F_P};
  double s[NERR][5] = {{0}};
  for (int k = 0; k < NERR; ++k)
    if (exact[k]) error_sums(ob, ob->local[field[k]], exact[k], t, s[k]);
  MPI_Allreduce(MPI_IN_PLACE, s, NERR * 5, MPI_DOUBLE, MPI_SUM, ob->T->comm);
  for (int k = 0; k < NERR; ++k) {
    if (!exact[k]) continue;
    const int shift = k == ERR_P && pure_neumann;
    const double e2 = s[k][0] - (shift ? s[k][2] * s[k][2] / s[k][4] : 0);
    const double n2 = s[k][1] - (shift ? s[k][3] * s[k][3] / s[k][4] : 0);
    E.have[k] = 1;
    E.absolute[k] = isnan(e2) ? NAN : sqrt(fmax(e2, 0));   /* a blown-up run reports nan, not 0 */
    E.relative[k] = n2 > 0 ? E.absolute[k] / sqrt(n2) : NAN;
  }
  return E;
}

/* ================================================================== output ======== */

static const struct { const char *name, *units, *long_name; } field_info[] = {
    {"u", "m s-1", "x velocity"},
    {"v", "m s-1", "y velocity"},
    {"p", "m2 s-2", "kinematic pressure"},
    {"vorticity", "s-1", "vorticity dv/dx - du/dy (element-local derivatives)"},
    {"divergence", "s-1", "velocity divergence D u (the DG divergence with its face terms: what max_div_u reports)"},
};
enum { NFIELDS = sizeof field_info / sizeof field_info[0] };

int write_fields(const observer *ob, const statistics *st, const char *outdir, int step, double t, char *err,
                 size_t errlen)
{
  enum { NSTATS = 6 };
  double *sf[NSTATS] = {NULL};
  const char *sname[NSTATS], *sunits[NSTATS];
  char slong[NSTATS][160];
  const size_t n = (size_t)(ob->e_end - ob->e_begin) * ob->m->ref->Np;
  for (int k = NSTATS / 2; k < NSTATS; ++k) sf[k] = new_array(n + 1);   /* the RMS, computed now */
  const int nstats = statistics_fields(st, sf, sname, sunits, slong);
  char path[INSDG_CASE_PATH_LEN + 32], title[INSDG_CASE_NAME_LEN + 64];
  snprintf(path, sizeof path, "%s/fields_%06d.nc", outdir, step);
  snprintf(title, sizeof title, "insdg run %s, step %d", ob->c->name, step);
  insdg_ugrid *w = NULL;
  int status = insdg_ugrid_create(ob->T->comm, path, ob->m, ob->e_begin, ob->e_end, title, &w, err, errlen);
  for (int k = 0; k < NFIELDS && !status; ++k)
    status = insdg_ugrid_add_field(w, field_info[k].name, field_info[k].units, field_info[k].long_name, err, errlen);
  for (int k = 0; k < nstats && !status; ++k)
    status = insdg_ugrid_add_field(w, sname[k], sunits[k], slong[k], err, errlen);
  const double *fields[NFIELDS + NSTATS] = {ob->local[F_U], ob->local[F_V], ob->local[F_P], ob->local[F_VORT],
                                            ob->local[F_DIV]};
  for (int k = 0; k < nstats; ++k) fields[NFIELDS + k] = sf[k];
  if (!status) status = insdg_ugrid_write(w, t, fields, err, errlen);
  if (w && insdg_ugrid_close(w, status ? NULL : err, status ? 0 : errlen)) status = 1;
  for (int k = NSTATS / 2; k < NSTATS; ++k) free(sf[k]);
  return status;
}

