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

/* ------------------------------------------------------------ statistics ------- */

#define STATS_SERIES "statistics_series"

/* the hash of what the element checksums do not cover: the window, the count, the field
   names and the series */
static uint64_t stats_checksum(const insdg_checkpoint_stats *st, const char *fields)
{
  uint64_t c = insdg_checkpoint_mix(0x73746174ULL, bits(st->start));
  c = insdg_checkpoint_mix(c, (uint64_t)st->samples);
  c = insdg_checkpoint_mix(c, (uint64_t)st->nrows);
  c = insdg_checkpoint_mix(c, (uint64_t)st->ncolumns);
  for (const unsigned char *p = (const unsigned char *)fields; *p; ++p) c = insdg_checkpoint_mix(c, *p);
  for (const unsigned char *p = (const unsigned char *)st->columns; *p; ++p) c = insdg_checkpoint_mix(c, *p);
  for (size_t i = 0; i < st->nrows * (size_t)st->ncolumns; ++i) c = insdg_checkpoint_mix(c, bits(st->series[i]));
  return c;
}

/* "name name ..." */
static void stats_field_list(const insdg_checkpoint_stats *st, char *out, size_t len)
{
  out[0] = 0;
  for (int k = 0; k < st->nfields; ++k)
    snprintf(out + strlen(out), len - strlen(out), "%s%s", k ? " " : "", st->names[k]);
}

/* in define mode: the statistics' node variables (after the state's: the element checksums
   take them in variable order), the series and the attributes. NetCDF status. */
static int define_stats(int ncid, const insdg_checkpoint_stats *st, int node_dim, int *vars, int *series_var)
{
  char fields[512];
  stats_field_list(st, fields, sizeof fields);
  const long long samples = st->samples, rows = (long long)st->nrows;
  const unsigned long long sum = stats_checksum(st, fields);
  int dims[2], s = 0;
  for (int k = 0; k < st->nfields && !s; ++k) s = nc_def_var(ncid, st->names[k], NC_DOUBLE, 1, &node_dim, &vars[k]);
  /* a dimension of length 0 would be unlimited: an empty series has one unused row */
  if (!s) s = nc_def_dim(ncid, "statistics_row", st->nrows > 0 ? st->nrows : 1, &dims[0]);
  if (!s) s = nc_def_dim(ncid, "statistics_column", st->ncolumns > 0 ? (size_t)st->ncolumns : 1, &dims[1]);
  if (!s) s = nc_def_var(ncid, STATS_SERIES, NC_DOUBLE, 2, dims, series_var);
  if (!s) s = nc_put_att_double(ncid, NC_GLOBAL, "statistics_start", NC_DOUBLE, 1, &st->start);
  if (!s) s = nc_put_att_longlong(ncid, NC_GLOBAL, "statistics_samples", NC_INT64, 1, &samples);
  if (!s) s = nc_put_att_longlong(ncid, NC_GLOBAL, "statistics_rows", NC_INT64, 1, &rows);
  if (!s) s = nc_put_att_text(ncid, NC_GLOBAL, "statistics_fields", strlen(fields), fields);
  if (!s) s = nc_put_att_text(ncid, NC_GLOBAL, "statistics_columns", strlen(st->columns), st->columns);
  if (!s) s = nc_put_att_ulonglong(ncid, NC_GLOBAL, "statistics_checksum", NC_UINT64, 1, &sum);
  return s;
}

/* the text attribute name into buf (len bytes with its NUL): 0, or 1 when missing or too long */
static int get_text(int ncid, const char *name, char *buf, size_t len)
{
  nc_type type;
  size_t n;
  if (nc_inq_att(ncid, NC_GLOBAL, name, &type, &n) != NC_NOERR || type != NC_CHAR || n >= len ||
      nc_get_att_text(ncid, NC_GLOBAL, name, buf) != NC_NOERR)
    return 1;
  buf[n] = 0;
  return 0;
}

int insdg_checkpoint_stats_header(const char *path, int *present, double *start, char *columns, double *t, char *err,
                                  size_t errlen)
{
  int ncid;
  *present = 0;
  if (insdg_checkpoint_open(path, &ncid, err, errlen)) return 1;
  nc_type type;
  size_t len;
  int bad = nc_get_att_double(ncid, NC_GLOBAL, "time", t) != NC_NOERR;
  if (!bad && nc_inq_att(ncid, NC_GLOBAL, "statistics_start", &type, &len) == NC_NOERR) {
    bad = type != NC_DOUBLE || len != 1 || nc_get_att_double(ncid, NC_GLOBAL, "statistics_start", start) != NC_NOERR ||
          get_text(ncid, "statistics_columns", columns, INSDG_CHECKPOINT_COLUMNS_LEN);
    *present = !bad;
  }
  nc_close(ncid);
  if (bad) snprintf(err, errlen, "%s: damaged checkpoint: its time or statistics attributes cannot be read", path);
  return bad;
}

