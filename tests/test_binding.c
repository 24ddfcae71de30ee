/* test_binding.c -- where insdg_runtime_init_starpu puts the CPU workers (tasks/runtime.h):
 * as many workers as the process's cores: each bound to one core of the mask; fewer: left
 * unbound (each worker may run on every core of the mask), so that two runs side by side
 * do not share the first core. Checked from inside a task on every worker: the worker
 * thread's own affinity mask, and its nice level read back from the kernel: one level above
 * the main thread's when the workers fill the cores (bound), the main thread's when they do
 * not (tasks/runtime.c, set_worker_nice).
 *
 * Usage: test_binding EXPECT   (STARPU_NCPU set by the test)
 *   EXPECT = bound: each worker's mask holds one core, and the workers' cores differ
 *   EXPECT = unbound: each worker's mask is the process's mask
 * Exit 77 (skipped) when the process has fewer than 2 cores, and for unbound with a GPU StarPU. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "error.h"
#include "runtime.h"

static cpu_set_t seen[STARPU_NMAXWORKERS];
static int nice_seen[STARPU_NMAXWORKERS];

static void record_mask(void *buffers[], void *arg)
{
  (void)buffers, (void)arg;
  sched_getaffinity(0, sizeof(cpu_set_t), &seen[starpu_worker_get_id()]);
  errno = 0;
  const int nv = getpriority(PRIO_PROCESS, 0);   /* Linux: this thread's */
  nice_seen[starpu_worker_get_id()] = errno ? -100 : nv;
}

static struct starpu_codelet cl = {.cpu_funcs = {record_mask}, .nbuffers = 0, .name = "record_mask"};

int main(int argc, char **argv)
{
  if (argc != 2 || (strcmp(argv[1], "bound") && strcmp(argv[1], "unbound"))) {
    fprintf(stderr, "usage: test_binding bound|unbound\n");
    return 2;
  }
  cpu_set_t process;
  sched_getaffinity(0, sizeof process, &process);
  if (CPU_COUNT(&process) < 2) {
    printf("test_binding: %d core in this process's mask, nothing to check\n", CPU_COUNT(&process));
    return 77;
  }
#if defined(STARPU_USE_CUDA) || defined(STARPU_USE_HIP)
  if (!strcmp(argv[1], "unbound")) {
    printf("test_binding: a GPU StarPU keeps its workers bound\n");
    return 77;
  }
#endif
  char err[512];
  if (getenv("INSDG_WORKER_NICE")) unsetenv("INSDG_WORKER_NICE");   /* the default is under test */
  errno = 0;
  const int main_nice = getpriority(PRIO_PROCESS, 0);
  INSDG_CHECK(errno == 0);
  if (insdg_runtime_init(&argc, &argv, NULL, err, sizeof err)) insdg_die_user(err);
  const int nw = insdg_runtime_workers();
  for (int w = 0; w < nw; ++w) {
    struct starpu_task *t = starpu_task_create();
    t->cl = &cl, t->execute_on_a_specific_worker = 1, t->workerid = (unsigned)w;
    INSDG_CHECK(starpu_task_submit(t) == 0);
  }
  starpu_task_wait_for_all();
  int fails = 0;
  for (int w = 0; w < nw; ++w) {
    const int n = CPU_COUNT(&seen[w]);
    printf("worker %d of %d: %d of the process's %d cores, nice %d (main thread %d)\n", w, nw, n,
           CPU_COUNT(&process), nice_seen[w], main_nice);
    if (!strcmp(argv[1], "bound")) {   /* the workers fill the cores: one level below the main thread */
      fails += n != 1;
      for (int v = 0; v < w; ++v) fails += CPU_EQUAL(&seen[v], &seen[w]);
      fails += nice_seen[w] != (main_nice < 19 ? main_nice + 1 : 19) ||
               insdg_runtime_worker_nice() != ((int)starpu_worker_get_count() >= CPU_COUNT(&process));
    } else {
      fails += !CPU_EQUAL(&seen[w], &process);
      fails += nice_seen[w] != main_nice || insdg_runtime_worker_nice() != 0;
    }
  }
  insdg_runtime_shutdown();
  printf("test_binding %s: %s\n", argv[1], fails ? "FAILED" : "ok");
  return fails ? 1 : 0;
}
