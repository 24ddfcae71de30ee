/* report.c -- what the run tells (run_internal.h): diagnostics.csv (one row per step),
 * summary.json (written at the end, under a temporary name renamed when complete), the
 * progress line or log lines, and the lines of the log at the start and the end. Only
 * rank 0 writes them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "run_internal.h"
#include "sched_home.h"

static const char *const stage_name[NSTAGE] = {"setup", "step", "diagnostics", "output"};

/* ===================================================================== CSV ======== */

/* a CSV field: quoted when it holds a comma, a quote or a blank */
static void csv_name(FILE *f, const char *prefix, const char *name)
{
  if (!strpbrk(name, ",\" \t")) {
    fprintf(f, ",%s%s", prefix, name);
    return;
  }
  fprintf(f, ",\"%s", prefix);
  for (const char *p = name; *p; ++p) fprintf(f, *p == '"' ? "\"\"" : "%c", *p);
  fputc('"', f);
}

/* Uref and Dref from [constants], for force coefficients */
int reference_scales(const insdg_case *c, double *U, double *D)
{
  int found = 0;
  for (int i = 0; i < c->nconstants; ++i) {
    if (!strcmp(c->constants[i].name, "Uref")) *U = c->constants[i].value, found |= 1;
    if (!strcmp(c->constants[i].name, "Dref")) *D = c->constants[i].value, found |= 2;
  }
  return found == 3 && *U != 0 && *D != 0;
}

int csv_header(FILE *f, const insdg_case *c)
{
  double U = 0, D = 0;
  fprintf(f, "step,time,dt,iterations_u,iterations_v,iterations_p,converged,kinetic_energy,max_div_u,cfl,"
             "velocity_change");
  for (int k = 0; k < c->nforces; ++k) csv_name(f, "fx_", c->forces[k]), csv_name(f, "fy_", c->forces[k]);
  if (reference_scales(c, &U, &D))
    for (int k = 0; k < c->nforces; ++k) csv_name(f, "cd_", c->forces[k]), csv_name(f, "cl_", c->forces[k]);
  fprintf(f, "\n");
  return fflush(f) != 0 || ferror(f);
}

int csv_row(FILE *f, const insdg_case *c, int step, double t, const insdg_ins_stats *st, const diagnostics *d)
{
  double U = 0, D = 0;
  fprintf(f, "%d,%.10g,%.10g,%d,%d,%d,%d,%.10e,%.6e,%.6e,%.10e", step, t, c->dt, st->vel_iterations[0],
          st->vel_iterations[1], st->p_iterations, st->converged, d->kinetic_energy, d->max_div, d->cfl,
          d->velocity_change);
  for (int k = 0; k < c->nforces; ++k) fprintf(f, ",%.10e,%.10e", d->force[k][0], d->force[k][1]);
  if (reference_scales(c, &U, &D))
    for (int k = 0; k < c->nforces; ++k)
      fprintf(f, ",%.10e,%.10e", 2 * d->force[k][0] / (U * U * D), 2 * d->force[k][1] / (U * U * D));
  fprintf(f, "\n");
  return fflush(f) != 0 || ferror(f);   /* flushed: readable while the run goes on */
}

int check_space(int rank, const char *dir, const char *path, double bytes, char *err, size_t errlen)
{
  struct statvfs fs;
  int short_of_space = 0;
  if (rank == 0 && statvfs(dir, &fs) == 0) {
    const double free_bytes = (double)fs.f_bavail * fs.f_frsize;
    short_of_space = free_bytes < bytes;
    if (short_of_space)
      snprintf(err, errlen, "%.300s: not written: it needs about %.3g MB and the file system of %.200s has %.3g MB free",
               path, bytes / 1e6, dir, free_bytes / 1e6);
  }
  return run_agree(short_of_space, err, errlen);
}

void io_failure_hint(const char *dir, char *hint, size_t len)
{
  struct statvfs fs;
  hint[0] = 0;
  if (statvfs(dir, &fs) == 0 && (unsigned long long)fs.f_bavail * fs.f_frsize < (1ULL << 20))
    snprintf(hint, len, "; the file system of %.200s is full (%llu bytes free)", dir,
             (unsigned long long)fs.f_bavail * fs.f_frsize);
  else if (access(dir, W_OK) != 0)
    snprintf(hint, len, "; %.200s is not writable: %s", dir, strerror(errno));
}