/* the statistics of an open checkpoint (every rank reads them): the attributes, the node
   variables' ids and the series, checked against statistics_checksum. 0 with st->present
   = 0 when there are none. */
static int read_stats_header(int ncid, const char *path, size_t nnodes, insdg_checkpoint_stats *st, int *vars,
                             char *names, size_t nameslen, char *err, size_t errlen)
{
  nc_type type;
  size_t len;
  memset(st, 0, sizeof *st);
  if (nc_inq_att(ncid, NC_GLOBAL, "statistics_samples", &type, &len) != NC_NOERR) return 0;
  long long samples = 0, rows = 0;
  unsigned long long want = 0;
  int bad = nc_get_att_double(ncid, NC_GLOBAL, "statistics_start", &st->start) != NC_NOERR ||
            nc_get_att_longlong(ncid, NC_GLOBAL, "statistics_samples", &samples) != NC_NOERR ||
            nc_get_att_longlong(ncid, NC_GLOBAL, "statistics_rows", &rows) != NC_NOERR ||
            nc_inq_att(ncid, NC_GLOBAL, "statistics_fields", &type, &len) != NC_NOERR || type != NC_CHAR ||
            len >= nameslen || nc_get_att_text(ncid, NC_GLOBAL, "statistics_fields", names) != NC_NOERR ||
            nc_get_att_ulonglong(ncid, NC_GLOBAL, "statistics_checksum", &want) != NC_NOERR ||
            get_text(ncid, "statistics_columns", st->columns, sizeof st->columns) || samples < 0 ||
            rows < 0 || rows > (1LL << 40);
  if (bad) return snprintf(err, errlen, "%s: damaged checkpoint: its statistics attributes cannot be read", path), 1;
  names[len] = 0;
  st->present = 1, st->samples = samples, st->nrows = (size_t)rows;
  for (char *p = strtok(names, " "); p; p = strtok(NULL, " ")) {
    if (st->nfields == INSDG_CHECKPOINT_MAX_STATS)
      return snprintf(err, errlen, "%s: not a valid checkpoint (too many statistics fields)", path), 1;
    st->names[st->nfields] = p;
    if (insdg_checkpoint_var(ncid, path, p, NC_DOUBLE, nnodes, &vars[st->nfields], err, errlen)) return 1;
    st->nfields++;
  }
  int var, ndims, dims[2];
  size_t n[2];
  if (nc_inq_varid(ncid, STATS_SERIES, &var) || nc_inq_varndims(ncid, var, &ndims) || ndims != 2 ||
      nc_inq_vardimid(ncid, var, dims) || nc_inq_dimlen(ncid, dims[0], &n[0]) || nc_inq_dimlen(ncid, dims[1], &n[1]) ||
      n[0] < st->nrows || n[1] > 4096)
    return snprintf(err, errlen, "%s: damaged checkpoint: the variable %s is missing or has the wrong shape", path,
                    STATS_SERIES), 1;
  st->ncolumns = (int)n[1];
  st->series = insdg_malloc(sizeof(double) * (st->nrows * n[1] + 1));
  const size_t start[2] = {0, 0}, count[2] = {st->nrows, n[1]};
  if (st->nrows > 0 && nc_get_vara_double(ncid, var, start, count, st->series) != NC_NOERR)
    return snprintf(err, errlen, "%s: damaged checkpoint: %s cannot be read", path, STATS_SERIES), 1;
  char fields[512];
  stats_field_list(st, fields, sizeof fields);
  if (stats_checksum(st, fields) != want)
    return snprintf(err, errlen, "%s: corrupted checkpoint: its statistics do not match their checksum", path), 1;
  return 0;
}

int insdg_checkpoint_write(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                           char *err, size_t errlen)
{
  return insdg_checkpoint_write_stats(path, T, ins, info, NULL, err, errlen);
}

int insdg_checkpoint_read(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                          char *err, size_t errlen)
{
  return insdg_checkpoint_read_stats(path, T, ins, info, NULL, err, errlen);
}

