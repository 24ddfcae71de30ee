/* checkpoint.c -- see checkpoint.h. */
#include "checkpoint.h"

#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint_file.h"
#include "error.h"

#define NC_TRY(call, what)                                                                       \
  do {                                                                                           \
    const int nc_status_ = (call);                                                               \
    if (nc_status_ != NC_NOERR) {                                                                \
      snprintf(err, errlen, "%s: %s (%s)", path, nc_strerror(nc_status_), what);                 \
      goto fail;                                                                                 \
    }                                                                                            \
  } while (0)

/* reading: a failure is a damaged file (its header was readable) */
#define NC_READ(call, what)                                                                      \
  do {                                                                                           \
    const int nc_status_ = (call);                                                               \
    if (nc_status_ != NC_NOERR) {                                                                \
      snprintf(err, errlen, "%s: damaged checkpoint: %s cannot be read (%s)", path, what,         \
               nc_strerror(nc_status_));                                                         \
      goto fail;                                                                                 \
    }                                                                                            \
  } while (0)

/* 1 on every rank when status is nonzero on any; the lowest such rank's message to all */
static int agree(insdg_tasks *T, int status, char *err, size_t errlen)
{
  const int mine = status ? T->rank : T->size;
  int lowest;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, T->comm);
  if (lowest == T->size) return 0;
  MPI_Bcast(err, (int)errlen, MPI_CHAR, lowest, T->comm);
  return 1;
}

/* this rank's elements: [first, last) of the renumbered mesh (contiguous, dfield.h) */
static void my_range(const insdg_tasks *T, int *first, int *last)
{
  const insdg_layout *L = T->L;
  *first = *last = 0;
  for (int b = 0, seen = 0; b < L->B; ++b) {
    if (L->block_rank[b] != T->rank) continue;
    if (!seen) *first = L->block_start[b], seen = 1;
    *last = L->block_start[b + 1];
  }
}

#define ELEM_VAR "element_original"
#define SUM_VAR "element_checksum"

