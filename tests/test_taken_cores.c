/* test_taken_cores.c -- pausing the workers whose cores another process takes
 * (tasks/taken_cores.h).
 *
 *   test_taken_cores rule
 * insdg_taken_cores_decide on made-up windows, each against the rule worked by hand: a
 * quiet machine, this process's own main thread making a worker wait, a busy process on
 * worker 1's core (paused), the same with worker 1 paused (stays), the process gone
 * (resumed), two busy processes (the one that waited most paused, never the last running),
 * a busy process that took a core the worker did not wait for (kept).
 *
 *   test_taken_cores busy|busy_direct    (two CPU workers, bound one per core; RUN_SERIAL)
 * A child process spins on worker 1's core while the main thread keeps both blocks' chains
 * of 1 ms tasks going and polls the watcher between them: worker 1 must be paused within
 * 5 s and, after the child is killed, resumed within 5 s; worker 0 is never paused. States,
 * not times: how fast it happens depends on the machine, so the bounds are wide. Exit 77
 * (skipped) where the process has not exactly two cores (the workers would not be bound one
 * per core), the watcher does not start, or a worker is paused in the first 0.5 s, before
 * the child begins (other processes keep the cores busy: nothing to judge). busy: StarPU's
 * workers (INSDG_DIRECT=0, insdg-home); busy_direct: the main thread and a helper thread
 * (tasks/direct.h), whose block then runs on the main thread. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <starpu.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "direct.h"
#include "error.h"
#include "expect.h"
#include "runtime.h"
#include "sched_home.h"
#include "taken_cores.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* one window: expect worker `changed` (-1: none) and the paused set after it */
static void window(const char *what, const double busy[2], const double cpu[2], double ours, const double delay[2],
                   int paused[2], int changed, int p0, int p1, double other1)
{
  double other[2];
  const int k = insdg_taken_cores_decide(2, busy, cpu, ours, delay, paused, other);
  EXPECT(k == changed && paused[0] == p0 && paused[1] == p1, "%s: changed %d, paused {%d, %d}; expected %d, {%d, %d}",
         what, k, paused[0], paused[1], changed, p0, p1);
  EXPECT(other1 < 0 || (other[1] > other1 - 1e-12 && other[1] < other1 + 1e-12), "%s: other[1] %.15g, expected %g",
         what, other[1], other1);
}

static int rule(void)
{
  int p[2] = {0, 0};
  /* quiet: the cores busy with this process alone (workers 0.8 and 0.7, the main thread 0.2) */
  window("quiet", (double[]){0.92, 0.78}, (double[]){0.8, 0.7}, 1.7, (double[]){0.02, 0.01}, p, -1, 0, 0, 0.0);
  /* the main thread on core 0 made worker 0 wait 30%: its own time, nobody else's
     (other[0] = 1 - 0.6 - 0.15 = 0.25 < 0.3) */
  window("own main thread", (double[]){1.0, 0.7}, (double[]){0.6, 0.7}, 1.6, (double[]){0.3, 0.0}, p, -1, 0, 0, -1);
  /* a busy process on core 1: worker 1 got half of it and waited 45%
     (other[1] = 1 - 0.5 - (1.55 - 1.4) / 2 = 0.425) */
  window("busy on core 1", (double[]){1.0, 1.0}, (double[]){0.9, 0.5}, 1.55, (double[]){0.02, 0.45}, p, 1, 0, 1,
         0.425);
  /* worker 1 paused, the process still there: its core busy, the worker idle (stays) */
  window("still busy", (double[]){1.0, 1.0}, (double[]){0.95, 0.0}, 1.05, (double[]){0.02, 0.0}, p, -1, 0, 1, 0.95);
  /* the process gone: core 1 idle but for the main thread's visits (resumed: 0.06 - 0.05 < 0.2) */
  window("gone", (double[]){1.0, 0.06}, (double[]){0.95, 0.0}, 1.05, (double[]){0.02, 0.0}, p, 1, 0, 0, 0.01);
  /* two busy processes, one per core: the worker that waited most paused, worker 0 ... */
  window("two busy", (double[]){1.0, 1.0}, (double[]){0.5, 0.45}, 1.0, (double[]){0.4, 0.5}, p, 1, 0, 1, 0.525);
  /* ... and then never the last one running, however long it waits */
  window("last running", (double[]){1.0, 1.0}, (double[]){0.5, 0.0}, 0.55, (double[]){0.5, 0.0}, p, -1, 0, 1, -1);
  /* a process that uses core 0 while worker 0 had nothing to do (no wait): kept */
  int q[2] = {0, 0};
  window("no wait", (double[]){1.0, 0.8}, (double[]){0.3, 0.75}, 1.1, (double[]){0.05, 0.05}, q, -1, 0, 0, -1);
  printf("test_taken_cores rule: %d failure(s)\n", failures);
  return failures != 0;
}

static double mem[2];
static int ran_on[2];   /* the thread that ran block b's last task */

static void work_1ms(void *buffers[], void *arg)
{
  (void)arg;
  ran_on[(double *)STARPU_VECTOR_GET_PTR(buffers[0]) - mem] = (int)syscall(SYS_gettid);
  const double t0 = now();
  while (now() - t0 < 1e-3) {
  }
}

static struct starpu_codelet cl_work = {.cpu_funcs = {work_1ms}, .nbuffers = 1, .modes = {STARPU_RW}, .name = "work"};

static void where(void *buffers[], void *arg)
{
  (void)buffers;
  *(int *)arg = sched_getcpu();
}

static struct starpu_codelet cl_where = {.cpu_funcs = {where}, .nbuffers = 0, .name = "where"};

/* keep both blocks busy and poll until worker 1's pause state is `want` or `limit` seconds
   pass; returns the seconds it took, or -1 */
