/* ins.h -- the incompressible Navier-Stokes time step of paper §2.2 on the task graph:
 * BDF/EXT of order S = 1..3 (S = 3 is unstable: docs/numerics.md; the case file refuses it)
 * with lower-order start-up and the algebraic splitting with
 * pressure increment (eq. INS_TD_3_1-4):
 *   1. Uhat  = sum_i beta_i U^{n-i} - dt sum_i alpha_i N(U^{n-i})          (INS_TD_3_1)
 *   2. (-L + gamma/(nu dt)) Uhh = Uhat/(nu dt) - (1/nu) G P*                (INS_TD_3_2)
 *      with P* = sigma P^n, the pressure extrapolated from the history
 *   3. -L dP = -(gamma/dt) D Uhh                                            (INS_TD_3_3)
 *   4. U^{n+1} = Uhh - (dt/gamma) G dP,   P^{n+1} = P* + dP                 (INS_TD_3_4)
 * With Ns > 0, stage 1 is semi-Lagrangian (paper §2.3): Uhat = sum_i beta_i Utilde^{n-i},
 * each U^{n-i} advected to t^{n+1} by dU/dt = -Ntilde(Ubar, U) with LSERK4 and Ns
 * substeps per step, Ubar the polynomial through U^{n-i} at t^{n-i} (i < S); by
 * linearity the weighted sum is advected at once, adding beta_i U^{n-i} as it passes
 * t^{n-i}, so a step costs S Ns substeps.
 * Velocity Helmholtz: PCG (inverse mass matrix by default), one solve per component.
 * Pressure: flexible PCG (pMG-AMG by default); pure Neumann (no outflow) projects out the
 * constants and fixes the pressure's mean.
 *
 * Boundaries (per face, from the case): velocity Dirichlet on inflow and walls (data in
 * x, y, t), outflow natural for velocity and Dirichlet for pressure. The boundary data
 * come from a callback that fills face-node arrays [K][3Nfp] of the renumbered mesh.
 *
 * Fields live on the renumbered mesh of the task context's layout (partition.h).
 */
#ifndef INSDG_INS_H
#define INSDG_INS_H

#include "pcg.h"
#include "pmg.h"

typedef struct {
  double nu, dt;
  int S;                       /* BDF/EXT order 1..3 */
  int Ns;                      /* subcycling: LSERK4 substeps per step (paper §2.3); 0: EXT advection */
  int history;                 /* levels of history before t0 that insdg_ins_set_history gives
                                  (0..2): then the first steps are of order S already; 0: the
                                  lower-order start-up (BDF1/EXT1 first) */
  int pressure_extrapolation;  /* order k of P* (0: 1); k = 1: P* = P^n (the paper's first-order
                                  pressure increment), 2: 2P^n - P^{n-1}, 3: ...; k = 2 blows up on
                                  the square cylinder (outflow) at any dt: docs/numerics.md */
  const signed char *bc_vel;   /* [K][3] Dirichlet (inflow, wall) / Neumann (outflow) */
  const signed char *bc_p;     /* [K][3] Neumann (inflow, wall) / Dirichlet (outflow) */
  int pure_neumann;            /* no Dirichlet pressure boundary anywhere */
  /* boundary data at time t at the face nodes [K][3Nfp]: velocity values gu, gv (read on
     velocity-Dirichlet faces), the normal derivatives hu, hv of the velocity (read on
     outflow faces: zero for the natural condition) and the pressure gp (read on outflow
     faces); other entries are ignored, and so are the faces of other ranks' elements (a
     callback need fill only this rank's) */
  void (*boundary)(void *ctx, double t, double *gu, double *gv, double *gp, double *hu, double *hv);
  void *boundary_ctx;
  /* optional (subcycling): the Dirichlet velocity data at time t at the face nodes moved
     by (dx, dy) [K][3Nfp] (boundary_ctx). The advected U^{n-i} must enter through an
     inflow boundary with its value at the foot of the characteristic at its own time
     t^{n-i}, upstream of the boundary: g(x - (tau - t^{n-i}) Ubar, t^{n-i}). Without it
     the data g(x, t^{n-i}) are used, which is inconsistent by (tau - t^{n-i}) DU/Dt in a
     band of width |u| dt along inflow boundaries (docs/numerics.md). */
  void (*velocity_at)(void *ctx, double t, const double *dx, const double *dy, double *gu, double *gv);
  double vel_tol, p_tol;
  int vel_maxit, p_maxit;
  /* preconditioners, values of insdg_precond (io/case.h); 0 (INSDG_PRECOND_DEFAULT) = the defaults: inverse
     mass for the velocity, pMG-AMG for the pressure. velocity: none, jacobi,
     inverse_mass; pressure: none, jacobi, pmg_amg (degrees pmg_degrees[npmg_degrees],
     0 = the default sequence), full_amg (the AMG of the assembled degree-N matrix of the whole mesh,
     held and applied on every rank to the gathered residual: a comparison option for
     runs on one node, O(K) memory per rank) */
  int vel_precond, p_precond;
  /* solution projection (projection.h): the window L of previous solutions the initial
     guess is projected from, per solve; 0: none (the guesses of docs/solvers.md:
     extrapolated velocity, the last pressure increment) */
  int vel_projection, p_projection;
  int vel_minit, p_minit;      /* PCG iterations at least (insdg_pcg_opts.minit) */
  int npmg_degrees;
  const int *pmg_degrees;
  int pmg_point_jacobi, pmg_cheb_degree;   /* pMG smoother (pmg.h); 0, 0: the defaults */
  int pmg_coarse;                          /* the pressure pMG's coarse solve (pmg.h; 0: auto) */
} insdg_ins_opts;

