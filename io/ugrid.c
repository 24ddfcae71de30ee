/* ugrid.c -- parallel NetCDF-4 writer of DG fields in UGRID 1.0 form (see ugrid.h).
 *
 * Life of a file: create (check the ranks agree, nc_create_par "<path>.tmp", define the
 * mesh) -> add_field* (define node variables) -> write* (the first one leaves define
 * mode and writes the mesh arrays; each appends one record) -> close (rename to <path>).
 *
 * Invariants:
 *  - Every rank makes the same sequence of NetCDF calls, because in parallel NetCDF-4
 *    definitions are collective and every variable is in NC_COLLECTIVE access; a rank that
 *    owns no elements writes hyperslabs of count 0.
 *  - After every phase the ranks agree on success (one MPI_Allreduce): if any rank failed,
 *    all return the failing rank's message, the file is closed and rank 0 deletes the
 *    .tmp. A writer in that state ("discarded") refuses further work, so nothing is ever
 *    renamed to the final name unless every write on every rank succeeded.
 *  - Node e*Np + n of the file is node n of element e; sub-triangle e*N^2 + t is
 *    sub-triangle t of element e (table built by sub_triangles below, checked to be
 *    counter-clockwise on the reference nodes, so also on every mesh element since the
 *    mesh keeps elements counter-clockwise and the element maps are affine).
 */
#include "ugrid.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netcdf.h>
#include <netcdf_par.h>

#include "error.h"

#define UGRID_PATH_MAX 4096
#define UGRID_MSG_MAX INSDG_ERRMSG_LEN

struct insdg_ugrid {
  MPI_Comm comm;                         /* private duplicate of the caller's communicator */
  int rank, nranks;
  char path[UGRID_PATH_MAX];             /* final name */
  char tmp_path[UGRID_PATH_MAX + 8];     /* "<path>.tmp", the name while writing */
  char msg[UGRID_MSG_MAX];               /* message of the last failure on this rank */

  const insdg_mesh *mesh;                /* borrowed */
  int N, Np, sub_per_elem;               /* degree, nodes and sub-triangles per element */
  int e_begin, e_end;                    /* this rank's elements */

  int ncid;
  int open;                              /* ncid is a file this writer must close */
  int discarded;                         /* an error removed the file; refuse further work */
  int in_define_mode;                    /* before the first record: mesh arrays not written */
  int dim_node, dim_face, dim_time;
  int var_mesh, var_x, var_y, var_face_nodes, var_face_elem, var_time;
  int *field_vars, nfields;
  size_t nrecords;
};

/* ---------------------------------------------------------------------------------------
 * Failures and agreement between ranks
 * --------------------------------------------------------------------------------------- */

/* snprintf that may truncate (messages are cut at their buffer's size, by design). */
static void format_message(char *dst, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void format_message(char *dst, size_t len, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst, len, fmt, ap);
  va_end(ap);
}

