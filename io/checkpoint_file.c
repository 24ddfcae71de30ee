/* checkpoint_file.c -- see checkpoint_file.h. */
#include "checkpoint_file.h"

#include <errno.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "ref_tri.h"

static uint64_t bits(double x)
{
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

uint64_t insdg_checkpoint_mesh_fingerprint(const insdg_mesh *m, const int *old_elem)
{
  int *pos = insdg_malloc(sizeof(int) * ((size_t)m->K + 1));   /* file element -> element of m */
  for (int e = 0; e < m->K; ++e) pos[old_elem ? old_elem[e] : e] = e;
  uint64_t h = insdg_checkpoint_mix(0x6d657368ULL, (uint64_t)m->K);
  for (int o = 0; o < m->K; ++o) {
    const int e = pos[o];
    for (int j = 0; j < 3; ++j) {
      const int v = m->EToV[3 * e + j];
      h = insdg_checkpoint_mix(h, bits(m->vx[v]));
      h = insdg_checkpoint_mix(h, bits(m->vy[v]));
      h = insdg_checkpoint_mix(h, (uint64_t)(int64_t)m->face_bnd[3 * e + j]);
      /* a curved face (curved.h): its curve's points; straight meshes hash as before */
      const int c = m->face_curve ? m->face_curve[3 * e + j] : -1;
      for (int k = 0; c >= 0 && k <= m->curve_q; ++k) {
        h = insdg_checkpoint_mix(h, bits(m->curve_x[(size_t)c * (m->curve_q + 1) + k]));
        h = insdg_checkpoint_mix(h, bits(m->curve_y[(size_t)c * (m->curve_q + 1) + k]));
      }
    }
  }
  free(pos);
  return h;
}

void insdg_checkpoint_boundaries(const insdg_mesh *m, const char *const *kind, char *out, size_t len)
{
  size_t used = 0;
  out[0] = 0;
  for (int b = 0; b < m->nbnd && used < len; ++b) {
    const int n = snprintf(out + used, len - used, "%s%s=%s", b ? ";" : "", m->bnd_name[b], kind[b]);
    used += n > 0 ? (size_t)n : 0;
  }
}

static uint64_t header_checksum(const insdg_checkpoint_header *h)
{
  const int ints[] = {h->N, h->K, h->S, h->Ns, h->steps, h->projection[0], h->projection[1], h->projection[2]};
  const double reals[] = {h->dt, h->nu, h->t, h->t_hist[0], h->t_hist[1], h->t_hist[2], h->t_hist[3], h->projection_lambda};
  uint64_t c = insdg_checkpoint_mix(0x68656164ULL, INSDG_CHECKPOINT_FORMAT);
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; ++i) c = insdg_checkpoint_mix(c, (uint64_t)(int64_t)ints[i]);
  for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i) c = insdg_checkpoint_mix(c, bits(reals[i]));
  c = insdg_checkpoint_mix(c, h->mesh_fingerprint);
  for (const unsigned char *p = (const unsigned char *)h->boundaries; *p; ++p) c = insdg_checkpoint_mix(c, *p);
  return c;
}

int insdg_checkpoint_put_header(int ncid, const insdg_checkpoint_header *h)
{
  const int format = INSDG_CHECKPOINT_FORMAT, nkssn[4] = {h->N, h->K, h->S, h->Ns};
  const unsigned long long fp = h->mesh_fingerprint, sum = header_checksum(h);
  int s = nc_put_att_int(ncid, NC_GLOBAL, "insdg_checkpoint_format", NC_INT, 1, &format);
  if (!s) s = nc_put_att_double(ncid, NC_GLOBAL, "time", NC_DOUBLE, 1, &h->t);
  if (!s) s = nc_put_att_double(ncid, NC_GLOBAL, "history_times", NC_DOUBLE, 4, h->t_hist);
  if (!s) s = nc_put_att_int(ncid, NC_GLOBAL, "steps", NC_INT, 1, &h->steps);
  if (!s) s = nc_put_att_int(ncid, NC_GLOBAL, "N_K_S_Ns", NC_INT, 4, nkssn);
  if (!s) s = nc_put_att_double(ncid, NC_GLOBAL, "dt", NC_DOUBLE, 1, &h->dt);
  if (!s) s = nc_put_att_double(ncid, NC_GLOBAL, "nu", NC_DOUBLE, 1, &h->nu);
  if (!s) s = nc_put_att_int(ncid, NC_GLOBAL, "projection_p_u_v", NC_INT, 3, h->projection);
  if (!s) s = nc_put_att_double(ncid, NC_GLOBAL, "projection_velocity_lambda", NC_DOUBLE, 1, &h->projection_lambda);
  if (!s) s = nc_put_att_ulonglong(ncid, NC_GLOBAL, "mesh_fingerprint", NC_UINT64, 1, &fp);
  if (!s) s = nc_put_att_text(ncid, NC_GLOBAL, "boundaries", strlen(h->boundaries), h->boundaries);
  if (!s) s = nc_put_att_ulonglong(ncid, NC_GLOBAL, "header_checksum", NC_UINT64, 1, &sum);
  return s;
}

