/* run_internal.h -- what the files of `insdg run` share (run.h is the public side).
 *
 * One job per file:
 *   run.c                the set-up (every user error before any work), the solver, the
 *                        time loop, the end
 *   boundary_data.c      the case's boundary expressions at the boundary face nodes
 *                        (the insdg_ins_opts callbacks), the boundary codes, the check of
 *                        the initial, boundary and exact data before step 1
 *   observe.c            after a step: this rank's fields on the host, the diagnostics
 *                        and forces, the L2 errors, the field files
 *   report.c             diagnostics.csv, summary.json, the progress line, the log lines
 *   checkpoint_policy.c  when to checkpoint (interval, signals), writing, pruning and
 *                        restarting from checkpoints
 *   probes.c             [probes]: the points located at set-up, probes.csv
 *   statistics.c         [statistics]: time averages of the fields, force statistics
 * Not a public interface: only these files include it.
 */
#ifndef INSDG_RUN_INTERNAL_H
#define INSDG_RUN_INTERNAL_H

#include <stdio.h>

#include "case.h"
#include "checkpoint.h"
#include "error.h"
#include "ins.h"
#include "mesh.h"
#include "partition.h"
#include "run.h"
#include "runtime.h"
#include "version.h"

static inline double *new_array(size_t n) { return insdg_calloc(n, sizeof(double)); }

/* ------------------------------------------------------------------ set-up (run.c) */

typedef struct probes probes;
typedef struct statistics statistics;

typedef struct {
  insdg_case *c;
  insdg_mesh *mesh;     /* original numbering; geometry set */
  insdg_ref *ref;
  insdg_ops *op;
  insdg_layout *L;
  char outdir[INSDG_CASE_PATH_LEN];
  FILE *csv;            /* rank 0 */
  char csv_path[INSDG_CASE_PATH_LEN + 32];
  int csv_continue;     /* rank 0, --restart: diagnostics.csv exists; keep its rows up to the restart step */
  int csv_created;      /* rank 0: diagnostics.csv is new (removed when the restart fails) */
  const char *blocks_origin;   /* "option" (--blocks) or "default" */
  int nsteps;
  probes *pr;           /* [probes], located; NULL without */
} setup;

/* The ranks agree on a failure: returns 1 on every rank when some rank failed, with the
   lowest failing rank's message in err on rank 0. */
int run_agree(int failed, char *err, size_t errlen);

/* ------------------------------------------------------------ boundary_data.c */

typedef struct bnd_data bnd_data;

/* m: the renumbered mesh; the case's boundaries were checked against its names. The data
   is made at the boundary faces of elements [e_begin, e_end) only: this rank's. */
bnd_data *bnd_data_create(const insdg_case *c, const insdg_mesh *m, int e_begin, int e_end);
void bnd_data_destroy(bnd_data *d);
/* the insdg_ins_opts callbacks (tasks/ins.h) */
void boundary_callback(void *ctx, double t, double *gu, double *gv, double *gp, double *hu, double *hv);
void velocity_at_callback(void *ctx, double t, const double *dx, const double *dy, double *gu, double *gv);
/* velocity Dirichlet / pressure Neumann on inflow and walls, the reverse on outflow */
void boundary_codes(const bnd_data *d, const insdg_mesh *m, signed char *bc_vel, signed char *bc_p);
/* 1 and a message naming the case file, the section and key, the point and the time when
   some boundary data this rank computed so far was not finite (the run cannot go on; the
   ranks agree on it through observe_diagnostics and run_agree) */
int bnd_data_failed(const bnd_data *d, char *err, size_t errlen);
/* Before step 1: the initial data (u0, v0, p0 at the nodes, [n] each), the boundary data
   at t = 0 and the exact solution at t = 0 (and at the start's earlier times) must be
   finite. 1 and a message naming the case file, the section and key and the first bad
   point otherwise. The initial and exact data on the whole mesh, the boundary data at this
   rank's faces (bnd_data_create): the caller makes the ranks agree (run_agree). */
int check_input_data(const insdg_case *c, const insdg_mesh *m, bnd_data *d, const double *u0, const double *v0,
                     const double *p0, size_t n, char *err, size_t errlen);

/* ---------------------------------------------------------------- observe.c */

enum { F_U, F_V, F_P, F_UX, F_UY, F_VX, F_VY, F_DIV, F_VORT, NLOCAL };
enum { NSCRATCH = 5 };   /* ux, uy, vx, vy, div as distributed fields */

