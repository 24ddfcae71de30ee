/* fuzz_gmsh_lf.c -- libFuzzer target of the Gmsh reader (io/gmsh.c) and of the mesh
 * checks that follow it in insdg_mesh_read (src/mesh.c).
 *
 * Each input is written to one file in this process's scratch directory and read with
 * insdg_gmsh_read. Failure: the result must be zeroed and the message one NUL-terminated
 * line "<path>...", nothing written past the buffer (one input size in eight gets a short
 * buffer). Success: every index inside its array, names NUL-terminated; then
 * insdg_mesh_from_gmsh (the checks of insdg_mesh_read), with the same message rules on
 * failure and, on success, the mesh's connectivity checked and (up to 256 triangles) one
 * uniform refinement made. A broken invariant aborts; memory errors and leaks are
 * AddressSanitizer's, undefined behaviour UBSan's. See tests/fuzz/README.md.
 */
#include "error.h"
#include "gmsh.h"
#include "mesh.h"

#include "fuzz_common.h"

static const char *msh_path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc, (void)argv;
  fuzz_scratch("fuzz_gmsh");
  msh_path = fuzz_path("input.msh");
  return 0;
}

static int is_zero(const void *p, size_t n)
{
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++)
    if (c[i]) return 0;
  return 1;
}

static void check_gmsh(const insdg_gmsh *g)
{
  FUZZ_REQUIRE(g->nnodes >= 0 && g->ntri >= 0 && g->nline >= 0 && g->nphys >= 0, "negative count");
  for (int i = 0; i < 3 * g->ntri; i++)
    FUZZ_REQUIRE(g->tri[i] >= 0 && g->tri[i] < g->nnodes, "triangle node %d of %d", g->tri[i],
                 g->nnodes);
  for (int i = 0; i < 2 * g->nline; i++)
    FUZZ_REQUIRE(g->line[i] >= 0 && g->line[i] < g->nnodes, "line node %d of %d", g->line[i],
                 g->nnodes);
  for (int i = 0; i < g->nphys; i++)
    FUZZ_REQUIRE(memchr(g->phys[i].name, '\0', sizeof g->phys[i].name) != NULL,
                 "physical name not terminated");
  FUZZ_REQUIRE(memchr(g->path, '\0', sizeof g->path) != NULL, "path not terminated");
  for (int i = 0; i < g->nline; i++) (void)insdg_gmsh_physical_name(g, 1, g->line_phys[i]);
}

static void check_mesh(const insdg_mesh *m)
{
  FUZZ_REQUIRE(m->K >= 1 && m->Nv >= 3, "K = %d, Nv = %d", m->K, m->Nv);
  FUZZ_REQUIRE(m->nbnd >= 0 && m->nbnd <= INSDG_MAX_BOUNDARIES, "nbnd = %d", m->nbnd);
  for (int b = 0; b < m->nbnd; b++)
    FUZZ_REQUIRE(memchr(m->bnd_name[b], '\0', sizeof m->bnd_name[b]) != NULL,
                 "boundary name not terminated");
  for (int i = 0; i < 3 * m->K; i++) {
    const int e = i / 3, f = i % 3, e2 = m->EToE[i], f2 = m->EToF[i];
    FUZZ_REQUIRE(m->EToV[i] >= 0 && m->EToV[i] < m->Nv, "EToV %d of %d", m->EToV[i], m->Nv);
    FUZZ_REQUIRE(e2 >= 0 && e2 < m->K && f2 >= 0 && f2 < 3, "EToE/EToF %d/%d", e2, f2);
    FUZZ_REQUIRE(m->face_bnd[i] >= -1 && m->face_bnd[i] < m->nbnd, "face_bnd %d", m->face_bnd[i]);
    if (e2 == e && f2 == f) continue;   /* a boundary face */
    FUZZ_REQUIRE(m->EToE[3 * e2 + f2] == e && m->EToF[3 * e2 + f2] == f,
                 "neighbour of a neighbour: element %d face %d", e, f);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_write_file(msh_path, data, size);
  const size_t errlen = fuzz_errlen(size, INSDG_ERRMSG_LEN);
  const int full = errlen == INSDG_ERRMSG_LEN;
  char err[INSDG_ERRMSG_LEN + 8];
  memset(err, 'X', sizeof err);

  insdg_gmsh g;
  memset(&g, 0x5a, sizeof g);   /* anything but zero: a failure must zero it */
  if (insdg_gmsh_read(msh_path, &g, err, errlen) != 0) {
    FUZZ_REQUIRE(is_zero(&g, sizeof g), "result not zeroed after a failure");
    fuzz_check_message(err, errlen, full, msh_path);
    return 0;
  }
  check_gmsh(&g);

  insdg_mesh *m = (insdg_mesh *)&m;   /* anything but NULL: it must be set */
  const int status = insdg_mesh_from_gmsh(&g, &m, err, errlen);
  insdg_gmsh_free(&g);
  if (status != 0) {
    FUZZ_REQUIRE(m == NULL, "mesh not NULL after a failure");
    fuzz_check_message(err, errlen, full, msh_path);
    return 0;
  }
  FUZZ_REQUIRE(m != NULL, "no mesh after a success");
  check_mesh(m);
  if (m->K <= 256) {   /* refinement builds and checks a mesh of 4K triangles */
    insdg_mesh *r = insdg_mesh_refine(m);
    FUZZ_REQUIRE(r != NULL && r->K == 4 * m->K, "refinement of %d triangles", m->K);
    check_mesh(r);
    insdg_mesh_destroy(r);
  }
  insdg_mesh_destroy(m);
  return 0;
}