/* what can be checked without the NetCDF library: a regular, non-empty NetCDF-4 (HDF5) file */
static int file_checks(const char *path, long long *size, char *err, size_t errlen)
{
  struct stat st;
  if (stat(path, &st) != 0)
    return snprintf(err, errlen, "%s: cannot open the checkpoint: %s", path, strerror(errno)), 1;
  if (!S_ISREG(st.st_mode)) return snprintf(err, errlen, "%s: not a checkpoint file (a directory or a device)", path), 1;
  *size = (long long)st.st_size;
  FILE *f = fopen(path, "rb");
  unsigned char magic[8] = {0};
  const size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
  if (f) fclose(f);
  if (got < 8 || memcmp(magic, "\x89HDF\r\n\x1a\n", 8) != 0)
    return snprintf(err, errlen, "%s: not a checkpoint: %s", path,
                    got == 0                               ? "the file is empty"
                    : got >= 3 && !memcmp(magic, "CDF", 3) ? "a classic NetCDF file, and checkpoints are NetCDF-4"
                                                           : "not a NetCDF-4 (HDF5) file (damaged, or another kind of file)"),
           1;
  return 0;
}

static int unreadable(const char *path, long long size, const char *why, char *err, size_t errlen)
{
  return snprintf(err, errlen, "%s: the checkpoint cannot be read: it is truncated or damaged (%lld bytes; %s)", path,
                  size, why), 1;
}

int insdg_checkpoint_open(const char *path, int *ncid, char *err, size_t errlen)
{
  long long size;
  *ncid = -1;
  if (file_checks(path, &size, err, errlen)) return 1;
  const int s = nc_open(path, NC_NOWRITE, ncid);
  if (s != NC_NOERR) {
    *ncid = -1;
    return unreadable(path, size, nc_strerror(s), err, errlen);
  }
  return 0;
}

/* every variable's shape and every attribute's type and length, as a reader asks for them */
static int walk_metadata(int ncid)
{
  int nvars, natts, ndims, dims[NC_MAX_VAR_DIMS];
  char name[NC_MAX_NAME + 1];
  nc_type type;
  size_t len;
  if (nc_inq(ncid, &ndims, &nvars, &natts, NULL) != NC_NOERR) return 1;
  for (int a = 0; a < natts; ++a)
    if (nc_inq_attname(ncid, NC_GLOBAL, a, name) != NC_NOERR || nc_inq_att(ncid, NC_GLOBAL, name, &type, &len) != NC_NOERR)
      return 1;
  for (int v = 0; v < nvars; ++v) {
    int nd, na;
    if (nc_inq_var(ncid, v, name, &type, &nd, NULL, &na) != NC_NOERR || nd > NC_MAX_VAR_DIMS ||
        nc_inq_vardimid(ncid, v, dims) != NC_NOERR)
      return 1;
    for (int d = 0; d < nd; ++d)
      if (nc_inq_dimlen(ncid, dims[d], &len) != NC_NOERR) return 1;
  }
  return 0;
}

void (*insdg_checkpoint_probe_child)(void) = NULL;

int insdg_checkpoint_probe(const char *path, char *err, size_t errlen)
{
  long long size;
  if (file_checks(path, &size, err, errlen)) return 1;
  fflush(NULL);
  const pid_t child = fork();
  if (child == 0) {   /* the child: default signal actions (not MPI's handlers), no atexit handlers */
    signal(SIGSEGV, SIG_DFL), signal(SIGBUS, SIG_DFL), signal(SIGABRT, SIG_DFL), signal(SIGFPE, SIG_DFL);
    if (insdg_checkpoint_probe_child) insdg_checkpoint_probe_child();
    int ncid;
    if (nc_open(path, NC_NOWRITE, &ncid) != NC_NOERR) _exit(2);
    _exit(walk_metadata(ncid) ? 3 : 0);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) return 0;   /* no probe possible: the reader checks */
  if (WIFSIGNALED(status))
    return unreadable(path, size, "the NetCDF/HDF5 library crashes reading it", err, errlen);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) return unreadable(path, size, "NetCDF cannot open it", err, errlen);
  if (WIFEXITED(status) && WEXITSTATUS(status)) return unreadable(path, size, "its structure cannot be read", err, errlen);
  return 0;
}

