/* case.h -- the case file of an insdg run (INI, read with inih) and its expressions
 * (muparser, through its C API). The user reference is docs/case_file.md.
 *
 * insdg_case_read checks the whole file before anything else happens: an unknown section
 * or key, a duplicate, a missing required key, a value of the wrong type or out of range,
 * a malformed expression or one using a name that is not defined is reported as one line
 * "<path>:<line>: [section] key: what is wrong" (line 0 when the section is missing;
 * "<path>: what" for a file that cannot be read). On success every field below holds its
 * value with the defaults applied, and paths are resolved relative to the directory of
 * the case file (absolute paths are kept). The mesh's boundary names are checked later,
 * once the mesh is read, by insdg_case_check_boundaries.
 *
 * Expressions: an insdg_expr is a compiled muparser expression in the variables x, y, t
 * and the case's named constants (the [constants] section, nu from [physics], and pi).
 * Evaluation writes x, y, t into the expression and runs muparser's bytecode, so ONE
 * expression must not be evaluated by two threads at once; distinct expressions may.
 *
 * Ownership: insdg_case_read allocates the case and everything it points to (expressions,
 * the boundary and constant arrays); insdg_case_destroy releases all of it. Expressions
 * belong to their case and die with it.
 */
#ifndef INSDG_CASE_H
#define INSDG_CASE_H

#include <stddef.h>
#include <stdio.h>

#define INSDG_CASE_PATH_LEN 4096   /* bytes of a resolved path, with its NUL */
#define INSDG_CASE_NAME_LEN 128    /* bytes of a name (case, boundary, constant), with NUL */
#define INSDG_CASE_DEFAULT_CHECKPOINTS_KEPT 3   /* [output] checkpoints_kept */
#define INSDG_CASE_MAX_FORCES 16   /* boundaries listed in [output] forces */
#define INSDG_CASE_MAX_PMG 16      /* degrees listed in [pressure_solver] pmg_degrees */
#define INSDG_CASE_MAX_PROJECTION 8      /* [*_solver] projection: at most this window (projection.h) */
#define INSDG_CASE_DEFAULT_PROJECTION 8  /* and by default */

/* ---- expressions ---------------------------------------------------------------------- */

typedef struct insdg_expr insdg_expr;

/* Value at (x, y) and time t. Not thread-safe for one expression (see above). */
double insdg_expr_eval(const insdg_expr *e, double x, double y, double t);

/* out[i] = e(x[i], y[i], t) for i < n; arrays of n doubles, out may not alias x or y. */
void insdg_expr_eval_many(const insdg_expr *e, size_t n, const double *x, const double *y,
                          double t, double *out);

/* The expression as written in the case file (owned by e). */
const char *insdg_expr_text(const insdg_expr *e);

/* Where it was written: the line of its key in the case file (0 for a default) and
   "[section] key", for messages about its values. */
int insdg_expr_line(const insdg_expr *e);
const char *insdg_expr_where(const insdg_expr *e);

/* Which variables the expression uses: a mask of INSDG_EXPR_USES_*. An expression
   without INSDG_EXPR_USES_T need not be evaluated again as time advances. */
enum { INSDG_EXPR_USES_X = 1, INSDG_EXPR_USES_Y = 2, INSDG_EXPR_USES_T = 4 };
unsigned insdg_expr_uses(const insdg_expr *e);

/* ---- the case ------------------------------------------------------------------------- */

typedef enum {
  INSDG_BOUNDARY_INFLOW = 0,   /* velocity Dirichlet u, v (a moving wall is one, too) */
  INSDG_BOUNDARY_WALL = 1,     /* velocity Dirichlet u = v = 0 */
  INSDG_BOUNDARY_OUTFLOW = 2   /* natural (Neumann) velocity, pressure Dirichlet p */
} insdg_boundary_kind;

typedef enum {
  INSDG_PRECOND_DEFAULT = 0,   /* the solver's default (never read from a case file) */
  INSDG_PRECOND_NONE,
  INSDG_PRECOND_JACOBI,
  INSDG_PRECOND_INVERSE_MASS,  /* velocity only */
  INSDG_PRECOND_PMG_AMG,       /* pressure; velocity by choice (pMG-AMG of lambda M + S) */
  INSDG_PRECOND_FULL_AMG,      /* pressure only */
  INSDG_PRECOND_BLOCK_JACOBI   /* velocity only: the operator's element diagonal blocks */
} insdg_precond;

/* "none", "jacobi", "inverse_mass", "pmg_amg", "full_amg" (the case-file spelling) */
const char *insdg_precond_name(insdg_precond p);

typedef struct {
  char name[INSDG_CASE_NAME_LEN];   /* the Gmsh physical name (section [boundary.NAME]) */
  char type[16];                    /* "inflow", "wall" or "outflow" */
  insdg_boundary_kind kind;         /* the same as an enum */
  /* Data in x, y, t. Non-NULL exactly where the type uses it: inflow u and v; outflow p
     (given, or the expression "0"); everything else NULL (a wall is u = v = 0). */
  insdg_expr *u, *v, *p;
  int line;                         /* line of the section header, for messages */
} insdg_case_boundary;

