/* checkpoint_policy.c -- when and where `insdg run` checkpoints, and restarting from
 * a checkpoint (run_internal.h; the file format is checkpoint.h's).
 *
 * A checkpoint is written every [output] checkpoint_interval steps or seconds and when a
 * stop signal arrives (SIGTERM, SIGUSR1: what Slurm sends before a time limit); the run
 * then stops with status 3 (run.h) and a restart continues bitwise the run it
 * interrupted. Every decision is the same on every rank (one MPI_Allreduce per step).
 */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "run_internal.h"

/* The flag is combined over the ranks every step. */
static volatile sig_atomic_t stop_signal = 0;
static void on_stop_signal(int sig) { stop_signal = sig; }

/* the step of a file name checkpoint_<step>.nc (suffix: what follows ".nc"), or -1 */
static long checkpoint_step(const char *name, const char *suffix)
{
  char *end;
  if (strncmp(name, "checkpoint_", 11) || !isdigit((unsigned char)name[11])) return -1;
  const long step = strtol(name + 11, &end, 10);
  return !strncmp(end, ".nc", 3) && !strcmp(end + 3, suffix) ? step : -1;
}

static int newest_first(const void *a, const void *b)
{
  const long x = *(const long *)a, y = *(const long *)b;
  return (x < y) - (x > y);
}

/* rank 0: keep the `kept` newest checkpoints of steps <= step (the one just written
   among them), delete the older ones; newer ones (of a run this one restarted before)
   are left alone. Returns how many were deleted. */
static int prune_checkpoints(const char *outdir, int step, int kept)
{
  DIR *d = opendir(outdir);
  if (!d) return 0;
  long *steps = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    const long s = checkpoint_step(e->d_name, "");
    if (s < 0 || s > step) continue;
    if (n == cap) steps = realloc(steps, sizeof *steps * (cap = cap ? 2 * cap : 16));
    INSDG_CHECK(steps);
    steps[n++] = s;
  }
  closedir(d);
  qsort(steps, n, sizeof *steps, newest_first);
  int removed = 0;
  for (size_t i = (size_t)kept; i < n; ++i) {
    char path[INSDG_CASE_PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/checkpoint_%06ld.nc", outdir, steps[i]);
    removed += remove(path) == 0;
  }
  free(steps);
  return removed;
}

void remove_leftovers(const char *outdir)
{
  DIR *d = opendir(outdir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    const char *name = e->d_name;
    const size_t n = strlen(name);
    const int tmp = n > 4 && !strcmp(name + n - 4, ".tmp") &&
                    (checkpoint_step(name, ".tmp") >= 0 || !strncmp(name, "fields_", 7) || !strcmp(name, "summary.json.tmp"));
    if (!tmp) continue;
    char path[INSDG_CASE_PATH_LEN + 300];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    if (remove(path) == 0) printf("insdg run: removed %s, left half-written by an earlier run\n", path);
  }
  closedir(d);
}

void catch_stop_signals(void) { signal(SIGTERM, on_stop_signal), signal(SIGUSR1, on_stop_signal); }

/* what a checkpoint of this run records about it (checkpoint.h); kinds[] holds the
   boundary kinds in mesh order */
static insdg_checkpoint_info run_info(const setup *s, const char *kinds[INSDG_MAX_BOUNDARIES])
{
  const insdg_case *c = s->c;
  const insdg_mesh *m = s->L->mesh;
  for (int b = 0; b < m->nbnd; ++b) {
    const insdg_case_boundary *cb = insdg_case_find_boundary(c, m->bnd_name[b]);
    kinds[b] = cb ? cb->type : "none";
  }
  return (insdg_checkpoint_info){c->order, m->K, c->time_order, c->substeps, c->dt, c->nu, kinds};
}