typedef struct {
  double kinetic_energy, max_div, cfl;
  double max_speed;          /* max |u| at the nodes */
  double speed_scale;        /* the largest initial or boundary-data speed so far (divergence guard) */
  double force[INSDG_CASE_MAX_FORCES][2];   /* on each force boundary: x (drag), y (lift) */
  double velocity_change;    /* ||u^{n+1} - u^n|| / (dt ||u^{n+1}||), mass-matrix L2 norms of (u, v);
                                NaN when the previous state was not observed */
  int bad_data;              /* some rank's boundary data was not finite (observe_diagnostics' bad_data) */
} diagnostics;

/* What the run looks at after a step: this rank's elements of every field. */
typedef struct {
  insdg_tasks *T;
  const insdg_case *c;
  const insdg_mesh *m;       /* renumbered */
  const signed char *bc_vel;
  insdg_dfield *scratch[NSCRATCH];
  const double *gu, *gv;     /* the velocity's boundary data at the observed time, [K][3Nfp] (the solver's) */
  double *local[NLOCAL];     /* [e_end - e_begin][Np], this rank's elements */
  int e_begin, e_end;
  int nlocal;                /* this rank's elements (e_end - e_begin once observed) */
  int force_bnd[INSDG_CASE_MAX_FORCES];   /* mesh boundary index of each force boundary */
  double *face_weight;       /* [Nfp] integral of each face node's Lagrange polynomial, t in [-1,1] */
  double speed_scale;        /* max |u| of the initial fields and of the velocity data seen so far */
  double *prev[2];           /* [e_end - e_begin][Np]: u, v of the previous observed step */
  int have_prev;
  insdg_ins *ins;            /* the observed solver state (observe_fields) */
  double *curved_L;          /* [curved elements][Np][Np] lower-triangular L, L L^T = each curved element's
                                M_J (the affine elements': insdg_op_mass_norms), or NULL */
  double *norms[4];          /* [nlocal] the elements' squared mass norms of u, v and of their changes */
  int have_gradients;        /* local[F_UX .. F_VY], local[F_VORT] are of the observed state */
} observer;

/* A run has diverged when its largest nodal speed exceeds this times the largest speed of
   its initial fields and boundary data so far (an unforced incompressible flow does not
   get there; an unstable dt overflows through it within a few steps). */
#define DIVERGED_FACTOR 10.0

enum { ERR_U, ERR_V, ERR_P, NERR };

typedef struct {
  int have[NERR];
  double absolute[NERR], relative[NERR];
} l2_errors;

observer *observer_create(insdg_tasks *T, const insdg_case *c, const signed char *bc_vel);
void observer_destroy(observer *ob);
/* The solver's current state: submit D u (with the boundary data of its time), then copy
   this rank's elements of u, v, p and D u to the host (which waits for them); with
   gradients, also the velocity's local gradients and the vorticity (observe_gradients).
   The diagnostics need the gradients only for forces, the field files for the vorticity: a
   step without either skips them. */
void observe_fields(observer *ob, insdg_ins *ins, int gradients);
/* the local gradients and vorticity of the observed state, unless already there */
void observe_gradients(observer *ob);
/* Diagnostics of the observed state, reduced over the ranks (identical on all); the
   velocity change against the state remembered last, which becomes the observed one.
   bad_data: this rank's boundary data was not finite (bnd_data_failed), reduced with the
   maxima into the result's bad_data. */
diagnostics observe_diagnostics(observer *ob, double dt, int bad_data);
/* the observed u, v as the previous state of the next step's velocity change */
void observe_remember(observer *ob);
/* L2 errors of the observed u, v, p against [exact] (collective) */
l2_errors compute_errors(const observer *ob, double t, int pure_neumann);
/* fields_<step>.nc from the observed local arrays, with the statistics' fields when st has
   samples; collective */
int write_fields(const observer *ob, const statistics *st, const char *outdir, int step, double t, char *err,
                 size_t errlen);

/* ----------------------------------------------------------------- probes.c */

/* Collective in effect (every rank computes the same): locate the case's probes in the
   layout's mesh. NULL when the case has none, or (then with the message "<case>:<line>:
   [probes] NAME: ... outside the mesh" in err) when a point is in no element. */
probes *probes_create(const setup *s, char *err, size_t errlen);
void probes_destroy(probes *pr);
/* rank 0, at set-up: probes.csv in outdir, new with its header, or opened for appending
   after --restart when it exists (then probes_continue cuts it). 0, or 1 and a message. */
int probes_open(probes *pr, const char *outdir, int restart, char *err, size_t errlen);
/* rank 0: remove probes.csv when this run created it (the start failed) */
void probes_abandon(probes *pr);
/* rank 0, after a restart at step: keep the rows of steps <= step; 1 when it cannot write */
int probes_continue(probes *pr, int step);
/* after a restart at time t: the interval's clock past t (as the uninterrupted run's) */
void probes_skip_to(probes *pr, double t, double dt);
/* collective: sample the observed state of step (at time t) when due (step 0 always, then
   every step or every [probes] interval); rank 0 writes the row. 1 when it cannot write. */
