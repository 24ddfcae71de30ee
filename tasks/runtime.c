/* runtime.c -- MPI and StarPU start-up/shutdown, the worker count and binding (see
 * runtime.h). */
#define _GNU_SOURCE
#include "runtime.h"
#include "direct.h"
#include "sched_home.h"

#include <errno.h>
#include <sched.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "exchange.h"
#include "mpi_count.h"
#include "starpu_gpu.h"

static const char *workers_origin = "StarPU's default";
static MPI_Comm task_comm = MPI_COMM_NULL;
static int async_copies_off;   /* insdg turned StarPU's asynchronous copies off (init_starpu) */
static starpu_data_handle_t comm_token;
static double comm_token_mem;

/* The cores this rank may use: its affinity mask, shared with the ranks of this node
   that have the same mask (mpirun without binding gives every rank the whole node):
   rank i of s such ranks takes the i-th share. Returns the share's size (*shared: s > 1)
   and restricts this process (and so its worker threads) to it unless workers are not
   to be bound. node: the ranks of this node. */
static int my_cores(MPI_Comm node, int *shared)
{
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine)) return 0;
  int nlocal, lrank;
  MPI_Comm_size(node, &nlocal), MPI_Comm_rank(node, &lrank);
  cpu_set_t *all = insdg_malloc(sizeof(cpu_set_t) * (size_t)nlocal);
  MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, node);
  int share = 0, index = 0;
  for (int r = 0; r < nlocal; ++r)
    if (CPU_EQUAL(&all[r], &mine)) index += r < lrank, ++share;
  free(all);
  const int n = CPU_COUNT(&mine);
  if (n <= 0) return 0;
  int cpus[CPU_SETSIZE], k = 0;
  for (int c = 0; c < CPU_SETSIZE && k < n; ++c)
    if (CPU_ISSET(c, &mine)) cpus[k++] = c;
  const int per = n >= share ? n / share : 1;
  *shared = share > 1;
  const int first = n >= share ? index * per : index % n;
  if (share > 1 && !getenv("STARPU_WORKERS_NOBIND")) {
    cpu_set_t part;
    CPU_ZERO(&part);
    for (int i = 0; i < per; ++i) CPU_SET(cpus[first + i], &part);
    sched_setaffinity(0, sizeof part, &part);
  }
  return per;
}

static int starpu_started = 0;
/* the main thread drives a CPU worker (StarPU's scheduler, INSDG_DIRECT=0; runtime.h) */
static int host_worker = 0, host_worker_id = -1;
static struct starpu_driver host_driver;
static int host_spin = 0;   /* in insdg_runtime_wait_all: that worker must not sleep */

int insdg_runtime_host_worker_id(void) { return host_worker ? host_worker_id : -1; }

int insdg_runtime_host_keep_awake(void) { return __atomic_load_n(&host_spin, __ATOMIC_RELAXED); }

const char *insdg_runtime_main_thread(void)
{
  if (insdg_runtime_direct) return insdg_direct_helpers() ? "runs the tasks with helpers" : "runs the tasks";
  return host_worker ? "drives a worker" : "submits";
}

/* The main thread runs its worker's tasks until *flag is set. With none to run, the driver
   idles as StarPU's own workers do (tools/starpu-idle-workers.patch): it polls, yielding
   its core, for STARPU_IDLE_POLL_US, then sleeps until a task is pushed to it or the
   acquire callback below wakes it (the last worker awake polls on instead). */
static void host_drive(volatile int *flag)
{
  while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) starpu_driver_run_once(&host_driver);
}

/* the flag set, then the wake-up: a driver that has not gone to sleep yet is kept awake
   (StarPU's state_keep_awake, under the worker's lock), one asleep is signalled */
static void acquired(void *arg)
{
  __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
  if (host_worker_id >= 0) starpu_wake_worker_relax_light(host_worker_id);
}

/* the main thread runs its worker's tasks in its waits, unless that worker is paused
   (taken_cores.h: another process took its core; its tasks go to the others) */
static int host_drives(void) { return host_worker && !insdg_sched_home_worker_paused(host_worker_id); }

