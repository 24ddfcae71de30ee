/* fuzz_checkpoint_lf.c -- libFuzzer targets of the checkpoint reader's file access
 * (tasks/checkpoint.c: NetCDF-4 / HDF5 through nc_open, as insdg_checkpoint_read does).
 * One source, two targets (tests/fuzz/CMakeLists.txt):
 *  fuzz_checkpoint_lf     the input's bytes are the file (seeds: real checkpoints). This
 *                         fuzzes HDF5's and NetCDF's parsing of corrupted files, where it
 *                         has found a crash inside Debian's HDF5 1.10.8 (README.md).
 *  fuzz_checkpoint_nc_lf  (FUZZ_CHECKPOINT_BUILD, needs io/checkpoint_file.h) the input's
 *                         bytes drive the NetCDF API to write a well-formed file shaped
 *                         like a checkpoint, checksums included (fuzz_checkpoint_build.h:
 *                         an empty input gives a valid checkpoint; each byte changes a
 *                         format, a dimension, a header value, or an attribute's or a
 *                         variable's presence, type, shape or values). This fuzzes what the
 *                         reader makes of a valid file it did not write, not HDF5's parser.
 *                         INSDG_FUZZ_NC_OUT=FILE also writes the file built from an input
 *                         to FILE (to reproduce with insdg run --restart FILE).
 * Either way the file is written to one name in this process's scratch directory, then:
 *  - with INSDG_HAVE_CHECKPOINT_INSPECT (tests/fuzz/CMakeLists.txt defines it when
 *    io/checkpoint_file.h declares insdg_checkpoint_inspect): the file is checked by
 *    insdg_checkpoint_inspect (io/checkpoint_file.c, compiled into the target: the header,
 *    its checksum, every element's checksum; no StarPU). A failure must come with a
 *    message NUL-terminated inside its buffer, nothing written past it, and (full
 *    buffer) one non-empty line starting with the path; a success with a header inside
 *    the ranges insdg_checkpoint_get_header promises;
 *  - without it: the file is opened with nc_open (the serial open of the same libnetcdf
 *    the reader links) and walked with the NetCDF C API: every group, dimension, variable
 *    and attribute is inquired, every attribute of an atomic type read, every variable of
 *    at most 1 MiB read whole, and the global attributes and variables insdg_checkpoint_read
 *    uses read in its order and chunks, after checking their type and length (so this
 *    harness never overruns its own buffers).
 * NetCDF and HDF5 are Debian's, not instrumented: libFuzzer's coverage feedback sees only
 * this file (and io/checkpoint_file.c with the inspect function); AddressSanitizer still
 * checks the libc calls they make (memcpy, free, ...) and every buffer of ours.
 */
#include "error.h"

#include <netcdf.h>

#include "fuzz_common.h"

#ifdef INSDG_HAVE_CHECKPOINT_INSPECT
#include "checkpoint_file.h"
#include "ref_tri.h"
#endif

static const char *nc_dir;
static char nc_path[4200];

/* A new file name for every input, deleted after it: when HDF5 fails to close a damaged
   file it keeps it open, and a later nc_create of the same name would fail (seen after
   389 inputs); a restart reads one file per process, so this is the harness's concern. */
static void next_path(void)
{
  static unsigned long n = 0;
  snprintf(nc_path, sizeof nc_path, "%s/input-%lu.nc", nc_dir, n++);
}

#ifdef INSDG_HAVE_CHECKPOINT_INSPECT
#include <sanitizer/common_interface_defs.h>
#include <unistd.h>
/* In the probe's child (io/checkpoint_file.c): a sanitizer report there is a memory error
   inside HDF5 1.10.8 on a damaged file (README.md, "Findings"), which the probe exists to
   contain; the child then ends as a crashed probe does, and the input counts as refused.
   Reports in this process (our code, or HDF5 after the probe passed) stay findings. */
static void child_died(void) { _exit(3); }
static void probe_child(void) { __sanitizer_set_death_callback(child_died); }
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc, (void)argv;
#ifdef INSDG_HAVE_CHECKPOINT_INSPECT
  insdg_checkpoint_probe_child = probe_child;
#endif
  fuzz_scratch("fuzz_checkpoint");
  nc_dir = fuzz_path(".");
  return 0;
}

#ifdef INSDG_HAVE_CHECKPOINT_INSPECT

