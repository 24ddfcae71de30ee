/* fuzz_checkpoint_build.h -- the input decoder of fuzz_checkpoint_nc_lf: bytes -> a
 * well-formed NetCDF file shaped like an insdg checkpoint of format
 * INSDG_CHECKPOINT_FORMAT (io/checkpoint_file.h), written through the NetCDF API, with
 * checksums that match unless the input says otherwise. Included by fuzz_checkpoint_lf.c
 * only; test code.
 *
 * Every byte read past the end of the input is 0, and 0 always means "as
 * insdg_checkpoint_write does it", so the empty input is a valid checkpoint (N = 1,
 * K = 42, S = 2, Ns = 0, projection bases 1 1 1) and each further byte changes one thing.
 * In order:
 *   the format (NetCDF-4, else NetCDF-4 classic model, CDF-1, CDF-2, CDF-5), N, K, S, Ns,
 *   the projection counts; the two dimensions (length, unlimited, swapped); the header's
 *   values (time, steps, dt, nu, the history times, lambda, the fingerprint, the
 *   boundaries text), which its checksum covers; then each header attribute as
 *   insdg_checkpoint_put_header wrote it may be deleted or rewritten with another type,
 *   length or values (header_checksum included); each state variable (the names of
 *   insdg_ins_state), element_original and element_checksum: absent, another type,
 *   other dimensions, values from the input (before the element checksums are taken),
 *   compressed and chunked, only a _FillValue, or one value changed after the checksums;
 *   then up to 3 extra attributes or variables with names from the input, and a group.
 * Errors of the NetCDF API while writing (a type the format lacks, a value out of range)
 * leave that item out; the file is always closed, and whatever it holds is checked.
 */
#ifndef INSDG_TEST_FUZZ_CHECKPOINT_BUILD_H
#define INSDG_TEST_FUZZ_CHECKPOINT_BUILD_H

#include <float.h>
#include <math.h>
#include <netcdf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "checkpoint_file.h"

typedef struct {
  const uint8_t *p;
  size_t n;
} fz_src;

static unsigned fz_u8(fz_src *s)
{
  if (!s->n) return 0;
  s->n--;
  return *s->p++;
}

static uint64_t fz_bits(fz_src *s, int bytes)
{
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)fz_u8(s) << (8 * i);
  return v;
}

