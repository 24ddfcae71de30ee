/* dense.c -- see dense.h. */
#include "dense.h"

#include <math.h>
#include <string.h>

int insdg_cholesky(int n, double *a)
{
  for (int j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (int k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0)) return -1;
    d = sqrt(d);
    a[j * n + j] = d;
    for (int i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (int k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / d;
    }
  }
  return 0;
}

int insdg_cholesky_lower(int n, const double *a, double *L)
{
  memcpy(L, a, sizeof(double) * (size_t)n * n);
  if (insdg_cholesky(n, L)) return -1;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) L[(size_t)i * n + j] = 0.0;
  return 0;
}
