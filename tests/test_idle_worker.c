/* test_idle_worker.c -- how an idle StarPU worker waits (tools/starpu-idle-workers.patch).
 *
 *   test_idle_worker yield    (STARPU_NCPU=1)
 * StarPU keeps its last awake worker polling for tasks; the StarPU that
 * tools/build-starpu.sh builds yields the core between polls, so insdg's main thread, which
 * submits the tasks and computes on the host between them, runs at once when it shares a
 * core with that worker. Without the yield the kernel's scheduler splits the core between
 * them (docs/performance.md, "A time step: the polling worker yields the core"). The
 * process confined to one core, one CPU worker, idle after one task; the main thread
 * computes for 0.3 s of wall time. The worker's CPU time over that window, read from its
 * thread's CPU clock, must stay below a tenth of the main thread's (a polling worker that
 * does not yield takes about as much as the main thread). CPU times, not wall times:
 * another process on the same core slows both threads alike.
 *
 *   test_idle_worker blocks   (STARPU_NCPU=2, STARPU_IDLE_POLL_US unset: 200 us)
 *   test_idle_worker polls    (STARPU_NCPU=2, STARPU_IDLE_POLL_US=300000)
 * An idle worker polls STARPU_IDLE_POLL_US before it sleeps. Two workers, one task each:
 * worker 1's returns at once, worker 0's computes for 10 ms, so worker 1 is idle while
 * worker 0 is awake and, its poll over, blocks (StarPU keeps only the last awake worker,
 * here worker 0, polling; workers that go idle at the same moment may both poll on, hence
 * the 10 ms). Worker 1's thread state read from /proc/self/task/TID/stat twenty times,
 * 1 ms apart, from 20 ms after the tasks' end: "blocks": blocked (S, not in a nanosleep) in
 * every sample (nothing wakes a blocked worker); "polls": polling in most samples, that is
 * running or runnable (R), or asleep in a nanosleep (S with clock_nanosleep or nanosleep in
 * /proc/self/task/TID/syscall: beside a busy process the worker's yields are slow and it
 * polls by short sleeps, the third change below; a CI run beside another test caught it so
 * in 17 samples of 20 when the test counted R only). A 300 ms poll; blocked on its futex in
 * every sample with StarPU's own behaviour, STARPU_IDLE_POLL_US=0. A polling worker takes
 * StarPU's scheduler locks, and one that finds a lock held waits on its futex for a moment:
 * a CI run of the whole suite once caught it so in 1 sample of 10, hence "most", not
 * "every". States, not times: another process on the cores changes neither.
 *
 *   test_idle_worker sleeps   (STARPU_NCPU=1)
 * The same one core, idle worker and computing main thread: each yield of the polling
 * worker now gives the main thread a whole time slice (the kernel's EEVDF scheduler puts a
 * yielding thread behind the others of its group), so after two such yields the worker
 * polls by sleeping instead (20 us after a task, doubling up to 1 ms; the patch's third
 * change: a busy process beside two workers made insdg's step 20x slower before it). The
 * worker's state read from /proc/self/task/TID/stat every 10 ms from 0.1 s on: asleep (S)
 * in three quarters of the samples at least; with yields only it is runnable (R) in every
 * sample. States, not times.
 *
 * Exit 77 (skipped) where the process cannot be confined to one core (yield, sleeps), or has fewer
 * than 2 cores or a StarPU with polling drivers (blocks, polls). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <starpu.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "runtime.h"

static clockid_t worker_clock;
static int worker_clock_ok;
static pid_t worker_tid[2];

static double seconds(clockid_t c);

/* records the worker's CPU clock and thread id; worker 0 then computes for 10 ms */
static void record_clock(void *buffers[], void *arg)
{
  (void)buffers, (void)arg;
  worker_clock_ok = pthread_getcpuclockid(pthread_self(), &worker_clock) == 0;
  const int w = starpu_worker_get_id();
  if (w >= 0 && w < 2) worker_tid[w] = (pid_t)syscall(SYS_gettid);
  if (w == 0 && starpu_cpu_worker_get_count() == 2) {
    const double t0 = seconds(CLOCK_MONOTONIC);
    while (seconds(CLOCK_MONOTONIC) - t0 < 0.01) {
    }
  }
}

static struct starpu_codelet cl = {.cpu_funcs = {record_clock}, .nbuffers = 0, .name = "record_clock"};

static double seconds(clockid_t c)
{
  struct timespec ts;
  INSDG_CHECK(clock_gettime(c, &ts) == 0);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the state letter of thread tid ('R', 'S', ...), '?' when unreadable */
static char thread_state(pid_t tid)
{
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
  FILE *f = fopen(path, "r");
  if (!f) return '?';
  const size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *p = strrchr(buf, ')');   /* "tid (comm) S ..." */
  return p && p[1] == ' ' ? p[2] : '?';
}

/* whether thread tid, asleep, sleeps in a nanosleep (a polling worker's short sleep) rather
   than on a futex (a blocked one); 0 where /proc does not say */
static int in_nanosleep(pid_t tid)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  long nr = -1;
  const int n = fscanf(f, "%ld", &nr);   /* "running" when it is not in a system call */
  fclose(f);
  return n == 1 && (nr == SYS_nanosleep || nr == SYS_clock_nanosleep);
}

static void sleep_ms(double ms)
{
  struct timespec ts = {(time_t)(ms / 1e3), (long)((ms - 1e3 * (double)(time_t)(ms / 1e3)) * 1e6)};
  while (nanosleep(&ts, &ts)) {
  }
}