static void check_file(size_t size)
{
  const size_t errlen = fuzz_errlen(size, INSDG_ERRMSG_LEN);
  char err[INSDG_ERRMSG_LEN + 8];
  memset(err, 'X', sizeof err);
  insdg_checkpoint_header h;
  memset(&h, 0, sizeof h);
  /* what a restart does (tasks/checkpoint.c): the metadata probed in a child process (HDF5
     1.10 crashes on some damaged files), then the whole file checked here */
  if (insdg_checkpoint_probe(nc_path, err, errlen) != 0 || insdg_checkpoint_inspect(nc_path, &h, err, errlen) != 0) {
    fuzz_check_message(err, errlen, errlen == INSDG_ERRMSG_LEN, nc_path);
    FUZZ_REQUIRE(err[0] != '\0' || errlen == 1, "empty message");
    return;
  }
  /* a file that passes is one a restart may use: the header within its ranges */
  FUZZ_REQUIRE(h.N >= 1 && h.N <= INSDG_NMAX && h.K >= 1 && h.S >= 1 && h.Ns >= 0 && h.steps >= 0,
               "accepted N = %d, K = %d, S = %d, Ns = %d, steps = %d", h.N, h.K, h.S, h.Ns, h.steps);
  for (int j = 0; j < 3; j++)
    FUZZ_REQUIRE(h.projection[j] >= 0 && h.projection[j] <= 8, "accepted projection %d", h.projection[j]);
  FUZZ_REQUIRE(memchr(h.boundaries, '\0', sizeof h.boundaries) != NULL, "boundaries not terminated");
}

#else

enum { MAX_BYTES = 1 << 20, MAX_DEPTH = 8 };

static volatile unsigned long sink;   /* keeps the reads from being optimised away */

static void touch(const void *p, size_t n)
{
  const unsigned char *c = p;
  unsigned long s = 0;
  for (size_t i = 0; i < n; i++) s += c[i];
  sink += s;
}

/* Size of an atomic type (NC_BYTE .. NC_STRING); 0 for user-defined types. */
static size_t atomic_size(int ncid, nc_type type)
{
  size_t n = 0;
  if (type < NC_BYTE || type > NC_STRING) return 0;
  if (nc_inq_type(ncid, type, NULL, &n) != NC_NOERR) return 0;
  return n;
}

/* Read `count` values of an atomic type into a fresh buffer with get(), then drop them. */
static void read_values(int ncid, nc_type type, size_t count, int (*get)(int, int, const char *, void *),
                        int varid, const char *name)
{
  const size_t size = atomic_size(ncid, type);
  if (size == 0 || count > MAX_BYTES / size) return;
  void *buf = calloc(count + 1, size);
  FUZZ_REQUIRE(buf != NULL, "calloc");
  if (get(ncid, varid, name, buf) == NC_NOERR) {
    if (type == NC_STRING) {
      char **s = buf;
      for (size_t i = 0; i < count; i++)
        if (s[i]) touch(s[i], strlen(s[i]));
      nc_free_string(count, s);
    } else {
      touch(buf, count * size);
    }
  }
  free(buf);
}

static int get_att(int ncid, int varid, const char *name, void *buf)
{
  return nc_get_att(ncid, varid, name, buf);
}

static int get_var(int ncid, int varid, const char *name, void *buf)
{
  (void)name;
  return nc_get_var(ncid, varid, buf);
}

static void walk_atts(int ncid, int varid, int natts)
{
  for (int a = 0; a < natts && a < 4096; a++) {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    size_t len;
    if (nc_inq_attname(ncid, varid, a, name) != NC_NOERR) continue;
    FUZZ_REQUIRE(memchr(name, '\0', sizeof name) != NULL, "attribute name not terminated");
    if (nc_inq_att(ncid, varid, name, &type, &len) != NC_NOERR) continue;
    if (type == NC_CHAR) {
      if (len > MAX_BYTES) continue;
      char *text = malloc(len + 1);
      FUZZ_REQUIRE(text != NULL, "malloc");
      if (nc_get_att_text(ncid, varid, name, text) == NC_NOERR) touch(text, len);
      free(text);
    } else {
      read_values(ncid, type, len, get_att, varid, name);
    }
  }
}

static void walk_vars(int ncid, int nvars)
{
  for (int v = 0; v < nvars && v < 4096; v++) {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int ndims, natts, dimids[NC_MAX_VAR_DIMS];
    if (nc_inq_var(ncid, v, name, &type, &ndims, dimids, &natts) != NC_NOERR) continue;
    FUZZ_REQUIRE(ndims >= 0 && ndims <= NC_MAX_VAR_DIMS, "ndims %d", ndims);
    walk_atts(ncid, v, natts);
    size_t count = 1;
    int ok = 1;
    for (int d = 0; d < ndims && ok; d++) {
      size_t len;
      ok = nc_inq_dimlen(ncid, dimids[d], &len) == NC_NOERR && (len == 0 || count <= MAX_BYTES / len);
      if (ok) count *= len;
    }
    if (ok) read_values(ncid, type, count, get_var, v, name);
  }
}

