/* run.h -- `insdg run CASE.ini`: a whole simulation from a case file (docs/user_guide.md).
 *
 * The driver reads and checks the case file (io/case.h), the mesh and the boundary names
 * before any work; a user error is printed once (rank 0) and every rank returns 2. It then
 * cuts the mesh into blocks over the MPI ranks, runs the time step of tasks/ins.h until
 * the final time and writes into the output directory: NetCDF-UGRID field files
 * fields_<step>.nc (u, v, p, vorticity), diagnostics.csv (one row per step) and
 * summary.json. While it runs, rank 0 shows one progress line on a terminal, plain log
 * lines otherwise.
 *
 * No StarPU or MPI types here, so that cli/main.c stays free of them.
 */
#ifndef INSDG_RUN_H
#define INSDG_RUN_H

/* How rank 0 shows progress: one line rewritten in place, or a log line every 2% of the
   steps. Auto: the line when stdout is a terminal and the program was not started by
   Open MPI's mpirun (which hands rank 0 a pseudo-terminal even when its own output goes
   to a file or a pipe), else log lines. */
typedef enum { INSDG_PROGRESS_AUTO = 0, INSDG_PROGRESS_LINE, INSDG_PROGRESS_LOG } insdg_progress_mode;

typedef struct {
  const char *case_path;   /* the case file */
  const char *output;      /* output directory, replacing the case's; NULL: the case's */
  int blocks;              /* total blocks over all ranks; <= 0: 4 per rank */
  insdg_progress_mode progress;
  const char *restart;     /* checkpoint to continue from, or NULL */
} insdg_run_opts;

/* Exit statuses of `insdg run` besides 0 (completed, or already complete: a restart from a
   checkpoint at or past the final step takes no step) and 2 (INSDG_EXIT_USER, error.h: bad
   input, nothing written). What a batch script acts on (jobs/README.md): 3 means resubmit
   with --restart of the newest checkpoint; 4, 5 and 6 stop a chain. In each of them the
   fields, diagnostics.csv and summary.json (its "status") of the last step are written. */
enum {
  INSDG_EXIT_STOPPED = 3,         /* "stopped": SIGTERM or SIGUSR1, checkpoint written */
  INSDG_EXIT_NOT_CONVERGED = 4,   /* "not converged": a linear solve did not converge */
  INSDG_EXIT_DIVERGED = 5,        /* "diverged" or "not finite" */
  INSDG_EXIT_OUTPUT = 6           /* "output failed": a field, checkpoint or summary file */
};

/* Initialises and shuts down the runtime itself (collective: every rank calls it with the
   same options). Returns the process exit status: 0, INSDG_EXIT_USER or one of the above. */
int insdg_run(int *argc, char ***argv, const insdg_run_opts *opts);

#endif
