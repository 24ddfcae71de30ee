/* projection.h -- initial guesses by projection onto the space of previous solutions
 * (Fischer, "Projection techniques for iterative solution of Ax = b with successive
 * right-hand sides", CMAME 1998; the scheme NekRS and libParanumal use for the pressure).
 *
 * A solver that solves A x = b once per time step with the same SPD operator A keeps an
 * A-orthonormal basis x_1 .. x_k (k <= L) of the span of its last solutions. Before a
 * solve the guess is the A-orthogonal projection of the unknown solution onto that span,
 *     x0 = sum_i (x_i . b) x_i,
 * the best approximation there in the A-norm (it needs b only); after the solve the new
 * information, d = x - x0, is A-orthogonalised against the basis (one application of A)
 * and added. When the basis is full, it restarts from the newest solution alone. All of
 * it is tasks: the coefficients stay in the task graph as distributed scalars (no host
 * wait), reductions are in block order (the same bits for any worker count).
 *
 * The basis is part of the scheme's state: a restarted run that reads it back makes the
 * same guesses as the uninterrupted run (insdg_ins_state).
 */
#ifndef INSDG_PROJECTION_H
#define INSDG_PROJECTION_H

#include "pcg.h"

enum { INSDG_PROJECTION_MAX = 8 };   /* L <= INSDG_DSCALAR_MAX - 1 */

typedef struct {
  insdg_tasks *T;
  int L, k;              /* window, basis vectors held */
  int guessed;           /* the last guess came from the basis (x0 = sum alpha_i x_i) */
  double key;            /* what the basis belongs to (the Helmholtz lambda): another key empties it */
  insdg_dfield *x[INSDG_PROJECTION_MAX];   /* the basis, A-orthonormal */
  insdg_dfield *d, *w;   /* scratch: new direction and A d */
  insdg_dscalar *alpha, *g, *c;
} insdg_projection;

/* L = 0: no projection (every call below does nothing); else 1 <= L <= INSDG_PROJECTION_MAX */
insdg_projection *insdg_projection_create(insdg_tasks *T, int L);
void insdg_projection_destroy(insdg_projection *P);

/* Before solving A x = b: if the basis is not empty and belongs to key, x = the
   projection of the solution onto it (returns 1); else (a basis of another key is
   emptied) x is left as the caller's guess (returns 0). */
int insdg_projection_guess(insdg_projection *P, double key, insdg_dfield *b, insdg_dfield *x);

/* After the solve: add the solution x to the span (applies A once). */
void insdg_projection_add(insdg_projection *P, const insdg_linop *A, insdg_dfield *x);

#endif
