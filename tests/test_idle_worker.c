/* test_idle_worker.c -- an idle StarPU worker gives its core to a thread that shares it.
 *
 * StarPU keeps its last awake worker polling for tasks (tools/starpu-idle-yield.patch);
 * the StarPU that tools/build-starpu.sh builds yields the core between polls, so insdg's
 * main thread, which submits the tasks and computes on the host between them, runs at
 * once when it shares a core with that worker. Without the yield the kernel's scheduler
 * splits the core between them (docs/performance.md, "A time step: the polling worker
 * yields").
 *
 * The check: the process confined to one core, one CPU worker (STARPU_NCPU=1, set by the
 * test), idle after one task; the main thread computes for 0.3 s of wall time. The
 * worker's CPU time over that window, read from its thread's CPU clock, must stay below a
 * tenth of the main thread's (a polling worker that does not yield takes about as much as
 * the main thread). CPU times, not wall times: another process on the same core slows
 * both threads alike.
 *
 * Usage: test_idle_worker   (exit 77: skipped where the process cannot be confined) */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <starpu.h>
#include <stdio.h>
#include <time.h>

#include "error.h"
#include "runtime.h"

static clockid_t worker_clock;
static int worker_clock_ok;

static void record_clock(void *buffers[], void *arg)
{
  (void)buffers, (void)arg;
  worker_clock_ok = pthread_getcpuclockid(pthread_self(), &worker_clock) == 0;
}

static struct starpu_codelet cl = {.cpu_funcs = {record_clock}, .nbuffers = 0, .name = "record_clock"};

static double seconds(clockid_t c)
{
  struct timespec ts;
  INSDG_CHECK(clock_gettime(c, &ts) == 0);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
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
  while (seconds(CLOCK_MONOTONIC) - start < 0.3)
    for (int i = 0; i < 10000; ++i) x = x * 0.999 + 1.0;
  const double worker = seconds(worker_clock) - w0, main_thread = seconds(CLOCK_THREAD_CPUTIME_ID) - m0;
  insdg_runtime_shutdown();

  const int ok = main_thread > 0.01 && worker < 0.1 * main_thread;
  printf("test_idle_worker: one core, 0.3 s of wall time: main thread %.1f ms of CPU, the idle worker %.1f ms "
         "(at most a tenth of the main thread's): %s\n",
         1e3 * main_thread, 1e3 * worker, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
