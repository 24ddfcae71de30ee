/* test_ugrid.c -- the parallel UGRID writer (io/ugrid.h) as an MPI program.
 *
 *   test_ugrid <mesh.msh | rect> <out.nc> [N]
 *
 * Splits the elements among the ranks in uneven contiguous ranges (at 3 ranks and more
 * the last rank owns none, the edge case of an empty hyperslab at the end of the node
 * dimension), writes fields u = x + 2y and v = sin(x) y at t = 0.5 and twice those at
 * t = 1, and checks the temporary-name protocol: while open only "<out>.tmp" exists,
 * after close only <out>. Rank 0 also writes "<out>.expect" (K N area) for
 * tests/check_ugrid.py, which checks the file's contents from Python.
 *
 * Then the error paths, each of which must fail on every rank with a message naming the
 * path and leave no file under either name: a directory that does not exist, a failing
 * nc_create_par ("<path>.tmp" is a directory), ranks that disagree on the path, element
 * ranges that do not tile the mesh, and a field added after the first record.
 *
 *   test_ugrid rect:NXxNY <out.nc> N
 *
 * writes one record of three fields on a 2*NX*NY-triangle rectangle and prints the time
 * taken (create to close, slowest rank); no checks (a measurement, not a test).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "error.h"
#include "gmsh.h"
#include "mesh.h"
#include "ugrid.h"

static int my_rank, nranks;

#define EXPECT(cond)                                                                    \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", my_rank, __FILE__, __LINE__, \
              #cond);                                                                   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                     \
    }                                                                                   \
  } while (0)

static int file_exists(const char *path)
{
  return access(path, F_OK) == 0;
}

static void tmp_name(const char *path, char *tmp, size_t len)
{
  EXPECT(snprintf(tmp, len, "%s.tmp", path) < (int)len);
}

/* Rank r's share: uneven weights 1, 2, 3, ... over the first ranks; with 3 ranks or more
   the last rank gets nothing. */
static void split_elements(int K, int *e_begin, int *e_end)
{
  const int sharing = nranks >= 3 ? nranks - 1 : nranks;
  long long total_weight = (long long)sharing * (sharing + 1) / 2, before = 0;
  for (int r = 0; r < my_rank && r < sharing; ++r) before += r + 1;
  const long long upto = my_rank < sharing ? before + my_rank + 1 : total_weight;
  *e_begin = (int)(K * before / total_weight);
  *e_end = (int)(K * upto / total_weight);
  if (my_rank >= sharing) *e_begin = *e_end = K;
}

static double mesh_area(const insdg_mesh *m)
{
  double area = 0;
  for (int e = 0; e < m->K; ++e) {
    const int *v = m->EToV + 3 * e;
    area += 0.5 * ((m->vx[v[1]] - m->vx[v[0]]) * (m->vy[v[2]] - m->vy[v[0]]) -
                   (m->vx[v[2]] - m->vx[v[0]]) * (m->vy[v[1]] - m->vy[v[0]]));
  }
  return area;
}

/* u = scale (x + 2y), v = scale sin(x) y on this rank's elements. */
static void fill_fields(const insdg_mesh *m, int e_begin, int e_end, double scale, double *u,
                        double *v)
{
  const int Np = m->ref->Np;
  for (size_t i = 0; i < (size_t)(e_end - e_begin) * Np; ++i) {
    const double x = m->x[(size_t)e_begin * Np + i], y = m->y[(size_t)e_begin * Np + i];
    u[i] = scale * (x + 2 * y);
    v[i] = scale * (sin(x) * y);
  }
}

static void write_expectations(const char *out, const insdg_mesh *m)
{
  char path[4200];
  snprintf(path, sizeof path, "%s.expect", out);
  FILE *f = fopen(path, "w");
  EXPECT(f != NULL);
  fprintf(f, "%d %d %.17g\n", m->K, m->ref->N, mesh_area(m));
  fclose(f);
}

