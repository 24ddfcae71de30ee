/* checkpoint.h -- checkpoint and restart of a Navier-Stokes run (NetCDF-4).
 *
 * A checkpoint holds everything the scheme needs to continue (insdg_ins_state: the
 * velocity, pressure and advection histories, the history times and the step count) in
 * the ORIGINAL element order, so that a run restarts on any number of ranks or blocks:
 * bitwise equal to an uninterrupted run on the same decomposition, equal to round-off on
 * another. It also records N, K, S, Ns and dt, checked on restart.
 *
 * Writing gathers each field to every rank (insdg_dfield_gather) and rank 0 writes the
 * file under "<path>.tmp", renamed when complete: a crash never leaves a half-written
 * checkpoint under the final name. (Gathering costs O(K Np) memory per rank per field,
 * one field at a time; a parallel write is the next step for very large runs.)
 * Reading: every rank reads the file and sets its own blocks.
 *
 * This lives in tasks/, not io/, because it reads and writes distributed fields.
 */
#ifndef INSDG_CHECKPOINT_H
#define INSDG_CHECKPOINT_H

#include <stddef.h>

#include "ins.h"

typedef struct {
  int N, K, S, Ns;
  double dt;
} insdg_checkpoint_info;

/* Collective. Returns 0, or nonzero with a message naming the path (on every rank). */
int insdg_checkpoint_write(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                           char *err, size_t errlen);

/* Collective. The run must have the same N, K, S, Ns and dt (a user error otherwise). */
int insdg_checkpoint_read(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                          char *err, size_t errlen);

#endif
