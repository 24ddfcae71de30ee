/* checkpoint_policy.c -- when and where `insdg run` checkpoints, and restarting from
 * a checkpoint (run_internal.h; the file format is checkpoint.h's).
 *
 * A checkpoint is written every [output] checkpoint_interval steps or seconds and when a
 * stop signal arrives (SIGTERM, SIGUSR1: what Slurm sends before a time limit); the run
 * then stops with status 3 (run.h) and a restart continues bitwise the run it
 * interrupted. Every decision is the same on every rank (one MPI_Allreduce per step).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>

#include "checkpoint.h"
#include "run_internal.h"

/* The flag is combined over the ranks every step. */
static volatile sig_atomic_t stop_signal = 0;
static void on_stop_signal(int sig) { stop_signal = sig; }

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
  if (insdg_checkpoint_write(path, &sv->T, sv->ins, &info, err, sizeof err)) {
    r->output_failed = 1;
    if (r->rank == 0) end_progress_line(pg), fprintf(stderr, "insdg: error: %s\n", err);
  } else {
    r->checkpoints++;
    if (r->rank == 0) end_progress_line(pg), printf("insdg run: checkpoint %s (step %d, t = %g)\n", path, r->steps, r->t);
  }
  r->last_checkpoint = MPI_Wtime();
  r->stage[STAGE_OUTPUT] += r->last_checkpoint - t0;
  r->checkpoint_seconds += r->last_checkpoint - t0;
}

void checkpoint_decision(run_state *r, int *due, int *stop)
{
  const insdg_case *c = r->s->c;
  int local[2] = {stop_signal != 0, 0};
  if (c->checkpoint_interval_steps > 0 && r->steps % c->checkpoint_interval_steps == 0) local[1] = 1;
  if (r->rank == 0 && c->checkpoint_interval_seconds > 0 &&
      MPI_Wtime() - r->last_checkpoint >= c->checkpoint_interval_seconds)
    local[1] = 1;
  int global[2];
  MPI_Allreduce(local, global, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  *stop = global[0], *due = global[0] || global[1];
}

int restart_from(run_state *r, solver *sv, const char *path, char *err, size_t errlen)
{
  const setup *s = r->s;
  const char *kinds[INSDG_MAX_BOUNDARIES];
  const insdg_checkpoint_info info = run_info(s, kinds);
  const double t0 = MPI_Wtime();
  const int bad = insdg_checkpoint_read(path, &sv->T, sv->ins, &info, err, errlen);
  r->restart_seconds = MPI_Wtime() - t0;
  if (bad) return 1;
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
  const int bad = rank == 0 && insdg_checkpoint_check_header(path, s->L, &info, msg, sizeof msg);
  if (bad) snprintf(err, errlen, "--restart: %s", msg);
  return run_agree(bad, err, errlen);
}