int probes_sample(probes *pr, const observer *ob, int step, double t, int rank);
const char *probes_path(const probes *pr);

/* ------------------------------------------------------------- statistics.c */

/* NULL without [statistics]; ob sizes the local arrays */
statistics *statistics_create(const insdg_case *c, const observer *ob);
void statistics_destroy(statistics *st);
long long statistics_samples(const statistics *st);
/* after a step's observation and diagnostics: add the state at t when t is in the window */
void statistics_add(statistics *st, const observer *ob, double t, const diagnostics *d);
/* the fields written with the field files (u_mean, v_mean, p_mean, u_rms, v_rms, p_rms):
   their count (0 before the window has a sample); out[3..5] are filled (arrays of this
   rank's nodes), out[0..2] point into st */
int statistics_fields(const statistics *st, double *out[6], const char *name[6], const char *units[6],
                      char long_name[6][160]);
/* rank 0: the "statistics" entry of summary.json (null without [statistics]) */
void statistics_json(FILE *f, const statistics *st);
/* what a checkpoint stores of st (nothing when st is NULL); out borrows st's arrays */
void statistics_checkpoint(const statistics *st, insdg_checkpoint_stats *out);
/* after a restart read into the arrays statistics_checkpoint gave: take the file's count
   and series (in->series becomes st's), or start afresh when the file has none or another
   window */
void statistics_restored(statistics *st, insdg_checkpoint_stats *in);
/* at set-up, before --restart: whether this case's statistics can continue from a
   checkpoint at time t holding (present) statistics from start of the force columns
   ("t fx_NAME fy_NAME ..."): 0, or 1 and a message */
int statistics_check_restart(const insdg_case *c, const char *path, int present, double start, const char *columns,
                             double t, char *err, size_t errlen);

/* ------------------------------------------------------------ the run's state */

enum { STAGE_SETUP, STAGE_STEP, STAGE_DIAGNOSTICS, STAGE_OUTPUT, NSTAGE };

typedef struct {
  const setup *s;
  int rank, size, workers, cuda_workers, pure_neumann;
  insdg_progress_mode progress_mode;
  int steps;                   /* taken */
  double t;
  int converged, finite, diverged, output_failed, files;
  long iterations[3];          /* totals over the steps this process made: u, v, p */
  double stage[NSTAGE];
  double host_cpu_step;            /* this rank's main thread: CPU seconds inside the steps (CLOCK_THREAD_CPUTIME_ID) */
  double step_stage[INSDG_NSTAGES];   /* the step's time split (insdg_ins_stats.seconds) */
  double wall_start, loop_start, last_checkpoint;
  int checkpoints, interrupted;
  double checkpoint_seconds, restart_seconds;   /* writing the checkpoints; reading the restart one */
  int already_complete;            /* restarted from a checkpoint at or past the final step */
  double *rss_mib;                 /* rank 0: every rank's peak resident memory (MiB), at the end */
  double *setup_rss_mib;           /* rank 0: the same once the mesh and layout are built (the part every
                                      rank holds whatever the rank count: the whole mesh, its geometry) */
  double my_setup_rss;             /* this rank's, before the gather */
  l2_errors errors;
  insdg_runtime_profile profile;   /* the time loop's, on rank 0 (STARPU_PROFILING=1) */
  /* this rank's runtime counters (runtime.h) over the time loop, and per stage of a step */
  int steps0;                      /* the step the loop started from (after a restart) */
  insdg_runtime_counters loop_counters;
  long stage_tasks[INSDG_NSTAGES], stage_waits[INSDG_NSTAGES];
  long p_iteration_tasks;   /* of the pressure solves' iterations (the rest of the stage: per solve) */
  int csv_failed;                  /* rank 0: a row of diagnostics.csv could not be written */
  int summary_written;             /* rank 0: summary.json is complete on disk */
  int checkpoints_pruned;          /* older checkpoints deleted ([output] checkpoints_kept) */
  int restarted;                   /* from a checkpoint (--restart) */
  int prior_known;                 /* rank 0, restarted: diagnostics.csv had a row for every earlier step */
  long prior_iterations[3];        /* rank 0, restarted: the iterations of those rows */
  int vel_precond;                 /* the velocity preconditioner in use (insdg_precond) */
  double vel_ratio;                /* the stiffness/mass diagonal ratio (insdg_ins_velocity_preconditioner) */
  int p_coarse, p_coarse_rows;  /* the pressure pMG's coarse solve (insdg_ins_pressure_coarse) */
  long p_coarse_size;
  const statistics *stats;         /* [statistics], or NULL */
  int steady;                      /* [time] steady_tolerance reached: the run stops */
  double velocity_change;          /* the last step's relative velocity change (NaN: none yet) */
  struct insdg_taken_cores *taken; /* the workers' cores watched (taken_cores.h), NULL: not */
  int worker_pauses;               /* rank 0: every rank's pauses (taken_cores.h), at the end */
} run_state;

