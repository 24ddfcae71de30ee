/* run.c -- `insdg run CASE.ini` (run.h): case file -> time steps -> files. The
 * set-up, the solver and the time loop; the other jobs of the run are in the files listed
 * in run_internal.h.
 *
 * Order of events, and why:
 *  1. Set-up, where every user error lives: the case file, the mesh, the boundary names
 *     against the mesh, the layout (too many blocks), the output directory and
 *     diagnostics.csv. Every rank does each check and the ranks agree on the outcome
 *     before going on, so a failure is printed once (rank 0, the lowest failing rank's
 *     message) and every rank shuts the runtime down and returns 2 before any work.
 *  2. Boundary codes per face from the boundary kinds, the boundary-data callback, the
 *     initial fields, the time step (tasks/ins.h).
 *  3. The step loop. After every step the run "observes" the state: it submits the
 *     divergence and the element-local gradients of the velocity, copies this rank's
 *     elements of every field to the host (insdg_dfield_local) and reduces the diagnostics
 *     over the ranks with one MPI_Allreduce for sums and one for maxima: no field is
 *     gathered whole. Field files are written from the same local arrays.
 *  4. The end: L2 errors against [exact], summary.json, shutdown.
 *
 * Invariants: every rank makes the same calls in the same order (task submission,
 * collective output, reductions), and every decision that ends the loop is taken on
 * values every rank holds identically (solver convergence from distributed scalars,
 * reduced diagnostics). Only rank 0 writes diagnostics.csv, summary.json and the log.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gmsh.h"
#include "run_internal.h"
#include "taken_cores.h"

/* ===================================================================== set-up ======== */

int run_agree(int failed, char *err, size_t errlen)
{
  int rank, size, any = 0, first;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) return 0;
  const int mine = failed ? rank : size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Bcast(err, (int)errlen, MPI_CHAR, first, MPI_COMM_WORLD);
  return 1;
}

/* mkdir -p: every missing component of path */
static int make_directories(const char *path, char *err, size_t errlen)
{
  char buf[INSDG_CASE_PATH_LEN];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1;; ++p) {
    const int end = *p == 0;
    if (*p == '/' || end) {
      *p = 0;
      if (mkdir(buf, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "%.300s: cannot create the output directory: %s", buf, strerror(errno));
        return 1;
      }
      if (end) break;
      *p = '/';
    }
  }
  struct stat st;
  if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "%.300s: the output directory exists but is not a directory", path);
    return 1;
  }
  return 0;
}

static int check_steps(const insdg_case *c, int *nsteps, char *err, size_t errlen)
{
  const double n = round(c->final_time / c->dt);
  if (n < 1 || n > 1e9) {
    snprintf(err, errlen, "%.300s: [time] final_time: %g is %s (dt = %g)", c->path, c->final_time,
             n < 1 ? "less than half a time step" : "more than 1e9 time steps", c->dt);
    return 1;
  }
  *nsteps = (int)n;
  return 0;
}

static int check_boundaries(const setup *s, char *err, size_t errlen)
{
  const char *names[INSDG_MAX_BOUNDARIES];
  for (int b = 0; b < s->mesh->nbnd; ++b) names[b] = s->mesh->bnd_name[b];
  return insdg_case_check_boundaries(s->c, names, s->mesh->nbnd, err, errlen);
}

/* rank 0: the output directory and diagnostics.csv (opened now, so that a directory that
   cannot be written is a set-up error, not a failure after hours of work) */
static int open_output(setup *s, const insdg_run_opts *o, int rank, char *err, size_t errlen)
{
  snprintf(s->outdir, sizeof s->outdir, "%s", o->output ? o->output : s->c->output);
  if (rank != 0) return 0;
  if (make_directories(s->outdir, err, errlen)) return 1;
  char *path = s->csv_path;
  snprintf(path, sizeof s->csv_path, "%s/diagnostics.csv", s->outdir);
  /* a restart into the directory of the run it continues keeps that run's rows: opened
     for appending now (nothing is lost if the checkpoint turns out to be bad), rewritten
     by csv_continue once the restart step is known */
  s->csv_continue = o->restart && access(path, F_OK) == 0;
  s->csv = fopen(path, s->csv_continue ? "a" : "w");
  s->csv_created = s->csv && !s->csv_continue;
  if (!s->csv) snprintf(err, errlen, "%.300s: cannot write: %s", path, strerror(errno));
  return s->csv == NULL;
}