/* CPU-only builds: the rank's own threads run the tasks (insdg_runtime_direct) unless
   INSDG_DIRECT=0, or INSDG_PERFMODELS (StarPU samples its workers only) */
static int direct_wanted(void)
{
#ifdef INSDG_STARPU_GPU
  return 0;   /* the GPU path's codelets ask StarPU which worker runs them */
#else
  const char *direct = getenv("INSDG_DIRECT"), *models = getenv("INSDG_PERFMODELS");
  return !(direct && !strcmp(direct, "0")) && !(models && atoi(models) > 0);
#endif
}

void insdg_runtime_acquire(starpu_data_handle_t h, enum starpu_data_access_mode mode)
{
  if (insdg_runtime_direct) insdg_direct_wait_for(h, mode);   /* the helpers' tasks that use it */
  if (!host_drives()) {
    starpu_data_acquire(h, mode);
    return;
  }
  int flag = 0;
  INSDG_CHECK(starpu_data_acquire_cb(h, mode, acquired, &flag) == 0);
  host_drive(&flag);
}

void insdg_runtime_unregister(starpu_data_handle_t h)
{
  if (insdg_runtime_direct) insdg_direct_wait_for(h, STARPU_RW);
  if (host_drives()) {   /* its last tasks may be this thread's to run */
    insdg_runtime_acquire(h, STARPU_RW);
    starpu_data_release(h);
  }
  starpu_data_unregister(h);
}

void insdg_runtime_wait_all(void)
{
  if (insdg_runtime_direct) insdg_direct_wait_all();
  if (host_drives()) {
    __atomic_store_n(&host_spin, 1, __ATOMIC_RELAXED);
    while (starpu_task_nsubmitted() > 0) starpu_driver_run_once(&host_driver);
    __atomic_store_n(&host_spin, 0, __ATOMIC_RELAXED);
  }
  starpu_task_wait_for_all();
}

int insdg_runtime_first_of_kind(const char *keys, size_t width, int n, int r)
{
  for (int q = 0; q < r && q < n; ++q)
    if (strncmp(keys + (size_t)q * width, keys + (size_t)r * width, width) == 0) return 0;
  return 1;
}

/* starpu_init for the ranks of this node in two rounds. StarPU reads its bus calibration
   from files named by STARPU_HOSTNAME under STARPU_HOME ($HOME by default) and, where they
   are missing, measures and writes them in starpu_init; two ranks starting together on a
   fresh STARPU_HOME, with the same name (both bound to one core: "<host>-1cpu"), then both
   write the files while one of them reads, and it aborts on a half-written file
   (check_bus_config_file / check_bus_affinity_file: 1 start in 15-20 under load, and once in
   CI's bundle_no_gpu; tasks/README.md "Workers and cores"). So the first rank of each name
   and STARPU_HOME starts StarPU alone, and the others once it has: they find the files
   written. node: the ranks of this node (collective over them). */
static int starpu_init_in_turn(struct starpu_conf *conf, MPI_Comm node)
{
  enum { W = 512 };
  char key[W];
  const char *home = getenv("STARPU_HOME") ? getenv("STARPU_HOME") : getenv("HOME") ? getenv("HOME") : "";
  memset(key, 0, sizeof key);
  snprintf(key, sizeof key, "%s|%s", getenv("STARPU_HOSTNAME") ? getenv("STARPU_HOSTNAME") : "", home);
  int n, r;
  MPI_Comm_size(node, &n), MPI_Comm_rank(node, &r);
  char *keys = insdg_malloc((size_t)n * W);
  MPI_Allgather(key, W, MPI_CHAR, keys, W, MPI_CHAR, node);
  const int first = insdg_runtime_first_of_kind(keys, W, n, r);
  free(keys);
  int status = first ? starpu_init(conf) : 0;
  MPI_Barrier(node);
  if (!first) status = starpu_init(conf);
  return status;
}

/* Each worker needs a core of its own while it runs a task; a StarPU built with polling
   drivers (the GPU bundle's: StarPU 1.3's blocking drivers turn the CUDA workers' pipeline
   off) keeps every worker spinning on a core while it waits too, and StarPU-MPI's progress
   thread while messages are pending. With fewer cores than that in the rank's binding they
   take turns in the kernel's time slices: measured 41x slower for one rank of 1 CPU + 1
   CUDA worker on one core, and 9x for two such ranks that mpirun had bound to one core each
   (docs/performance.md "GPU"); with blocking drivers, workers beyond the cores add nothing.
   Say so once per rank, with the way out. */