static void json_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

/* JSON has no NaN or infinity: null */
static void json_number(FILE *f, double x)
{
  if (isfinite(x)) fprintf(f, "%.17g", x);
  else fprintf(f, "null");
}

int csv_continue(setup *s, int step, long prior_iterations[3])
{
  fclose(s->csv);
  s->csv = NULL;
  FILE *in = fopen(s->csv_path, "r");
  size_t cap = 1 << 16, len = 0;
  char *keep = insdg_malloc(cap), line[4096];
  int first = 1, rows = 0;
  for (int k = 0; k < 3; ++k) prior_iterations[k] = 0;
  while (in && fgets(line, sizeof line, in)) {
    if (!first && atoi(line) > step) break;   /* rows are in step order */
    long it[3];
    if (!first && sscanf(line, "%*d,%*[^,],%*[^,],%ld,%ld,%ld", &it[0], &it[1], &it[2]) == 3) {
      for (int k = 0; k < 3; ++k) prior_iterations[k] += it[k];
      ++rows;
    }
    const size_t n = strlen(line);
    if (len + n + 1 > cap) {
      char *bigger = insdg_malloc(cap = 2 * (len + n + 1));
      memcpy(bigger, keep, len), free(keep), keep = bigger;
    }
    memcpy(keep + len, line, n), len += n, first = 0;
  }
  if (in) fclose(in);
  s->csv = fopen(s->csv_path, "w");
  if (!s->csv) {
    char msg[INSDG_CASE_PATH_LEN + 128];
    snprintf(msg, sizeof msg, "%.300s: cannot write: %s", s->csv_path, strerror(errno));
    insdg_die_user(msg);
  }
  fwrite(keep, 1, len, s->csv);
  fflush(s->csv);
  free(keep);
  return rows == step;   /* every earlier step has its row: the totals since t = 0 are known */
}

/* ============================================================ summary.json ======== */

static void json_errors(FILE *f, const l2_errors *E, int has_exact)
{
  static const char *const name[NERR] = {"u", "v", "p"};
  if (!has_exact) {
    fprintf(f, "null");
    return;
  }
  fprintf(f, "{");
  for (int k = 0; k < NERR; ++k) {
    fprintf(f, "%s\"%s\": ", k ? ", " : "", name[k]);
    if (!E->have[k]) {
      fprintf(f, "null");
      continue;
    }
    fprintf(f, "{\"absolute\": "), json_number(f, E->absolute[k]);
    fprintf(f, ", \"relative\": "), json_number(f, E->relative[k]), fprintf(f, "}");
  }
  fprintf(f, "}");
}

const char *status_text(const run_state *r)
{
  return r->output_failed                     ? "output failed"
         : !r->finite                         ? "not finite"
         : r->diverged                        ? "diverged"
         : !r->converged                      ? "not converged"
         : r->interrupted && !reached_end(r)  ? "stopped"
                                              : "completed";
}

const char *stop_reason(const run_state *r)
{
  return r->output_failed                     ? "output_failed"
         : !r->finite                         ? "not_finite"
         : r->diverged                        ? "diverged"
         : !r->converged                      ? "not_converged"
         : r->interrupted && !reached_end(r)  ? "signal"
         : r->steady && !reached_end(r)       ? "steady"
                                              : "final_time";
}

int exit_status(const run_state *r)
{
  return r->output_failed                     ? INSDG_EXIT_OUTPUT
         : solution_broke(r)                  ? INSDG_EXIT_DIVERGED
         : !r->converged                      ? INSDG_EXIT_NOT_CONVERGED
         : r->interrupted && !reached_end(r)  ? INSDG_EXIT_STOPPED
                                              : 0;
}

/* "runtime": StarPU's worker profiling of the time loop on rank 0, or null without
   STARPU_PROFILING=1. task_share: the fraction of the workers' time inside task functions
   (kernels, halo copies; on a GPU, launches and stream waits): the rest is StarPU's own
   work and idle time. */