static void setup_destroy(setup *s)
{
  if (s->csv) fclose(s->csv);
  probes_destroy(s->pr);
  insdg_layout_destroy(s->L);
  insdg_ops_destroy(s->op);
  insdg_ref_destroy(s->ref);
  insdg_mesh_destroy(s->mesh);
  insdg_case_destroy(s->c);
  memset(s, 0, sizeof *s);
}

/* Every user error, checked on every rank in turn; 1 with rank 0's message on failure. */
static int setup_create(setup *s, const insdg_run_opts *o, char *err, size_t errlen)
{
  memset(s, 0, sizeof *s);
  if (run_agree(insdg_case_read(o->case_path, &s->c, err, errlen), err, errlen)) return 1;
  if (run_agree(check_steps(s->c, &s->nsteps, err, errlen), err, errlen)) return 1;
  if (run_agree(insdg_mesh_read(s->c->mesh, &s->mesh, err, errlen), err, errlen)) return 1;
  for (int k = 0; k < s->c->refine; ++k) {   /* uniform refinement: each triangle into four */
    insdg_mesh *fine = insdg_mesh_refine(s->mesh);
    insdg_mesh_destroy(s->mesh);
    s->mesh = fine;
  }
  if (run_agree(check_boundaries(s, err, errlen), err, errlen)) return 1;
  s->ref = insdg_ref_create(s->c->order);
  s->op = insdg_ops_create(s->ref);
  insdg_mesh_set_ref(s->mesh, s->ref);
  return 0;
}

/* CPU workers worth having per rank: one per WORK_PER_WORKER nodes (the Taylor vortex
   at K = 1990, N = 4 is 15 000 a worker on 2 workers, 0.6-0.8 of one worker's step
   time; the quick start's K = 42, N = 6 on 2 workers took 2.2x one worker's time:
   docs/performance.md) */
enum { WORK_PER_WORKER = 10000 };
static int useful_workers(const setup *s, int size)
{
  const long nodes = (long)s->mesh->K * s->ref->Np / size;
  return nodes / WORK_PER_WORKER > 1 ? (int)(nodes / WORK_PER_WORKER) : 1;
}

/* the blocks and the output directory (after StarPU has started: the default block count
   is the worker count) */
