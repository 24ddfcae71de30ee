/* runtime.h -- MPI and StarPU start-up and shutdown, and the task context.
 *
 * One code path for one rank and for many. Every rank builds the same layout
 * (partition/partition.h) and registers and submits tasks for ITS blocks only
 * (T->b_begin .. T->b_end - 1); what crosses ranks crosses in rank-level tasks of
 * tasks/exchange.h (one message per neighbour rank per halo exchange, one allgather per
 * reduction), which every rank submits in the same order. Those tasks take the
 * communication token (insdg_runtime_comm_token) in RW mode, so StarPU runs them in
 * submission order on every rank: the ranks meet in the same order, and a worker
 * waiting in one for its neighbours can never deadlock (tasks/README.md).
 *
 * Worker count and scheduler come from the options when given, else from StarPU's own
 * environment variables (STARPU_NCPU, STARPU_SCHED, ...), else from the cores this
 * process may run on (its affinity mask) shared among the ranks of the node that have
 * the same mask; workers are bound to those cores, one per core, unless there are fewer
 * workers than cores (CPU-only StarPU): then the kernel places them.
 *
 * Direct: in a CPU-only build a rank runs its tasks on its own threads, not through StarPU's
 * scheduler (insdg_runtime_direct; the scheduler's name is then "direct"), and pauses
 * StarPU's workers. With one CPU worker the main thread runs each task as INSDG_TASK_INSERT
 * submits it: submission order is an order StarPU could have run the tasks in (every
 * task's data written by earlier tasks only), so the bits are the same. With W >= 2 the
 * main thread and W - 1 helper threads run them (direct.h): each block's tasks on one
 * thread, conflicting tasks in submission order, again the same bits. What that saves per
 * task is StarPU's dependency and scheduling work (1.3-1.7 us of the submitting thread's
 * time) and, at every host wait, a hand-off between threads (docs/performance.md, "One
 * worker: the main thread runs the tasks" and "Direct execution with helper threads").
 * INSDG_DIRECT=0 turns it off, as does INSDG_PERFMODELS (StarPU samples its workers
 * only); a program that submits StarPU tasks of its own must set INSDG_DIRECT=0.
 */
#ifndef INSDG_RUNTIME_H
#define INSDG_RUNTIME_H

#include <mpi.h>
#include <starpu.h>
#include <stdint.h>
#include <time.h>

#include "ops.h"
#include "partition.h"

typedef struct {
  int ncpu;            /* CPU workers per rank; <= 0: STARPU_NCPU or StarPU's default */
  int max_ncpu;        /* > 0: at most this many when the count comes from the cores (the work
                          per rank keeps no more busy) */
  const char *sched;   /* scheduler name; NULL: STARPU_SCHED or StarPU's default */
} insdg_runtime_opts;

/* Initialise MPI (MPI_THREAD_MULTIPLE: workers run the exchange tasks while the main
   thread may gather output) and StarPU. Returns 0, or nonzero with a message. */
int insdg_runtime_init(int *argc, char ***argv, const insdg_runtime_opts *opts, char *err, size_t errlen);
/* The same in two steps, for a program that decides the worker count from its input:
   MPI first, StarPU later. */
int insdg_runtime_init_mpi(int *argc, char ***argv, char *err, size_t errlen);
int insdg_runtime_init_starpu(const insdg_runtime_opts *opts, char *err, size_t errlen);
/* 1 when keys[r] (n keys of `width` chars each) is the first of its kind (no equal key
   before it): the ranks of a node that start StarPU first, before the others
   (insdg_runtime_init_starpu: StarPU's bus files are written by the first of each
   STARPU_HOSTNAME and STARPU_HOME, read by the rest). */
int insdg_runtime_first_of_kind(const char *keys, size_t width, int n, int r);
/* Wait for all tasks and shut StarPU and MPI down. */
void insdg_runtime_shutdown(void);
int insdg_runtime_rank(void);
int insdg_runtime_size(void);
int insdg_runtime_workers(void);        /* CPU workers of this rank */
int insdg_runtime_cuda_workers(void);   /* CUDA workers of this rank (0 without a CUDA StarPU) */
/* How the CPU worker count was chosen: "option", "STARPU_NCPU", "cores" (the cores of
   this rank's affinity mask, shared among the node's ranks with the same mask) or "work"
   (fewer: opts.max_ncpu). */
const char *insdg_runtime_workers_origin(void);
/* The StarPU scheduling policy in use: "insdg-home" (sched_home.h) on CPU-only StarPUs unless
   opts.sched or STARPU_SCHED names another, else that one or StarPU's default. */
const char *insdg_runtime_scheduler(void);
/* The process's malloc: "jemalloc <version>" where insdg was linked with it (CMakeLists.txt,
   INSDG_ALLOCATOR) or it was preloaded, else "system". */
const char *insdg_runtime_allocator(void);
/* 1 when insdg turned StarPU's asynchronous host-device copies off: several ranks with
   CUDA workers and STARPU_DISABLE_ASYNCHRONOUS_COPY unset (runtime.c says why). */
int insdg_runtime_async_copies_off(void);
/* The communicator the exchange tasks use (a duplicate of MPI_COMM_WORLD: the main
   thread's collectives on MPI_COMM_WORLD never mix with theirs) and their token. */
