/* strouhal.h -- the frequency of a periodic signal from its samples (the lift of
 * [statistics] in insdg run: docs/output.md, "Force statistics"). No MPI, no StarPU: the
 * unit test calls it directly.
 *
 * The signal y(t_i) less its mean crosses zero upwards once a period. A crossing counts
 * only after the signal has been below -HYSTERESIS times its largest excursion from the
 * mean since the previous one (noise around zero does not make extra crossings); its time
 * is interpolated linearly between the two samples around it. The signal is periodic when
 * there are at least INSDG_STROUHAL_MIN_PERIODS full periods between the first and the
 * last crossing and every one of them is within INSDG_STROUHAL_PERIOD_SPREAD (relative)
 * of their mean; the frequency is then the number of periods over the time they span.
 */
#ifndef INSDG_STROUHAL_H
#define INSDG_STROUHAL_H

#include <stddef.h>

#define INSDG_STROUHAL_MIN_PERIODS 3
#define INSDG_STROUHAL_PERIOD_SPREAD 0.05
#define INSDG_STROUHAL_HYSTERESIS 0.25

typedef struct {
  double frequency;   /* 1 / period, or NaN when not periodic */
  int periods;        /* full periods between the first and last counted crossings */
  const char *why;    /* NULL when periodic, else a reason: "constant", "too few periods",
                         "irregular periods" */
} insdg_periodicity;

/* y sampled at n increasing times t, with a stride: y[i * stride] is the value at t[i * stride] */
insdg_periodicity insdg_periodicity_detect(const double *t, const double *y, size_t n, size_t stride);

#endif
