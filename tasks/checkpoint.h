/* checkpoint.h -- checkpoint and restart of a Navier-Stokes run (NetCDF-4).
 *
 * A checkpoint holds everything the scheme needs to continue (insdg_ins_state: the
 * velocity, pressure and advection histories, the history times and the step count), with
 * the original index of each of its elements (element_original), so that a run restarts
 * on any number of ranks or blocks: bitwise equal to an uninterrupted run on the same
 * decomposition, equal to round-off on another. It also records N, K, S, Ns, dt, nu, the
 * boundary kinds and a fingerprint of the mesh, checked on restart, and checksums of every
 * element and of the header (io/checkpoint_file.h).
 *
 * Writing is parallel (NetCDF-4 over MPI-IO, collective): each rank writes its own
 * elements, a contiguous slab in the writer's element order, into "<path>.tmp", renamed
 * when complete: a crash never leaves a half-written checkpoint under the final name, and
 * no rank holds more than its own part. Reading: each rank reads the file's element
 * indices a chunk at a time and the values of its own elements only (with the writer's
 * decomposition, just its own slab); memory per rank: its own part and one chunk. Files
 * without element_original (written before 2026-11-25) are refused with a message.
 *
 * This lives in tasks/, not io/, because it reads and writes distributed fields.
 */
#ifndef INSDG_CHECKPOINT_H
#define INSDG_CHECKPOINT_H

#include <stddef.h>

#include "ins.h"

/* What the state depends on besides the mesh (whose fingerprint checkpoint.c takes from
   the layout): written into the checkpoint, compared on restart (io/checkpoint_file.h). */
typedef struct {
  int N, K, S, Ns;
  double dt, nu;
  const char *const *boundary_kind;   /* [nbnd] kind of each mesh boundary, or NULL */
} insdg_checkpoint_info;

/* Collective. Returns 0, or nonzero with a message naming the path (on every rank). The
   file format and its checksums: io/checkpoint_file.h. */
int insdg_checkpoint_write(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                           char *err, size_t errlen);

/* Collective. The run must have the same N, K, S, Ns, dt, nu, boundary kinds and mesh
   (fingerprint), and every element read must match its checksum: otherwise nonzero and a
   message saying what differs or what is damaged (a user error: nothing is restarted). */
/* Not collective: open path and check its header against the run (the format, a field or
   foreign file, the header checksum, N, K, S, Ns, dt, nu, boundaries, mesh), without
   reading the fields or needing the state: what a run checks before it writes anything. */
int insdg_checkpoint_check_header(const char *path, const insdg_layout *L, const insdg_checkpoint_info *info, char *err,
                                  size_t errlen);

int insdg_checkpoint_read(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                          char *err, size_t errlen);

#endif
