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

/* Statistics a checkpoint may carry besides the scheme's state ([statistics] of insdg run):
   node fields (this rank's elements, like the state; in the element checksums, after the
   state's fields) and a series of rows the same on every rank (with its own checksum, the
   attribute statistics_checksum). A checkpoint without them is a valid checkpoint. */
#define INSDG_CHECKPOINT_MAX_STATS 8
#define INSDG_CHECKPOINT_COLUMNS_LEN 2200   /* "t fx_NAME fy_NAME ..." for 16 boundaries of 64 bytes */
typedef struct {
  int present;          /* write: store them; read: set when the file holds them */
  double start;         /* the averaging window's start (time) */
  long long samples;    /* steps averaged so far */
  int nfields;          /* node fields, <= INSDG_CHECKPOINT_MAX_STATS */
  const char *names[INSDG_CHECKPOINT_MAX_STATS];   /* NetCDF names (distinct from the state's) */
  double *local[INSDG_CHECKPOINT_MAX_STATS];       /* [this rank's elements][Np]: written from, read into */
  int ncolumns;         /* the series: nrows x ncolumns doubles, row-major */
  size_t nrows;
  double *series;       /* write: given; read: allocated (the caller frees it) */
  char columns[INSDG_CHECKPOINT_COLUMNS_LEN];   /* what the series' columns are, in words */
} insdg_checkpoint_stats;

/* Not collective: whether the checkpoint at path holds statistics, their window start and
   series columns (columns: INSDG_CHECKPOINT_COLUMNS_LEN bytes) and the checkpoint's time
   (the header is checked by insdg_checkpoint_check_header). 0, or 1 with a message. */
int insdg_checkpoint_stats_header(const char *path, int *present, double *start, char *columns, double *t, char *err,
                                  size_t errlen);

/* Collective. Returns 0, or nonzero with a message naming the path (on every rank). The
   file format and its checksums: io/checkpoint_file.h. stats may be NULL (none written). */
int insdg_checkpoint_write_stats(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                                 const insdg_checkpoint_stats *stats, char *err, size_t errlen);
/* Collective, as insdg_checkpoint_read; when the file holds statistics they are checked
   (checksums) and, when stats is not NULL, returned in it: stats->nfields and names must
   then be those the file has and stats->local this rank's arrays (else a message). */
int insdg_checkpoint_read_stats(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                                insdg_checkpoint_stats *stats, char *err, size_t errlen);

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
