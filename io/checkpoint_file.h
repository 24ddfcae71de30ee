/* checkpoint_file.h -- the checkpoint file format, below the distributed fields
 * (tasks/checkpoint.h reads and writes the state through it).
 *
 * A checkpoint is a NetCDF-4 file with
 *  - global attributes: insdg_checkpoint_format (INSDG_CHECKPOINT_FORMAT), the header
 *    below (time, steps, N, K, S, Ns, dt, nu, the projection bases' sizes, the mesh
 *    fingerprint, the boundary kinds) and header_checksum, a hash of all of them;
 *  - one double variable per state field on the dimension "node" (K Np values, element e
 *    of the file on nodes e Np .. e Np + Np - 1), in the order of insdg_ins_state;
 *  - element_original [element]: the mesh-file element of each file element;
 *  - element_checksum [element]: a 64-bit hash of the element's original index and of its
 *    values in every state field, in the file's variable order (insdg_checkpoint_mix).
 * Any changed bit of a value, of an element index, of the header or of a checksum makes
 * a checksum disagree: a corrupted checkpoint is refused, never restarted from. The
 * hashes do not depend on the decomposition that wrote or reads the file.
 *
 * The fingerprint identifies what the state depends on beyond N, K, S, Ns, dt and nu: the
 * mesh (every element's vertex coordinates, bit for bit, and which boundary each face is
 * on, in the mesh file's element order) and the boundary kinds ("bottom=inflow;..."). A
 * restart with anything different is refused with a message saying what differs.
 */
#ifndef INSDG_CHECKPOINT_FILE_H
#define INSDG_CHECKPOINT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"

#define INSDG_CHECKPOINT_FORMAT 2   /* 1: before 2026-11-26, no checksums (refused) */
#define INSDG_CHECKPOINT_BOUNDARIES_LEN 512

typedef struct {
  int N, K, S, Ns;
  double dt, nu;
  int steps;
  double t, t_hist[4];
  int projection[3];          /* sizes of the p, u, v projection bases in the file */
  double projection_lambda;   /* the velocity operator's lambda the u, v bases were built with */
  uint64_t mesh_fingerprint;
  char boundaries[INSDG_CHECKPOINT_BOUNDARIES_LEN];   /* "name=kind;..." in mesh order */
} insdg_checkpoint_header;

/* one step of the hashes: h combined with the 64-bit word w */
static inline uint64_t insdg_checkpoint_mix(uint64_t h, uint64_t w)
{
  h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

/* the start of element e's checksum (then mixed with the bits of its values) */
static inline uint64_t insdg_checkpoint_element_seed(int orig) { return insdg_checkpoint_mix(0x1d5eULL, (uint64_t)orig); }

/* The fingerprint of a mesh with its element permutation: element e of m is element
   old_elem[e] of the mesh file (NULL: the same order): its vertices, boundary faces and
   curved faces' points (a mesh without curves hashes as before curves existed). Every
   rank of a run gets the same. */
uint64_t insdg_checkpoint_mesh_fingerprint(const insdg_mesh *m, const int *old_elem);

/* "name=kind;..." for the mesh's boundaries, kind[b] the kind of boundary b */
void insdg_checkpoint_boundaries(const insdg_mesh *m, const char *const *kind, char *out, size_t len);

/* Header attributes of an open file in define mode (NetCDF status) */
int insdg_checkpoint_put_header(int ncid, const insdg_checkpoint_header *h);

/* Open path read-only (serial NetCDF; each rank of a parallel read opens its own). 0, or 1
   with a message in words: no such file, not a NetCDF-4 file, truncated or damaged. */
int insdg_checkpoint_open(const char *path, int *ncid, char *err, size_t errlen);

/* Open path and walk its metadata (every variable, dimension and attribute) in a child
   process: 0, or 1 and a message when the NetCDF/HDF5 libraries crash on it (HDF5 1.10
   dies with SIGSEGV on some damaged files, before insdg could check anything), or when the
   file cannot be opened at all (insdg_checkpoint_open's message). Not for an MPI process
   in the middle of MPI calls on other threads; insdg calls it on rank 0 at set-up. */
int insdg_checkpoint_probe(const char *path, char *err, size_t errlen);
/* Called first in the probe's child when set (NULL by default): the fuzzer sets it to make
   a sanitizer report inside HDF5 end the child like a crash, instead of as a finding. */
extern void (*insdg_checkpoint_probe_child)(void);

/* Read and check the header of an open checkpoint: the format, a field file or another
   NetCDF file given instead, the header checksum. 0, or 1 with a message naming path. */
int insdg_checkpoint_get_header(int ncid, const char *path, insdg_checkpoint_header *h, char *err, size_t errlen);

/* 0 when the file's header matches what this run has (want), else 1 and a message
   saying what differs. */
int insdg_checkpoint_compare(const char *path, const insdg_checkpoint_header *file, const insdg_checkpoint_header *want,
                             char *err, size_t errlen);

/* Variable name of the open file: one-dimensional, of NetCDF type `type` (an nc_type) and
   length len; its id, or 1 and a message ("damaged checkpoint: ...") */
int insdg_checkpoint_var(int ncid, const char *path, const char *name, int type, size_t len, int *varid, char *err,
                         size_t errlen);

/* A whole file checked without a run (serial; no StarPU): the header and every element's
   checksum. 0 and the header, or 1 and a message. For `insdg_fuzz_checkpoint` and tools. */
int insdg_checkpoint_inspect(const char *path, insdg_checkpoint_header *h, char *err, size_t errlen);

#endif
