/* test_binding.c -- where insdg_runtime_init_starpu puts the CPU workers (tasks/runtime.h):
 * as many workers as the process's cores: each bound to one core of the mask; fewer: left
 * unbound (each worker may run on every core of the mask), so that two runs side by side
 * do not share the first core. Checked from inside a task on every worker: the worker
 * thread's own affinity mask.
 *
 * Usage: test_binding EXPECT   (STARPU_NCPU set by the test)
 *   EXPECT = bound: each worker's mask holds one core, and the workers' cores differ
 *   EXPECT = unbound: each worker's mask is the process's mask
 * Exit 77 (skipped) when the process has fewer than 2 cores, and for unbound with a GPU StarPU. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <starpu.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "runtime.h"

static cpu_set_t seen[STARPU_NMAXWORKERS];

static void record_mask(void *buffers[], void *arg)
{
  (void)buffers, (void)arg;
  sched_getaffinity(0, sizeof(cpu_set_t), &seen[starpu_worker_get_id()]);
}

static struct starpu_codelet cl = {.cpu_funcs = {record_mask}, .nbuffers = 0, .name = "record_mask"};

int main(int argc, char **argv)
{
  setenv("INSDG_DIRECT", "0", 1);   /* its own StarPU tasks need StarPU's workers (runtime.h) */
  setenv("INSDG_HOST_WORKER", "0", 1);
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
    printf("worker %d of %d: %d of the process's %d cores\n", w, nw, n, CPU_COUNT(&process));
    if (!strcmp(argv[1], "bound")) {
      fails += n != 1;
      for (int v = 0; v < w; ++v) fails += CPU_EQUAL(&seen[v], &seen[w]);
    } else {
      fails += !CPU_EQUAL(&seen[w], &process);
    }
  }
  insdg_runtime_shutdown();
  printf("test_binding %s: %s\n", argv[1], fails ? "FAILED" : "ok");
  return fails ? 1 : 0;
}