/* Record "<path>: <reason>" as this rank's failure; returns 1. */
static int fail(insdg_ugrid *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(insdg_ugrid *w, const char *fmt, ...)
{
  char reason[UGRID_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  format_message(w->msg, sizeof w->msg, "%s: %s", w->path, reason);
  return 1;
}

/* "<path>: <nc_strerror> (<doing>[, rank r])" */
static int nc_fail(insdg_ugrid *w, int status, const char *doing)
{
  if (w->nranks > 1)
    return fail(w, "%s (%s, rank %d)", nc_strerror(status), doing, w->rank);
  return fail(w, "%s (%s)", nc_strerror(status), doing);
}

/* Evaluate a NetCDF call; on failure record the message and return 1 from the caller. */
#define NC_TRY(w, call, doing)                                                          \
  do {                                                                                  \
    int nc_status_ = (call);                                                            \
    if (nc_status_ != NC_NOERR) return nc_fail((w), nc_status_, (doing));               \
  } while (0)

static void copy_message(const char *msg, char *err, size_t errlen)
{
  if (err && errlen > 0) snprintf(err, errlen, "%s", msg);
}

/* Collective: returns 0 if local_rc is 0 on every rank; otherwise every rank gets the
   message of the lowest failing rank in w->msg and 1 is returned. */
static int agree(insdg_ugrid *w, int local_rc)
{
  int failing_rank = local_rc ? w->rank : w->nranks;
  MPI_Allreduce(MPI_IN_PLACE, &failing_rank, 1, MPI_INT, MPI_MIN, w->comm);
  if (failing_rank == w->nranks) return 0;
  MPI_Bcast(w->msg, UGRID_MSG_MAX, MPI_CHAR, failing_rank, w->comm);
  return 1;
}

/* After a failure that every rank agreed on: close the file and delete the .tmp so
   nothing half-written remains. Collective. */
static void discard(insdg_ugrid *w)
{
  if (w->open) nc_close(w->ncid); /* its status is moot: the file is being deleted */
  w->open = 0;
  MPI_Barrier(w->comm);
  if (w->rank == 0) unlink(w->tmp_path); /* unlink: never a directory of that name */
  w->discarded = 1;
}

/* Collective: agree on local_rc; on failure discard the file. Copies the message to err. */
static int settle(insdg_ugrid *w, int local_rc, char *err, size_t errlen)
{
  if (!agree(w, local_rc)) return 0;
  discard(w);
  copy_message(w->msg, err, errlen);
  return 1;
}

/* Collective: 0 if str (NULL counts as "") is the same on every rank as on rank 0. */
static int same_on_all_ranks(insdg_ugrid *w, const char *str, const char *what)
{
  const char *s = str ? str : "";
  int len = (int)strlen(s), len0 = len;
  MPI_Bcast(&len0, 1, MPI_INT, 0, w->comm);
  char *root_copy = insdg_malloc((size_t)len0 + 1);
  if (w->rank == 0) memcpy(root_copy, s, (size_t)len0 + 1);
  MPI_Bcast(root_copy, len0 + 1, MPI_CHAR, 0, w->comm);
  int differs = len != len0 || memcmp(root_copy, s, (size_t)len) != 0;
  free(root_copy);
  if (differs) return fail(w, "rank %d passed a different %s than rank 0", w->rank, what);
  return 0;
}

/* ---------------------------------------------------------------------------------------
 * Geometry of the drawing: N^2 sub-triangles per element
 * --------------------------------------------------------------------------------------- */

/* Index of node (i, j) -- i-th node of row j -- in the reference node order: rows of
   constant s from s = -1 up, r increasing along a row, row j holding N+1-j nodes. */
static int node_index(int N, int i, int j)
{
  return j * (N + 1) - j * (j - 1) / 2 + i;
}

/* Fill sub[N*N][3] with the local nodes of each sub-triangle, counter-clockwise:
   per row j the "up" triangles (i,j),(i+1,j),(i,j+1), then the "down" ones
   (i+1,j),(i+1,j+1),(i,j+1). */
static void sub_triangles(int N, int *sub)
{
  int t = 0;
  for (int j = 0; j < N; ++j) {
    for (int i = 0; i + j < N; ++i, ++t) {
      sub[3 * t + 0] = node_index(N, i, j);
      sub[3 * t + 1] = node_index(N, i + 1, j);
      sub[3 * t + 2] = node_index(N, i, j + 1);
    }
    for (int i = 0; i + j < N - 1; ++i, ++t) {
      sub[3 * t + 0] = node_index(N, i + 1, j);
      sub[3 * t + 1] = node_index(N, i + 1, j + 1);
      sub[3 * t + 2] = node_index(N, i, j + 1);
    }
  }
  INSDG_CHECK(t == N * N);
}

/* The table must tile the reference triangle (area 2) with positive-area triangles:
   guards the assumption about the node order of ref_tri.c. */
static void check_sub_triangles(const insdg_ref *ref, const int *sub)
{
  double total = 0;
  for (int t = 0; t < ref->N * ref->N; ++t) {
    const int a = sub[3 * t], b = sub[3 * t + 1], c = sub[3 * t + 2];
    const double area = 0.5 * ((ref->r[b] - ref->r[a]) * (ref->s[c] - ref->s[a]) -
                               (ref->r[c] - ref->r[a]) * (ref->s[b] - ref->s[a]));
    INSDG_CHECK(area > 0);
    total += area;
  }
  INSDG_CHECK(total > 2 - 1e-12 && total < 2 + 1e-12);
}

/* ---------------------------------------------------------------------------------------
 * Definitions (define mode)
 * --------------------------------------------------------------------------------------- */

static int put_text(int ncid, int varid, const char *name, const char *value)
{
  return nc_put_att_text(ncid, varid, name, strlen(value), value);
}

static int define_global_attributes(insdg_ugrid *w, const char *title)
{
  NC_TRY(w, put_text(w->ncid, NC_GLOBAL, "Conventions", "CF-1.8 UGRID-1.0"), "writing Conventions");
  NC_TRY(w, put_text(w->ncid, NC_GLOBAL, "title", title ? title : ""), "writing title");
  NC_TRY(w, put_text(w->ncid, NC_GLOBAL, "source", "insdg"), "writing source");
  NC_TRY(w, nc_put_att_int(w->ncid, NC_GLOBAL, "N", NC_INT, 1, &w->N), "writing N");
  return 0;
}

static int define_topology(insdg_ugrid *w)
{
  const int two = 2, nc = w->ncid;
  const char *doing = "defining mesh2d";
  NC_TRY(w, nc_def_var(nc, "mesh2d", NC_INT, 0, NULL, &w->var_mesh), doing);
  const int var = w->var_mesh;
  NC_TRY(w, put_text(nc, var, "cf_role", "mesh_topology"), doing);
  NC_TRY(w, put_text(nc, var, "long_name",
                     "Topology of the DG solution: each triangle drawn as N^2 linear "
                     "sub-triangles on its own nodes"), doing);
  NC_TRY(w, nc_put_att_int(nc, var, "topology_dimension", NC_INT, 1, &two), doing);
  NC_TRY(w, put_text(nc, var, "node_coordinates", "mesh2d_node_x mesh2d_node_y"), doing);
  NC_TRY(w, put_text(nc, var, "face_node_connectivity", "mesh2d_face_nodes"), doing);
  NC_TRY(w, put_text(nc, var, "face_dimension", "mesh2d_nFaces"), doing);
  return 0;
}

static int define_node_coordinate(insdg_ugrid *w, const char *name, const char *standard_name,
                                  const char *long_name, int *var)
{
  const int nc = w->ncid;
  const char *doing = "defining node coordinates";
  NC_TRY(w, nc_def_var(nc, name, NC_DOUBLE, 1, &w->dim_node, var), doing);
  NC_TRY(w, put_text(nc, *var, "standard_name", standard_name), doing);
  NC_TRY(w, put_text(nc, *var, "long_name", long_name), doing);
  NC_TRY(w, put_text(nc, *var, "units", "m"), doing);
  return 0;
}

static int define_faces(insdg_ugrid *w, int dim_three)
{
  const int dims[2] = {w->dim_face, dim_three}, zero = 0, nc = w->ncid;
  const char *doing = "defining mesh2d_face_nodes";
  NC_TRY(w, nc_def_var(nc, "mesh2d_face_nodes", NC_INT, 2, dims, &w->var_face_nodes), doing);
  const int faces = w->var_face_nodes;
  NC_TRY(w, put_text(nc, faces, "cf_role", "face_node_connectivity"), doing);
  NC_TRY(w, put_text(nc, faces, "long_name", "Vertices of each sub-triangle, counter-clockwise"),
         doing);
  NC_TRY(w, nc_put_att_int(nc, faces, "start_index", NC_INT, 1, &zero), doing);

  /* A UGRID data variable on the faces, time-independent. The vtkNetCDFUGRIDReader of
     VTK 9.2 (ParaView 5.11) reads every such variable as (time, n) and so shows this one
     wrong; current VTK reads a variable without a time dimension as it is (see
     docs/output.md). */
  doing = "defining mesh2d_face_element";
  NC_TRY(w, nc_def_var(nc, "mesh2d_face_element", NC_INT, 1, &w->dim_face, &w->var_face_elem),
         doing);
  const int elem = w->var_face_elem;
  NC_TRY(w, put_text(nc, elem, "long_name",
                     "Index of the mesh triangle (DG element) this sub-triangle belongs to"),
         doing);
  NC_TRY(w, put_text(nc, elem, "units", "1"), doing);
  NC_TRY(w, put_text(nc, elem, "mesh", "mesh2d"), doing);
  NC_TRY(w, put_text(nc, elem, "location", "face"), doing);
  return 0;
}

/* CF wants a time coordinate's units with a reference ("<unit> since <date>"). The
   simulation time is no calendar date: the reference is an arbitrary epoch, so the
   stored values stay plain seconds of simulation time (what ParaView and netCDF4 show),
   and xarray decodes them to datetime64[ns] from 1970-01-01 (time - 1970-01-01 gives the
   seconds back). Not calendar "none" (xarray refuses to open the file) nor a year-1
   epoch (cftime objects, microsecond resolution): docs/output.md. */
static int define_time(insdg_ugrid *w)
{
  const int nc = w->ncid;
  const char *doing = "defining time";
  NC_TRY(w, nc_def_var(nc, "time", NC_DOUBLE, 1, &w->dim_time, &w->var_time), doing);
  const int var = w->var_time;
  NC_TRY(w, put_text(nc, var, "standard_name", "time"), doing);
  NC_TRY(w, put_text(nc, var, "long_name", "simulation time"), doing);
  NC_TRY(w, put_text(nc, var, "units", INSDG_UGRID_TIME_UNITS), doing);
  NC_TRY(w, put_text(nc, var, "calendar", INSDG_UGRID_TIME_CALENDAR), doing);
  NC_TRY(w, put_text(nc, var, "axis", "T"), doing);
  NC_TRY(w, put_text(nc, var, "comment",
                     "simulation time in seconds; the reference date is a placeholder, "
                     "not a calendar date"), doing);
  return 0;
}

static int define_mesh(insdg_ugrid *w, const char *title)
{
  const size_t nodes = (size_t)w->mesh->K * (size_t)w->Np;
  const size_t faces = (size_t)w->mesh->K * (size_t)w->sub_per_elem;
  int dim_three;
  /* Every byte is written before close, so filling would only double the I/O. */
  NC_TRY(w, nc_set_fill(w->ncid, NC_NOFILL, NULL), "setting no-fill mode");
  if (define_global_attributes(w, title)) return 1;
  NC_TRY(w, nc_def_dim(w->ncid, "mesh2d_nNodes", nodes, &w->dim_node), "defining dimensions");
  NC_TRY(w, nc_def_dim(w->ncid, "mesh2d_nFaces", faces, &w->dim_face), "defining dimensions");
  NC_TRY(w, nc_def_dim(w->ncid, "mesh2d_nMax_face_nodes", 3, &dim_three), "defining dimensions");
  NC_TRY(w, nc_def_dim(w->ncid, "time", NC_UNLIMITED, &w->dim_time), "defining dimensions");
  if (define_topology(w)) return 1;
  if (define_node_coordinate(w, "mesh2d_node_x", "projection_x_coordinate",
                             "x coordinate of the nodes", &w->var_x))
    return 1;
  if (define_node_coordinate(w, "mesh2d_node_y", "projection_y_coordinate",
                             "y coordinate of the nodes", &w->var_y))
    return 1;
  if (define_faces(w, dim_three)) return 1;
  return define_time(w);
}

/* ---------------------------------------------------------------------------------------
 * Creation
 * --------------------------------------------------------------------------------------- */

/* Local checks of the arguments (before any collective NetCDF call). */
static int check_arguments(insdg_ugrid *w, const char *path, const insdg_mesh *mesh,
                           int e_begin, int e_end)
{
  if (!path || !*path) return fail(w, "empty output path");
  if (strlen(path) >= UGRID_PATH_MAX) return fail(w, "output path too long");
  if (!mesh->ref || !mesh->x || !mesh->y)
    return fail(w, "mesh geometry not set (insdg_mesh_set_ref must come first)");
  if (e_begin < 0 || e_end < e_begin || e_end > mesh->K)
    return fail(w, "rank %d: element range [%d, %d) outside [0, %d)", w->rank, e_begin, e_end,
                mesh->K);
  const int Np = mesh->ref->Np, N = mesh->ref->N;
  if ((long long)mesh->K * Np > INT_MAX || (long long)mesh->K * N * N > INT_MAX)
    return fail(w, "mesh too large for 32-bit node indices (%d elements of degree %d)",
                mesh->K, N);
  return 0;
}

/* Collective: the ranges of all ranks must follow each other and tile [0, K). */
static int check_ranges_tile(insdg_ugrid *w)
{
  int mine[2] = {w->e_begin, w->e_end};
  int *all = insdg_malloc(sizeof(int) * 2 * (size_t)w->nranks);
  MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, w->comm);
  int expected_begin = 0, rc = 0;
  for (int r = 0; r < w->nranks && !rc; ++r) {
    if (all[2 * r] != expected_begin)
      rc = fail(w, "rank %d's elements start at %d, expected %d (ranges must follow rank order)",
                r, all[2 * r], expected_begin);
    expected_begin = all[2 * r + 1];
  }
  if (!rc && expected_begin != w->mesh->K)
    rc = fail(w, "the ranks' element ranges end at %d, not at K = %d", expected_begin,
              w->mesh->K);
  free(all);
  return rc;
}

static insdg_ugrid *new_writer(MPI_Comm comm, const char *path, const insdg_mesh *mesh,
                               int e_begin, int e_end)
{
  insdg_ugrid *w = insdg_calloc(1, sizeof *w);
  MPI_Comm_dup(comm, &w->comm);
  MPI_Comm_rank(w->comm, &w->rank);
  MPI_Comm_size(w->comm, &w->nranks);
  snprintf(w->path, sizeof w->path, "%s", path ? path : "");
  snprintf(w->tmp_path, sizeof w->tmp_path, "%s.tmp", w->path);
  w->mesh = mesh;
  w->e_begin = e_begin;
  w->e_end = e_end;
  if (mesh->ref) {
    w->N = mesh->ref->N;
    w->Np = mesh->ref->Np;
    w->sub_per_elem = w->N * w->N;
  }
  w->in_define_mode = 1;
  return w;
}

static void free_writer(insdg_ugrid *w)
{
  MPI_Comm_free(&w->comm);
  free(w->field_vars);
  free(w);
}

/* Rank 0: the directory of the output must exist and be writable (NetCDF's own message
   for this case, through HDF5 and MPI-IO, is an unhelpful "Permission denied"). */
static int check_directory(insdg_ugrid *w)
{
  if (w->rank != 0) return 0;
  char dir[UGRID_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", w->path);
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == dir) dir[1] = '\0';
  else *slash = '\0';
  if (access(dir, W_OK | X_OK) == 0) return 0;
  return fail(w, "cannot write in directory %s: %s (creating the file)", dir, strerror(errno));
}

/* Collective checks before anything touches the disk. */
static int check_agreement(insdg_ugrid *w, const char *path, const insdg_mesh *mesh,
                           int e_begin, int e_end, const char *title)
{
  if (agree(w, check_arguments(w, path, mesh, e_begin, e_end))) return 1;
  int rc = same_on_all_ranks(w, w->path, "output path");
  if (!rc) rc = same_on_all_ranks(w, title, "title");
  if (agree(w, rc)) return 1;
  if (agree(w, check_ranges_tile(w))) return 1;
  return agree(w, check_directory(w));
}

int insdg_ugrid_create(MPI_Comm comm, const char *path, const insdg_mesh *mesh, int e_begin,
                       int e_end, const char *title, insdg_ugrid **out, char *err,
                       size_t errlen)
{
  *out = NULL;
  insdg_ugrid *w = new_writer(comm, path, mesh, e_begin, e_end);
  if (check_agreement(w, path, mesh, e_begin, e_end, title)) {
    copy_message(w->msg, err, errlen);
    free_writer(w);
    return 1;
  }
  int *sub = insdg_malloc(sizeof(int) * 3 * (size_t)w->sub_per_elem);
  sub_triangles(w->N, sub);
  check_sub_triangles(mesh->ref, sub);
  free(sub);

  /* A failed create may still leave a .tmp behind: settle() removes it. */
  int status = nc_create_par(w->tmp_path, NC_NETCDF4 | NC_CLOBBER, w->comm, MPI_INFO_NULL,
                             &w->ncid);
  w->open = status == NC_NOERR;
  if (settle(w, w->open ? 0 : nc_fail(w, status, "creating the file"), err, errlen) ||
      settle(w, define_mesh(w, title), err, errlen)) {
    free_writer(w);
    return 1;
  }
  *out = w;
  return 0;
}

/* ---------------------------------------------------------------------------------------
 * Fields
 * --------------------------------------------------------------------------------------- */

static int define_field(insdg_ugrid *w, const char *name, const char *units,
                        const char *long_name)
{
  if (!w->in_define_mode)
    return fail(w, "field '%s' added after the first record (add fields before writing)", name);
  const int dims[2] = {w->dim_time, w->dim_node};
  int var;
  char doing[NC_MAX_NAME + 32];
  snprintf(doing, sizeof doing, "defining field %s", name);
  NC_TRY(w, nc_def_var(w->ncid, name, NC_DOUBLE, 2, dims, &var), doing);
  NC_TRY(w, put_text(w->ncid, var, "mesh", "mesh2d"), doing);
  NC_TRY(w, put_text(w->ncid, var, "location", "node"), doing);
  NC_TRY(w, put_text(w->ncid, var, "units", units), doing);
  NC_TRY(w, put_text(w->ncid, var, "long_name", long_name), doing);
  NC_TRY(w, put_text(w->ncid, var, "coordinates", "mesh2d_node_x mesh2d_node_y"), doing);
  w->field_vars = realloc(w->field_vars, sizeof(int) * (size_t)(w->nfields + 1));
  INSDG_CHECK(w->field_vars != NULL);
  w->field_vars[w->nfields++] = var;
  return 0;
}

static int discarded_error(insdg_ugrid *w, char *err, size_t errlen)
{
  char msg[UGRID_MSG_MAX];
  format_message(msg, sizeof msg, "%s: not written (an earlier error discarded it)", w->path);
  copy_message(msg, err, errlen);
  return 1;
}

int insdg_ugrid_add_field(insdg_ugrid *w, const char *name, const char *units,
                          const char *long_name, char *err, size_t errlen)
{
  if (w->discarded) return discarded_error(w, err, errlen);
  int rc = same_on_all_ranks(w, name, "field name");
  if (!rc) rc = same_on_all_ranks(w, units, "field units");
  if (!rc) rc = same_on_all_ranks(w, long_name, "field long_name");
  if (!rc && (!name || !*name || !units || !long_name))
    rc = fail(w, "a field needs a name, units and a long_name");
  if (!rc) rc = define_field(w, name, units, long_name);
  return settle(w, rc, err, errlen);
}

/* ---------------------------------------------------------------------------------------
 * Data
 * --------------------------------------------------------------------------------------- */

/* A non-NULL address for the hyperslabs of count 0 written by a rank with no elements. */
static const void *or_dummy(const void *data)
{
  static const double dummy = 0;
  return data ? data : (const void *)&dummy;
}

static int write_connectivity(insdg_ugrid *w)
{
  const int nloc = w->e_end - w->e_begin, nsub = w->sub_per_elem;
  int *sub = insdg_malloc(sizeof(int) * 3 * (size_t)nsub);
  int *face_nodes = insdg_malloc(sizeof(int) * (3 * (size_t)nloc * nsub + 1));
  int *face_elem = insdg_malloc(sizeof(int) * ((size_t)nloc * nsub + 1));
  sub_triangles(w->N, sub);
  for (int le = 0; le < nloc; ++le) {
    const int e = w->e_begin + le;
    for (int t = 0; t < nsub; ++t) {
      const size_t face = (size_t)le * nsub + t;
      for (int v = 0; v < 3; ++v) face_nodes[3 * face + v] = e * w->Np + sub[3 * t + v];
      face_elem[face] = e;
    }
  }
  const size_t start[2] = {(size_t)w->e_begin * nsub, 0}, count[2] = {(size_t)nloc * nsub, 3};
  int status = nc_put_vara_int(w->ncid, w->var_face_nodes, start, count, face_nodes);
  int rc = status ? nc_fail(w, status, "writing mesh2d_face_nodes") : 0;
  status = nc_put_vara_int(w->ncid, w->var_face_elem, start, count, face_elem);
  if (!rc && status) rc = nc_fail(w, status, "writing mesh2d_face_element");
  free(sub);
  free(face_nodes);
  free(face_elem);
  return rc;
}

static int write_node_coordinates(insdg_ugrid *w)
{
  const size_t offset = (size_t)w->e_begin * w->Np;
  const size_t start = offset, count = (size_t)(w->e_end - w->e_begin) * w->Np;
  NC_TRY(w, nc_put_vara_double(w->ncid, w->var_x, &start, &count, w->mesh->x + offset),
         "writing mesh2d_node_x");
  NC_TRY(w, nc_put_vara_double(w->ncid, w->var_y, &start, &count, w->mesh->y + offset),
         "writing mesh2d_node_y");
  return 0;
}

/* Leave define mode, make every variable collective and write the mesh arrays. Every
   rank takes part in every put, so an error is recorded but the puts go on. */
static int write_mesh(insdg_ugrid *w)
{
  int nvars;
  NC_TRY(w, nc_enddef(w->ncid), "ending define mode");
  w->in_define_mode = 0;
  NC_TRY(w, nc_inq_nvars(w->ncid, &nvars), "setting collective access");
  for (int var = 0; var < nvars; ++var)
    NC_TRY(w, nc_var_par_access(w->ncid, var, NC_COLLECTIVE), "setting collective access");
  /* The topology container holds no data, but a written 0 beats an undefined value. Every
     rank writes the same scalar: collective access has no count-0 form for a scalar. */
  const int zero = 0;
  int status = nc_put_var_int(w->ncid, w->var_mesh, &zero);
  int rc = status ? nc_fail(w, status, "writing mesh2d") : 0;
  int rc_nodes = write_node_coordinates(w);
  int rc_faces = write_connectivity(w);
  return rc ? rc : rc_nodes ? rc_nodes : rc_faces;
}

static int write_record(insdg_ugrid *w, double time, const double *const *fields)
{
  const size_t rec = w->nrecords, one = 1, none = 0;
  int rc = 0, status;
  status = nc_put_vara_double(w->ncid, w->var_time, &rec, w->rank == 0 ? &one : &none, &time);
  if (status) rc = nc_fail(w, status, "writing time");
  const size_t start[2] = {rec, (size_t)w->e_begin * w->Np};
  const size_t count[2] = {1, (size_t)(w->e_end - w->e_begin) * w->Np};
  for (int i = 0; i < w->nfields; ++i) {
    const double *data = or_dummy(w->e_end > w->e_begin ? fields[i] : NULL);
    status = nc_put_vara_double(w->ncid, w->field_vars[i], start, count, data);
    if (status && !rc) {
      char name[NC_MAX_NAME + 1] = "?", doing[NC_MAX_NAME + 32];
      nc_inq_varname(w->ncid, w->field_vars[i], name);
      snprintf(doing, sizeof doing, "writing field %s, record %zu", name, rec);
      rc = nc_fail(w, status, doing);
    }
  }
  return rc;
}

int insdg_ugrid_write(insdg_ugrid *w, double time, const double *const *fields, char *err,
                      size_t errlen)
{
  if (w->discarded) return discarded_error(w, err, errlen);
  if (w->in_define_mode && settle(w, write_mesh(w), err, errlen)) return 1;
  int rc = 0;
  if (w->e_end > w->e_begin)
    for (int i = 0; i < w->nfields && !rc; ++i)
      if (!fields || !fields[i]) rc = fail(w, "field %d: no data given (writing a record)", i);
  if (settle(w, rc, err, errlen)) return 1;
  if (settle(w, write_record(w, time, fields), err, errlen)) return 1;
  w->nrecords++;
  return 0;
}

/* ---------------------------------------------------------------------------------------
 * Closing
 * --------------------------------------------------------------------------------------- */

static int rename_into_place(insdg_ugrid *w)
{
  if (w->rank != 0) return 0;
  if (rename(w->tmp_path, w->path) == 0) return 0;
  return fail(w, "cannot rename %s into place: %s", w->tmp_path, strerror(errno));
}

int insdg_ugrid_close(insdg_ugrid *w, char *err, size_t errlen)
{
  int rc = 1;
  if (w->discarded) {
    discarded_error(w, err, errlen);
  } else if (!(w->in_define_mode && settle(w, write_mesh(w), err, errlen))) {
    int status = nc_close(w->ncid);
    w->open = status != NC_NOERR; /* still open only if closing failed */
    rc = status ? nc_fail(w, status, "closing the file") : 0;
    if (!settle(w, rc, err, errlen)) rc = settle(w, rename_into_place(w), err, errlen);
    else rc = 1;
  }
  free_writer(w);
  return rc;
}