static int two_workers(int argc, char **argv, int expect_poll)
{
#ifdef STARPU_NON_BLOCKING_DRIVERS
  (void)argc, (void)argv, (void)expect_poll;
  printf("test_idle_worker: a StarPU with polling drivers: idle workers never block, nothing to check\n");
  return 77;
#endif
  cpu_set_t mask;
  sched_getaffinity(0, sizeof mask, &mask);
  if (CPU_COUNT(&mask) < 2) {
    printf("test_idle_worker: %d core in this process's mask, nothing to check\n", CPU_COUNT(&mask));
    return 77;
  }
  char err[512];
  if (insdg_runtime_init(&argc, &argv, NULL, err, sizeof err)) insdg_die_user(err);
  INSDG_CHECK(starpu_cpu_worker_get_count() == 2);
  for (int w = 0; w < 2; ++w) {
    struct starpu_task *t = starpu_task_create();
    t->cl = &cl, t->execute_on_a_specific_worker = 1, t->workerid = (unsigned)w;
    INSDG_CHECK(starpu_task_submit(t) == 0);
  }
  starpu_task_wait_for_all();
  INSDG_CHECK(worker_tid[0] > 0 && worker_tid[1] > 0);
  sleep_ms(20);
  int running[2] = {0, 0}, napping[2] = {0, 0}, blocked[2] = {0, 0};
  const int samples = 20;
  for (int k = 0; k < samples; ++k) {
    for (int w = 0; w < 2; ++w) {
      const char c = thread_state(worker_tid[w]);
      const int nap = c == 'S' && in_nanosleep(worker_tid[w]);
      running[w] += c == 'R', napping[w] += nap, blocked[w] += c == 'S' && !nap;
    }
    sleep_ms(1);
  }
  insdg_runtime_shutdown();
  const int ok = expect_poll ? 2 * (running[1] + napping[1]) > samples : blocked[1] == samples;
  printf("test_idle_worker %s: 20-40 ms after the tasks' end, in %d samples: worker 1 running %d, in a "
         "nanosleep %d, blocked %d (expected: %s); worker 0 (the last awake) running %d, in a nanosleep %d, "
         "blocked %d: %s\n",
         expect_poll ? "polls" : "blocks", samples, running[1], napping[1], blocked[1],
         expect_poll ? "polling in most: running or in a nanosleep" : "blocked throughout", running[0],
         napping[0], blocked[0], ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}

/* one core, one idle worker, the main thread computing for 0.3 s: "yield" compares their CPU
   times, "sleeps" samples the worker's state */
static int one_core(int argc, char **argv, int sleeps)
{
  cpu_set_t mask, one;
  sched_getaffinity(0, sizeof mask, &mask);
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &mask)) ++first;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  if (first == CPU_SETSIZE || sched_setaffinity(0, sizeof one, &one)) {
    printf("test_idle_worker: cannot confine the process to one core\n");
    return 77;
  }
  char err[512];
  if (insdg_runtime_init(&argc, &argv, NULL, err, sizeof err)) insdg_die_user(err);
  INSDG_CHECK(starpu_cpu_worker_get_count() == 1);
  struct starpu_task *t = starpu_task_create();
  t->cl = &cl;
  INSDG_CHECK(starpu_task_submit(t) == 0);
  starpu_task_wait_for_all();   /* the worker is now idle: polling, the last one awake */
  INSDG_CHECK(worker_clock_ok);

  const double w0 = seconds(worker_clock), m0 = seconds(CLOCK_THREAD_CPUTIME_ID);
  const double start = seconds(CLOCK_MONOTONIC);
  volatile double x = 0;
  int samples = 0, asleep = 0;
  for (double now = start, next = start + 0.1; now - start < 0.3; now = seconds(CLOCK_MONOTONIC)) {
    for (int i = 0; i < 10000; ++i) x = x * 0.999 + 1.0;
    if (sleeps && now >= next && worker_tid[0] > 0) {   /* from 0.1 s on, every 10 ms */
      const char c = thread_state(worker_tid[0]);
      ++samples, asleep += c == 'S', next += 0.01;
    }
  }
  const double worker = seconds(worker_clock) - w0, main_thread = seconds(CLOCK_THREAD_CPUTIME_ID) - m0;
  insdg_runtime_shutdown();
  if (sleeps) {
    const int ok = samples >= 10 && 4 * asleep >= 3 * samples;
    printf("test_idle_worker sleeps: one core, the main thread computing: the idle worker asleep in %d of %d "
           "samples from 0.1 s on (expected: three quarters at least, polling by short sleeps), %.1f ms of CPU "
           "against the main thread's %.1f: %s\n",
           asleep, samples, 1e3 * worker, 1e3 * main_thread, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
  }

  const int ok = main_thread > 0.01 && worker < 0.1 * main_thread;
  printf("test_idle_worker: one core, 0.3 s of wall time: main thread %.1f ms of CPU, the idle worker %.1f ms "
         "(at most a tenth of the main thread's): %s\n",
         1e3 * main_thread, 1e3 * worker, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
  setenv("INSDG_DIRECT", "0", 1);   /* its own StarPU tasks need StarPU's workers (runtime.h) */
  setenv("INSDG_HOST_WORKER", "0", 1);
  if (argc != 2 || (strcmp(argv[1], "yield") && strcmp(argv[1], "sleeps") && strcmp(argv[1], "blocks") &&
                    strcmp(argv[1], "polls"))) {
    fprintf(stderr, "usage: test_idle_worker yield|sleeps|blocks|polls\n");
    return 2;
  }
  if (!strcmp(argv[1], "yield") || !strcmp(argv[1], "sleeps")) return one_core(argc, argv, !strcmp(argv[1], "sleeps"));
  return two_workers(argc, argv, !strcmp(argv[1], "polls"));
}