static double run_until(insdg_taken_cores *w, starpu_data_handle_t h[2], int want, double limit, int *paused0)
{
  const double t0 = now();
  char msg[320];
  while (now() - t0 < limit) {
    for (int r = 0; r < 10; ++r)
      for (int b = 0; b < 2; ++b) INSDG_CHECK(INSDG_TASK_INSERT(&cl_work, STARPU_RW, h[b], 0) == 0);
    insdg_runtime_wait_all();
    if (insdg_taken_cores_poll(w, msg, sizeof msg)) {
      printf("  %.2f s: %s\n", now() - t0, msg);
    }
    *paused0 |= insdg_taken_cores_paused(w, 0);
    if (insdg_taken_cores_paused(w, 1) == want) return now() - t0;
  }
  return -1;
}

static int busy(int argc, char **argv, int direct)
{
  cpu_set_t mask;
  sched_getaffinity(0, sizeof mask, &mask);
  if (CPU_COUNT(&mask) != 2) {
    printf("test_taken_cores busy: %d cores in this process's mask, not 2: skipped\n", CPU_COUNT(&mask));
    return 77;
  }
  char err[256];
  insdg_runtime_opts opts = {.ncpu = 2};
  if (insdg_runtime_init(&argc, &argv, &opts, err, sizeof err)) insdg_die_user(err);
  if (direct && !(insdg_runtime_direct && insdg_direct_helpers() == 1)) {
    printf("test_taken_cores busy_direct: no direct execution with a helper thread in this build (a GPU-path "
           "StarPU): skipped\n");
    insdg_runtime_shutdown();
    return 77;
  }
  char why[128] = "";
  insdg_taken_cores *w = insdg_taken_cores_start(why, sizeof why);
  if (!w) {
    printf("test_taken_cores busy: the watcher does not start (%s): skipped\n", why);
    insdg_runtime_shutdown();
    return 77;
  }
  /* worker 1's core, where it runs a task (bound: the watcher started), or helper 1's */
  int core1 = -1, tid1;
  EXPECT(direct == (insdg_runtime_direct && insdg_direct_helpers() == 1), "direct execution %d, expected %d",
         insdg_runtime_direct, direct);
  if (direct) insdg_direct_thread(1, &tid1, &core1);
  else
    INSDG_CHECK(starpu_task_insert(&cl_where, STARPU_EXECUTE_ON_WORKER, starpu_worker_get_by_type(STARPU_CPU_WORKER, 1),
                                   STARPU_CL_ARGS_NFREE, &core1, sizeof core1, STARPU_TASK_SYNCHRONOUS, 1, 0) == 0);
  INSDG_CHECK(core1 >= 0);
  starpu_data_handle_t h[2];
  for (int b = 0; b < 2; ++b) {
    starpu_vector_data_register(&h[b], STARPU_MAIN_RAM, (uintptr_t)&mem[b], 1, sizeof(double));
    insdg_sched_home_tag(h[b], b);
  }
  int paused0 = 0;
  const double quiet = run_until(w, h, 1, 0.5, &paused0);   /* nothing else running: none paused */
  if (quiet >= 0 || paused0) {
    insdg_taken_cores_stop(w);
    for (int b = 0; b < 2; ++b) insdg_runtime_unregister(h[b]);
    insdg_runtime_shutdown();
    printf("test_taken_cores busy: a worker was paused before the test's busy process began: other processes "
           "keep these cores busy, nothing to judge: skipped\n");
    return 77;
  }
  const pid_t child = fork();
  INSDG_CHECK(child >= 0);
  if (child == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(core1, &one);
    sched_setaffinity(0, sizeof one, &one);
    for (volatile unsigned long i = 0;; ++i) {
    }
  }
  const double t_pause = run_until(w, h, 1, 5.0, &paused0);
  if (direct && t_pause >= 0) {   /* paused, helper 1's block runs on the main thread */
    for (int b = 0; b < 2; ++b) INSDG_CHECK(INSDG_TASK_INSERT(&cl_work, STARPU_RW, h[b], 0) == 0);
    insdg_runtime_wait_all();
    EXPECT(ran_on[1] == (int)syscall(SYS_gettid), "helper 1 paused, yet block 1 ran on thread %d, not the main thread",
           ran_on[1]);
  }
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  const double t_resume = t_pause >= 0 ? run_until(w, h, 0, 5.0, &paused0) : -1;
  insdg_taken_cores_stop(w);
  for (int b = 0; b < 2; ++b) insdg_runtime_unregister(h[b]);
  insdg_runtime_shutdown();
  EXPECT(t_pause >= 0, "worker 1 not paused within 5 s of a busy process on its core %d", core1);
  EXPECT(t_resume >= 0, "worker 1 not resumed within 5 s of the busy process's end");
  EXPECT(!paused0, "worker 0 was paused");
  printf("test_taken_cores %s: a busy process on core %d: worker 1 paused after %.2f s, resumed %.2f s after "
         "its end: %d failure(s)\n", direct ? "busy_direct" : "busy", core1, t_pause, t_resume, failures);
  return failures != 0;
}

int main(int argc, char **argv)
{
  const int direct = argc == 2 && !strcmp(argv[1], "busy_direct");
  if (!direct) setenv("INSDG_DIRECT", "0", 1);   /* its own StarPU tasks need StarPU's workers (runtime.h) */
  setenv("INSDG_HOST_WORKER", "0", 1);
  if (argc == 2 && !strcmp(argv[1], "rule")) return rule();
  if (argc == 2 && (!strcmp(argv[1], "busy") || direct)) return busy(argc, argv, direct);
  fprintf(stderr, "usage: test_taken_cores rule|busy|busy_direct\n");
  return 2;
}
