/* direct.c -- a CPU-only rank's tasks on its main thread and helper threads (direct.h). */
#define _GNU_SOURCE   /* syscall, CPU_SET, pthread_setaffinity_np */
#include "direct.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "runtime.h"
#include "sched_home.h"

/* RING tasks in flight per helper at most; a task of more than MAXH handles runs on the
   main thread; SPIN_US of spinning before a waiting thread sleeps */
enum { RING = 1024, MAXH = 24, MAXW = 256 };
enum { SPIN_US = 30 };
static int spin_us = SPIN_US;   /* 0 while the main thread is paused: it shares a helper's core */

typedef struct {
  struct starpu_task *task;
  int n;
  starpu_data_handle_t h[MAXH];
  unsigned char writes[MAXH];
  int ndep;                  /* W > 2: tasks of other helpers to wait for, */
  int dep_helper[4];         /* helper index (1 ..) */
  unsigned dep_done[4];      /* and its done count to reach */
} entry;

typedef struct {
  _Alignas(64) _Atomic unsigned pushed;   /* tasks given (the main thread writes it) */
  _Atomic int sleeping;                   /* the helper sleeps on pushed */
  _Alignas(64) _Atomic unsigned done;     /* tasks run (the helper writes it) */
  _Atomic int waited_on;                  /* another thread sleeps on done */
  _Alignas(64) long tasks;
  double task_us;
  int index;
  int tid, cpu;              /* its thread id and the CPU it is bound to (-1: not bound) */
  pthread_t thread;
  entry ring[RING];
} helper;

static helper *hp[MAXW];   /* hp[1 .. W - 1] */
static int W = 1;
static int to[MAXW];         /* thread k's blocks run on thread to[k]: k, or another while k is paused */
static int main_tid, main_cpu = -1, cpus[MAXW];   /* cpus[k]: thread k's CPU, when bound */
static cpu_set_t main_mask;                        /* the main thread's mask before (main_cpu >= 0) */
static _Atomic int stopping;
static long main_tasks;
static double main_task_us;

static long futex(_Atomic unsigned *addr, int op, unsigned val)
{
  return syscall(SYS_futex, (uint32_t *)addr, op, val, NULL, NULL, 0);
}

/* an idle helper's sleep: until woken or 50 ms (insdg_direct_stop changes no futex word:
   a helper that went to sleep just after it looked at `stopping` sees it within 50 ms) */
static void futex_wait_idle(_Atomic unsigned *addr, unsigned val)
{
  const struct timespec t = {0, 50000000};
  syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, &t, NULL, 0);
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* (int)(a - b) >= 0: a has reached b (counters wrap) */
static inline int reached(unsigned a, unsigned b) { return (int)(a - b) >= 0; }

/* until H->done reaches target: spin, then sleep on the futex (H wakes its sleepers) */
static void wait_done(helper *H, unsigned target)
{
  if (reached(atomic_load_explicit(&H->done, memory_order_acquire), target)) return;
  const double t0 = insdg_runtime_clock(CLOCK_MONOTONIC);
  for (int i = 0;; ++i) {
    if (reached(atomic_load_explicit(&H->done, memory_order_acquire), target)) return;
    relax();
    if ((i & 63) == 63 && insdg_runtime_clock(CLOCK_MONOTONIC) - t0 > 1e-6 * __atomic_load_n(&spin_us, __ATOMIC_RELAXED)) break;
  }
  atomic_fetch_add(&H->waited_on, 1);
  for (;;) {
    const unsigned d = atomic_load(&H->done);
    if (reached(d, target)) break;
    futex(&H->done, FUTEX_WAIT_PRIVATE, d);
  }
  atomic_fetch_sub(&H->waited_on, 1);
}

/* bind the calling thread to cpu (-1: leave it) */
static void bind_to(int cpu)
{
  if (cpu < 0) return;
  cpu_set_t m;
  CPU_ZERO(&m);
  CPU_SET(cpu, &m);
  pthread_setaffinity_np(pthread_self(), sizeof m, &m);
}