/* the stages of a step, as timed in insdg_ins_stats.seconds */
enum { INSDG_STAGE_ADVECTION, INSDG_STAGE_VELOCITY, INSDG_STAGE_PRESSURE, INSDG_STAGE_UPDATE, INSDG_NSTAGES };
extern const char *const insdg_stage_names[INSDG_NSTAGES];   /* "advection", "velocity", ... */

typedef struct {
  int vel_iterations[2], p_iterations;
  long p_iteration_tasks;      /* tasks the pressure solve's iterations inserted (insdg_pcg_result) */
  int converged;               /* all three solves */
  /* wall seconds of the step's stages on this rank (each stage ends with a wait for its
     tasks): advection (stage 1, EXT or subcycled, and N(U) of the new velocity),
     velocity (the right-hand sides and the two Helmholtz solves), pressure (its
     right-hand side and solve), update (projection, P^{n+1}, history) */
  double seconds[INSDG_NSTAGES];
  /* tasks inserted and host waits of each stage on this rank (runtime.h counters) */
  long tasks[INSDG_NSTAGES], waits[INSDG_NSTAGES];
} insdg_ins_stats;

typedef struct insdg_ins insdg_ins;

/* mesh: the ORIGINAL mesh (for the p-multigrid layouts); T: the task context */
insdg_ins *insdg_ins_create(insdg_tasks *T, const insdg_mesh *mesh, const insdg_ins_opts *opts);
void insdg_ins_destroy(insdg_ins *ins);
/* the velocity solves' preconditioner (insdg_precond), the default resolved; *ratio: the
   stiffness/mass diagonal ratio of lambda M + S at the scheme's lambda (pmg.h) */
int insdg_ins_velocity_preconditioner(const insdg_ins *ins, double *ratio);
/* the pressure pMG's coarse solve (insdg_pmg_coarse_solve: INSDG_PMG_COARSE_CHOLESKY, _BAND
   or _AMG, with *rows and *size as there), or -1 without pMG */
int insdg_ins_pressure_coarse(const insdg_ins *ins, int *rows, long *size);
/* The velocity preconditioner insdg run picks by default (insdg_precond) for a
   stiffness/mass ratio: inverse_mass up to INSDG_VEL_BLOCK_RATIO, block_jacobi up to
   INSDG_VEL_PMG_RATIO, pmg_amg above (docs/solvers.md, "Velocity preconditioner") */
#define INSDG_VEL_BLOCK_RATIO 20.0
#define INSDG_VEL_PMG_RATIO 200.0
/* the velocity pMG-AMG's Chebyshev degree: the projected guesses leave few iterations,
   and a degree-4 cycle doubled the velocity stage for no fewer of them (docs/solvers.md) */
#define INSDG_VEL_PMG_CHEBYSHEV 2
int insdg_ins_velocity_default(double ratio);

/* initial fields [K][Np] on the renumbered mesh, at time t0 */
void insdg_ins_set_initial(insdg_ins *ins, const double *u, const double *v, const double *p, double t0);

/* history level i = 1..opts.history, at t0 - i dt, after insdg_ins_set_initial and before
   the first step: the fields [K][Np] of an exact solution (verification) */
void insdg_ins_set_history(insdg_ins *ins, int i, const double *u, const double *v, const double *p);

/* advance one step; returns 0, or 1 when a solve did not converge (the step is taken) */
int insdg_ins_step(insdg_ins *ins, insdg_ins_stats *stats);

double insdg_ins_time(const insdg_ins *ins);
int insdg_ins_steps(const insdg_ins *ins);

/* The whole state the scheme needs to continue (for checkpoint and restart): the history
   fields in a fixed order with names, and the times. insdg_ins_state lists them (at most
   INSDG_INS_MAX_STATE); after writing the fields' values back (insdg_dfield_set),
   insdg_ins_restore_state sets the times and step count, so that the next step is
   bitwise the step an uninterrupted run would take. */
enum { INSDG_INS_MAX_STATE = 16 + 3 * 8 };   /* 8 = INSDG_PROJECTION_MAX */
int insdg_ins_state(insdg_ins *ins, insdg_dfield **fields, const char **names);
void insdg_ins_state_times(const insdg_ins *ins, double *t, int *steps, double *t_hist /* [4] */);
void insdg_ins_restore_state(insdg_ins *ins, double t, int steps, const double *t_hist /* [4] */);
/* The solution projections' part of the state (projection.h): the basis vectors each
   holds (pressure, u, v) and what the velocity bases belong to (the Helmholtz lambda).
   insdg_ins_state lists the bases' vectors ("p_proj0", ...) as far as these counts go,
   so a restart sets the counts first (clipped to this run's windows), then reads the
   fields. */
void insdg_ins_projection_state(const insdg_ins *ins, int counts[3], double *vel_key);
void insdg_ins_restore_projection(insdg_ins *ins, const int counts[3], double vel_key);

/* The boundary data at the current time (opts.boundary's gu, gv, gp, hu, hv, [K][3 Nfp]),
   from the solver's cache of the last two times its steps asked for (evaluated when it
   does not hold the time: the same bits either way). Valid until the next step. */
double *const *insdg_ins_boundary_now(insdg_ins *ins);

/* the current fields (distributed) */
insdg_dfield *insdg_ins_u(insdg_ins *ins);
insdg_dfield *insdg_ins_v(insdg_ins *ins);
insdg_dfield *insdg_ins_p(insdg_ins *ins);

#endif
