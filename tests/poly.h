/* poly.h -- bivariate polynomials sum c_ab x^a y^b with exact derivatives, for tests that
 * compare operators with exact results. Header-only, test code. */
#ifndef INSDG_TEST_POLY_H
#define INSDG_TEST_POLY_H

#include <math.h>
#include <stdlib.h>

#define POLY_MAXDEG 20

typedef struct {
  int deg;
  double c[POLY_MAXDEG + 1][POLY_MAXDEG + 1];   /* c[a][b], a + b <= deg */
} poly;

/* random coefficients in [-1,1], reproducible by seed */
static inline poly poly_random(int deg, unsigned *seed)
{
  poly p = {0};
  p.deg = deg;
  for (int a = 0; a <= deg; ++a)
    for (int b = 0; a + b <= deg; ++b) {
      *seed = *seed * 1103515245u + 12345u;
      p.c[a][b] = ((*seed >> 8) & 0xffff) / 32768.0 - 1.0;
    }
  return p;
}

static inline double falling(int n, int k)
{
  double r = 1;
  for (int i = 0; i < k; ++i) r *= n - i;
  return r;
}

/* d^dx/dx^dx d^dy/dy^dy p at (x,y) */
static inline double poly_eval(const poly *p, int dx, int dy, double x, double y)
{
  double sum = 0;
  for (int a = dx; a <= p->deg; ++a)
    for (int b = dy; a + b <= p->deg; ++b)
      sum += p->c[a][b] * falling(a, dx) * falling(b, dy) * pow(x, a - dx) * pow(y, b - dy);
  return sum;
}

#endif