static void warn_oversubscribed(void)
{
#ifdef STARPU_NON_BLOCKING_DRIVERS
  const int polling = 1;
#else
  const int polling = 0;
#endif
  cpu_set_t m;
  CPU_ZERO(&m);
  if (sched_getaffinity(0, sizeof m, &m)) return;
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size), MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const unsigned ncpu = starpu_cpu_worker_get_count(), nall = starpu_worker_get_count();
  const int cores = CPU_COUNT(&m), mpi_thread = polling && size > 1;
  const int threads = (int)nall + mpi_thread;
  if (cores > 0 && threads > cores)
    fprintf(stderr,
            "insdg: warning: rank %d may run on %d core(s) but has %d %s (%u CPU + %u GPU worker(s)%s): they "
            "take turns on the cores%s; give each rank %d cores (mpirun --bind-to none, or --map-by slot:PE=%d; "
            "srun --cpus-per-task=%d) or fewer workers (STARPU_NCPU)\n",
            rank, cores, threads, polling ? "polling threads" : "workers", ncpu, nall - ncpu,
            mpi_thread ? " + StarPU-MPI's progress thread" : "",
            polling ? ", and every task hand-over waits for a time slice" : "", threads, threads, threads);
}

int insdg_runtime_init(int *argc, char ***argv, const insdg_runtime_opts *opts, char *err, size_t errlen)
{
  return insdg_runtime_init_mpi(argc, argv, err, errlen) || insdg_runtime_init_starpu(opts, err, errlen);
}

int insdg_runtime_init_mpi(int *argc, char ***argv, char *err, size_t errlen)
{
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    snprintf(err, errlen, "cannot initialise MPI");
    return 1;
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    snprintf(err, errlen, "the MPI library does not provide MPI_THREAD_MULTIPLE (the exchange tasks need it)");
    return 1;
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &task_comm);
  return 0;
}