static void json_profile(FILE *f, const insdg_runtime_profile *p)
{
  fprintf(f, ",\n  \"runtime\": ");
  if (!p->enabled) {
    fprintf(f, "null");
    return;
  }
  static const char *const kind[2] = {"cpu", "cuda"};
  fprintf(f, "{");
  for (int k = 0; k < 2; ++k) {
    fprintf(f, "%s\"%s\": {\"workers\": %d, \"tasks\": %ld, \"task_seconds\": ", k ? ", " : "", kind[k],
            p->workers[k], p->tasks[k]);
    json_number(f, p->task_seconds[k]);
    fprintf(f, ", \"worker_seconds\": "), json_number(f, p->total_seconds[k]);
    fprintf(f, ", \"sleeping_seconds\": "), json_number(f, p->sleeping_seconds[k]);
    fprintf(f, ", \"task_share\": ");
    json_number(f, p->total_seconds[k] > 0 ? p->task_seconds[k] / p->total_seconds[k] : NAN);
    fprintf(f, "}");
  }
  fprintf(f, "}");
}

/* "runtime_counters": what rank 0's runtime did per step of this process's time loop
   (runtime.h): tasks inserted, host waits, MPI messages sent, their bytes, MPI_Test
   calls, collectives, the workers' time waiting in them for neighbours, the main thread's CPU time
   in the steps; tasks and waits per stage; the pressure solve's tasks per PCG
   iteration and per block (the lean-step issue's measure) */
static void json_counters(FILE *f, const run_state *r)
{
  const insdg_runtime_counters *c = &r->loop_counters;
  const int n = r->steps - r->steps0;
  const double per = n > 0 ? 1.0 / n : NAN;
  fprintf(f, ",\n  \"runtime_counters\": {\"steps\": %d, \"tasks_per_step\": ", n);
  json_number(f, per * c->tasks);
  fprintf(f, ", \"waits_per_step\": "), json_number(f, per * c->waits);
  fprintf(f, ", \"mpi_messages_per_step\": "), json_number(f, per * c->messages);
  fprintf(f, ", \"mpi_bytes_per_step\": "), json_number(f, per * c->bytes);
  fprintf(f, ", \"mpi_tests_per_step\": "), json_number(f, per * c->tests);
  fprintf(f, ", \"mpi_collectives_per_step\": "), json_number(f, per * c->collectives);
  fprintf(f, ", \"mpi_wait_ms_per_step\": "), json_number(f, 1e3 * per * c->mpi_wait_seconds);
  fprintf(f, ", \"host_cpu_ms_per_step\": "), json_number(f, 1e3 * per * r->host_cpu_step);
  for (int w = 0; w < 2; ++w) {
    const long *v = w ? r->stage_waits : r->stage_tasks;
    fprintf(f, ", \"stage_%s_per_step\": {", w ? "waits" : "tasks");
    for (int k = 0; k < INSDG_NSTAGES; ++k)
      fprintf(f, "%s\"%s\": ", k ? ", " : "", insdg_stage_names[k]), json_number(f, per * v[k]);
    fprintf(f, "}");
  }
  const double p_iterations = (double)r->iterations[2];   /* PCG iterations of the steps run here */
  int mine = 0;   /* this rank's blocks: it submits their tasks and its rank-level ones */
  for (int b = 0; b < r->s->L->B; ++b) mine += r->s->L->block_rank[b] == r->rank;
  fprintf(f, ", \"pressure_tasks_per_iteration_per_block\": ");
  json_number(f, p_iterations > 0 ? r->p_iteration_tasks / p_iterations / mine : NAN);
  fprintf(f, ", \"pressure_tasks_per_solve_per_block\": ");
  json_number(f, per * (double)(r->stage_tasks[INSDG_STAGE_PRESSURE] - r->p_iteration_tasks) / mine);
  fprintf(f, "}");
}