static void walk_group(int ncid, int depth)
{
  int ndims, nvars, natts, unlimdim;
  if (nc_inq(ncid, &ndims, &nvars, &natts, &unlimdim) != NC_NOERR) return;
  for (int d = 0; d < ndims && d < 4096; d++) {
    char name[NC_MAX_NAME + 1];
    size_t len;
    (void)nc_inq_dim(ncid, d, name, &len);
  }
  walk_atts(ncid, NC_GLOBAL, natts);
  walk_vars(ncid, nvars);
  int ngrps = 0;
  if (depth >= MAX_DEPTH || nc_inq_grps(ncid, &ngrps, NULL) != NC_NOERR || ngrps <= 0) return;
  if (ngrps > 256) ngrps = 256;
  int *grps = calloc((size_t)ngrps, sizeof *grps);
  FUZZ_REQUIRE(grps != NULL, "calloc");
  int n = ngrps;
  if (nc_inq_grps(ncid, &n, grps) == NC_NOERR && n <= ngrps)
    for (int g = 0; g < n; g++) walk_group(grps[g], depth + 1);
  free(grps);
}

/* A global attribute of the reader, read only if it is numeric (nc_get_att_int/double
   convert) and has the length the reader's buffer has. */
static int att_is(int ncid, const char *name, size_t len)
{
  nc_type type;
  size_t n;
  return nc_inq_att(ncid, NC_GLOBAL, name, &type, &n) == NC_NOERR && type >= NC_BYTE &&
         type <= NC_UINT64 && type != NC_CHAR && n == len;
}

/* What insdg_checkpoint_read reads, in its order, with the lengths checked first. */
static void read_like_the_reader(int ncid)
{
  int ints[4], steps, counts[3];
  double dt, t, t_hist[4], key;
  if (att_is(ncid, "N_K_S_Ns", 4)) (void)nc_get_att_int(ncid, NC_GLOBAL, "N_K_S_Ns", ints);
  if (att_is(ncid, "dt", 1)) (void)nc_get_att_double(ncid, NC_GLOBAL, "dt", &dt);
  if (att_is(ncid, "time", 1)) (void)nc_get_att_double(ncid, NC_GLOBAL, "time", &t);
  if (att_is(ncid, "history_times", 4))
    (void)nc_get_att_double(ncid, NC_GLOBAL, "history_times", t_hist);
  if (att_is(ncid, "steps", 1)) (void)nc_get_att_int(ncid, NC_GLOBAL, "steps", &steps);
  if (att_is(ncid, "projection_p_u_v", 3))
    (void)nc_get_att_int(ncid, NC_GLOBAL, "projection_p_u_v", counts);
  if (att_is(ncid, "projection_velocity_lambda", 1))
    (void)nc_get_att_double(ncid, NC_GLOBAL, "projection_velocity_lambda", &key);
  /* every one-dimensional variable in the reader's chunks: element_original as int, the
     state's fields (u_0, p_1, ...) as double */
  int nvars;
  if (nc_inq_nvars(ncid, &nvars) != NC_NOERR) return;
  for (int var = 0; var < nvars && var < 256; var++) {
    int ndims, dim, is_elem;
    char name[NC_MAX_NAME + 1];
    size_t len;
    if (nc_inq_varndims(ncid, var, &ndims) != NC_NOERR || ndims != 1) continue;
    if (nc_inq_varname(ncid, var, name) != NC_NOERR) continue;
    if (nc_inq_vardimid(ncid, var, &dim) != NC_NOERR || nc_inq_dimlen(ncid, dim, &len) != NC_NOERR)
      continue;
    is_elem = strcmp(name, "element_original") == 0;
    enum { CHUNK = 4096 };
    static double chunk[CHUNK];
    static int ichunk[CHUNK];
    for (size_t start = 0; start < len && start < 16 * CHUNK; start += CHUNK) {
      const size_t count = len - start < CHUNK ? len - start : CHUNK;
      if (is_elem) {
        if (nc_get_vara_int(ncid, var, &start, &count, ichunk) != NC_NOERR) break;
        touch(ichunk, count * sizeof(int));
      } else {
        if (nc_get_vara_double(ncid, var, &start, &count, chunk) != NC_NOERR) break;
        touch(chunk, count * sizeof(double));
      }
    }
  }
}

static void check_file(size_t size)
{
  (void)size;
  int ncid = -1;
  const int status = nc_open(nc_path, NC_NOWRITE, &ncid);
  if (status != NC_NOERR) {
    const char *msg = nc_strerror(status);
    FUZZ_REQUIRE(msg != NULL && msg[0] != '\0', "no message for status %d", status);
    return;
  }
  read_like_the_reader(ncid);
  walk_group(ncid, 0);
  nc_close(ncid);
}

#endif

#ifdef FUZZ_CHECKPOINT_BUILD
#include "fuzz_checkpoint_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *keep = (const char *)1;   /* INSDG_FUZZ_NC_OUT=FILE: the file, kept */
  if (keep == (const char *)1) keep = getenv("INSDG_FUZZ_NC_OUT");
  if (keep) build_file(keep, data, size);
  next_path();
  build_file(nc_path, data, size);
  check_file(size);
  unlink(nc_path);
  return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  next_path();
  fuzz_write_file(nc_path, data, size);
  check_file(size);
  unlink(nc_path);
  return 0;
}
#endif