int insdg_runtime_init_starpu(const insdg_runtime_opts *opts, char *err, size_t errlen)
{
  int shared = 0;
  MPI_Comm node;   /* the ranks of this node: they share its cores and StarPU's files */
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  const int cores = my_cores(node, &shared);
  /* StarPU restricts its topology to the process's binding (after my_cores: the share) */
  setenv("STARPU_WORKERS_GETBIND", "1", 0);
  /* StarPU calibrates the bus for that topology and keeps the result in files named by the
     host (STARPU_HOME/.starpu/sampling/bus/<host>.*); a process that finds them written for
     another topology (another rank count or binding: 1 CPU against 2) calibrates again and
     rewrites them, and a process starting beside it reads them half-written or of the other
     shape and aborts in _starpu_load_bus_performance_files (seen in CI, two ranks bound to
     a core each beside one-rank runs). One name per CPU count keeps each topology's files
     apart; STARPU_HOSTNAME, when set, is kept. */
  {
    cpu_set_t m;
    char host[64] = "host", name[96];
    CPU_ZERO(&m);
    if (sched_getaffinity(0, sizeof m, &m)) CPU_ZERO(&m);
    if (gethostname(host, sizeof host)) strcpy(host, "host");
    host[sizeof host - 1] = '\0';
    snprintf(name, sizeof name, "%s-%dcpu", host, CPU_COUNT(&m));
    setenv("STARPU_HOSTNAME", name, 0);
  }
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  if (opts && opts->sched) conf.sched_policy_name = opts->sched;
#if !defined(STARPU_USE_CUDA) && !defined(STARPU_USE_HIP)
  /* CPU workers only: each block's tasks on one worker (sched_home.h) unless a scheduler is
     named (option or STARPU_SCHED) */
  else if (!getenv("STARPU_SCHED") || !*getenv("STARPU_SCHED"))
    conf.sched_policy = insdg_sched_home_policy();
#endif
  conf.nopencl = 0;   /* the kernels are CPU (and, with a CUDA StarPU, CUDA) only */
  if (opts && opts->ncpu > 0) {
    conf.ncpus = opts->ncpu, workers_origin = "option";
  } else if (getenv("STARPU_NCPU") || getenv("STARPU_NCPUS")) {
    workers_origin = "STARPU_NCPU";
  } else if (cores > 0) {
    /* the rank's share; alone on its cores, StarPU's default is that count less the cores
       that drive GPUs (its topology is restricted to the binding) */
    workers_origin = "cores";
    int n = cores < STARPU_MAXCPUS ? cores : STARPU_MAXCPUS;
    if (opts && opts->max_ncpu > 0 && opts->max_ncpu < n) n = opts->max_ncpu, workers_origin = "work";
    if (shared || n < cores) conf.ncpus = n;
  }
#if !defined(STARPU_USE_CUDA) && !defined(STARPU_USE_HIP)
  /* Fewer CPU workers than cores: StarPU would bind them to the first cores of the mask,
     so two runs started side by side (two cases on a workstation, or the bench's bound)
     would share core 0 while core 1 idles: 1.9x slower each, measured. Left unbound, the
     kernel spreads them. As many workers as cores stay bound, one per core. (A CUDA StarPU
     keeps its binding: its CUDA workers' placement near their GPUs matters.) */
  const char *env_ncpu = getenv("STARPU_NCPU") ? getenv("STARPU_NCPU") : getenv("STARPU_NCPUS");
  const int nworkers = conf.ncpus > 0 ? conf.ncpus : env_ncpu ? atoi(env_ncpu) : cores;
  if (cores > 0 && nworkers > 0 && nworkers < cores && !getenv("STARPU_WORKERS_CPUID"))
    setenv("STARPU_WORKERS_NOBIND", "1", 0);
#endif
#if defined(STARPU_USE_CUDA) || defined(STARPU_USE_HIP)
  /* Several ranks with GPU workers: StarPU's asynchronous host-device copies off, unless
     STARPU_DISABLE_ASYNCHRONOUS_COPY says otherwise. Two ranks on one H200 went wrong (from
     step 2, in a velocity solve) in 3 of 19 runs with them and in none of 10 without, at
     24% more time per step (docs/performance.md, "two ranks on one GPU", 2026-11-28): a
     race whose cause is not found yet, so correct results first. */
  int nranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char *ncuda = getenv("STARPU_NCUDA");
  if (nranks > 1 && !(ncuda && atoi(ncuda) == 0) && !getenv("STARPU_DISABLE_ASYNCHRONOUS_COPY"))
    conf.disable_asynchronous_copy = 1, async_copies_off = 1;
#endif
#if !defined(STARPU_USE_CUDA) && !defined(STARPU_USE_HIP) && !defined(INSDG_STARPU_GPU)
  /* the main thread drives the first CPU worker (runtime.h; INSDG_HOST_WORKER=0: not): with
     insdg-home only, which keeps that worker awake while insdg_runtime_wait_all drives it */
  const char *hw = getenv("INSDG_HOST_WORKER");
  if ((!hw || atoi(hw) > 0) && nworkers >= 2 && conf.sched_policy == insdg_sched_home_policy() && !direct_wanted()) {
    host_driver.type = STARPU_CPU_WORKER, host_driver.id.cpu_id = 0;
    conf.not_launched_drivers = &host_driver, conf.n_not_launched_drivers = 1;
    host_worker = 1;
  }
#endif
  /* halo exchanges, reductions and the coarse solve have CPU implementations only: without
     a CPU worker their first task would find no worker */
  static const char no_cpu[] = "no CPU worker (STARPU_NCPU=0?): insdg needs at least one, beside any CUDA workers";
  const int status = starpu_init_in_turn(&conf, node);
  MPI_Comm_free(&node);
  if (status == -ENODEV) {   /* no worker at all */
    snprintf(err, errlen, "%s", no_cpu);
    return 1;
  }
  if (status != 0) {
    snprintf(err, errlen, "cannot start StarPU (error %d); check STARPU_NCPU and STARPU_SCHED", status);
    return 1;
  }
  if (starpu_cpu_worker_get_count() == 0) {
    starpu_shutdown();
    snprintf(err, errlen, "%s", no_cpu);
    return 1;
  }
  warn_oversubscribed();
  if (host_worker) {
    INSDG_CHECK(starpu_driver_init(&host_driver) == 0);
    host_worker_id = starpu_worker_get_id();
    INSDG_CHECK(host_worker_id >= 0);
  }
  starpu_vector_data_register(&comm_token, STARPU_MAIN_RAM, (uintptr_t)&comm_token_mem, 1, sizeof(double));
  starpu_started = 1;
  if (getenv("INSDG_TRACE") && *getenv("INSDG_TRACE")) {
    starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
    insdg_runtime_tracing = 1;
  }
#ifndef INSDG_STARPU_GPU
  /* No GPU: the rank's own threads run the tasks, StarPU's workers paused (runtime.h,
     insdg_runtime_direct): one CPU worker, the main thread as it submits each task; more,
     under insdg-home's homes (not where STARPU_SCHED names another policy), the main thread
     and helper threads (direct.h). The GPU path's codelets (a CUDA StarPU, or its CPU
     emulation) ask StarPU which worker runs them, and StarPU's performance models
     (INSDG_PERFMODELS) sample its workers only: not there (direct_wanted). */
  const int ncpu = (int)starpu_cpu_worker_get_count();
  if (starpu_cuda_worker_get_count() == 0 && direct_wanted() && (ncpu == 1 || conf.sched_policy == insdg_sched_home_policy())) {
    insdg_runtime_direct = 1;
    starpu_pause();   /* the workers sleep (StarPU's pause: a condition wait) */
    /* several workers: the main thread and ncpu - 1 helper threads run the tasks (direct.h) */
    if (ncpu >= 2 && insdg_direct_start(ncpu)) {
      starpu_resume(), insdg_runtime_direct = 0;   /* no thread: StarPU's workers, as with INSDG_DIRECT=0 */
      fprintf(stderr, "insdg: warning: cannot start %d helper threads; StarPU's workers run the tasks\n", ncpu - 1);
    }
  }
#endif
  return 0;
}

