/* strouhal.c -- see strouhal.h. */
#include "strouhal.h"

#include <math.h>
#include <stdlib.h>

#include "error.h"

static double mean_of(const double *y, size_t n, size_t stride)
{
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += y[i * stride];
  return n ? s / n : 0;
}

/* the times of the counted upward crossings of y - mean into cross (at most n); their count */
static size_t upward_crossings(const double *t, const double *y, size_t n, size_t stride, double mean, double band,
                               double *cross)
{
  size_t m = 0;
  int armed = 0;   /* the signal has been below -band since the last crossing */
  for (size_t i = 0; i + 1 < n; ++i) {
    const double a = y[i * stride] - mean, b = y[(i + 1) * stride] - mean;
    if (a < -band) armed = 1;
    if (armed && a < 0 && b >= 0) {
      const double ta = t[i * stride], tb = t[(i + 1) * stride];
      cross[m++] = ta + (tb - ta) * (-a) / (b - a);
      armed = 0;
    }
  }
  return m;
}

insdg_periodicity insdg_periodicity_detect(const double *t, const double *y, size_t n, size_t stride)
{
  insdg_periodicity p = {NAN, 0, NULL};
  const double mean = mean_of(y, n, stride);
  double excursion = 0;
  for (size_t i = 0; i < n; ++i) excursion = fmax(excursion, fabs(y[i * stride] - mean));
  /* a constant, or round-off around one: no period */
  if (n < 3 || !(excursion > 1e-12 * fmax(fabs(mean), 1e-300))) {
    p.why = "constant";
    return p;
  }
  double *cross = insdg_malloc(sizeof(double) * n);
  const size_t m = upward_crossings(t, y, n, stride, mean, INSDG_STROUHAL_HYSTERESIS * excursion, cross);
  p.periods = m > 1 ? (int)(m - 1) : 0;
  if (p.periods < INSDG_STROUHAL_MIN_PERIODS) {
    p.why = "too few periods";
  } else {
    const double T = (cross[m - 1] - cross[0]) / (double)(m - 1);
    for (size_t k = 0; k + 1 < m && !p.why; ++k)
      if (fabs(cross[k + 1] - cross[k] - T) > INSDG_STROUHAL_PERIOD_SPREAD * T) p.why = "irregular periods";
    if (!p.why) p.frequency = 1 / T;
  }
  free(cross);
  return p;
}