static void write_good_file(const insdg_mesh *m, const char *out)
{
  char err[INSDG_ERRMSG_LEN], tmp[4200];
  tmp_name(out, tmp, sizeof tmp);
  if (my_rank == 0) {
    remove(out);
    remove(tmp);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int e_begin, e_end;
  split_elements(m->K, &e_begin, &e_end);
  const size_t nloc = (size_t)(e_end - e_begin) * m->ref->Np;
  double *u = insdg_malloc(sizeof(double) * (nloc + 1)), *v = insdg_malloc(sizeof(double) * (nloc + 1));

  insdg_ugrid *w;
  int rc = insdg_ugrid_create(MPI_COMM_WORLD, out, m, e_begin, e_end, "test_ugrid", &w, err, sizeof err);
  if (rc) fprintf(stderr, "rank %d: %s\n", my_rank, err);
  EXPECT(rc == 0);
  EXPECT(insdg_ugrid_add_field(w, "u", "m s-1", "x velocity (x + 2y)", err, sizeof err) == 0);
  EXPECT(insdg_ugrid_add_field(w, "v", "m s-1", "y velocity (sin(x) y)", err, sizeof err) == 0);
  for (int record = 0; record < 2; ++record) {
    fill_fields(m, e_begin, e_end, record + 1.0, u, v);
    const double *fields[2] = {u, v};
    EXPECT(insdg_ugrid_write(w, 0.5 * (record + 1), fields, err, sizeof err) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (my_rank == 0) EXPECT(file_exists(tmp) && !file_exists(out));
  MPI_Barrier(MPI_COMM_WORLD);
  rc = insdg_ugrid_close(w, err, sizeof err);
  if (rc) fprintf(stderr, "rank %d: %s\n", my_rank, err);
  EXPECT(rc == 0);
  if (my_rank == 0) {
    EXPECT(!file_exists(tmp) && file_exists(out));
    write_expectations(out, m);
  }
  free(u);
  free(v);
}

/* The message must name the path; and nothing may be left under either name. */
static void expect_clean_failure(int rc, const char *err, const char *path, const char *needle)
{
  char tmp[4200];
  tmp_name(path, tmp, sizeof tmp);
  if (my_rank == 0) printf("expected failure: %s\n", err);
  EXPECT(rc != 0);
  EXPECT(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':');
  EXPECT(strstr(err, needle) != NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT(!file_exists(path) && !file_exists(tmp));
}

static void check_bad_directory(const insdg_mesh *m, const char *out)
{
  char path[4200], err[INSDG_ERRMSG_LEN];
  snprintf(path, sizeof path, "%s.no_such_dir/x.nc", out);
  int e_begin, e_end;
  split_elements(m->K, &e_begin, &e_end);
  insdg_ugrid *w = (insdg_ugrid *)1;
  int rc = insdg_ugrid_create(MPI_COMM_WORLD, path, m, e_begin, e_end, NULL, &w, err, sizeof err);
  EXPECT(w == NULL);
  expect_clean_failure(rc, err, path, "creating the file");
}

/* "<path>.tmp" is a directory: NetCDF itself fails to create the file, and the writer
   must neither leave a file nor remove that directory. */
static void check_create_fails(const insdg_mesh *m, const char *out)
{
  char path[4200], tmp[4200], err[INSDG_ERRMSG_LEN];
  snprintf(path, sizeof path, "%s.clash.nc", out);
  tmp_name(path, tmp, sizeof tmp);
  if (my_rank == 0) EXPECT(mkdir(tmp, 0755) == 0 || file_exists(tmp));
  MPI_Barrier(MPI_COMM_WORLD);
  int e_begin, e_end;
  split_elements(m->K, &e_begin, &e_end);
  insdg_ugrid *w;
  int rc = insdg_ugrid_create(MPI_COMM_WORLD, path, m, e_begin, e_end, NULL, &w, err, sizeof err);
  if (my_rank == 0) printf("expected failure: %s\n", err);
  EXPECT(rc != 0 && w == NULL);
  EXPECT(strncmp(err, path, strlen(path)) == 0 && strstr(err, "(creating the file") != NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT(!file_exists(path));
  if (my_rank == 0) EXPECT(rmdir(tmp) == 0);
}

static void check_disagreeing_paths(const insdg_mesh *m, const char *out)
{
  char path[4200], err[INSDG_ERRMSG_LEN];
  snprintf(path, sizeof path, "%s.bad%d.nc", out, my_rank > 0);
  char rank0_path[4200];
  snprintf(rank0_path, sizeof rank0_path, "%s.bad0.nc", out);
  int e_begin, e_end;
  split_elements(m->K, &e_begin, &e_end);
  insdg_ugrid *w;
  int rc = insdg_ugrid_create(MPI_COMM_WORLD, path, m, e_begin, e_end, NULL, &w, err, sizeof err);
  /* every rank reports rank 1's complaint, which names its own path */
  char rank1_path[4200];
  snprintf(rank1_path, sizeof rank1_path, "%s.bad1.nc", out);
  expect_clean_failure(rc, err, rank1_path, "different output path");
  EXPECT(!file_exists(rank0_path));
}

static void check_ranges_not_tiling(const insdg_mesh *m, const char *out)
{
  char path[4200], err[INSDG_ERRMSG_LEN];
  snprintf(path, sizeof path, "%s.badrange.nc", out);
  int e_begin, e_end;
  split_elements(m->K, &e_begin, &e_end);
  if (my_rank == nranks - 1) e_end = e_end > e_begin ? e_end - 1 : e_end; /* misses the last */
  if (my_rank == nranks - 1 && e_begin == e_end && e_begin > 0) e_begin = e_end = e_begin - 1;
  insdg_ugrid *w;
  int rc = insdg_ugrid_create(MPI_COMM_WORLD, path, m, e_begin, e_end, NULL, &w, err, sizeof err);
  expect_clean_failure(rc, err, path, "range");
}

static void check_late_field(const insdg_mesh *m, const char *out)
{
  char path[4200], err[INSDG_ERRMSG_LEN];
  snprintf(path, sizeof path, "%s.late.nc", out);
  int e_begin, e_end;
  split_elements(m->K, &e_begin, &e_end);
  double *u = insdg_calloc((size_t)(e_end - e_begin) * m->ref->Np + 1, sizeof(double));
  const double *fields[1] = {u};
  insdg_ugrid *w;
  EXPECT(insdg_ugrid_create(MPI_COMM_WORLD, path, m, e_begin, e_end, NULL, &w, err, sizeof err) == 0);
  EXPECT(insdg_ugrid_add_field(w, "u", "1", "u", err, sizeof err) == 0);
  EXPECT(insdg_ugrid_write(w, 0.0, fields, err, sizeof err) == 0);
  int rc = insdg_ugrid_add_field(w, "p", "Pa", "pressure", err, sizeof err);
  expect_clean_failure(rc, err, path, "after the first record");
  EXPECT(insdg_ugrid_write(w, 1.0, fields, err, sizeof err) != 0);
  EXPECT(insdg_ugrid_close(w, err, sizeof err) != 0);
  EXPECT(strstr(err, "earlier error") != NULL);
  expect_clean_failure(1, err, path, "not written");
  free(u);
}

/* Measurement: one record of three fields, create to close, slowest rank. */
static void time_write(const insdg_mesh *m, const char *out)
{
  char err[INSDG_ERRMSG_LEN];
  int e_begin, e_end;
  const int K = m->K;
  e_begin = (int)((long long)K * my_rank / nranks);
  e_end = (int)((long long)K * (my_rank + 1) / nranks);
  const size_t nloc = (size_t)(e_end - e_begin) * m->ref->Np;
  double *u = insdg_malloc(sizeof(double) * (nloc + 1)), *v = insdg_malloc(sizeof(double) * (nloc + 1));
  fill_fields(m, e_begin, e_end, 1.0, u, v);
  const double *fields[3] = {u, v, u};
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  insdg_ugrid *w;
  EXPECT(insdg_ugrid_create(MPI_COMM_WORLD, out, m, e_begin, e_end, "timing", &w, err, sizeof err) == 0);
  EXPECT(insdg_ugrid_add_field(w, "u", "m s-1", "x velocity", err, sizeof err) == 0);
  EXPECT(insdg_ugrid_add_field(w, "v", "m s-1", "y velocity", err, sizeof err) == 0);
  EXPECT(insdg_ugrid_add_field(w, "p", "Pa", "pressure", err, sizeof err) == 0);
  EXPECT(insdg_ugrid_write(w, 0.0, fields, err, sizeof err) == 0);
  EXPECT(insdg_ugrid_close(w, err, sizeof err) == 0);
  double elapsed = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (my_rank == 0)
    printf("ugrid write: %d ranks, K = %d, N = %d, %d nodes, 3 fields + mesh: %.3f s\n", nranks,
           K, m->ref->N, K * m->ref->Np, elapsed);
  free(u);
  free(v);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 3) {
    if (my_rank == 0) fprintf(stderr, "usage: test_ugrid <mesh.msh | rect | rect:NXxNY> <out.nc> [N]\n");
    MPI_Finalize();
    return 2;
  }
  const int N = argc > 3 ? atoi(argv[3]) : 3;
  insdg_mesh *m = NULL;
  int nx = 0, ny = 0;
  const int timing = sscanf(argv[1], "rect:%dx%d", &nx, &ny) == 2;
  if (timing) {
    m = insdg_mesh_rectangle(nx, ny, 0, 2, 0, 1, 0.2, 11);
  } else if (strcmp(argv[1], "rect") == 0) {
    m = insdg_mesh_rectangle(7, 5, 0, 2, 0, 1, 0.25, 3);
  } else {
    char err[INSDG_ERRMSG_LEN];
    if (insdg_mesh_read(argv[1], &m, err, sizeof err)) insdg_die_user(err);
  }
  insdg_ref *ref = insdg_ref_create(N);
  insdg_mesh_set_ref(m, ref);

  if (timing) {
    time_write(m, argv[2]);
  } else {
    write_good_file(m, argv[2]);
    check_bad_directory(m, argv[2]);
    check_create_fails(m, argv[2]);
    if (nranks > 1) check_disagreeing_paths(m, argv[2]);
    check_ranges_not_tiling(m, argv[2]);
    check_late_field(m, argv[2]);
    if (my_rank == 0) printf("test_ugrid: %d ranks, K = %d, N = %d: OK\n", nranks, m->K, N);
  }
  insdg_mesh_destroy(m);
  insdg_ref_destroy(ref);
  MPI_Finalize();
  return 0;
}