int insdg_checkpoint_write_stats(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                                 const insdg_checkpoint_stats *stats, char *err, size_t errlen)
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
  int ncid = -1, dim[2], var[INSDG_INS_MAX_STATE], evar, cvar, svar[INSDG_CHECKPOINT_MAX_STATS], series_var = -1;
  const int nstat = stats && stats->present ? stats->nfields : 0;
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
  if (stats && stats->present) NC_TRY(define_stats(ncid, stats, dim[0], svar, &series_var), "the statistics");
  static const char desc[] = "insdg checkpoint: state of the BDF/EXT splitting scheme; element e of the file "
                             "(nodes e*Np .. e*Np+Np-1) is element element_original[e] of the mesh file";
  NC_TRY(nc_put_att_text(ncid, NC_GLOBAL, "description", strlen(desc), desc), "attributes");
  NC_TRY(insdg_checkpoint_put_header(ncid, &h), "attributes");
  NC_TRY(nc_enddef(ncid), "leaving define mode");
  for (int k = 0; k < nf; ++k) NC_TRY(nc_var_par_access(ncid, var[k], NC_COLLECTIVE), "collective access");
  NC_TRY(nc_var_par_access(ncid, evar, NC_COLLECTIVE), "collective access");
  NC_TRY(nc_var_par_access(ncid, cvar, NC_COLLECTIVE), "collective access");
  for (int k = 0; k < nstat; ++k) NC_TRY(nc_var_par_access(ncid, svar[k], NC_COLLECTIVE), "collective access");
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
    for (int k = 0; k < nstat && s == NC_NOERR; ++k) {   /* the statistics' fields: after the state's */
      const double *b = stats->local[k];
      for (size_t j = 0; j < ne; ++j)
        for (int i = 0; i < Np; ++i) sum[j] = insdg_checkpoint_mix(sum[j], bits(b[j * Np + i]));
      s = nc_put_vara_double(ncid, svar[k], &n0, &nn, b);
      if (s != NC_NOERR) snprintf(err, errlen, "%s: %s (writing %s)", path, nc_strerror(s), stats->names[k]);
    }
    if (s == NC_NOERR && stats && stats->present && T->rank == 0 && stats->nrows > 0) {   /* the same on every rank */
      const size_t st0[2] = {0, 0}, cnt[2] = {stats->nrows, (size_t)stats->ncolumns};
      s = nc_put_vara_double(ncid, series_var, st0, cnt, stats->series);
      if (s != NC_NOERR) snprintf(err, errlen, "%s: %s (writing %s)", path, nc_strerror(s), STATS_SERIES);
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

int insdg_checkpoint_read_stats(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                                insdg_checkpoint_stats *stats, char *err, size_t errlen)
{
  enum { MAXV = INSDG_INS_MAX_STATE + INSDG_CHECKPOINT_MAX_STATS };
  insdg_dfield *fields[INSDG_INS_MAX_STATE];
  const char *names[MAXV];
  insdg_checkpoint_stats fst = {0};   /* the file's statistics */
  char stat_names[512];
  int nv = 0;   /* the state's fields and then the statistics' */
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
  double *local[MAXV] = {NULL};
  double *chunk = insdg_malloc(sizeof(double) * (size_t)CHUNK * Np);
  int *orig = insdg_malloc(sizeof(int) * CHUNK), *where = insdg_malloc(sizeof(int) * CHUNK);
  unsigned long long *want = insdg_malloc(sizeof *want * CHUNK);
  uint64_t *sum = insdg_malloc(sizeof *sum * CHUNK);
  int ncid = -1, var[MAXV], evar = -1, cvar = -1, found = 0;
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
  nv = nf;
  if (read_stats_header(ncid, path, (size_t)K * Np, &fst, var + nf, stat_names, sizeof stat_names, err, errlen))
    goto fail;
  for (int k = 0; k < fst.nfields; ++k, ++nv)
    names[nv] = fst.names[k], local[nv] = insdg_malloc(sizeof(double) * ((size_t)nloc * Np + 1));
  if (stats && fst.present) {   /* the caller's fields must be the file's */
    int same = stats->nfields == fst.nfields;
    for (int k = 0; same && k < fst.nfields; ++k) same = !strcmp(stats->names[k], fst.names[k]);
    if (!same) {
      snprintf(err, errlen, "%s: its statistics fields (%s) are not those of this insdg", path, stat_names);
      goto fail;
    }
  }
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
    for (int k = 0; k < nv; ++k) {
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
  if (stats && fst.present) {
    for (int k = 0; k < fst.nfields; ++k) memcpy(stats->local[k], local[nf + k], sizeof(double) * (size_t)nloc * Np);
    stats->present = 1, stats->start = fst.start, stats->samples = fst.samples;
    stats->nrows = fst.nrows, stats->ncolumns = fst.ncolumns, stats->series = fst.series;
    memcpy(stats->columns, fst.columns, sizeof stats->columns);
    fst.series = NULL;   /* the caller's now */
  } else if (stats) {
    stats->present = 0;
  }
fail:
  if (ncid >= 0) nc_close(ncid);
  free(fst.series);
  for (int k = 0; k < MAXV; ++k) free(local[k]);
  free(mine), free(chunk), free(orig), free(where), free(want), free(sum);
  return agree(T, err[0] != 0, err, errlen);
}