/* attribute name of length n and type t, or a message */
static int want_att(int ncid, const char *path, const char *name, nc_type t, size_t n, char *err, size_t errlen)
{
  nc_type type;
  size_t len;
  if (nc_inq_att(ncid, NC_GLOBAL, name, &type, &len) != NC_NOERR) {
    snprintf(err, errlen, "%s: damaged checkpoint: the attribute %s is missing", path, name);
    return 1;
  }
  if (type != t || (n && len != n) || (!n && len >= INSDG_CHECKPOINT_BOUNDARIES_LEN)) {
    snprintf(err, errlen, "%s: damaged checkpoint: the attribute %s has the wrong type or length", path, name);
    return 1;
  }
  return 0;
}

int insdg_checkpoint_get_header(int ncid, const char *path, insdg_checkpoint_header *h, char *err, size_t errlen)
{
  memset(h, 0, sizeof *h);
  int format = 0, var;
  nc_type type;
  size_t len;
  /* every attribute's type and length are checked before it is read into a variable */
  const int has_format = nc_inq_att(ncid, NC_GLOBAL, "insdg_checkpoint_format", &type, &len) == NC_NOERR;
  if (has_format && (type != NC_INT || len != 1))
    return snprintf(err, errlen, "%s: damaged checkpoint: the attribute insdg_checkpoint_format has the wrong type or "
                    "length", path), 1;
  if (!has_format || nc_get_att_int(ncid, NC_GLOBAL, "insdg_checkpoint_format", &format) != NC_NOERR) {
    if (nc_inq_varid(ncid, "mesh2d", &var) == NC_NOERR)
      snprintf(err, errlen, "%s: this is a field file (fields_<step>.nc), not a checkpoint: restart from a "
               "checkpoint_<step>.nc of the output directory", path);
    else if (nc_inq_att(ncid, NC_GLOBAL, "steps", &type, &len) == NC_NOERR)
      snprintf(err, errlen, "%s: a checkpoint written before 2026-11-26 (no checksums): it cannot be verified, "
               "and insdg no longer reads it", path);
    else
      snprintf(err, errlen, "%s: a NetCDF file, but not an insdg checkpoint", path);
    return 1;
  }
  if (format != INSDG_CHECKPOINT_FORMAT) {
    snprintf(err, errlen, "%s: checkpoint format %d, this insdg reads format %d", path, format, INSDG_CHECKPOINT_FORMAT);
    return 1;
  }
  static const struct { const char *name; nc_type type; size_t n; } atts[] = {
      {"time", NC_DOUBLE, 1}, {"history_times", NC_DOUBLE, 4}, {"steps", NC_INT, 1}, {"N_K_S_Ns", NC_INT, 4},
      {"dt", NC_DOUBLE, 1}, {"nu", NC_DOUBLE, 1}, {"projection_p_u_v", NC_INT, 3},
      {"projection_velocity_lambda", NC_DOUBLE, 1}, {"mesh_fingerprint", NC_UINT64, 1}, {"boundaries", NC_CHAR, 0},
      {"header_checksum", NC_UINT64, 1}};
  for (size_t i = 0; i < sizeof atts / sizeof atts[0]; ++i)
    if (want_att(ncid, path, atts[i].name, atts[i].type, atts[i].n, err, errlen)) return 1;
  int nkssn[4];
  unsigned long long fp, sum;
  size_t blen;
  int s = nc_get_att_double(ncid, NC_GLOBAL, "time", &h->t);
  if (!s) s = nc_get_att_double(ncid, NC_GLOBAL, "history_times", h->t_hist);
  if (!s) s = nc_get_att_int(ncid, NC_GLOBAL, "steps", &h->steps);
  if (!s) s = nc_get_att_int(ncid, NC_GLOBAL, "N_K_S_Ns", nkssn);
  if (!s) s = nc_get_att_double(ncid, NC_GLOBAL, "dt", &h->dt);
  if (!s) s = nc_get_att_double(ncid, NC_GLOBAL, "nu", &h->nu);
  if (!s) s = nc_get_att_int(ncid, NC_GLOBAL, "projection_p_u_v", h->projection);
  if (!s) s = nc_get_att_double(ncid, NC_GLOBAL, "projection_velocity_lambda", &h->projection_lambda);
  if (!s) s = nc_get_att_ulonglong(ncid, NC_GLOBAL, "mesh_fingerprint", &fp);
  if (!s) s = nc_inq_attlen(ncid, NC_GLOBAL, "boundaries", &blen);
  if (!s) s = nc_get_att_text(ncid, NC_GLOBAL, "boundaries", h->boundaries);
  if (!s) s = nc_get_att_ulonglong(ncid, NC_GLOBAL, "header_checksum", &sum);
  if (s != NC_NOERR) {
    snprintf(err, errlen, "%s: damaged checkpoint: its header cannot be read (%s)", path, nc_strerror(s));
    return 1;
  }
  h->boundaries[blen] = 0;
  h->N = nkssn[0], h->K = nkssn[1], h->S = nkssn[2], h->Ns = nkssn[3], h->mesh_fingerprint = fp;
  if (header_checksum(h) != sum) {
    snprintf(err, errlen, "%s: corrupted checkpoint: its header (time, step, sizes, parameters) does not match "
             "its checksum", path);
    return 1;
  }
  /* a matching checksum of impossible values: a file not written by insdg_checkpoint_write */
  if (h->K < 1 || h->N < 1 || h->N > INSDG_NMAX || h->steps < 0 || h->S < 1 || h->Ns < 0)
    return snprintf(err, errlen, "%s: not a valid checkpoint (N = %d, K = %d, S = %d, Ns = %d, steps = %d)", path, h->N,
                    h->K, h->S, h->Ns, h->steps), 1;
  for (int j = 0; j < 3; ++j)
    if (h->projection[j] < 0 || h->projection[j] > 8)
      return snprintf(err, errlen, "%s: not a valid checkpoint (projection basis size %d)", path, h->projection[j]), 1;
  return 0;
}

