/* test_strouhal.c -- the lift's period detector of [statistics] (tasks/strouhal.h) on
 * synthetic signals whose frequency is known: a sine with a mean and a harmonic, the
 * same with noise, a signal sampled unevenly, a constant, round-off around a constant,
 * too few periods, a chirp (irregular periods), and a strided history like the run's
 * (t, fx, fy rows). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

static const double PI = 3.14159265358979323846;
#include "strouhal.h"

/* a reproducible uniform number in [-1, 1] */
static double noise(unsigned *state)
{
  *state = *state * 1103515245u + 12345u;
  return ((*state >> 8) & 0xffff) / 32767.5 - 1;
}

enum { MAXN = 20000 };
static double t[MAXN], y[MAXN];

/* n samples of f(t) from 0 with step dt */
static void sample(size_t n, double dt, double (*f)(double, unsigned *), unsigned seed)
{
  unsigned s = seed;
  for (size_t i = 0; i < n; ++i) t[i] = i * dt, y[i] = f(t[i], &s);
}

static double lift(double x, unsigned *s)
{
  (void)s;
  return 0.3 + 0.8 * sin(2 * PI * 0.2 * x + 0.4) + 0.1 * sin(2 * PI * 0.4 * x);
}
static double noisy(double x, unsigned *s) { return lift(x, s) + 0.02 * noise(s); }
static double constant(double x, unsigned *s) { (void)x, (void)s; return 1.25; }
static double roundoff(double x, unsigned *s) { (void)x; return 1e-17 * noise(s); }
static double chirp(double x, unsigned *s) { (void)s; return sin(2 * PI * (0.1 * x + 0.01 * x * x)); }

static void expect_frequency(const char *what, insdg_periodicity p, double f, double tol, int min_periods)
{
  printf("%-28s frequency %.8f (exact %.8f), %d periods, %s\n", what, p.frequency, f, p.periods,
         p.why ? p.why : "periodic");
  EXPECT(p.why == NULL && fabs(p.frequency - f) <= tol * f && p.periods >= min_periods,
         "%s: frequency %g, %d periods (%s), expected %g", what, p.frequency, p.periods, p.why ? p.why : "-", f);
}

static void expect_none(const char *what, insdg_periodicity p, const char *why)
{
  printf("%-28s %s (%d periods)\n", what, p.why ? p.why : "periodic", p.periods);
  EXPECT(p.why && isnan(p.frequency) && !strcmp(p.why, why), "%s: %s, frequency %g, expected: %s", what,
         p.why ? p.why : "periodic", p.frequency, why);
}

int main(void)
{
  sample(5001, 0.01, lift, 1);   /* 50 time units: 10 periods of 5 */
  expect_frequency("sine + harmonic + mean", insdg_periodicity_detect(t, y, 5001, 1), 0.2, 1e-6, 9);
  sample(5001, 0.01, noisy, 2);
  expect_frequency("with 2% noise", insdg_periodicity_detect(t, y, 5001, 1), 0.2, 2e-3, 9);
  sample(400, 0.13, lift, 3);   /* coarse: 38 samples a period */
  expect_frequency("coarse samples", insdg_periodicity_detect(t, y, 400, 1), 0.2, 2e-3, 9);
  sample(1000, 0.01, constant, 4);
  expect_none("constant", insdg_periodicity_detect(t, y, 1000, 1), "constant");
  sample(1000, 0.01, roundoff, 5);
  expect_none("round-off around zero", insdg_periodicity_detect(t, y, 1000, 1), "irregular periods");
  sample(1501, 0.01, lift, 6);   /* 15 time units: 3 crossings, 2 periods */
  expect_none("two periods", insdg_periodicity_detect(t, y, 1501, 1), "too few periods");
  sample(6001, 0.01, chirp, 7);
  expect_none("chirp", insdg_periodicity_detect(t, y, 6001, 1), "irregular periods");
  /* strided like the run's history: rows (t, fx, fy), the lift in column 2 */
  static double rows[3 * 5001];
  for (int i = 0; i < 5001; ++i) {
    unsigned s = 0;
    rows[3 * i] = i * 0.01, rows[3 * i + 1] = 1.3, rows[3 * i + 2] = lift(i * 0.01, &s);
  }
  expect_frequency("strided rows", insdg_periodicity_detect(rows, rows + 2, 5001, 3), 0.2, 1e-6, 9);
  if (failures) printf("test_strouhal: %d failure(s)\n", failures);
  else printf("test_strouhal: ok\n");
  return failures != 0;
}