typedef struct {
  double tolerance;                 /* relative: stop when ||r|| <= tolerance ||b|| */
  int max_iterations;
  insdg_precond preconditioner;
  int projection;                   /* solution projection: window of previous solutions (0: off) */
  int min_iterations;               /* PCG iterations at least (after a projected guess) */
  int npmg_degrees;                 /* 0: the default sequence (pmg.h) */
  int pmg_degrees[INSDG_CASE_MAX_PMG];  /* [npmg_degrees]: first = order, decreasing, last 1 */
  int pmg_point_jacobi;             /* pmg_smoother = jacobi (default block_jacobi) */
  int pmg_chebyshev_degree;         /* pmg_chebyshev_degree (default 2; the pMG library's own default is 4) */
  int pmg_coarse_amg;               /* pmg_coarse = amg (default auto: banded Cholesky where it is cheaper) */
} insdg_case_solver;

typedef struct {
  char name[INSDG_CASE_NAME_LEN];   /* an identifier: [A-Za-z_][A-Za-z0-9_]* */
  double value;                     /* finite */
} insdg_case_constant;

typedef struct {
  char name[INSDG_CASE_NAME_LEN];   /* an identifier: [A-Za-z_][A-Za-z0-9_]*, not "interval" */
  double x, y;                      /* the point (finite) */
  int line;                         /* line of its key, for messages */
} insdg_case_probe;

typedef struct insdg_case {
  char path[INSDG_CASE_PATH_LEN];   /* the case file as given */
  char dir[INSDG_CASE_PATH_LEN];    /* its directory ("" when the path has none) */

  /* [case] */
  char name[INSDG_CASE_NAME_LEN];   /* default: the case file's stem; letters, digits, _-.+ */
  char mesh[INSDG_CASE_PATH_LEN];   /* resolved; the file exists and is readable */
  int order;                        /* N, 1..15 */
  int refine;                       /* uniform refinements of the mesh after reading, 0..6 */
  char output[INSDG_CASE_PATH_LEN]; /* resolved output directory (default out/<name>) */

  /* [constants], in file order, then "nu" last (nconstants counts it) */
  int nconstants;
  insdg_case_constant *constants;   /* [nconstants] */

  /* [physics] */
  double nu;                        /* kinematic viscosity, > 0 (length^2 / time) */

  /* [time] */
  double dt;                        /* time step, > 0 */
  double final_time;                /* > 0; the run covers [0, final_time] */
  int time_order;                   /* S, BDF/EXT order, 1..2 (default 2; S = 3 is unstable with this splitting: docs/numerics.md) */
  int substeps;                     /* Ns, semi-Lagrangian substeps; 0: no subcycling */
  int start_exact;                  /* [time] start = exact: the history before t = 0 from [exact]
                                       (verification); 0 (lower_order): lower-order start-up */
  double steady_tolerance;          /* [time] steady_tolerance: stop when the velocity's relative change
                                       per unit time falls below it (docs/case_file.md); 0: never */

  /* [velocity_solver], [pressure_solver] */
  insdg_case_solver velocity, pressure;

  /* [initial], at t = 0: u and v given, p default "0"; all non-NULL */
  insdg_expr *initial_u, *initial_v, *initial_p;

  /* [boundary.NAME], in file order */
  int nboundary;
  insdg_case_boundary *boundary;    /* [nboundary] */

  /* [exact], optional: has_exact = 1 when the section is present; then exact_u and
     exact_v are non-NULL and exact_p may be NULL (pressure not known); else all NULL */
  int has_exact;
  insdg_expr *exact_u, *exact_v, *exact_p;

  /* [output] */
  double output_interval;           /* simulated time between field files; 0: final only */
  int checkpoint_interval_steps;    /* 0: none (a checkpoint is still written on signals) */
  double checkpoint_interval_seconds;  /* wall-clock seconds; 0: none */
  int checkpoints_kept;             /* the newest this many checkpoints stay; older ones are deleted
                                       once a newer one is complete (>= 1) */
  int nforces;
  char forces[INSDG_CASE_MAX_FORCES][INSDG_CASE_NAME_LEN];  /* boundary names, each with a
                                                                [boundary.NAME] section */
  int forces_line;                  /* line of the forces key, for messages (0: none) */

  /* [probes], in file order: named points sampled into probes.csv */
  int nprobes;
  insdg_case_probe *probes;         /* [nprobes] */
  double probe_interval;            /* simulated time between samples; 0: every step */

  /* [statistics], optional: has_statistics = 1 when the section is present */
  int has_statistics;
  double statistics_start;          /* the window's start (time), >= 0; default 0 */
  int statistics_line;              /* line of the section header, for messages */
} insdg_case;

/* Read and check the case file at path. Returns 0 and *out (free with insdg_case_destroy),
   or nonzero, *out = NULL, and one line in err (errlen bytes, always NUL-terminated):
   "<path>:<line>: [section] key: what". Needs no mesh; does check that the mesh file can
   be opened. */
int insdg_case_read(const char *path, insdg_case **out, char *err, size_t errlen);

/* Check the case against the mesh's boundary (dimension 1) physical names: every mesh
   boundary has a [boundary.NAME] section, every section names a mesh boundary, and every
   [output] forces name is a mesh boundary. Returns 0, or nonzero with one line in err. */
int insdg_case_check_boundaries(const insdg_case *c, const char *const *mesh_names,
                                int nnames, char *err, size_t errlen);

/* 1 when some boundary is an outflow (pressure Dirichlet); 0: pure-Neumann pressure. */
int insdg_case_has_outflow(const insdg_case *c);

/* The boundary called name, or NULL. */
const insdg_case_boundary *insdg_case_find_boundary(const insdg_case *c, const char *name);

/* A readable summary of every value (what the run will use), several lines. */
void insdg_case_print(const insdg_case *c, FILE *f);

/* Release everything; NULL is allowed. */
void insdg_case_destroy(insdg_case *c);

#endif
