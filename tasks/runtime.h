/* runtime.h -- StarPU + StarPU-MPI start-up and shutdown, and the task context.
 *
 * One code path for one rank and for many: every handle is registered with
 * starpu_mpi_data_register (owner rank, unique tag) and every task goes through
 * starpu_mpi_task_insert, which runs it on the owner of the data it writes and moves
 * what it reads. Every rank builds the same layout (partition/partition.h) and submits
 * the same tasks in the same order.
 *
 * Worker count and scheduler come from the options when given, else from StarPU's own
 * environment variables (STARPU_NCPU, STARPU_SCHED, ...).
 */
#ifndef INSDG_RUNTIME_H
#define INSDG_RUNTIME_H

#include <mpi.h>
#include <stdint.h>

#include "ops.h"
#include "partition.h"

typedef struct {
  int ncpu;            /* CPU workers per rank; <= 0: STARPU_NCPU or StarPU's default */
  const char *sched;   /* scheduler name; NULL: STARPU_SCHED or StarPU's default */
} insdg_runtime_opts;

/* Initialise MPI (through StarPU-MPI) and StarPU. Returns 0, or nonzero with a message. */
int insdg_runtime_init(int *argc, char ***argv, const insdg_runtime_opts *opts, char *err, size_t errlen);
/* Wait for all tasks and shut StarPU-MPI, StarPU and MPI down. */
void insdg_runtime_shutdown(void);
int insdg_runtime_rank(void);
int insdg_runtime_size(void);
int insdg_runtime_workers(void);        /* CPU workers of this rank */
int insdg_runtime_cuda_workers(void);   /* CUDA workers of this rank (0 without a CUDA StarPU) */

/* StarPU's worker profiling, on when STARPU_PROFILING=1: how much of the workers' time
   went into task functions (the kernels, halo copies and, on a GPU, the launches and the
   stream waits of STARPU_CUDA_ASYNC tasks) and how much StarPU spent between them. This
   rank's workers only. Index 0: CPU workers, 1: CUDA workers. */
typedef struct {
  int enabled;              /* 0: STARPU_PROFILING was not set; nothing else is filled */
  int workers[2];
  long tasks[2];            /* tasks executed */
  double task_seconds[2];   /* summed over the workers: time inside task functions */
  double total_seconds[2];  /* summed over the workers: time since the last reset */
  double sleeping_seconds[2];
} insdg_runtime_profile;
/* Start a new profiling interval (does nothing when profiling is off). */
void insdg_runtime_profile_reset(void);
/* Read the counters since the last reset. */
void insdg_runtime_profile_get(insdg_runtime_profile *p);

/* What this rank's runtime does, counted where it happens (bench/bench_step.py and
   summary.json "runtime_counters" read them): tasks inserted (every rank inserts every
   task, INSDG_TASK_INSERT; StarPU-MPI runs it on the owner of the data it writes), host
   waits (the graph drained, or a handle acquired to read a value), and, counted by
   PMPI wrappers of this rank's MPI calls (tasks/mpi_count.c), point-to-point messages
   sent (StarPU-MPI's data and envelopes), their bytes, MPI_Test calls and collectives. */
typedef struct {
  long tasks, waits, messages, bytes, tests, collectives;
} insdg_runtime_counters;
void insdg_runtime_counters_get(insdg_runtime_counters *c);
void insdg_runtime_task_inserted(void);
void insdg_runtime_waited(void);
/* the one place tasks are submitted: starpu_mpi_task_insert, counted */
#define INSDG_TASK_INSERT(...) (insdg_runtime_task_inserted(), starpu_mpi_task_insert(__VA_ARGS__))

/* A fresh StarPU-MPI tag. Every rank registers the same handles in the same order, so
   one process-wide counter gives every handle the same tag on every rank. */
int64_t insdg_runtime_new_tag(void);

/* What the task layer works on: the layout and the operators (both borrowed). */
typedef struct insdg_tasks {
  MPI_Comm comm;
  int rank, size;
  const insdg_layout *L;
  const insdg_ops *op;
} insdg_tasks;

void insdg_tasks_init(insdg_tasks *T, const insdg_layout *L, const insdg_ops *op);

/* Wait until every submitted task of every rank is done. */
void insdg_tasks_wait(insdg_tasks *T);

#endif