static void json_body(FILE *f, const run_state *r, double wall)
{
  const setup *s = r->s;
  const insdg_case *c = s->c;
  const long K = s->mesh->K, Np = s->ref->Np;
  const int run_steps = r->steps - r->steps0, n = run_steps > 0 ? run_steps : 1;
  fprintf(f, "{\n  \"insdg_version\": "), json_string(f, insdg_version_string());
  fprintf(f, ",\n  \"case\": "), json_string(f, c->name);
  fprintf(f, ",\n  \"case_file\": "), json_string(f, c->path);
  fprintf(f, ",\n  \"mesh\": "), json_string(f, c->mesh);
  fprintf(f, ",\n  \"N\": %d,\n  \"K\": %ld,\n  \"dofs\": %ld,\n  \"ranks\": %d,\n  \"blocks\": %d,\n  \"workers\": %d",
          c->order, K, 3 * K * Np, r->size, s->L->B, r->workers);
  fprintf(f, ",\n  \"cuda_workers\": %d", r->cuda_workers);
  fprintf(f, ",\n  \"blocks_origin\": "), json_string(f, s->blocks_origin);
  fprintf(f, ",\n  \"velocity_preconditioner\": "), json_string(f, insdg_precond_name((insdg_precond)r->vel_precond));
  fprintf(f, ",\n  \"pressure_coarse_solve\": "),
      json_string(f, r->p_coarse == INSDG_PMG_COARSE_CHOLESKY ? "cholesky"
                     : r->p_coarse == INSDG_PMG_COARSE_BAND   ? "band"
                     : r->p_coarse == INSDG_PMG_COARSE_AMG    ? "amg"
                                                              : "none");
  fprintf(f, ",\n  \"workers_origin\": "), json_string(f, insdg_runtime_workers_origin());
  fprintf(f, ",\n  \"scheduler\": "), json_string(f, insdg_runtime_scheduler());
  fprintf(f, ",\n  \"main_thread\": "), json_string(f, insdg_runtime_main_thread());
  fprintf(f, ",\n  \"allocator\": "), json_string(f, insdg_runtime_allocator());
  const double stolen = insdg_sched_home_stolen_share();   /* -1: another policy */
  fprintf(f, ",\n  \"tasks_stolen_share\": "), json_number(f, stolen >= 0 ? stolen : NAN);
  fprintf(f, ",\n  \"worker_pauses\": %d", r->worker_pauses);   /* taken_cores.h */
  fprintf(f, ",\n  \"nu\": "), json_number(f, c->nu);
  fprintf(f, ",\n  \"dt\": "), json_number(f, c->dt);
  fprintf(f, ",\n  \"time_order\": %d,\n  \"substeps\": %d,\n  \"steps\": %d,\n  \"steps_planned\": %d", c->time_order,
          c->substeps, r->steps, s->nsteps);
  /* what this process did (after --restart, from step steps0 on): every per-step figure
     below is over these steps only */
  fprintf(f, ",\n  \"steps_this_run\": %d,\n  \"restarted_from_step\": ", run_steps);
  if (r->restarted) fprintf(f, "%d", r->steps0);
  else fprintf(f, "null");
  fprintf(f, ",\n  \"final_time\": "), json_number(f, c->final_time);
  fprintf(f, ",\n  \"time\": "), json_number(f, r->t);
  fprintf(f, ",\n  \"wall_seconds\": "), json_number(f, wall);
  fprintf(f, ",\n  \"seconds_per_step\": "), json_number(f, r->stage[STAGE_STEP] / n);
  fprintf(f, ",\n  \"stage_seconds\": {");
  for (int k = 0; k < NSTAGE; ++k) fprintf(f, "%s\"%s\": ", k ? ", " : "", stage_name[k]), json_number(f, r->stage[k]);
  fprintf(f, "},\n  \"step_seconds\": {");
  for (int k = 0; k < INSDG_NSTAGES; ++k)
    fprintf(f, "%s\"%s\": ", k ? ", " : "", insdg_stage_names[k]), json_number(f, r->step_stage[k]);
  fprintf(f, "},\n  \"mean_iterations\": {\"u\": "), json_number(f, (double)r->iterations[0] / n);
  fprintf(f, ", \"v\": "), json_number(f, (double)r->iterations[1] / n);
  fprintf(f, ", \"p\": "), json_number(f, (double)r->iterations[2] / n);
  /* since t = 0: this run's iterations and those of the rows diagnostics.csv kept of the
     runs before (null when some earlier step has no row there) */
  fprintf(f, "},\n  \"mean_iterations_since_start\": ");
  if (!r->restarted || (r->prior_known && r->steps > 0)) {
    static const char *const name[3] = {"u", "v", "p"};
    const int since = r->steps > 0 ? r->steps : 1;
    for (int k = 0; k < 3; ++k)
      fprintf(f, "%s\"%s\": ", k ? ", " : "{", name[k]),
          json_number(f, (double)(r->prior_iterations[k] + r->iterations[k]) / since);
    fprintf(f, "}");
  } else {
    fprintf(f, "null");
  }
  fprintf(f, ",\n  \"errors\": "), json_errors(f, &r->errors, c->has_exact);
  json_profile(f, &r->profile);
  json_counters(f, r);
  double most = 0;   /* peak resident memory of each rank (getrusage), for scaling studies */
  fprintf(f, ",\n  \"max_rss_mib\": ");
  for (int i = 0; i < r->size; ++i) most = fmax(most, r->rss_mib[i]);
  json_number(f, most);
  fprintf(f, ",\n  \"rss_mib_per_rank\": [");
  for (int i = 0; i < r->size; ++i) fprintf(f, "%s", i ? ", " : ""), json_number(f, r->rss_mib[i]);
  fprintf(f, "]");
  fprintf(f, ",\n  \"setup_rss_mib_per_rank\": [");
  for (int i = 0; i < r->size; ++i) fprintf(f, "%s", i ? ", " : ""), json_number(f, r->setup_rss_mib[i]);
  fprintf(f, "]");
  fprintf(f, ",\n  \"checkpoints\": {\"written\": %d, \"deleted_older\": %d, \"write_seconds\": ", r->checkpoints,
          r->checkpoints_pruned);
  json_number(f, r->checkpoint_seconds);
  fprintf(f, ", \"restart_read_seconds\": "), json_number(f, r->restart_seconds);
  fprintf(f, "}");
  fprintf(f, ",\n  \"field_files\": %d,\n  \"converged\": %s,\n  \"status\": ", r->files,
          r->converged ? "true" : "false");
  json_string(f, status_text(r));
  fprintf(f, ",\n  \"stop_reason\": "), json_string(f, stop_reason(r));
  fprintf(f, ",\n  \"steady_tolerance\": ");
  if (c->steady_tolerance > 0) json_number(f, c->steady_tolerance);
  else fprintf(f, "null");
  fprintf(f, ",\n  \"velocity_change\": "), json_number(f, r->velocity_change);
  fprintf(f, ",\n  \"probes\": %d", c->nprobes);
  statistics_json(f, r->stats);
  fprintf(f, "\n}\n");
}