static void *helper_main(void *arg)
{
  helper *H = arg;
  bind_to(H->cpu);
  __atomic_store_n(&H->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
  unsigned mine = 0;
  for (;;) {
    unsigned p = atomic_load_explicit(&H->pushed, memory_order_acquire);
    if (p == mine) {   /* nothing to run: spin, then sleep until given a task */
      const double t0 = insdg_runtime_clock(CLOCK_MONOTONIC);
      for (int i = 0; p == mine && !atomic_load(&stopping); ++i) {
        relax();
        p = atomic_load_explicit(&H->pushed, memory_order_acquire);
        if ((i & 63) == 63 && insdg_runtime_clock(CLOCK_MONOTONIC) - t0 > 1e-6 * __atomic_load_n(&spin_us, __ATOMIC_RELAXED)) break;
      }
      while (p == mine && !atomic_load(&stopping)) {
        atomic_store(&H->sleeping, 1);
        p = atomic_load(&H->pushed);
        if (p == mine && !atomic_load(&stopping)) futex_wait_idle(&H->pushed, mine);
        atomic_store(&H->sleeping, 0);
        p = atomic_load_explicit(&H->pushed, memory_order_acquire);
      }
      if (p == mine) return NULL;   /* stopping, all done */
    }
    entry *e = &H->ring[mine % RING];
    for (int k = 0; k < e->ndep; ++k) wait_done(hp[e->dep_helper[k]], e->dep_done[k]);
    insdg_runtime_run_here(e->task, H->index, &H->tasks, &H->task_us);
    atomic_store(&H->done, ++mine);   /* seq_cst: ordered before the load of waited_on */
    if (atomic_load(&H->waited_on)) futex(&H->done, FUTEX_WAKE_PRIVATE, INT_MAX);
  }
}

/* Threads are bound one per CPU as StarPU binds its workers, to the first W CPUs of the
   process's mask, unless STARPU_WORKERS_NOBIND is set (runtime.c sets it when the workers
   are fewer than the cores) or the mask holds fewer than W */
static void choose_cpus(int workers)
{
  for (int k = 0; k < workers; ++k) cpus[k] = -1;
  const char *nobind = getenv("STARPU_WORKERS_NOBIND");
  cpu_set_t m;
  if ((nobind && atoi(nobind) > 0) || sched_getaffinity(0, sizeof m, &m) || CPU_COUNT(&m) < workers) return;
  for (int c = 0, k = 0; c < CPU_SETSIZE && k < workers; ++c)
    if (CPU_ISSET(c, &m)) cpus[k++] = c;
}

int insdg_direct_start(int workers)
{
  INSDG_CHECK(W == 1 && workers >= 2 && workers <= MAXW);
  atomic_store(&stopping, 0);
  choose_cpus(workers);
  for (int k = 0; k < workers; ++k) to[k] = k;
  main_tid = (int)syscall(SYS_gettid), main_cpu = cpus[0];
  for (int k = 1; k < workers; ++k) {
    helper *H;
    if (posix_memalign((void **)&H, 64, sizeof *H)) return insdg_direct_stop(), -1;
    *H = (helper){.index = k, .cpu = cpus[k]};
    atomic_init(&H->pushed, 0), atomic_init(&H->done, 0), atomic_init(&H->sleeping, 0), atomic_init(&H->waited_on, 0);
    if (pthread_create(&H->thread, NULL, helper_main, H)) return free(H), insdg_direct_stop(), -1;
    hp[k] = H, W = k + 1;
  }
  if (main_cpu >= 0 && pthread_getaffinity_np(pthread_self(), sizeof main_mask, &main_mask)) main_cpu = -1;
  bind_to(main_cpu);   /* after the helpers' creation: they inherit the whole mask */
  for (int k = 1; k < W; ++k)   /* their thread ids */
    while (!__atomic_load_n(&hp[k]->tid, __ATOMIC_ACQUIRE)) sched_yield();
  return 0;
}

void insdg_direct_stop(void)
{
  insdg_direct_wait_all();
  atomic_store(&stopping, 1);
  for (int k = 1; k < W; ++k) {
    futex(&hp[k]->pushed, FUTEX_WAKE_PRIVATE, INT_MAX);
    pthread_join(hp[k]->thread, NULL);
    free(hp[k]), hp[k] = NULL;
  }
  W = 1;
  if (main_cpu >= 0) pthread_setaffinity_np(pthread_self(), sizeof main_mask, &main_mask);   /* as it was */
  main_cpu = -1;
}

int insdg_direct_helpers(void) { return W - 1; }

static int conflicts(const entry *e, const starpu_data_handle_t *h, const unsigned char *writes, int n)
{
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < e->n; ++j)
      if (e->h[j] == h[i] && (writes[i] || e->writes[j])) return 1;
  return 0;
}