typedef struct {
  insdg_tasks T;
  insdg_ins *ins;
  bnd_data *bd;
  observer *ob;
  statistics *stats;
  signed char *bc_vel, *bc_p;
} solver;

/* the solution itself failed: not finite, or diverged (the run stops, no checkpoint) */
static inline int solution_broke(const run_state *r) { return !r->finite || r->diverged; }
/* the case's final step reached (or passed, by a checkpoint of a longer case) */
static inline int reached_end(const run_state *r) { return r->steps >= r->s->nsteps; }

/* ------------------------------------------------------------------ report.c */

typedef struct {
  int tty;
  int open;            /* the line is drawn and not yet ended by a newline */
  double last_print;
} progress;

const char *status_text(const run_state *r);
/* why the loop ended: "final_time", "steady", "signal", "not_converged", "not_finite",
   "diverged", "output_failed" */
const char *stop_reason(const run_state *r);
/* the exit status of each outcome (run.h, docs/user_guide.md "Exit status") */
int exit_status(const run_state *r);
/* 0, or 1 when the file could not be written (errno says why) */
int csv_header(FILE *f, const insdg_case *c);
int csv_row(FILE *f, const insdg_case *c, int step, double t, const insdg_ins_stats *st, const diagnostics *d);
/* Uref and Dref of [constants] (force coefficients 2 F / (Uref^2 Dref)): 1 when both are
   there and nonzero */
int reference_scales(const insdg_case *c, double *U, double *D);
/* After a write into dir failed: "; <why>" when the reason can be seen from outside (the
   file system full, the directory not writable), else "" */
void io_failure_hint(const char *dir, char *hint, size_t len);
/* A field file or checkpoint was not written: the run stops (output failed), rank 0 says
   err (with io_failure_hint's reason when with_hint) */
void output_failure(run_state *r, progress *pg, const char *err, int with_hint);
/* Collective, before a file of about `bytes` is written into dir as path: 0, or 1 on every
   rank and a message when rank 0 sees less free space (HDF5 cannot recover from a full disk
   in the middle of a file: it crashes later, at MPI_Finalize) */
int check_space(int rank, const char *dir, const char *path, double bytes, char *err, size_t errlen);
/* rank 0, after a restart at step `step`: diagnostics.csv keeps its header and its rows
   of steps <= step, and the run appends to it. prior_iterations: the u, v, p iterations of
   the rows kept; returns 1 when every step up to `step` had its row */
int csv_continue(setup *s, int step, long prior_iterations[3]);
/* rank 0: summary.json, written under a temporary name and renamed when complete */
int write_summary(const run_state *r, char *err, size_t errlen);
void print_velocity_preconditioner(const run_state *r);
/* end the progress line before another message, so that it does not overwrite it */
void end_progress_line(progress *pg);
int progress_on_terminal(insdg_progress_mode mode);
void show_progress(progress *pg, const run_state *r, const insdg_ins_stats *st, const diagnostics *d);
void print_start(const run_state *r);
void print_end(const run_state *r);
void report_not_converged(const run_state *r, const insdg_ins_stats *st);

/* ------------------------------------------------------- checkpoint_policy.c */

/* SIGTERM and SIGUSR1 (what Slurm sends before a time limit) from now on: checkpoint and
   stop at the end of the current step */
void catch_stop_signals(void);
/* every rank the same answer: a stop signal anywhere, or the checkpoint interval due; and
   r->output_failed when rank 0 could not write diagnostics.csv */
void checkpoint_decision(run_state *r, int *due, int *stop);
/* rank 0, at the start: delete what a killed run left half-written in the output
   directory (checkpoint_*.nc.tmp, fields_*.nc.tmp, summary.json.tmp); says so */
void remove_leftovers(const char *outdir);
/* collective: the scheme's state as checkpoint_<step>.nc in the output directory */
void write_checkpoint(run_state *r, solver *sv, progress *pg);
/* collective, at set-up (before anything is written): the checkpoint at path exists and
   its header matches this run; 1 with a message (on rank 0) otherwise */
int restart_precheck(const setup *s, const char *path, char *err, size_t errlen);
/* collective: continue from the checkpoint at path; 1 with a message on a bad one */
int restart_from(run_state *r, solver *sv, const char *path, char *err, size_t errlen);

#endif