int write_summary(const run_state *r, char *err, size_t errlen)
{
  char path[INSDG_CASE_PATH_LEN + 32], tmp[INSDG_CASE_PATH_LEN + 40];
  snprintf(path, sizeof path, "%s/summary.json", r->s->outdir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    snprintf(err, errlen, "%.300s: cannot write: %s", tmp, strerror(errno));
    return 1;
  }
  json_body(f, r, MPI_Wtime() - r->wall_start);
  const int bad = ferror(f) | (fclose(f) != 0);
  if (bad || rename(tmp, path)) {
    char hint[300];
    const int why = errno;
    io_failure_hint(r->s->outdir, hint, sizeof hint);
    snprintf(err, errlen, "%.300s: cannot write: %s%s", path, strerror(why), hint);
    remove(tmp);
    return 1;
  }
  return 0;
}

/* ================================================================= progress ======== */

static void format_duration(double s, char *out, size_t len)
{
  if (!isfinite(s) || s < 0) snprintf(out, len, "?");
  else if (s < 60) snprintf(out, len, "%.0fs", s);
  else if (s < 3600) snprintf(out, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
  else snprintf(out, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

void end_progress_line(progress *pg)
{
  if (pg->open) printf("\n"), fflush(stdout);
  pg->open = 0;
}

int progress_on_terminal(insdg_progress_mode mode)
{
  if (mode != INSDG_PROGRESS_AUTO) return mode == INSDG_PROGRESS_LINE;
  return isatty(1) && !getenv("OMPI_COMM_WORLD_SIZE");
}

/* rank 0: rewrite the progress line on a terminal (at most 10 times a second), else a log
   line every 2% of the steps and at the last */
void show_progress(progress *pg, const run_state *r, const insdg_ins_stats *st, const diagnostics *d)
{
  const int n = r->s->nsteps, every = n / 50 > 0 ? n / 50 : 1;
  const double now = MPI_Wtime(), eta = (now - r->loop_start) / (r->steps - r->steps0) * (n - r->steps);
  char eta_s[32];
  format_duration(eta, eta_s, sizeof eta_s);
  const double frac = r->t / r->s->c->final_time;
  if (pg->tty) {
    if (now - pg->last_print < 0.1 && r->steps < n) return;
    pg->last_print = now;
    printf("\rstep %d/%d  t/T %.3f  ETA %s  it u/v/p %d/%d/%d   ", r->steps, n, frac, eta_s, st->vel_iterations[0],
           st->vel_iterations[1], st->p_iterations);
    pg->open = 1;
    if (r->steps == n) end_progress_line(pg);
  } else if (r->steps % every == 0 || r->steps == n) {
    printf("step %d/%d  t %.6g  t/T %.3f  ETA %s  it u/v/p %d/%d/%d  KE %.6e  max|div u| %.3e  CFL %.3f\n", r->steps,
           n, r->t, frac, eta_s, st->vel_iterations[0], st->vel_iterations[1], st->p_iterations, d->kinetic_energy,
           d->max_div, d->cfl);
  }
  fflush(stdout);
}

/* =================================================================== the log ======== */

void print_start(const run_state *r)
{
  const setup *s = r->s;
  const insdg_case *c = s->c;
  printf("%s\n", insdg_version_string());
  printf("insdg run: case %s (%s)\n", c->name, c->path);
  printf("  mesh %s: K = %d triangles, order N = %d (%d nodes per element), %ld degrees of freedom\n", c->mesh,
         s->mesh->K, c->order, s->ref->Np, 3L * s->mesh->K * s->ref->Np);
  printf("  %d rank(s), %d blocks (%s), %d CPU (from %s) and %d CUDA worker(s) per rank, scheduler %s, malloc %s",
         r->size, s->L->B, s->blocks_origin, r->workers, insdg_runtime_workers_origin(), r->cuda_workers,
         insdg_runtime_scheduler(), insdg_runtime_allocator());
  if (!strcmp(insdg_runtime_main_thread(), "drives a worker")) printf(", the main thread drives a worker");
  if (!strcmp(insdg_runtime_main_thread(), "runs the tasks with helpers"))
    printf(", the main thread and %d helper thread(s) run the tasks", r->workers - 1);
  printf("\n");
  if (insdg_runtime_async_copies_off())
    printf("  StarPU's asynchronous host-device copies off (several ranks with GPU workers: "
           "STARPU_DISABLE_ASYNCHRONOUS_COPY=0 turns them on; docs/user_guide.md)\n");
  printf("  nu = %g, dt = %g, %d steps to t = %g, BDF/EXT order %d, %d substeps\n", c->nu, c->dt, s->nsteps,
         c->final_time, c->time_order, c->substeps);
  printf("  pressure: %s; output: %s\n", r->pure_neumann ? "pure Neumann (mean fixed to zero)" : "Dirichlet on outflow",
         s->outdir);
  if (c->nprobes > 0 && c->probe_interval > 0)
    printf("  %d probe(s) into probes.csv, every %g\n", c->nprobes, c->probe_interval);
  else if (c->nprobes > 0)
    printf("  %d probe(s) into probes.csv, every step\n", c->nprobes);
  if (c->has_statistics) printf("  statistics (time averages, force statistics) from t = %g\n", c->statistics_start);
  if (c->steady_tolerance > 0)
    printf("  steady stop: when the relative velocity change per unit time is below %g\n", c->steady_tolerance);
  fflush(stdout);
}

void print_velocity_preconditioner(const run_state *r)
{
  printf("  velocity solves: PCG with %s (stiffness/mass diagonal ratio %.3g; the default: inverse_mass up to %g, "
         "block_jacobi up to %g, pmg_amg above)\n",
         insdg_precond_name((insdg_precond)r->vel_precond), r->vel_ratio, INSDG_VEL_BLOCK_RATIO, INSDG_VEL_PMG_RATIO);
  if (r->p_coarse == INSDG_PMG_COARSE_CHOLESKY)
    printf("  pressure pMG coarse solve: sparse Cholesky of the %d aggregated unknowns (nested dissection, %ld factor "
           "entries)\n",
           r->p_coarse_rows, r->p_coarse_size);
  else if (r->p_coarse == INSDG_PMG_COARSE_BAND)
    printf("  pressure pMG coarse solve: banded Cholesky of the %d aggregated unknowns (half bandwidth %ld)\n",
           r->p_coarse_rows, r->p_coarse_size);
  else if (r->p_coarse == INSDG_PMG_COARSE_AMG)
    printf("  pressure pMG coarse solve: AMG K-cycle step on the %d aggregated unknowns\n", r->p_coarse_rows);
  fflush(stdout);
}

void print_end(const run_state *r)
{
  const insdg_case *c = r->s->c;
  const int run_steps = r->steps - r->steps0, n = run_steps > 0 ? run_steps : 1;
  if (r->restarted)
    printf("insdg run: steps %d to %d (%d in this run) to t = %g in %.3g s (%.3g s per step), status: %s\n",
           r->steps0 + 1, r->steps, run_steps, r->t, MPI_Wtime() - r->wall_start, r->stage[STAGE_STEP] / n,
           status_text(r));
  else
    printf("insdg run: %d steps to t = %g in %.3g s (%.3g s per step), status: %s\n", r->steps, r->t,
           MPI_Wtime() - r->wall_start, r->stage[STAGE_STEP] / n, status_text(r));
  if (r->steady && !reached_end(r))
    printf("  stopped at steady state: the relative velocity change per unit time %.3e is below [time] "
           "steady_tolerance = %g (t = %g of final_time %g)\n", r->velocity_change, c->steady_tolerance, r->t,
           c->final_time);
  if (r->worker_pauses > 0)   /* taken_cores.h: the log said when */
    printf("  other processes took the cores of CPU workers: %d pause(s); those workers' blocks ran on the "
           "others meanwhile (results unchanged; INSDG_PAUSE_WORKERS=0 turns it off)\n", r->worker_pauses);
  static const char *const name[NERR] = {"u", "v", "p"};
  for (int k = 0; k < NERR && c->has_exact; ++k)
    if (r->errors.have[k] && isfinite(r->errors.relative[k]))
      printf("  L2 error of %s: %.6e (relative %.6e)\n", name[k], r->errors.absolute[k], r->errors.relative[k]);
    else if (r->errors.have[k])   /* relative to a zero exact field: none (summary.json: null) */
      printf("  L2 error of %s: %.6e (the exact %s is zero: no relative error)\n", name[k], r->errors.absolute[k],
             name[k]);
  printf("  wrote %d field file(s)%s%s%s in %s%s\n", r->files, r->csv_failed ? "" : ", diagnostics.csv",
         r->s->pr ? ", probes.csv" : "",
         r->summary_written ? " and summary.json" : "", r->s->outdir,
         r->summary_written ? "" : " (summary.json could NOT be written)");
  fflush(stdout);
}

/* which solve failed, from the iteration counts (a solve that stops early converged) */
void report_not_converged(const run_state *r, const insdg_ins_stats *st)
{
  const insdg_case *c = r->s->c;
  char what[256] = "";
  const int its[3] = {st->vel_iterations[0], st->vel_iterations[1], st->p_iterations};
  const int limit[3] = {c->velocity.max_iterations, c->velocity.max_iterations, c->pressure.max_iterations};
  static const char *const solve[3] = {"the velocity (u) solve ", "the velocity (v) solve ", "the pressure solve "};
  for (int k = 0; k < 3; ++k)
    if (its[k] >= limit[k]) strcat(what, *what ? "and " : ""), strcat(what, solve[k]);
  fprintf(stderr, "insdg: step %d: %sdid not converge (iterations u/v/p %d/%d/%d, limits %d/%d, tolerances %g/%g); "
                  "stopping after writing the fields and summary\n",
          r->steps, *what ? what : "a solve ", st->vel_iterations[0], st->vel_iterations[1], st->p_iterations,
          c->velocity.max_iterations, c->pressure.max_iterations, c->velocity.tolerance, c->pressure.tolerance);
}

void output_failure(run_state *r, progress *pg, const char *err, int with_hint)
{
  char hint[300] = "";
  r->output_failed = 1;
  if (with_hint) io_failure_hint(r->s->outdir, hint, sizeof hint);
  if (r->rank == 0) end_progress_line(pg), fprintf(stderr, "insdg: error: %s%s\n", err, hint);
}