void insdg_runtime_shutdown(void)
{
  if (starpu_started) {
    if (insdg_runtime_direct) insdg_direct_stop(), starpu_resume(), insdg_runtime_direct = 0;
    insdg_runtime_wait_all();
    if (host_worker) starpu_driver_deinit(&host_driver), host_worker = 0, host_worker_id = -1;
    insdg_runtime_trace_write();
    starpu_data_unregister(comm_token);
#ifdef INSDG_STARPU_GPU
    insdg_starpu_gpu_release();
#endif
    starpu_shutdown();
    starpu_started = 0;
  }
  MPI_Comm_free(&task_comm);
  MPI_Finalize();
}

int insdg_runtime_rank(void)
{
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int insdg_runtime_size(void)
{
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

const char *insdg_runtime_workers_origin(void) { return workers_origin; }

const char *insdg_runtime_scheduler(void)
{
  if (!starpu_started) return "none";
  if (insdg_runtime_direct) return "direct";   /* no scheduler: the main thread runs the tasks */
  const struct starpu_sched_policy *p = starpu_sched_ctx_get_sched_policy(0);   /* the global context */
  return p && p->policy_name ? p->policy_name : "?";
}

/* jemalloc's control entry point: resolved where the process runs on jemalloc */
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) __attribute__((weak));

const char *insdg_runtime_allocator(void)
{
  static char name[80];
  if (!mallctl) return "system";
  const char *version = NULL;
  size_t len = sizeof version;
  if (mallctl("version", &version, &len, NULL, 0) != 0 || !version) return "jemalloc";
  snprintf(name, sizeof name, "jemalloc %.*s", (int)strcspn(version, "-"), version);   /* 5.3.0-0-g<hash>: 5.3.0 */
  return name;
}

MPI_Comm insdg_runtime_task_comm(void) { return task_comm; }
int insdg_runtime_async_copies_off(void) { return async_copies_off && insdg_runtime_cuda_workers() > 0; }

starpu_data_handle_t insdg_runtime_comm_token(void) { return comm_token; }

int insdg_runtime_workers(void) { return (int)starpu_cpu_worker_get_count(); }

int insdg_runtime_cuda_workers(void) { return (int)starpu_cuda_worker_get_count(); }

/* the tasks run on the main thread (insdg_runtime_direct): their count and time since the
   profile's reset, timed only while profiling or tracing */
static long direct_tasks;
static double direct_task_us, direct_since_us;

void insdg_runtime_profile_reset(void)
{
  if (!starpu_profiling_status_get()) return;
  direct_tasks = 0, direct_task_us = 0, direct_since_us = starpu_timing_now();
  if (insdg_runtime_direct) insdg_direct_reset_counts();
  const int n = (int)starpu_worker_get_count();
  for (int w = 0; w < n; ++w) starpu_profiling_worker_get_info(w, NULL);   /* NULL: reset */
}

void insdg_runtime_profile_get(insdg_runtime_profile *p)
{
  memset(p, 0, sizeof *p);
  if (!starpu_profiling_status_get()) return;
  p->enabled = 1;
  if (insdg_runtime_direct) {   /* the main thread and the helpers */
    insdg_direct_wait_all();
    const int nt = 1 + insdg_direct_helpers();
    const double span = 1e-6 * (starpu_timing_now() - direct_since_us);
    for (int k = 0; k < nt; ++k) {
      long tasks;
      double us;
      insdg_direct_counts(k, &tasks, &us);
      if (k == 0) tasks += direct_tasks, us += direct_task_us;
      p->workers[0] += 1, p->tasks[0] += tasks, p->task_seconds[0] += 1e-6 * us, p->total_seconds[0] += span;
    }
    return;
  }
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
  MPI_Comm_rank(T->comm, &T->rank);
  MPI_Comm_size(T->comm, &T->size);
  INSDG_CHECK(L->nranks == T->size);
  T->L = L;
  T->op = op;
  T->x = insdg_xplan_create(L, T->rank, L->pair, L->npairs, L->pairs_into);
  T->b_begin = T->x->b_begin, T->b_end = T->x->b_end;
  INSDG_CHECK(T->b_begin >= 0);   /* partition.h: every rank owns a contiguous, non-empty range */
}

void insdg_tasks_fini(insdg_tasks *T)
{
  insdg_xplan_destroy(T->x);
  T->x = NULL;
}

void insdg_tasks_wait(insdg_tasks *T)
{
  (void)T;
  insdg_runtime_waited();
  const double t0 = insdg_runtime_tracing && insdg_direct_helpers() ? starpu_timing_now() : 0;
  insdg_runtime_wait_all();
  if (t0 > 0) insdg_runtime_trace_mark("host_wait", t0);   /* for the helpers (direct.h) */
}

/* ---- task trace (INSDG_TRACE) ---- */
int insdg_runtime_tracing = 0;
typedef struct { const char *name; int worker; double start, end; } trace_rec;
static trace_rec *trace;
static long trace_n, trace_cap;
static starpu_pthread_mutex_t trace_lock = STARPU_PTHREAD_MUTEX_INITIALIZER;

static void trace_push(trace_rec r)
{
  STARPU_PTHREAD_MUTEX_LOCK(&trace_lock);
  if (trace_n == trace_cap) {
    trace_cap = trace_cap ? 2 * trace_cap : 1 << 16;
    trace = realloc(trace, sizeof *trace * (size_t)trace_cap);
    INSDG_CHECK(trace);
  }
  trace[trace_n++] = r;
  STARPU_PTHREAD_MUTEX_UNLOCK(&trace_lock);
}

/* every task's callback while tracing: it runs on the task's worker after the task */
void insdg_runtime_trace_task(void *arg)
{
  (void)arg;
  struct starpu_task *t = starpu_task_get_current();
  if (!t || !t->profiling_info) return;
  trace_push((trace_rec){starpu_task_get_name(t), t->profiling_info->workerid,
                         starpu_timing_timespec_to_us(&t->profiling_info->start_time),
                         starpu_timing_timespec_to_us(&t->profiling_info->end_time)});
}

int insdg_runtime_direct = 0;

void insdg_runtime_run_here(struct starpu_task *task, int worker, long *tasks, double *task_us)
{
  INSDG_CHECK(task && task->cl && task->cl->cpu_funcs[0]);
  const unsigned n = STARPU_TASK_GET_NBUFFERS(task);
  void **iface = insdg_thread_scratch_interfaces((int)n + 1);
  for (unsigned i = 0; i < n; ++i)
    iface[i] = starpu_data_get_interface_on_node(STARPU_TASK_GET_HANDLE(task, i), STARPU_MAIN_RAM);
  const int timed = insdg_runtime_tracing || starpu_profiling_status_get();
  const double t0 = timed ? starpu_timing_now() : 0;
  task->cl->cpu_funcs[0](iface, task->cl_arg);
  if (timed) {
    const double t1 = starpu_timing_now();
    ++*tasks, *task_us += t1 - t0;
    if (insdg_runtime_tracing) trace_push((trace_rec){starpu_task_get_name(task), worker, t0, t1});
  }
  task->destroy = 0;   /* built, never submitted: freed here */
  starpu_task_destroy(task);
}

int insdg_runtime_run_now(struct starpu_task *task)
{
  if (insdg_direct_helpers()) insdg_direct_issue(task);
  else insdg_runtime_run_here(task, 0, &direct_tasks, &direct_task_us);
  return 0;
}

void insdg_runtime_trace_mark(const char *name, double start_us)
{
  if (insdg_runtime_tracing) trace_push((trace_rec){name, -1, start_us, starpu_timing_now()});
}

void insdg_runtime_trace_step(double start_us)
{
  if (insdg_runtime_tracing) trace_push((trace_rec){"step", -2, start_us, starpu_timing_now()});
}

void insdg_runtime_trace_write(void)
{
  const char *path = getenv("INSDG_TRACE");
  if (!insdg_runtime_tracing || !path) return;
  insdg_runtime_wait_all();
  char name[4096];
  const int rank = insdg_runtime_rank();
  snprintf(name, sizeof name, rank ? "%s.%d" : "%s", path, rank);
  FILE *f = fopen(name, "w");
  if (!f) {
    fprintf(stderr, "insdg: cannot write the trace %s\n", name);
    return;
  }
  for (long i = 0; i < trace_n; ++i)
    fprintf(f, "%s %d %.3f %.3f\n", trace[i].name ? trace[i].name : "?", trace[i].worker, trace[i].start, trace[i].end);
  fclose(f);
  free(trace);
  trace = NULL, trace_n = trace_cap = 0;
}

/* submitted and waited for by the main thread only */
static long tasks_inserted = 0, host_waits = 0;

/* history-based models of the codelets (INSDG_PERFMODELS=1) */
static int perfmodels = -1;   /* -1: environment not read yet */
enum { MAX_MODELS = 32 };
static struct starpu_perfmodel models[MAX_MODELS];
static int nmodels;

/* one history per task name (block_op runs seven operators) and data sizes */
static uint32_t name_footprint(struct starpu_task *task)
{
  return starpu_hash_crc32c_string(task->name ? task->name : "", starpu_task_data_footprint(task));
}

void insdg_runtime_task_inserted(struct starpu_codelet *cl)
{
  ++tasks_inserted;
  if (perfmodels < 0) perfmodels = getenv("INSDG_PERFMODELS") && atoi(getenv("INSDG_PERFMODELS")) > 0;
  if (!perfmodels || cl->model || !cl->name) return;
  INSDG_CHECK(nmodels < MAX_MODELS);
  struct starpu_perfmodel *m = &models[nmodels++];
  memset(m, 0, sizeof *m);
  m->type = STARPU_HISTORY_BASED;
  m->symbol = cl->name;
  m->footprint = name_footprint;
  cl->model = m;
}

long insdg_runtime_tasks_inserted(void) { return (long)tasks_inserted; }

double insdg_runtime_clock(clockid_t c)
{
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void insdg_runtime_waited(void) { ++host_waits; }

void insdg_runtime_counters_get(insdg_runtime_counters *c)
{
  insdg_mpi_counters_get(&c->messages, &c->bytes, &c->tests, &c->collectives);
  c->tasks = tasks_inserted, c->waits = host_waits;
  c->mpi_wait_seconds = insdg_mpi_wait_seconds();
}
