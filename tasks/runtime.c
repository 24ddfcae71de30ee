/* runtime.c -- StarPU-MPI start-up/shutdown (see runtime.h). */
#include "runtime.h"

#include <starpu.h>
#include <starpu_mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpi_count.h"
#include "starpu_gpu.h"

int insdg_runtime_init(int *argc, char ***argv, const insdg_runtime_opts *opts, char *err, size_t errlen)
{
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  if (opts && opts->ncpu > 0) conf.ncpus = opts->ncpu;
  if (opts && opts->sched) conf.sched_policy_name = opts->sched;
  conf.nopencl = 0;   /* the kernels are CPU (and, with a CUDA StarPU, CUDA) only */
  const int status = starpu_mpi_init_conf(argc, argv, 1, MPI_COMM_WORLD, &conf);
  if (status != 0) {
    snprintf(err, errlen, "cannot start StarPU-MPI (error %d); check STARPU_NCPU and STARPU_SCHED", status);
    return 1;
  }
  return 0;
}

void insdg_runtime_shutdown(void)
{
  starpu_task_wait_for_all();
#ifdef INSDG_STARPU_GPU
  insdg_starpu_gpu_release();
#endif
  starpu_mpi_shutdown();
}

int insdg_runtime_rank(void)
{
  int rank;
  starpu_mpi_comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int insdg_runtime_size(void)
{
  int size;
  starpu_mpi_comm_size(MPI_COMM_WORLD, &size);
  return size;
}

int insdg_runtime_workers(void) { return (int)starpu_cpu_worker_get_count(); }

int insdg_runtime_cuda_workers(void) { return (int)starpu_cuda_worker_get_count(); }

void insdg_runtime_profile_reset(void)
{
  if (!starpu_profiling_status_get()) return;
  const int n = (int)starpu_worker_get_count();
  for (int w = 0; w < n; ++w) starpu_profiling_worker_get_info(w, NULL);   /* NULL: reset */
}

void insdg_runtime_profile_get(insdg_runtime_profile *p)
{
  memset(p, 0, sizeof *p);
  if (!starpu_profiling_status_get()) return;
  p->enabled = 1;
  const int n = (int)starpu_worker_get_count();
  for (int w = 0; w < n; ++w) {
    const enum starpu_worker_archtype type = starpu_worker_get_type(w);
    if (type != STARPU_CPU_WORKER && type != STARPU_CUDA_WORKER) continue;
    const int k = type == STARPU_CUDA_WORKER;
    struct starpu_profiling_worker_info info;
    if (starpu_profiling_worker_get_info(w, &info)) continue;
    p->workers[k] += 1;
    p->tasks[k] += info.executed_tasks;
    p->task_seconds[k] += 1e-6 * starpu_timing_timespec_to_us(&info.executing_time);
    p->total_seconds[k] += 1e-6 * starpu_timing_timespec_to_us(&info.total_time);
    p->sleeping_seconds[k] += 1e-6 * starpu_timing_timespec_to_us(&info.sleeping_time);
  }
}

void insdg_tasks_init(insdg_tasks *T, const insdg_layout *L, const insdg_ops *op)
{
  T->comm = MPI_COMM_WORLD;
  starpu_mpi_comm_rank(T->comm, &T->rank);
  starpu_mpi_comm_size(T->comm, &T->size);
  T->L = L;
  T->op = op;
}

static int64_t tag_counter = 1;

int64_t insdg_runtime_new_tag(void) { return tag_counter++; }

void insdg_tasks_wait(insdg_tasks *T)
{
  insdg_runtime_waited();
  starpu_mpi_wait_for_all(T->comm);
}

/* submitted and waited for by the main thread only */
static long tasks_inserted = 0, host_waits = 0;

void insdg_runtime_task_inserted(void) { ++tasks_inserted; }

void insdg_runtime_waited(void) { ++host_waits; }

void insdg_runtime_counters_get(insdg_runtime_counters *c)
{
  insdg_mpi_counters_get(&c->messages, &c->bytes, &c->tests, &c->collectives);
  c->tasks = tasks_inserted, c->waits = host_waits;
}