int insdg_checkpoint_compare(const char *path, const insdg_checkpoint_header *f, const insdg_checkpoint_header *w,
                             char *err, size_t errlen)
{
  char diff[300] = "";
  size_t used = 0;
#define DIFFER(cond, fmt, a, b)                                                                          \
  if ((cond) && used < sizeof diff)                                                                       \
    used += (size_t)snprintf(diff + used, sizeof diff - used, "%s" fmt, used ? ", " : "", a, b)
  DIFFER(f->N != w->N, "order N %d (this run: %d)", f->N, w->N);
  DIFFER(f->K != w->K, "%d elements (this run: %d)", f->K, w->K);
  DIFFER(f->S != w->S, "time order %d (this run: %d)", f->S, w->S);
  DIFFER(f->Ns != w->Ns, "%d substeps (this run: %d)", f->Ns, w->Ns);
  DIFFER(f->dt != w->dt, "dt = %.15g (this run: %.15g)", f->dt, w->dt);
#undef DIFFER
  if (used) return snprintf(err, errlen, "%s: written for %s", path, diff), 1;
  if (f->nu != w->nu)
    return snprintf(err, errlen, "%s: written for nu = %.15g (this run: %.15g)", path, f->nu, w->nu), 1;
  if (strcmp(f->boundaries, w->boundaries))
    return snprintf(err, errlen, "%s: written for the boundaries %.150s, this run has %.150s", path, f->boundaries,
                    w->boundaries), 1;
  if (f->mesh_fingerprint != w->mesh_fingerprint)
    return snprintf(err, errlen, "%s: written for another mesh: the same %d elements, but other node coordinates, "
                    "connectivity or boundary faces (mesh fingerprint %016llx, this run's %016llx)", path, f->K,
                    (unsigned long long)f->mesh_fingerprint, (unsigned long long)w->mesh_fingerprint), 1;
  return 0;
}