void write_checkpoint(run_state *r, solver *sv, progress *pg)
{
  char path[INSDG_CASE_PATH_LEN + 64], err[INSDG_ERRMSG_LEN];
  snprintf(path, sizeof path, "%s/checkpoint_%06d.nc", r->s->outdir, r->steps);
  const char *kinds[INSDG_MAX_BOUNDARIES];
  const insdg_checkpoint_info info = run_info(r->s, kinds);
  const double t0 = MPI_Wtime();
  insdg_dfield *fields[INSDG_INS_MAX_STATE];
  const char *names[INSDG_INS_MAX_STATE];
  const insdg_mesh *m = r->s->L->mesh;
  const double bytes = 8.0 * m->K * (m->ref->Np * (insdg_ins_state(sv->ins, fields, names) + 6) + 2) + (1 << 16);
  insdg_checkpoint_stats stats;   /* [statistics]: the running sums and the force history */
  if (check_space(r->rank, r->s->outdir, path, bytes, err, sizeof err)) {
    output_failure(r, pg, err, 0);
  } else if (statistics_checkpoint(sv->stats, &stats),
             insdg_checkpoint_write_stats(path, &sv->T, sv->ins, &info, &stats, err, sizeof err)) {
    output_failure(r, pg, err, 1);
  } else {
    r->checkpoints++;
    if (r->rank == 0) end_progress_line(pg), printf("insdg run: checkpoint %s (step %d, t = %g)\n", path, r->steps, r->t);
    if (r->rank == 0) r->checkpoints_pruned += prune_checkpoints(r->s->outdir, r->steps, r->s->c->checkpoints_kept);
  }
  r->last_checkpoint = MPI_Wtime();
  r->stage[STAGE_OUTPUT] += r->last_checkpoint - t0;
  r->checkpoint_seconds += r->last_checkpoint - t0;
}

void checkpoint_decision(run_state *r, int *due, int *stop)
{
  const insdg_case *c = r->s->c;
  int local[3] = {stop_signal != 0, 0, r->csv_failed};
  if (c->checkpoint_interval_steps > 0 && r->steps % c->checkpoint_interval_steps == 0) local[1] = 1;
  if (r->rank == 0 && c->checkpoint_interval_seconds > 0 &&
      MPI_Wtime() - r->last_checkpoint >= c->checkpoint_interval_seconds)
    local[1] = 1;
  int global[3];
  MPI_Allreduce(local, global, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  *stop = global[0], *due = global[0] || global[1];
  r->output_failed |= global[2];
}

int restart_from(run_state *r, solver *sv, const char *path, char *err, size_t errlen)
{
  const setup *s = r->s;
  const char *kinds[INSDG_MAX_BOUNDARIES];
  const insdg_checkpoint_info info = run_info(s, kinds);
  const double t0 = MPI_Wtime();
  insdg_checkpoint_stats stats;
  statistics_checkpoint(sv->stats, &stats);   /* the arrays the file's statistics are read into */
  const int bad = insdg_checkpoint_read_stats(path, &sv->T, sv->ins, &info, sv->stats ? &stats : NULL, err, errlen);
  r->restart_seconds = MPI_Wtime() - t0;
  if (bad) return 1;
  statistics_restored(sv->stats, &stats);
  r->steps = insdg_ins_steps(sv->ins), r->t = insdg_ins_time(sv->ins);
  if (r->rank == 0) printf("insdg run: restarted from %s at step %d, t = %g\n", path, r->steps, r->t);
  return 0;
}

int restart_precheck(const setup *s, const char *path, char *err, size_t errlen)
{
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *kinds[INSDG_MAX_BOUNDARIES];
  const insdg_checkpoint_info info = run_info(s, kinds);
  char msg[INSDG_ERRMSG_LEN] = "";
  int bad = rank == 0 && insdg_checkpoint_check_header(path, s->L, &info, msg, sizeof msg);
  if (bad) snprintf(err, errlen, "--restart: %s", msg);
  int present = 0;
  double start = 0, t = 0;
  char columns[INSDG_CHECKPOINT_COLUMNS_LEN] = "";
  if (!bad && rank == 0 && s->c->has_statistics) {   /* can this case's averages go on from it? */
    bad = insdg_checkpoint_stats_header(path, &present, &start, columns, &t, msg, sizeof msg);
    if (bad) snprintf(err, errlen, "--restart: %s", msg);
    else bad = statistics_check_restart(s->c, path, present, start, columns, t, err, errlen);
  }
  return run_agree(bad, err, errlen);
}