MPI_Comm insdg_runtime_task_comm(void);
starpu_data_handle_t insdg_runtime_comm_token(void);

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
   of its blocks and its rank-level tasks, INSDG_TASK_INSERT), host waits (the graph
   drained, or a handle acquired to read a value), and, counted by PMPI wrappers of this
   rank's MPI calls (tasks/mpi_count.c), point-to-point messages sent, their bytes,
   MPI_Test/Testall calls and collectives. */
typedef struct {
  long tasks, waits, messages, bytes, tests, collectives;
  double mpi_wait_seconds;   /* workers' wall time in the MPI waits of rank-level tasks */
} insdg_runtime_counters;
void insdg_runtime_counters_get(insdg_runtime_counters *c);
/* Count a task of codelet cl; with INSDG_PERFMODELS=1 in the environment, also give cl a
   history-based StarPU performance model (symbol: the codelet's name; one history per task
   name and data sizes) before its first task, so that STARPU_CALIBRATE=1 runs leave
   per-codelet samples in StarPU's sampling directory (bench/perfmodels/README.md). */
void insdg_runtime_task_inserted(struct starpu_codelet *cl);
long insdg_runtime_tasks_inserted(void);   /* the task counter alone */
void insdg_runtime_waited(void);
/* clock c (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID ...) in seconds */
double insdg_runtime_clock(clockid_t c);
/* the one place tasks are submitted: starpu_task_insert, counted; with INSDG_TRACE set,
   each task's worker, start and end are recorded (insdg_runtime_trace_write). Where the
   rank runs its tasks on the main thread (insdg_runtime_direct), the task is built and run
   at once instead (insdg_runtime_run_now). */
extern int insdg_runtime_tracing;
extern int insdg_runtime_direct;
/* The main thread as a worker (StarPU's scheduler with INSDG_DIRECT=0, CPU-only builds, two
   CPU workers or more, insdg-home; INSDG_HOST_WORKER=0 turns it off; tasks/README.md):
   StarPU does not launch the first CPU worker, the main thread drives it, and its waits
   run that worker's tasks until what they wait for is there (idle, it polls and then
   sleeps as StarPU's workers do; the acquire callback wakes it). Every wait of the task
   layer goes through these three: acquire a handle (release it with
   starpu_data_release), wait for every submitted task, unregister a handle; with direct
   execution they wait for the helper threads' tasks instead. The worker's id, or -1 when
   the main thread drives none. */
int insdg_runtime_host_worker_id(void);
int insdg_runtime_host_keep_awake(void);
void insdg_runtime_acquire(starpu_data_handle_t h, enum starpu_data_access_mode mode);
void insdg_runtime_wait_all(void);
void insdg_runtime_unregister(starpu_data_handle_t h);
/* what the main thread does with the tasks: "runs the tasks" (direct, one worker), "runs
   the tasks with helpers" (direct, helper threads), "drives a worker" (the main thread as a
   worker), "submits" (StarPU's workers run them) */
const char *insdg_runtime_main_thread(void);
void insdg_runtime_trace_task(void *arg);
int insdg_runtime_run_now(struct starpu_task *task);
#define INSDG_TASK_INSERT(cl, ...)                                                                          \
  (insdg_runtime_task_inserted(cl),                                                                        \
   insdg_runtime_direct    ? insdg_runtime_run_now(starpu_task_build(cl, __VA_ARGS__))                      \
   : insdg_runtime_tracing ? starpu_task_insert(cl, STARPU_CALLBACK, insdg_runtime_trace_task, __VA_ARGS__) \
                           : starpu_task_insert(cl, __VA_ARGS__))
/* Record a host wait that began at start_us (starpu_timing_now) and ends now (worker -1). */
void insdg_runtime_trace_mark(const char *name, double start_us);
/* Record a time step that began at start_us and ends now (worker -2). */
void insdg_runtime_trace_step(double start_us);
/* Write the trace to $INSDG_TRACE (rank r > 0: $INSDG_TRACE.r), one line per task or host
   wait or time step, "name worker start_us end_us" (StarPU's clock; tools/trace_summary.py
   reads it); nothing when INSDG_TRACE is unset. insdg_runtime_shutdown calls it. */
void insdg_runtime_trace_write(void);

struct insdg_xplan;

/* What the task layer works on: the layout and the operators (both borrowed), this
   rank's blocks and the exchange plan of the layout's pair halos (owned). */
typedef struct insdg_tasks {
  MPI_Comm comm;              /* the main thread's collectives */
  int rank, size;
  int b_begin, b_end;         /* this rank's blocks */
  const insdg_layout *L;
  const insdg_ops *op;
  struct insdg_xplan *x;      /* halo exchange of L->pair (exchange.h) */
} insdg_tasks;

void insdg_tasks_init(insdg_tasks *T, const insdg_layout *L, const insdg_ops *op);
void insdg_tasks_fini(insdg_tasks *T);

/* Wait until every task this rank submitted is done (the exchange tasks among them
   finish only when their neighbours' have: no barrier is needed). */
void insdg_tasks_wait(insdg_tasks *T);

#endif
