/* statistics.c -- [statistics] of a run (run_internal.h): time averages and RMS of u, v, p
 * at every node, and the statistics of the forces, over the window of the steps whose
 * time is at least [statistics] start.
 *
 * Every step of the window has the same weight (the steps are dt apart): the mean is the
 * average over the steps, and the RMS is that of the fluctuation about it (the population
 * standard deviation, sqrt(mean((x - mean)^2))). The fields are accumulated on each rank
 * for its own elements with Welford's update (mean and the sum of squared deviations M2,
 * stable where the fluctuation is small against the mean). The forces' history in the
 * window (time, fx, fy on each force boundary) is kept whole, the same on every rank: the
 * force statistics and the lift's frequency come from it at the end, in two passes.
 *
 * Both survive a restart: the checkpoint carries the Welford sums as node fields and the
 * history as its statistics series (tasks/checkpoint.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "run_internal.h"
#include "strouhal.h"

enum { NSTAT = 3 };   /* u, v, p */
static const int stat_field[NSTAT] = {F_U, F_V, F_P};
static const char *const ckpt_name[2 * NSTAT] = {"statistics_u_mean", "statistics_v_mean", "statistics_p_mean",
                                                 "statistics_u_m2",   "statistics_v_m2",   "statistics_p_m2"};

struct statistics {
  const insdg_case *c;
  long long samples;          /* steps in the window so far */
  size_t n;                   /* this rank's nodes */
  double *mean[NSTAT], *m2[NSTAT];
  int ncol;                   /* 1 + 2 nforces: t, then fx, fy of each force boundary */
  size_t rows, cap;
  double *hist;               /* [rows][ncol] */
};

statistics *statistics_create(const insdg_case *c, const observer *ob)
{
  if (!c->has_statistics) return NULL;
  statistics *st = insdg_calloc(1, sizeof *st);
  st->c = c, st->n = (size_t)ob->nlocal * ob->m->ref->Np, st->ncol = 1 + 2 * c->nforces;
  for (int k = 0; k < NSTAT; ++k) st->mean[k] = new_array(st->n), st->m2[k] = new_array(st->n);
  return st;
}

void statistics_destroy(statistics *st)
{
  if (!st) return;
  for (int k = 0; k < NSTAT; ++k) free(st->mean[k]), free(st->m2[k]);
  free(st->hist), free(st);
}

long long statistics_samples(const statistics *st) { return st ? st->samples : 0; }

static void append_row(statistics *st, const double *row)
{
  if (st->rows == st->cap) {
    st->cap = st->cap ? 2 * st->cap : 256;
    st->hist = realloc(st->hist, sizeof(double) * st->cap * (size_t)st->ncol);
    INSDG_CHECK(st->hist);
  }
  memcpy(st->hist + st->rows * (size_t)st->ncol, row, sizeof(double) * (size_t)st->ncol);
  st->rows++;
}

void statistics_add(statistics *st, const observer *ob, double t, const diagnostics *d)
{
  if (!st || t < st->c->statistics_start - 1e-6 * st->c->dt) return;
  const double inv = 1.0 / (double)++st->samples;
  for (int k = 0; k < NSTAT; ++k) {
    const double *x = ob->local[stat_field[k]];
    double *mean = st->mean[k], *m2 = st->m2[k];
    for (size_t i = 0; i < st->n; ++i) {   /* Welford */
      const double delta = x[i] - mean[i];
      mean[i] += delta * inv;
      m2[i] += delta * (x[i] - mean[i]);
    }
  }
  double row[1 + 2 * INSDG_CASE_MAX_FORCES] = {t};
  for (int k = 0; k < st->c->nforces; ++k) row[1 + 2 * k] = d->force[k][0], row[2 + 2 * k] = d->force[k][1];
  append_row(st, row);
}

/* ------------------------------------------------------------------ fields ---- */