/* A value: 0 keeps def; then special values; the top of the range takes raw bits. */
static double fz_value(fz_src *s, double def, int integer)
{
  static const double special[] = {0, -1, 1, 2, 3, 4, 8, 9, 15, 16, 42, 2147483647.0,
                                   2147483648.0, -2147483649.0, 1e308, -1e308, 0.01, 1e-320,
                                   -0.0, 0.5, 1e4};
  enum { NSPECIAL = sizeof special / sizeof special[0] };
  const unsigned b = fz_u8(s);
  if (b == 0) return def;
  if (b <= NSPECIAL) return special[b - 1];
  if (b == NSPECIAL + 1) return NAN;
  if (b == NSPECIAL + 2) return INFINITY;
  if (b == NSPECIAL + 3) return -INFINITY;
  if (integer) return (double)(int32_t)fz_bits(s, 4);
  const uint64_t bits = fz_bits(s, 8);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* v clamped into int's range (NaN: 0) */
static int fz_to_int(double v)
{
  if (!(v == v)) return 0;
  return v >= 2147483647.0 ? 2147483647 : v <= -2147483648.0 ? (-2147483647 - 1) : (int)v;
}

/* an int from the input: 0 keeps def */
static int fz_int(fz_src *s, int def)
{
  return fz_to_int(fz_value(s, def, 1));
}

static const nc_type fz_types[] = {NC_BYTE,  NC_CHAR,   NC_SHORT, NC_INT,   NC_FLOAT, NC_DOUBLE,
                                   NC_UBYTE, NC_USHORT, NC_UINT,  NC_INT64, NC_UINT64, NC_STRING};
enum { FZ_NTYPES = sizeof fz_types / sizeof fz_types[0], FZ_MAXLEN = 64 };

/* A name from the input: 1..12 characters of [a-z0-9_]. */
static void fz_name(fz_src *s, char *name, const char *prefix)
{
  static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
  const unsigned len = 1 + fz_u8(s) % 12;
  size_t at = (size_t)snprintf(name, 32, "%s", prefix);
  for (unsigned i = 0; i < len && at < 31; i++) name[at++] = chars[fz_u8(s) % (sizeof chars - 1)];
  name[at] = '\0';
}

/* Write attribute `name` (of var, or NC_GLOBAL) of type type and len values. */
static void fz_put_att(int ncid, int var, const char *name, nc_type type, size_t len,
                       const double *values)
{
  if (type == NC_CHAR) {
    char text[FZ_MAXLEN + 1];
    for (size_t i = 0; i < len; i++)
      text[i] = isfinite(values[i]) ? (char)(32 + (int)fabs(fmod(values[i], 95.0))) : '?';
    (void)nc_put_att_text(ncid, var, name, len, text);
  } else if (type == NC_STRING) {
    char buf[FZ_MAXLEN][24];
    const char *strs[FZ_MAXLEN];
    for (size_t i = 0; i < len; i++) snprintf(buf[i], sizeof buf[i], "%g", values[i]), strs[i] = buf[i];
    (void)nc_put_att_string(ncid, var, name, len, strs);
  } else {
    (void)nc_put_att_double(ncid, var, name, type, len, values);   /* NC_ERANGE: left out or clipped */
  }
}

/* Change the attribute the writer made (type, len, values def), as the input says. */
static void fz_att(fz_src *s, int ncid, int var, const char *name, nc_type type, size_t len,
                   const double *def, int integer)
{
  double values[FZ_MAXLEN];
  for (size_t i = 0; i < FZ_MAXLEN; i++) values[i] = len ? def[i < len ? i : len - 1] : 0;
  switch (fz_u8(s) % 7) {
  case 0: return;   /* as written */
  case 1: (void)nc_del_att(ncid, var, name); return;
  case 2: type = fz_types[fz_u8(s) % FZ_NTYPES]; break;
  case 3: len = fz_u8(s) % (FZ_MAXLEN + 1); break;
  case 4:
    for (size_t i = 0; i < len; i++) values[i] = fz_value(s, values[i], integer);
    break;
  case 5: break;   /* rewritten as it was */
  default:
    type = fz_types[fz_u8(s) % FZ_NTYPES];
    len = fz_u8(s) % (FZ_MAXLEN + 1);
    for (size_t i = 0; i < len; i++) values[i] = fz_value(s, values[i], integer);
  }
  fz_put_att(ncid, var, name, type, len, values);
}

enum { FZ_MAXVARS = 50 };   /* 6 u, v + 6 Nu, Nv + 4 p + 24 projections + 2 element + 3 extras */

typedef struct {
  char name[32];
  int id;          /* -1: not defined */
  int mode;        /* how it is written (see build_file) */
  nc_type type;
  int ndims;
  int dims[2];
  int from_input;  /* values from the input (these many leading values) */
  double first[16];
  double *values;  /* [n] what is written (fields, element_original) */
  size_t n;
} fz_var;

static uint64_t fz_double_bits(double x)
{
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static void build_file(const char *path, const uint8_t *data, size_t size)
{
  fz_src src = {data, size}, *s = &src;
  unsigned b;
  static const int formats[] = {NC_NETCDF4 | NC_CLASSIC_MODEL, 0, NC_64BIT_OFFSET, NC_64BIT_DATA};
  const int format = (b = fz_u8(s)) % 8 != 7 ? NC_NETCDF4 : formats[(b / 8) % 4];   /* 7, 15, 23, 31 */
  const int nc4 = format == NC_NETCDF4;
  const int N = (b = fz_u8(s)) ? (int)(b % 17) : 1;             /* 0..16 (INSDG_NMAX 15) */
  const int K = (b = fz_u8(s)) ? (int)(b % 48) : 42;            /* 0..47 */
  const int S = (b = fz_u8(s)) ? (int)(b % 4) : 2;              /* 0..3 */
  const int Ns = (int)(fz_u8(s) % 3);                           /* 0..2 */
  int counts[3];
  for (int j = 0; j < 3; j++) counts[j] = (b = fz_u8(s)) ? (int)(b % 10) : 1;   /* 0..9 */
  const int Np = (N + 1) * (N + 2) / 2;
  size_t node_len = (size_t)K * Np, elem_len = (size_t)K;
  int node_unlimited = 0;
  switch (fz_u8(s) % 5) {
  case 0: break;
  case 1: node_len = fz_bits(s, 2) % 2048; break;
  case 2: elem_len = fz_u8(s); break;
  case 3: node_unlimited = 1; break;
  default: node_len = (size_t)K, elem_len = (size_t)K * Np;
  }

  /* the header; its values from the input still get a matching checksum */
  insdg_checkpoint_header h;
  memset(&h, 0, sizeof h);
  h.N = N, h.K = K, h.S = S, h.Ns = Ns;
  h.N = fz_int(s, h.N), h.K = fz_int(s, h.K);
  h.steps = fz_int(s, 1);
  h.dt = fz_value(s, 0.01, 0), h.nu = fz_value(s, 0.01, 0), h.t = fz_value(s, 0.01, 0);
  for (int i = 0; i < 4; i++) h.t_hist[i] = fz_value(s, i ? 0.0 : 0.01, 0);
  for (int j = 0; j < 3; j++) h.projection[j] = counts[j];
  h.projection[0] = fz_int(s, h.projection[0]);
  h.projection_lambda = fz_value(s, 1e4, 0);
  h.mesh_fingerprint = fz_u8(s) ? fz_bits(s, 8) : 0x1d5e0c0ffee0ULL;
  if (fz_u8(s) & 1) {   /* boundaries: a text from the input, up to the limit and past it */
    const size_t len = fz_bits(s, 2) % (INSDG_CHECKPOINT_BOUNDARIES_LEN + 8);
    for (size_t i = 0; i < len && i < sizeof h.boundaries - 1; i++) h.boundaries[i] = (char)(1 + fz_u8(s) % 127);
  } else {
    snprintf(h.boundaries, sizeof h.boundaries, "bottom=inflow;right=outflow;top=inflow;left=inflow");
  }

  int ncid;
  FUZZ_REQUIRE(nc_create(path, format | NC_CLOBBER, &ncid) == NC_NOERR, "nc_create %s", path);
  int dim_node = -1, dim_elem = -1;
  if (nc_def_dim(ncid, "node", node_unlimited ? NC_UNLIMITED : node_len, &dim_node) != NC_NOERR)
    dim_node = -1;
  if (nc_def_dim(ncid, "element", elem_len, &dim_elem) != NC_NOERR) dim_elem = -1;

  /* the header as insdg_checkpoint_put_header writes it, then each attribute changed */
  static const char desc[] = "insdg checkpoint (fuzz_checkpoint_nc_lf)";
  (void)nc_put_att_text(ncid, NC_GLOBAL, "description", sizeof desc - 1, desc);
  (void)insdg_checkpoint_put_header(ncid, &h);
  {
    const double fmt = INSDG_CHECKPOINT_FORMAT, t = h.t, steps = h.steps, dt = h.dt, nu = h.nu;
    const double nkssn[4] = {h.N, h.K, h.S, h.Ns}, key = h.projection_lambda;
    const double pc[3] = {h.projection[0], h.projection[1], h.projection[2]};
    const double fp = (double)h.mesh_fingerprint, sum = 12345, bnd = 'x' - 32;
    fz_att(s, ncid, NC_GLOBAL, "insdg_checkpoint_format", NC_INT, 1, &fmt, 1);
    fz_att(s, ncid, NC_GLOBAL, "time", NC_DOUBLE, 1, &t, 0);
    fz_att(s, ncid, NC_GLOBAL, "history_times", NC_DOUBLE, 4, h.t_hist, 0);
    fz_att(s, ncid, NC_GLOBAL, "steps", NC_INT, 1, &steps, 1);
    fz_att(s, ncid, NC_GLOBAL, "N_K_S_Ns", NC_INT, 4, nkssn, 1);
    fz_att(s, ncid, NC_GLOBAL, "dt", NC_DOUBLE, 1, &dt, 0);
    fz_att(s, ncid, NC_GLOBAL, "nu", NC_DOUBLE, 1, &nu, 0);
    fz_att(s, ncid, NC_GLOBAL, "projection_p_u_v", NC_INT, 3, pc, 1);
    fz_att(s, ncid, NC_GLOBAL, "projection_velocity_lambda", NC_DOUBLE, 1, &key, 0);
    fz_att(s, ncid, NC_GLOBAL, "mesh_fingerprint", NC_UINT64, 1, &fp, 0);
    fz_att(s, ncid, NC_GLOBAL, "boundaries", NC_CHAR, 1, &bnd, 1);
    fz_att(s, ncid, NC_GLOBAL, "header_checksum", NC_UINT64, 1, &sum, 1);
  }

  /* the variables: insdg_ins_state's names, then element_original, element_checksum */
  fz_var vars[FZ_MAXVARS];
  memset(vars, 0, sizeof vars);
  int nvars = 0;
#define FZ_ADD(...) snprintf(vars[nvars++].name, sizeof vars[0].name, __VA_ARGS__)
  for (int i = 0; i < 3; i++) FZ_ADD("u%d", i), FZ_ADD("v%d", i);
  if (Ns == 0)
    for (int i = 0; i < 3; i++) FZ_ADD("Nu%d", i), FZ_ADD("Nv%d", i);
  for (int i = 0; i <= 3; i++) FZ_ADD("p%d", i);
  static const char *const proj[3] = {"p_proj", "u_proj", "v_proj"};
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < counts[j] && i < 8; i++) FZ_ADD("%s%d", proj[j], i);
  const int ev = nvars, cv = nvars + 1;
  FZ_ADD("element_original");
  FZ_ADD("element_checksum");
#undef FZ_ADD
  for (int k = 0; k < nvars; k++) {
    fz_var *v = &vars[k];
    const int elem = k >= ev;
    v->id = -1, v->mode = (int)(fz_u8(s) % 9);
    v->type = k == ev ? NC_INT : k == cv ? NC_UINT64 : NC_DOUBLE;
    v->ndims = 1, v->dims[0] = elem ? dim_elem : dim_node;
    if (v->mode == 1) continue;   /* absent */
    if (v->mode == 2) v->type = fz_types[fz_u8(s) % FZ_NTYPES];
    if (v->type == NC_STRING) v->type = NC_CHAR;
    if (v->mode == 3) {
      switch (fz_u8(s) % 4) {
      case 0: v->ndims = 0; break;
      case 1: v->dims[0] = elem ? dim_node : dim_elem; break;
      case 2: v->ndims = 2, v->dims[0] = dim_node, v->dims[1] = dim_elem; break;
      default: v->ndims = 2, v->dims[0] = dim_elem, v->dims[1] = dim_elem;
      }
    }
    if (v->mode == 4 || v->mode == 8) {   /* 4: before the checksums, 8: after */
      v->from_input = 1 + (int)(fz_u8(s) % 16);
      for (int i = 0; i < v->from_input; i++) v->first[i] = fz_value(s, elem ? i : 0.5, elem);
    }
    if (v->ndims >= 1 && v->dims[0] < 0) continue;
    if (v->ndims == 2 && v->dims[1] < 0) continue;
    if (nc_def_var(ncid, v->name, v->type, v->ndims, v->dims, &v->id) != NC_NOERR) {
      v->id = -1;
      continue;
    }
    if (v->mode == 5 && nc4 && v->ndims >= 1) {   /* compressed, in chunks of the input's size */
      size_t chunks[2] = {1 + fz_u8(s) % 64, 1 + fz_u8(s) % 8};
      (void)nc_def_var_chunking(ncid, v->id, NC_CHUNKED, chunks);
      (void)nc_def_var_deflate(ncid, v->id, (int)(fz_u8(s) & 1), 1, (int)(fz_u8(s) % 10));
      (void)nc_def_var_fletcher32(ncid, v->id, (int)(fz_u8(s) & 1));
    }
    if (v->mode == 6) {   /* only a fill value: no data written */
      const double fill = fz_value(s, -1, elem);
      (void)nc_put_att_double(ncid, v->id, "_FillValue", v->type, 1, &fill);
    }
    if (v->mode == 7) {   /* an attribute of the variable */
      const double one = 1;
      fz_put_att(ncid, v->id, "units", fz_types[fz_u8(s) % FZ_NTYPES], 1, &one);
    }
  }

  /* extras: attributes and variables of the input's names, a group */
  const unsigned nextra = fz_u8(s) % 4;
  for (unsigned e = 0; e < nextra; e++) {
    char name[32];
    fz_name(s, name, "");
    const nc_type type = fz_types[fz_u8(s) % FZ_NTYPES];
    if (fz_u8(s) & 1) {
      const double one = 1;
      fz_put_att(ncid, NC_GLOBAL, name, type, 1, &one);
    } else if (nvars < FZ_MAXVARS) {
      fz_var *v = &vars[nvars];
      snprintf(v->name, sizeof v->name, "%s", name);
      v->mode = 0, v->type = type == NC_STRING ? NC_INT : type, v->ndims = 1;
      v->dims[0] = fz_u8(s) & 1 ? dim_node : dim_elem;
      if (v->dims[0] >= 0 && nc_def_var(ncid, v->name, v->type, 1, v->dims, &v->id) == NC_NOERR)
        nvars++;
    }
  }
  int grp = -1;
  if (nc4 && fz_u8(s) % 4 == 3 && nc_def_grp(ncid, "group", &grp) == NC_NOERR) {
    int gdim, gvar;
    if (nc_def_dim(grp, "node", 3, &gdim) == NC_NOERR)
      (void)nc_def_var(grp, "u0", NC_DOUBLE, 1, &gdim, &gvar);
    const double two = 2;
    fz_put_att(ncid, NC_GLOBAL, "insdg_checkpoint_format", NC_INT, 1, &two);
  }

  /* the values: element_original a permutation of 0..K-1 (reversed), the fields a
     pattern, the first values from the input where asked */
  for (int k = 0; k < nvars; k++) {
    fz_var *v = &vars[k];
    if (v->id < 0 || v->mode == 6) continue;
    size_t n = 1;
    for (int d = 0; d < v->ndims; d++) {
      size_t len = 0;
      (void)nc_inq_dimlen(ncid, v->dims[d], &len);
      if (v->dims[d] == dim_node && node_unlimited) len = (size_t)K * Np;
      n *= len;
    }
    if (n == 0 || n > (1u << 16)) continue;
    v->n = n;
    v->values = malloc(sizeof(double) * n);
    FUZZ_REQUIRE(v->values != NULL, "malloc");
    for (size_t i = 0; i < n; i++)
      v->values[i] = k == ev ? (double)((size_t)K - 1 - i % (size_t)(K ? K : 1)) : sin(0.1 * (double)i);
    if (v->mode == 4)
      for (int i = 0; i < v->from_input && (size_t)i < n; i++) v->values[i] = v->first[i];
  }
  /* element_checksum: as the writer takes it, over the double variables on "node" that
     inspect reads (one dimension, K Np values), in variable order; values from the input
     (mode 4, 8) instead where asked */
  const fz_var *e = &vars[ev], *c = &vars[cv];
  unsigned long long *sums = NULL;
  if (c->values && c->type == NC_UINT64 && c->mode != 4 && c->mode != 8) {
    sums = malloc(sizeof *sums * c->n);
    FUZZ_REQUIRE(sums != NULL, "malloc");
    for (size_t j = 0; j < c->n; j++) {
      uint64_t sum = insdg_checkpoint_element_seed(e->values && j < e->n ? fz_to_int(e->values[j]) : 0);
      for (int k = 0; k < ev; k++) {
        const fz_var *v = &vars[k];
        if (!v->values || v->ndims != 1 || v->dims[0] != dim_node || v->type != NC_DOUBLE ||
            v->n != (size_t)K * Np)
          continue;
        for (int i = 0; i < Np && j * Np + i < v->n; i++)
          sum = insdg_checkpoint_mix(sum, fz_double_bits(v->values[j * Np + i]));
      }
      sums[j] = sum;
    }
  }

  const int enddef = nc_enddef(ncid);
  for (int k = 0; enddef == NC_NOERR && k < nvars; k++) {
    fz_var *v = &vars[k];
    if (!v->values) continue;
    if (v->mode == 8)   /* a value changed after the checksums */
      for (int i = 0; i < v->from_input && (size_t)i < v->n; i++) v->values[i] = v->first[i];
    size_t count[2] = {1, 1}, start[2] = {0, 0};
    for (int d = 0; d < v->ndims; d++) {
      size_t len = 0;
      (void)nc_inq_dimlen(ncid, v->dims[d], &len);
      if (v->dims[d] == dim_node && node_unlimited) len = (size_t)K * Np;
      count[d] = len;
    }
    if (k == cv && sums) {   /* the checksums, bit for bit */
      (void)nc_put_vara_ulonglong(ncid, v->id, start, count, sums);
    } else if (v->type == NC_CHAR) {
      char *text = malloc(v->n);
      FUZZ_REQUIRE(text != NULL, "malloc");
      for (size_t i = 0; i < v->n; i++) text[i] = (char)('a' + i % 26);
      (void)nc_put_vara_text(ncid, v->id, start, count, text);
      free(text);
    } else {
      (void)nc_put_vara_double(ncid, v->id, start, count, v->values);   /* NC_ERANGE: clipped */
    }
  }
  for (int k = 0; k < nvars; k++) free(vars[k].values);
  free(sums);
  (void)nc_close(ncid);
}

#endif