/* the file's state variables: the double variables on "node", in variable order */
static int state_variables(int ncid, const char *path, size_t nnodes, int *vars, int *nvars, char *err, size_t errlen)
{
  int nv, ndim, dimid;
  nc_type type;
  size_t len;
  char name[NC_MAX_NAME + 1];
  *nvars = 0;
  if (nc_inq_nvars(ncid, &nv) != NC_NOERR) return snprintf(err, errlen, "%s: damaged checkpoint", path), 1;
  for (int v = 0; v < nv; ++v) {
    if (nc_inq_var(ncid, v, name, &type, &ndim, NULL, NULL) != NC_NOERR || ndim != 1)
      continue;
    if (nc_inq_vardimid(ncid, v, &dimid) != NC_NOERR || nc_inq_dimlen(ncid, dimid, &len) != NC_NOERR) continue;
    char dname[NC_MAX_NAME + 1];
    if (nc_inq_dimname(ncid, dimid, dname) != NC_NOERR || strcmp(dname, "node")) continue;
    if (type != NC_DOUBLE || len != nnodes)
      return snprintf(err, errlen, "%s: damaged checkpoint: %s has %zu values, %zu expected", path, name, len, nnodes), 1;
    if (*nvars == 64) return snprintf(err, errlen, "%s: not a valid checkpoint (too many variables)", path), 1;
    vars[(*nvars)++] = v;
  }
  return 0;
}

int insdg_checkpoint_var(int ncid, const char *path, const char *name, int type, size_t len, int *varid, char *err,
                         size_t errlen)
{
  int ndims, dim;
  nc_type t;
  size_t n;
  if (nc_inq_varid(ncid, name, varid) != NC_NOERR)
    return snprintf(err, errlen, "%s: damaged checkpoint: the variable %s is missing", path, name), 1;
  if (nc_inq_varndims(ncid, *varid, &ndims) != NC_NOERR || ndims != 1 || nc_inq_vartype(ncid, *varid, &t) != NC_NOERR ||
      t != type || nc_inq_vardimid(ncid, *varid, &dim) != NC_NOERR || nc_inq_dimlen(ncid, dim, &n) != NC_NOERR)
    return snprintf(err, errlen, "%s: damaged checkpoint: the variable %s has the wrong type or shape", path, name), 1;
  if (n != len)
    return snprintf(err, errlen, "%s: damaged checkpoint: %s has %zu values, %zu expected", path, name, n, len), 1;
  return 0;
}

int insdg_checkpoint_inspect(const char *path, insdg_checkpoint_header *h, char *err, size_t errlen)
{
  int ncid, vars[64], nvars = 0, evar, cvar, status = 1;
  if (insdg_checkpoint_open(path, &ncid, err, errlen)) return 1;
  if (insdg_checkpoint_get_header(ncid, path, h, err, errlen)) goto done;
  const int Np = (h->N + 1) * (h->N + 2) / 2, K = h->K;
  if (state_variables(ncid, path, (size_t)K * Np, vars, &nvars, err, errlen)) goto done;
  if (insdg_checkpoint_var(ncid, path, "element_original", NC_INT, (size_t)K, &evar, err, errlen) ||
      insdg_checkpoint_var(ncid, path, "element_checksum", NC_UINT64, (size_t)K, &cvar, err, errlen))
    goto done;
  enum { CH = 1024 };
  double *val = insdg_malloc(sizeof(double) * CH * (size_t)Np);
  int orig[CH];
  unsigned long long want[CH];
  uint64_t sum[CH];
  for (int e0 = 0; e0 < K && status; e0 += CH) {
    const size_t start = (size_t)e0, count = (size_t)(K - e0 < CH ? K - e0 : CH), n0 = start * Np, nn = count * Np;
    int s = nc_get_vara_int(ncid, evar, &start, &count, orig);
    if (!s) s = nc_get_vara_ulonglong(ncid, cvar, &start, &count, want);
    for (size_t j = 0; j < count && !s; ++j) sum[j] = insdg_checkpoint_element_seed(orig[j]);
    for (int k = 0; k < nvars && !s; ++k) {
      s = nc_get_vara_double(ncid, vars[k], &n0, &nn, val);
      for (size_t j = 0; j < count && !s; ++j)
        for (int i = 0; i < Np; ++i) sum[j] = insdg_checkpoint_mix(sum[j], bits(val[j * Np + i]));
    }
    if (s != NC_NOERR) {
      snprintf(err, errlen, "%s: the checkpoint cannot be read: it is truncated or damaged (%s)", path,
               nc_strerror(s));
      break;
    }
    for (size_t j = 0; j < count; ++j)
      if (orig[j] < 0 || orig[j] >= K || sum[j] != want[j]) {
        snprintf(err, errlen, "%s: corrupted checkpoint: element %zu of the file does not match its checksum", path,
                 start + j);
        goto freed;
      }
    if (e0 + CH >= K) status = 0;
  }
freed:
  free(val);
done:
  nc_close(ncid);
  return status;
}