/* the done count of helper H that covers its newest task in flight conflicting with the
   access list, or H's done count now when none does */
static unsigned newest_conflict(helper *H, const starpu_data_handle_t *h, const unsigned char *writes, int n)
{
  const unsigned done = atomic_load_explicit(&H->done, memory_order_acquire);
  const unsigned pushed = atomic_load_explicit(&H->pushed, memory_order_relaxed);   /* ours */
  for (unsigned s = pushed; s != done; --s)
    if (conflicts(&H->ring[(s - 1) % RING], h, writes, n)) return s;
  return done;
}

/* The main thread's own tasks wait here, in submission order, until the main thread issues
   its next own task (or a helper's task that conflicts with one, or waits): so that, block 0
   being the main thread's and block 1 a helper's, the main thread runs an operation's
   block-0 task after it gave the helper that operation's block-1 task, and the two run at
   once. A helper's task is never given before the main thread's earlier tasks it
   conflicts with have run: helpers never wait for the main thread. */
enum { PEND = 1 };
static entry pending[PEND];
static int npending;

/* e describes task (its n <= MAXH handles and whether it writes each), no dependencies yet */
static void fill_entry(entry *e, struct starpu_task *task, int n)
{
  e->task = task, e->n = n, e->ndep = 0;
  for (int i = 0; i < n; ++i) {
    e->h[i] = STARPU_TASK_GET_HANDLE(task, i);
    e->writes[i] = (STARPU_TASK_GET_MODE(task, i) & STARPU_W) != 0;
  }
}

/* the main thread runs a task once the helpers' conflicting tasks in flight have run */
static void run_main(struct starpu_task *task)
{
  const int n = (int)STARPU_TASK_GET_NBUFFERS(task);
  for (int i = 0; i < n; ++i) {
    const starpu_data_handle_t hi = STARPU_TASK_GET_HANDLE(task, i);
    const unsigned char wi = (STARPU_TASK_GET_MODE(task, i) & STARPU_W) != 0;
    for (int j = 1; j < W; ++j) wait_done(hp[j], newest_conflict(hp[j], &hi, &wi, 1));
  }
  insdg_runtime_run_here(task, 0, &main_tasks, &main_task_us);
}

/* run the first m pending tasks */
static void run_pending(int m)
{
  for (int i = 0; i < m; ++i) run_main(pending[i].task);
  memmove(pending, pending + m, sizeof pending[0] * (size_t)(npending - m));
  npending -= m;
}

void insdg_direct_wait_for(starpu_data_handle_t h, enum starpu_data_access_mode mode)
{
  run_pending(npending);
  const unsigned char w = (mode & STARPU_W) != 0;
  for (int k = 1; k < W; ++k) wait_done(hp[k], newest_conflict(hp[k], &h, &w, 1));
}

void insdg_direct_wait_all(void)
{
  run_pending(npending);
  for (int k = 1; k < W; ++k) wait_done(hp[k], atomic_load_explicit(&hp[k]->pushed, memory_order_relaxed));
}

/* the thread a task runs on: its block's home (sched_home.h's rule), the main thread for
   rank-level tasks and those that hold the communication token (their MPI calls) */