static int setup_layout(setup *s, const insdg_run_opts *o, int rank, int size, char *err, size_t errlen)
{
  /* default: one block per worker of a rank (its GPUs when it has CUDA workers: the field
     tasks run there), the same count on every rank (the largest); results are bitwise
     the same for any worker count at a given block count (tasks/README.md) */
  int workers = insdg_runtime_cuda_workers() > 0 ? insdg_runtime_cuda_workers() : insdg_runtime_workers(), most = 1;
  MPI_Allreduce(&workers, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const int nblocks = o->blocks > 0 ? o->blocks : size * (most > 1 ? most : 1);
  s->blocks_origin = o->blocks > 0 ? "option" : "default";
  if (run_agree(insdg_layout_create(s->mesh, s->ref, size, nblocks, &s->L, err, errlen), err, errlen)) return 1;
  if (o->restart && restart_precheck(s, o->restart, err, errlen)) return 1;
  s->pr = probes_create(s, err, errlen);   /* every rank the same: a point outside the mesh anywhere */
  if (s->c->nprobes > 0 && !s->pr) return 1;
  if (run_agree(open_output(s, o, rank, err, errlen), err, errlen)) return 1;
  const int no_probes_csv = rank == 0 && probes_open(s->pr, s->outdir, o->restart != NULL, err, errlen);
  if (no_probes_csv && s->csv_created) remove(s->csv_path);
  return run_agree(no_probes_csv, err, errlen);
}

/* Settings of the case that are taken with a change: said once, not silently. */
static void warn_unsupported(const insdg_case *c)
{
  if (fabs(c->final_time - round(c->final_time / c->dt) * c->dt) > 1e-9 * c->final_time)
    fprintf(stderr, "insdg: warning: final_time %g is not a multiple of dt %g; the run ends at %g\n", c->final_time,
            c->dt, round(c->final_time / c->dt) * c->dt);
}

/* ===================================================================== run ======== */

/* [time] start = exact: U^{-1}, U^{-2} (BDF2 and the subcycling's Ubar need one level,
   a second-order pressure extrapolation two) */
enum { HISTORY_LEVELS = 2 };

/* The solver and its initial state; 1 and a message when the case's initial, boundary or
   exact data are not finite somewhere (check_input_data: before any step) */
static int solver_create(solver *sv, const setup *s, int pure_neumann, char *err, size_t errlen)
{
  const insdg_case *c = s->c;
  const insdg_mesh *m = s->L->mesh;
  insdg_tasks_init(&sv->T, s->L, s->op);
  sv->bd = bnd_data_create(c, m, s->L->block_start[sv->T.b_begin], s->L->block_start[sv->T.b_end]);
  sv->bc_vel = insdg_malloc(3 * (size_t)m->K), sv->bc_p = insdg_malloc(3 * (size_t)m->K);
  boundary_codes(sv->bd, m, sv->bc_vel, sv->bc_p);
  const insdg_ins_opts o = {.nu = c->nu, .dt = c->dt, .S = c->time_order, .Ns = c->substeps, .bc_vel = sv->bc_vel,
                            .bc_p = sv->bc_p, .pure_neumann = pure_neumann, .boundary = boundary_callback,
                            .boundary_ctx = sv->bd, .vel_tol = c->velocity.tolerance, .p_tol = c->pressure.tolerance,
                            .vel_maxit = c->velocity.max_iterations, .p_maxit = c->pressure.max_iterations,
                            .velocity_at = velocity_at_callback,
                            .vel_precond = (int)c->velocity.preconditioner, .p_precond = (int)c->pressure.preconditioner,
                            .vel_projection = c->velocity.projection, .p_projection = c->pressure.projection,
                            .vel_minit = c->velocity.min_iterations, .p_minit = c->pressure.min_iterations,
                            .npmg_degrees = c->pressure.npmg_degrees, .pmg_degrees = c->pressure.pmg_degrees,
                            .pmg_point_jacobi = c->pressure.pmg_point_jacobi,
                            .pmg_cheb_degree = c->pressure.pmg_chebyshev_degree,
                            .pmg_coarse = c->pressure.pmg_coarse_amg ? INSDG_PMG_COARSE_AMG : INSDG_PMG_COARSE_AUTO,
                            .history = c->start_exact ? HISTORY_LEVELS : 0};
  sv->ins = insdg_ins_create(&sv->T, s->mesh, &o);
  sv->ob = observer_create(&sv->T, c, sv->bc_vel);
  sv->stats = statistics_create(c, sv->ob);
  const size_t n = (size_t)m->K * m->ref->Np;
  double *u = new_array(n), *v = new_array(n), *p = new_array(n);
  insdg_expr_eval_many(c->initial_u, n, m->x, m->y, 0.0, u);
  insdg_expr_eval_many(c->initial_v, n, m->x, m->y, 0.0, v);
  insdg_expr_eval_many(c->initial_p, n, m->x, m->y, 0.0, p);
  if (run_agree(check_input_data(c, m, sv->bd, u, v, p, n, err, errlen), err, errlen)) {
    free(u), free(v), free(p);
    return 1;
  }
  insdg_ins_set_initial(sv->ins, u, v, p, 0.0);
  for (size_t i = 0; i < n; ++i) sv->ob->speed_scale = fmax(sv->ob->speed_scale, hypot(u[i], v[i]));
  for (int i = 1; c->start_exact && i <= HISTORY_LEVELS; ++i) {   /* [time] start = exact */
    const double t = -i * c->dt;
    insdg_expr_eval_many(c->exact_u, n, m->x, m->y, t, u);
    insdg_expr_eval_many(c->exact_v, n, m->x, m->y, t, v);
    if (c->exact_p) insdg_expr_eval_many(c->exact_p, n, m->x, m->y, t, p);   /* else the initial p */
    insdg_ins_set_history(sv->ins, i, u, v, p);
  }
  free(u), free(v), free(p);
  return 0;
}

static void solver_destroy(solver *sv)
{
  insdg_tasks_wait(&sv->T);
  statistics_destroy(sv->stats);
  observer_destroy(sv->ob);
  insdg_ins_destroy(sv->ins);
  bnd_data_destroy(sv->bd);
  free(sv->bc_vel), free(sv->bc_p);
  insdg_tasks_fini(&sv->T);
}

/* collective: the observed fields as fields_<step>.nc; rank 0 reports a failure */
static void output_fields(run_state *r, solver *sv, progress *pg)
{
  char err[INSDG_ERRMSG_LEN];
  const double t0 = MPI_Wtime();
  char path[INSDG_CASE_PATH_LEN + 32];
  snprintf(path, sizeof path, "%s/fields_%06d.nc", r->s->outdir, r->steps);
  const insdg_mesh *m = r->s->L->mesh;   /* u, v, p, vorticity, coordinates, connectivity; the statistics */
  const int nfields = 7 + (statistics_samples(sv->stats) > 0 ? 6 : 0);
  if (check_space(r->rank, r->s->outdir, path, 8.0 * m->K * m->ref->Np * nfields + (1 << 16), err, sizeof err)) {
    output_failure(r, pg, err, 0);
  } else if (observe_gradients(sv->ob), write_fields(sv->ob, sv->stats, r->s->outdir, r->steps, r->t, err, sizeof err)) {
    output_failure(r, pg, err, 1);
  } else {
    r->files++;
  }
  r->stage[STAGE_OUTPUT] += MPI_Wtime() - t0;
}

/* one step, its observation and row; returns 1 when the run must stop */
static int advance(run_state *r, solver *sv, progress *pg, double *next_output)
{
  const insdg_case *c = r->s->c;
  insdg_ins_stats st = {.converged = 1};
  double t0 = MPI_Wtime();
  const double t0_us = insdg_runtime_tracing ? starpu_timing_now() : 0;
  const double cpu0 = insdg_runtime_clock(CLOCK_THREAD_CPUTIME_ID);   /* the main thread's share of the cores */
  const int failed = insdg_ins_step(sv->ins, &st);
  insdg_tasks_wait(&sv->T);   /* the step's last tasks count as the step */
  r->stage[STAGE_STEP] += MPI_Wtime() - t0;
  r->host_cpu_step += insdg_runtime_clock(CLOCK_THREAD_CPUTIME_ID) - cpu0;
  insdg_runtime_trace_step(t0_us);
  r->steps = insdg_ins_steps(sv->ins), r->t = insdg_ins_time(sv->ins);
  r->iterations[0] += st.vel_iterations[0], r->iterations[1] += st.vel_iterations[1];
  r->iterations[2] += st.p_iterations, r->p_iteration_tasks += st.p_iteration_tasks;
  for (int k = 0; k < INSDG_NSTAGES; ++k)
    r->step_stage[k] += st.seconds[k], r->stage_tasks[k] += st.tasks[k], r->stage_waits[k] += st.waits[k];
  r->converged &= !failed;
  char msg[320];
  if (insdg_taken_cores_poll(r->taken, msg, sizeof msg)) {   /* another process took a worker's core, or left it */
    if (r->rank == 0) end_progress_line(pg);
    if (r->size > 1) printf("insdg: rank %d, step %d: %s\n", r->rank, r->steps, msg);
    else printf("insdg: step %d: %s\n", r->steps, msg);
  }

  t0 = MPI_Wtime();
  observe_fields(sv->ob, sv->ins, c->nforces > 0);   /* gradients: for the forces */
  char why[INSDG_ERRMSG_LEN];
  const int bad_here = bnd_data_failed(sv->bd, why, sizeof why);   /* this rank's faces */
  const diagnostics d = observe_diagnostics(sv->ob, c->dt, bad_here);
  r->velocity_change = d.velocity_change;
  statistics_add(sv->stats, sv->ob, r->t, &d);
  r->steady = c->steady_tolerance > 0 && d.velocity_change < c->steady_tolerance;   /* NaN: not steady */
  if (probes_sample(r->s->pr, sv->ob, r->steps, r->t, r->rank) && !r->csv_failed) {
    const int why = errno;
    end_progress_line(pg);
    fprintf(stderr, "insdg: error: %s: cannot write step %d's row: %s\n", probes_path(r->s->pr), r->steps,
            strerror(why));
    r->csv_failed = 1;   /* every rank stops after this step (checkpoint_decision) */
  }
  /* every rank knows from the reduction; the message is the lowest failing rank's */
  const int bad_data = d.bad_data && run_agree(bad_here, why, sizeof why);
  r->finite = isfinite(d.kinetic_energy) && !bad_data;
  r->diverged = r->finite && d.speed_scale > 0 && d.max_speed > DIVERGED_FACTOR * d.speed_scale;
  if (r->rank == 0 && !r->csv_failed && csv_row(r->s->csv, c, r->steps, r->t, &st, &d)) {
    char hint[300];
    const int why = errno;
    io_failure_hint(r->s->outdir, hint, sizeof hint);
    end_progress_line(pg);
    fprintf(stderr, "insdg: error: %s: cannot write step %d's row: %s%s\n", r->s->csv_path, r->steps, strerror(why), hint);
    r->csv_failed = 1;   /* every rank stops after this step (checkpoint_decision) */
  }
  r->stage[STAGE_DIAGNOSTICS] += MPI_Wtime() - t0;
  if (r->rank == 0) show_progress(pg, r, &st, &d);
  if (r->rank == 0 && (failed || solution_broke(r))) end_progress_line(pg);
  if (bad_data && r->rank == 0)   /* the cause of what follows: said alone */
    fprintf(stderr, "insdg: step %d: the boundary data is not finite: %s; stopping\n", r->steps, why);
  if (failed && !bad_data && r->rank == 0) report_not_converged(r, &st);
  if (!r->finite && !bad_data && r->rank == 0)
    fprintf(stderr, "insdg: step %d: the solution is no longer finite (kinetic energy %g); stopping\n", r->steps,
            d.kinetic_energy);
  if (r->diverged && r->rank == 0)
    fprintf(stderr,
            "insdg: step %d: max |u| = %g, more than %g times the largest initial or boundary speed (%g): the run "
            "diverged (is dt too large?); stopping\n",
            r->steps, d.max_speed, DIVERGED_FACTOR, d.speed_scale);

  int checkpoint_due, stop;
  checkpoint_decision(r, &checkpoint_due, &stop);
  if (stop && r->rank == 0) end_progress_line(pg), printf("insdg run: signal received: checkpoint and stop\n");
  r->interrupted = stop;
  if (r->steady && !reached_end(r) && r->rank == 0)
    end_progress_line(pg), printf("insdg run: step %d, t = %g: steady: the relative velocity change per unit time "
                                  "%.3e is below [time] steady_tolerance = %g; stopping\n",
                                  r->steps, r->t, d.velocity_change, c->steady_tolerance);
  const int last = reached_end(r) || failed || solution_broke(r) || stop || r->steady;
  const int due = c->output_interval > 0 && r->t >= *next_output - 1e-6 * c->dt;
  while (c->output_interval > 0 && *next_output <= r->t + 1e-6 * c->dt) *next_output += c->output_interval;
  if (last || due) output_fields(r, sv, pg);
  if (checkpoint_due && !failed && !solution_broke(r)) write_checkpoint(r, sv, pg);
  return last || r->output_failed;
}

static void time_loop(run_state *r, solver *sv)
{
  const insdg_case *c = r->s->c;
  progress pg = {r->rank == 0 && progress_on_terminal(r->progress_mode), 0, 0};
  double next_output = c->output_interval;
  while (c->output_interval > 0 && next_output <= r->t + 1e-6 * c->dt) next_output += c->output_interval;
  r->last_checkpoint = MPI_Wtime();
  catch_stop_signals();
  /* the state the loop starts from: the first step's velocity change is measured against
     it, and at t = 0 it is the first field file and probe row (after a restart, those of
     the run before hold it) */
  observe_fields(sv->ob, sv->ins, 1);
  observe_remember(sv->ob);
  if (r->steps == 0 && probes_sample(r->s->pr, sv->ob, 0, r->t, r->rank) && r->rank == 0) {
    fprintf(stderr, "insdg: error: %s: cannot write step 0's row: %s\n", probes_path(r->s->pr), strerror(errno));
    r->csv_failed = 1;
  }
  if (c->output_interval > 0 && r->steps == 0) output_fields(r, sv, &pg);
  r->loop_start = MPI_Wtime();
  insdg_runtime_profile_reset();
  r->steps0 = r->steps;
  insdg_runtime_counters_get(&r->loop_counters);
  r->taken = insdg_taken_cores_start(NULL, 0);
  while (!r->output_failed && !advance(r, sv, &pg, &next_output)) {
  }
}

/* this process's peak resident memory so far (getrusage), MiB */
static double peak_rss_mib(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;   /* Linux: KiB */
}

static int finish(run_state *r, solver *sv)
{
  const insdg_case *c = r->s->c;
  insdg_runtime_profile_get(&r->profile);
  insdg_runtime_counters end;
  insdg_runtime_counters_get(&end);
  const insdg_runtime_counters *c0 = &r->loop_counters;
  r->loop_counters = (insdg_runtime_counters){end.tasks - c0->tasks, end.waits - c0->waits,
                                              end.messages - c0->messages, end.bytes - c0->bytes,
                                              end.tests - c0->tests, end.collectives - c0->collectives,
                                              end.mpi_wait_seconds - c0->mpi_wait_seconds};
  double t0 = MPI_Wtime();
  if (c->has_exact) r->errors = compute_errors(sv->ob, r->t, r->pure_neumann);
  r->stage[STAGE_DIAGNOSTICS] += MPI_Wtime() - t0;
  int status = exit_status(r);
  const double rss = peak_rss_mib();
  if (r->rank == 0) {
    r->rss_mib = insdg_malloc(sizeof(double) * (size_t)r->size);
    r->setup_rss_mib = insdg_malloc(sizeof(double) * (size_t)r->size);
  }
  MPI_Gather(&rss, 1, MPI_DOUBLE, r->rss_mib, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(&r->my_setup_rss, 1, MPI_DOUBLE, r->setup_rss_mib, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const int pauses = insdg_taken_cores_pauses(r->taken);
  MPI_Reduce(&pauses, &r->worker_pauses, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  insdg_taken_cores_stop(r->taken), r->taken = NULL;
  char err[INSDG_ERRMSG_LEN];
  if (r->rank == 0) {
    if (write_summary(r, err, sizeof err)) fprintf(stderr, "insdg: error: %s\n", err), status = INSDG_EXIT_OUTPUT;
    else r->summary_written = 1;
    print_end(r);
    free(r->rss_mib), free(r->setup_rss_mib);
  }
  return status;   /* rank 0 alone may see a summary it could not write: mpirun reports any rank's */
}

int insdg_run(int *argc, char ***argv, const insdg_run_opts *o)
{
  char err[INSDG_ERRMSG_LEN];
  if (insdg_runtime_init_mpi(argc, argv, err, sizeof err)) insdg_die_user(err);
  run_state r = {.rank = insdg_runtime_rank(), .size = insdg_runtime_size(), .wall_start = MPI_Wtime(),
                 .progress_mode = o->progress, .converged = 1, .finite = 1, .velocity_change = NAN};
  setup s;
  int failed = setup_create(&s, o, err, sizeof err);
  if (!failed) {   /* StarPU, with no more CPU workers than the mesh can keep busy */
    const insdg_runtime_opts ro = {.max_ncpu = useful_workers(&s, r.size)};
    if (insdg_runtime_init_starpu(&ro, err, sizeof err)) insdg_die_user(err);
    failed = setup_layout(&s, o, r.rank, r.size, err, sizeof err);
    r.my_setup_rss = peak_rss_mib();
  }
  if (failed) {
    if (r.rank == 0) fprintf(stderr, "insdg: error: %s\n", err);
    setup_destroy(&s);
    insdg_runtime_shutdown();
    return INSDG_EXIT_USER;
  }
  r.s = &s, r.workers = insdg_runtime_workers(), r.cuda_workers = insdg_runtime_cuda_workers(), r.pure_neumann = !insdg_case_has_outflow(s.c);
  if (r.rank == 0) warn_unsupported(s.c), print_start(&r);
  if (r.rank == 0) remove_leftovers(s.outdir);
  if (r.rank == 0 && !s.csv_continue && csv_header(s.csv, s.c)) {   /* the header fits, or nothing runs */
    fprintf(stderr, "insdg: error: %s: cannot write: %s\n", s.csv_path, strerror(errno));
    r.csv_failed = 1;
  }
  if (run_agree(r.csv_failed, err, sizeof err)) {
    if (r.rank == 0) remove(s.csv_path), probes_abandon(s.pr);
    setup_destroy(&s);
    insdg_runtime_shutdown();
    return INSDG_EXIT_OUTPUT;
  }
  solver sv;
  /* bad initial data or a bad checkpoint: one message, status 2, nothing written */
  const int bad_data = solver_create(&sv, &s, r.pure_neumann, err, sizeof err);
  const int bad_checkpoint = !bad_data && o->restart && restart_from(&r, &sv, o->restart, err, sizeof err);
  if (bad_data || bad_checkpoint) {
    if (r.rank == 0) fprintf(stderr, "insdg: error: %s%s\n", bad_checkpoint ? "--restart: " : "", err);
    if (r.rank == 0 && s.csv_created) remove(s.csv_path);
    if (r.rank == 0) probes_abandon(s.pr);
    solver_destroy(&sv);
    setup_destroy(&s);
    insdg_runtime_shutdown();
    return INSDG_EXIT_USER;
  }
  r.stats = sv.stats;
  r.vel_precond = insdg_ins_velocity_preconditioner(sv.ins, &r.vel_ratio);
  r.p_coarse = insdg_ins_pressure_coarse(sv.ins, &r.p_coarse_rows, &r.p_coarse_size);
  if (r.rank == 0) print_velocity_preconditioner(&r);
  if (o->restart) {   /* continued from a checkpoint: bitwise the run it interrupted */
    r.restarted = 1;
    if (r.rank == 0 && s.csv_continue) r.prior_known = csv_continue(&s, r.steps, r.prior_iterations);
    if (r.rank == 0 && probes_continue(s.pr, r.steps))
      fprintf(stderr, "insdg: error: %s: cannot write: %s\n", probes_path(s.pr), strerror(errno)), r.csv_failed = 1;
    probes_skip_to(s.pr, r.t, s.c->dt);
  }
  r.stage[STAGE_SETUP] = MPI_Wtime() - r.wall_start;
  r.already_complete = reached_end(&r);
  if (r.already_complete) {   /* a requeued finished job: nothing to do, nothing rewritten but the summary */
    if (r.rank == 0)
      printf("insdg run: already complete: the checkpoint is at step %d (t = %g), the case ends at step %d; "
             "no step taken\n", r.steps, r.t, s.nsteps);
    observe_fields(sv.ob, sv.ins, 0);   /* for the errors in the summary */
    r.steps0 = r.steps;
  } else {
    time_loop(&r, &sv);
  }
  const int status = finish(&r, &sv);
  solver_destroy(&sv);
  setup_destroy(&s);
  insdg_runtime_shutdown();
  return status;
}