int statistics_fields(const statistics *st, double *out[2 * NSTAT], const char *name[2 * NSTAT],
                      const char *units[2 * NSTAT], char long_name[2 * NSTAT][160])
{
  if (!st || st->samples == 0) return 0;
  static const char *const mean_name[NSTAT] = {"u_mean", "v_mean", "p_mean"};
  static const char *const rms_name[NSTAT] = {"u_rms", "v_rms", "p_rms"};
  static const char *const unit[NSTAT] = {"m s-1", "m s-1", "m2 s-2"};
  static const char *const what[NSTAT] = {"x velocity", "y velocity", "kinematic pressure"};
  const double t0 = st->hist[0], t1 = st->hist[(st->rows - 1) * (size_t)st->ncol];
  for (int k = 0; k < NSTAT; ++k) {
    out[k] = st->mean[k];
    for (size_t i = 0; i < st->n; ++i) out[NSTAT + k][i] = sqrt(fmax(st->m2[k][i], 0) / (double)st->samples);
    name[k] = mean_name[k], name[NSTAT + k] = rms_name[k], units[k] = units[NSTAT + k] = unit[k];
    snprintf(long_name[k], 160, "time mean of the %s over the %lld steps of t in [%.9g, %.9g]", what[k], st->samples,
             t0, t1);
    snprintf(long_name[NSTAT + k], 160, "RMS of the %s's fluctuation about its mean over the %lld steps of t in "
             "[%.9g, %.9g]", what[k], st->samples, t0, t1);
  }
  return 2 * NSTAT;
}

/* --------------------------------------------------------------- summary.json ---- */

typedef struct {
  double mean, rms, min, max;
} moments;

/* column col of the history, times scale */
static moments history_moments(const statistics *st, int col, double scale)
{
  moments m = {0, 0, INFINITY, -INFINITY};
  for (size_t i = 0; i < st->rows; ++i) {
    const double x = scale * st->hist[i * (size_t)st->ncol + col];
    m.mean += x, m.min = fmin(m.min, x), m.max = fmax(m.max, x);
  }
  m.mean /= (double)st->rows;
  for (size_t i = 0; i < st->rows; ++i) {
    const double x = scale * st->hist[i * (size_t)st->ncol + col] - m.mean;
    m.rms += x * x;
  }
  m.rms = sqrt(m.rms / (double)st->rows);
  return m;
}

static void json_num(FILE *f, double x)
{
  if (isfinite(x)) fprintf(f, "%.17g", x);
  else fprintf(f, "null");
}

static void json_moments(FILE *f, const char *name, moments m)
{
  fprintf(f, "\"%s\": {\"mean\": ", name), json_num(f, m.mean);
  fprintf(f, ", \"rms\": "), json_num(f, m.rms);
  fprintf(f, ", \"min\": "), json_num(f, m.min);
  fprintf(f, ", \"max\": "), json_num(f, m.max), fprintf(f, "}");
}

/* one force boundary: the forces, the coefficients (with Uref, Dref), the lift's period */
static void json_force(FILE *f, const statistics *st, int k, int scaled, double U, double D)
{
  const double cscale = scaled ? 2 / (U * U * D) : NAN;
  fprintf(f, "{");
  json_moments(f, "fx", history_moments(st, 1 + 2 * k, 1)), fprintf(f, ", ");
  json_moments(f, "fy", history_moments(st, 2 + 2 * k, 1)), fprintf(f, ", ");
  if (scaled) {
    json_moments(f, "cd", history_moments(st, 1 + 2 * k, cscale)), fprintf(f, ", ");
    json_moments(f, "cl", history_moments(st, 2 + 2 * k, cscale)), fprintf(f, ", ");
  } else {
    fprintf(f, "\"cd\": null, \"cl\": null, ");
  }
  const insdg_periodicity p = insdg_periodicity_detect(st->hist, st->hist + 2 + 2 * k, st->rows, (size_t)st->ncol);
  fprintf(f, "\"lift_periods\": %d, \"lift_frequency\": ", p.periods), json_num(f, p.frequency);
  fprintf(f, ", \"strouhal\": "), json_num(f, scaled ? p.frequency * D / U : NAN);
  fprintf(f, ", \"not_periodic\": ");
  if (p.why) fprintf(f, "\"%s\"", p.why);
  else fprintf(f, "null");
  fprintf(f, "}");
}