static uint64_t bits(double x)
{
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

/* the header this run would write: the state's times and counts, what it depends on */
static void run_header(const insdg_layout *L, insdg_ins *ins, const insdg_checkpoint_info *info, insdg_checkpoint_header *h)
{
  memset(h, 0, sizeof *h);
  h->N = info->N, h->K = info->K, h->S = info->S, h->Ns = info->Ns, h->dt = info->dt, h->nu = info->nu;
  if (ins) {
    insdg_ins_state_times(ins, &h->t, &h->steps, h->t_hist);
    insdg_ins_projection_state(ins, h->projection, &h->projection_lambda);
  }
  h->mesh_fingerprint = insdg_checkpoint_mesh_fingerprint(L->mesh, L->old_elem);
  if (info->boundary_kind) insdg_checkpoint_boundaries(L->mesh, info->boundary_kind, h->boundaries, sizeof h->boundaries);
}

int insdg_checkpoint_write(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                           char *err, size_t errlen)
{
  insdg_dfield *fields[INSDG_INS_MAX_STATE];
  const char *names[INSDG_INS_MAX_STATE];
  const int nf = insdg_ins_state(ins, fields, names);
  const insdg_layout *L = T->L;
  const int Np = L->mesh->ref->Np, K = L->mesh->K;
  int first, last;
  my_range(T, &first, &last);
  double *buf = insdg_malloc(sizeof(double) * ((size_t)(last - first) * Np + 1));
  unsigned long long *sum = insdg_malloc(sizeof *sum * ((size_t)(last - first) + 1));
  int ncid = -1, dim[2], var[INSDG_INS_MAX_STATE], evar, cvar;
  char tmp[4200];
  err[0] = 0;
  insdg_checkpoint_header h;
  run_header(T->L, ins, info, &h);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  /* collective: every rank opens the file and defines the same variables */
  int s = nc_create_par(tmp, NC_NETCDF4 | NC_CLOBBER, T->comm, MPI_INFO_NULL, &ncid);
  if (s != NC_NOERR) snprintf(err, errlen, "%s: %s (creating the checkpoint)", path, nc_strerror(s)), ncid = -1;
  if (agree(T, s != NC_NOERR, err, errlen)) goto done;
  NC_TRY(nc_def_dim(ncid, "node", (size_t)K * Np, &dim[0]), "defining the node dimension");
  NC_TRY(nc_def_dim(ncid, "element", (size_t)K, &dim[1]), "defining the element dimension");
  for (int k = 0; k < nf; ++k) NC_TRY(nc_def_var(ncid, names[k], NC_DOUBLE, 1, &dim[0], &var[k]), names[k]);
  NC_TRY(nc_def_var(ncid, ELEM_VAR, NC_INT, 1, &dim[1], &evar), ELEM_VAR);
  NC_TRY(nc_def_var(ncid, SUM_VAR, NC_UINT64, 1, &dim[1], &cvar), SUM_VAR);
  static const char desc[] = "insdg checkpoint: state of the BDF/EXT splitting scheme; element e of the file "
                             "(nodes e*Np .. e*Np+Np-1) is element element_original[e] of the mesh file";
  NC_TRY(nc_put_att_text(ncid, NC_GLOBAL, "description", strlen(desc), desc), "attributes");
  NC_TRY(insdg_checkpoint_put_header(ncid, &h), "attributes");
  NC_TRY(nc_enddef(ncid), "leaving define mode");
  for (int k = 0; k < nf; ++k) NC_TRY(nc_var_par_access(ncid, var[k], NC_COLLECTIVE), "collective access");
  NC_TRY(nc_var_par_access(ncid, evar, NC_COLLECTIVE), "collective access");
  NC_TRY(nc_var_par_access(ncid, cvar, NC_COLLECTIVE), "collective access");
fail:
  if (agree(T, err[0] != 0, err, errlen)) goto done;
  { /* each rank writes its own slab of every variable: no gather */
    const size_t e0 = (size_t)first, ne = (size_t)(last - first), n0 = e0 * Np, nn = ne * Np;
    s = nc_put_vara_int(ncid, evar, &e0, &ne, L->old_elem + first);
    if (s != NC_NOERR) snprintf(err, errlen, "%s: %s (writing %s)", path, nc_strerror(s), ELEM_VAR);
    for (size_t j = 0; j < ne; ++j) sum[j] = insdg_checkpoint_element_seed(L->old_elem[first + j]);
    for (int k = 0; k < nf && s == NC_NOERR; ++k) {
      int a, b;
      insdg_dfield_local(fields[k], buf, &a, &b);
      for (size_t j = 0; j < ne; ++j)
        for (int i = 0; i < Np; ++i) sum[j] = insdg_checkpoint_mix(sum[j], bits(buf[j * Np + i]));
      s = nc_put_vara_double(ncid, var[k], &n0, &nn, buf);
      if (s != NC_NOERR) snprintf(err, errlen, "%s: %s (writing %s)", path, nc_strerror(s), names[k]);
    }
    if (s == NC_NOERR) s = nc_put_vara_ulonglong(ncid, cvar, &e0, &ne, sum);
    if (s != NC_NOERR && !err[0]) snprintf(err, errlen, "%s: %s (writing %s)", path, nc_strerror(s), SUM_VAR);
    agree(T, s != NC_NOERR, err, errlen);
  }
done:
  if (ncid >= 0 && err[0]) {
    nc_abort(ncid);   /* a failed file: let go of it without flushing (nc_close would try, and fail
                         again, leaving HDF5 an open file that crashes MPI_Finalize) */
  } else if (ncid >= 0) {
    s = nc_close(ncid);
    if (s != NC_NOERR) snprintf(err, errlen, "%s: %s (closing)", path, nc_strerror(s));
  }
  int status = agree(T, err[0] != 0, err, errlen);
  if (!status) {   /* complete: under the final name */
    const int bad = T->rank == 0 && rename(tmp, path) != 0;
    if (bad) snprintf(err, errlen, "%s: cannot rename %s into place", path, tmp);
    status = agree(T, bad, err, errlen);
  }
  if (status && T->rank == 0) remove(tmp);
  free(buf), free(sum);
  return status;
}

int insdg_checkpoint_check_header(const char *path, const insdg_layout *L, const insdg_checkpoint_info *info, char *err,
                                  size_t errlen)
{
  insdg_checkpoint_header h, mine;
  int ncid;
  if (insdg_checkpoint_probe(path, err, errlen) || insdg_checkpoint_open(path, &ncid, err, errlen)) return 1;
  int bad = insdg_checkpoint_get_header(ncid, path, &h, err, errlen);
  nc_close(ncid);
  if (bad) return 1;
  run_header(L, NULL, info, &mine);
  return insdg_checkpoint_compare(path, &h, &mine, err, errlen);
}

typedef struct {
  int orig, local;
} elem_pair;

static int by_orig(const void *a, const void *b)
{
  const int x = ((const elem_pair *)a)->orig, y = ((const elem_pair *)b)->orig;
  return (x > y) - (x < y);
}

/* this rank's local index of original element orig, or -1 */
static int find_local(const elem_pair *mine, int n, int orig)
{
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    const int mid = (lo + hi) / 2;
    if (mine[mid].orig == orig) return mine[mid].local;
    if (mine[mid].orig < orig) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

enum { CHUNK = 4096 };   /* elements read at a time */

int insdg_checkpoint_read(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                          char *err, size_t errlen)
{
  insdg_dfield *fields[INSDG_INS_MAX_STATE];
  const char *names[INSDG_INS_MAX_STATE];
  int nf = 0;   /* the state's fields, listed once the projection counts are known */
  const insdg_layout *L = T->L;
  const int Np = L->mesh->ref->Np, K = L->mesh->K;
  int first, last;
  my_range(T, &first, &last);
  const int nloc = last - first;
  /* this rank's elements by original index; the state's local fields; one chunk of the file */
  elem_pair *mine = insdg_malloc(sizeof(elem_pair) * ((size_t)nloc + 1));
  for (int i = 0; i < nloc; ++i) mine[i] = (elem_pair){L->old_elem[first + i], i};
  qsort(mine, (size_t)nloc, sizeof *mine, by_orig);
  double *local[INSDG_INS_MAX_STATE] = {NULL};
  double *chunk = insdg_malloc(sizeof(double) * (size_t)CHUNK * Np);
  int *orig = insdg_malloc(sizeof(int) * CHUNK), *where = insdg_malloc(sizeof(int) * CHUNK);
  unsigned long long *want = insdg_malloc(sizeof *want * CHUNK);
  uint64_t *sum = insdg_malloc(sizeof *sum * CHUNK);
  int ncid = -1, var[INSDG_INS_MAX_STATE], evar = -1, cvar = -1, found = 0;
  err[0] = 0;
  insdg_checkpoint_header h, mine_h;
  if (insdg_checkpoint_open(path, &ncid, err, errlen) || insdg_checkpoint_get_header(ncid, path, &h, err, errlen))
    goto fail;
  run_header(T->L, NULL, info, &mine_h);
  if (insdg_checkpoint_compare(path, &h, &mine_h, err, errlen)) goto fail;
  insdg_ins_restore_projection(ins, h.projection, h.projection_lambda);
  nf = insdg_ins_state(ins, fields, names);
  for (int k = 0; k < nf; ++k) local[k] = insdg_malloc(sizeof(double) * ((size_t)nloc * Np + 1));
  for (int k = 0; k < nf; ++k)
    if (insdg_checkpoint_var(ncid, path, names[k], NC_DOUBLE, (size_t)K * Np, &var[k], err, errlen)) goto fail;
  if (insdg_checkpoint_var(ncid, path, ELEM_VAR, NC_INT, (size_t)K, &evar, err, errlen) ||
      insdg_checkpoint_var(ncid, path, SUM_VAR, NC_UINT64, (size_t)K, &cvar, err, errlen))
    goto fail;
  /* The file's elements in chunks: keep those of this rank. With the writer's partition,
     only this rank's own slab matches, and only that is read. */
  for (int p0 = 0; p0 < K; p0 += CHUNK) {
    const size_t start = (size_t)p0, count = (size_t)(K - p0 < CHUNK ? K - p0 : CHUNK);
    NC_READ(nc_get_vara_int(ncid, evar, &start, &count, orig), ELEM_VAR);
    NC_READ(nc_get_vara_ulonglong(ncid, cvar, &start, &count, want), SUM_VAR);
    size_t lo = count, hi = 0;
    for (size_t j = 0; j < count; ++j) {
      if (orig[j] < 0 || orig[j] >= K) {
        snprintf(err, errlen, "%s: %s[%zu] = %d is not an element of the mesh (K = %d)", path, ELEM_VAR,
                 start + j, orig[j], K);
        goto fail;
      }
      where[j] = find_local(mine, nloc, orig[j]);
      if (where[j] >= 0) lo = j < lo ? j : lo, hi = j + 1, ++found;
    }
    if (lo >= hi) continue;
    const size_t n0 = (start + lo) * Np, nn = (hi - lo) * Np;
    for (size_t j = lo; j < hi; ++j) sum[j] = insdg_checkpoint_element_seed(orig[j]);
    for (int k = 0; k < nf; ++k) {
      NC_READ(nc_get_vara_double(ncid, var[k], &n0, &nn, chunk), names[k]);
      for (size_t j = lo; j < hi; ++j) {
        if (where[j] < 0) continue;
        const double *v = chunk + (j - lo) * Np;
        for (int i = 0; i < Np; ++i) sum[j] = insdg_checkpoint_mix(sum[j], bits(v[i]));
        memcpy(local[k] + (size_t)where[j] * Np, v, sizeof(double) * Np);
      }
    }
    for (size_t j = lo; j < hi; ++j)   /* every element is some rank's: all are checked */
      if (where[j] >= 0 && sum[j] != want[j]) {
        snprintf(err, errlen, "%s: corrupted checkpoint: element %zu of the file does not match its checksum "
                 "(the file was damaged after it was written)", path, start + j);
        goto fail;
      }
  }
  if (found != nloc) {
    snprintf(err, errlen, "%s: %d of this rank's %d elements are not in the checkpoint", path, nloc - found, nloc);
    goto fail;
  }
  for (int k = 0; k < nf; ++k) insdg_dfield_set_local(fields[k], local[k]);
  insdg_ins_restore_state(ins, h.t, h.steps, h.t_hist);
fail:
  if (ncid >= 0) nc_close(ncid);
  for (int k = 0; k < nf; ++k) free(local[k]);
  free(mine), free(chunk), free(orig), free(where), free(want), free(sum);
  return agree(T, err[0] != 0, err, errlen);
}