static int home_of(struct starpu_task *t, int n)
{
  const starpu_data_handle_t token = insdg_runtime_comm_token();
  for (int i = 0; i < n; ++i)
    if (STARPU_TASK_GET_HANDLE(t, i) == token) return 0;
  const int b = insdg_sched_home_block(t);
  return b < 0 ? 0 : to[b % W];
}

int insdg_direct_pause(const int *paused)
{
  int run[MAXW], nrun = 0;
  for (int k = 0; k < W; ++k)
    if (!paused[k]) run[nrun++] = k;
  for (int k = 0, next = 0; k < W; ++k) to[k] = nrun > 0 && paused[k] ? run[next++ % nrun] : k;
  /* the main thread still issues every task and runs the rank-level ones: paused, it leaves
     its core (the mask it had before), and takes it again when resumed */
  const int main_paused = nrun > 0 && paused[0];
  if (main_cpu >= 0 && main_paused) pthread_setaffinity_np(pthread_self(), sizeof main_mask, &main_mask);
  else if (main_cpu >= 0) bind_to(main_cpu);
  /* sharing a core, a spinning waiter only delays the thread it waits for: waits sleep at once */
  __atomic_store_n(&spin_us, main_paused ? 0 : SPIN_US, __ATOMIC_RELAXED);
  return nrun > 0 ? nrun : W;
}

void insdg_direct_thread(int k, int *tid, int *cpu)
{
  *tid = k == 0 ? main_tid : k < W ? hp[k]->tid : -1;
  *cpu = k == 0 ? main_cpu : k < W ? hp[k]->cpu : -1;
}

void insdg_direct_issue(struct starpu_task *task)
{
  const int n = (int)STARPU_TASK_GET_NBUFFERS(task);
  const int k = n <= MAXH ? home_of(task, n) : 0;
  if (k == 0) {   /* the main thread's: it waits in pending[] (see above) */
    if (n > MAXH) {
      run_pending(npending), run_main(task);
      return;
    }
    if (npending == PEND) run_pending(1);
    fill_entry(&pending[npending++], task, n);
    return;
  }
  helper *H = hp[k];
  const unsigned p = atomic_load_explicit(&H->pushed, memory_order_relaxed);
  wait_done(H, p - RING + 1);   /* a free slot */
  entry *e = &H->ring[p % RING];
  fill_entry(e, task, n);
  for (int i = npending - 1; i >= 0; --i) {   /* the main thread's conflicting tasks run first */
    if (conflicts(&pending[i], e->h, e->writes, n)) {
      run_pending(i + 1);
      break;
    }
  }
  for (int j = 1; j < W; ++j) {   /* the other helpers' conflicting tasks: H waits for them */
    if (j == k) continue;
    const unsigned d = newest_conflict(hp[j], e->h, e->writes, n);
    if (reached(atomic_load_explicit(&hp[j]->done, memory_order_acquire), d)) continue;
    if (e->ndep == 4) {   /* more than four: wait here */
      wait_done(hp[j], d);
      continue;
    }
    e->dep_helper[e->ndep] = j, e->dep_done[e->ndep] = d, ++e->ndep;
  }
  atomic_store(&H->pushed, p + 1);   /* seq_cst: ordered before the load of sleeping */
  if (atomic_load(&H->sleeping)) futex(&H->pushed, FUTEX_WAKE_PRIVATE, 1);
}

void insdg_direct_counts(int k, long *tasks, double *task_us)
{
  if (k == 0) *tasks = main_tasks, *task_us = main_task_us;
  else if (k < W) *tasks = hp[k]->tasks, *task_us = hp[k]->task_us;
  else *tasks = 0, *task_us = 0;
}

void insdg_direct_reset_counts(void)
{
  insdg_direct_wait_all();
  main_tasks = 0, main_task_us = 0;
  for (int k = 1; k < W; ++k) hp[k]->tasks = 0, hp[k]->task_us = 0;
}