void statistics_json(FILE *f, const statistics *st)
{
  fprintf(f, ",\n  \"statistics\": ");
  if (!st) {
    fprintf(f, "null");
    return;
  }
  const insdg_case *c = st->c;
  fprintf(f, "{\"start\": "), json_num(f, c->statistics_start);
  fprintf(f, ", \"samples\": %lld, \"first_time\": ", st->samples);
  json_num(f, st->rows ? st->hist[0] : NAN);
  fprintf(f, ", \"last_time\": "), json_num(f, st->rows ? st->hist[(st->rows - 1) * (size_t)st->ncol] : NAN);
  fprintf(f, ", \"forces\": {");
  double U = 0, D = 0;
  const int scaled = reference_scales(c, &U, &D);
  for (int k = 0; k < c->nforces; ++k) {
    fprintf(f, "%s\"%s\": ", k ? ", " : "", c->forces[k]);
    if (st->rows == 0) fprintf(f, "null");
    else json_force(f, st, k, scaled, U, D);
  }
  fprintf(f, "}}");
}

/* ---------------------------------------------------------------- checkpoints ---- */

/* "t fx_NAME fy_NAME ...": the history's columns, for a checkpoint to say what it holds */
static void series_columns(const insdg_case *c, char *out, size_t len)
{
  snprintf(out, len, "t");
  for (int k = 0; k < c->nforces; ++k)
    snprintf(out + strlen(out), len - strlen(out), " fx_%.60s fy_%.60s", c->forces[k], c->forces[k]);
}

/* the checkpoint's statistics are this case's: the same window start and force boundaries */
static int same_statistics(const insdg_case *c, int present, double start, const char *columns)
{
  char mine[INSDG_CHECKPOINT_COLUMNS_LEN];
  series_columns(c, mine, sizeof mine);
  return present && start == c->statistics_start && !strcmp(columns, mine);
}

void statistics_checkpoint(const statistics *st, insdg_checkpoint_stats *out)
{
  memset(out, 0, sizeof *out);
  if (!st) return;
  out->present = 1, out->start = st->c->statistics_start, out->samples = st->samples;
  out->nfields = 2 * NSTAT;
  for (int k = 0; k < NSTAT; ++k) {
    out->names[k] = ckpt_name[k], out->names[NSTAT + k] = ckpt_name[NSTAT + k];
    out->local[k] = st->mean[k], out->local[NSTAT + k] = st->m2[k];
  }
  out->ncolumns = st->ncol, out->nrows = st->rows, out->series = st->hist;
  series_columns(st->c, out->columns, sizeof out->columns);
}

void statistics_restored(statistics *st, insdg_checkpoint_stats *in)
{
  if (!st || !same_statistics(st->c, in->present, in->start, in->columns) || in->ncolumns != st->ncol) {
    free(in->series);   /* none, or of another window: this run starts its own (restart_precheck allowed it) */
    for (int k = 0; st && k < NSTAT; ++k)
      memset(st->mean[k], 0, sizeof(double) * st->n), memset(st->m2[k], 0, sizeof(double) * st->n);
    if (st) st->samples = 0, st->rows = 0;
    return;
  }
  st->samples = in->samples;   /* the means and M2 were read into st's arrays */
  free(st->hist);
  st->hist = in->series, st->rows = st->cap = in->nrows;
  if (!st->hist) st->hist = new_array(1);
}

int statistics_check_restart(const insdg_case *c, const char *path, int present, double start, const char *columns,
                             double t, char *err, size_t errlen)
{
  if (!c->has_statistics) return 0;   /* statistics in the file are checked, and left unused */
  if (same_statistics(c, present, start, columns)) return 0;
  if (c->statistics_start > t + 1e-6 * c->dt) return 0;   /* the window starts after it: nothing lost */
  if (present && start == c->statistics_start)
    snprintf(err, errlen, "--restart: %.300s: its statistics are of the forces on other boundaries (%.300s) than "
             "this case's [output] forces (%.300s:%d): the averages cannot be continued", path, columns, c->path,
             c->forces_line);
  else if (present)
    snprintf(err, errlen, "--restart: %.300s: its statistics are over a window from t = %.17g, this case's "
             "[statistics] start (%.300s:%d) is %.17g: the averages cannot be continued", path, start, c->path,
             c->statistics_line, c->statistics_start);
  else
    snprintf(err, errlen, "--restart: %.300s: the checkpoint (t = %.17g) holds no statistics, and this case's "
             "window ([statistics] start = %.17g, %.300s:%d) began before it: the averages cannot be continued "
             "(restart from a checkpoint before the window, or set start later than %.17g)", path, t,
             c->statistics_start, c->path, c->statistics_line, t);
  return 1;
}
