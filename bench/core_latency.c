/* core_latency.c -- how far apart two cores are: the round trip of one cache line between
 * two threads, each pinned to one of the first two CPUs of this process's affinity mask.
 *
 * Thread A writes a counter, thread B waits for it and writes it back, ROUNDS times; the
 * time per round trip is the cost of moving a line from one core's cache to the other's and
 * back. It sets what every cross-core hand-over of a shared-memory run costs (a task's data
 * read by the other worker, StarPU's queues, locks and handles): on the 2-vCPU VMs of
 * docs/performance.md it moved between ~80 ns and ~750 ns from minute to minute as the host
 * placed the vCPUs, and the two-worker step with it ("The two-worker step on a Zen 5 VM").
 * bench_step.py runs it before each round. Nothing else is measured.
 *
 * Usage: core_latency [--rounds R] [--batches B]      (defaults 200000, 5)
 * Prints the median over B batches of R round trips each, then one line:
 *   core_latency: round_trip_ns=<median> min=<x> max=<x> cpus=<a>,<b>
 * Exit status 0; 2 on a bad argument; 3 when the process may use fewer than two CPUs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Alignas(64) atomic_long line;
static long rounds = 200000;
static int cpu_b;

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int pin(int cpu)
{
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* thread B: answers every odd value with the next even one, until a negative value */
static void *answer(void *arg)
{
  (void)arg;
  if (pin(cpu_b)) return (void *)1;
  for (long expect = 1;; expect += 2) {
    long v;
    while ((v = atomic_load_explicit(&line, memory_order_acquire)) != expect && v >= 0) {
    }
    if (v < 0) return NULL;
    atomic_store_explicit(&line, expect + 1, memory_order_release);
  }
}

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  int batches = 5;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atol(argv[++i]);
    else if (!strcmp(argv[i], "--batches") && i + 1 < argc) batches = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: core_latency [--rounds R] [--batches B]\n");
      return 2;
    }
  }
  if (rounds < 1 || batches < 1 || batches > 1000) {
    fprintf(stderr, "core_latency: --rounds and --batches must be positive (batches <= 1000)\n");
    return 2;
  }
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask)) return 3;
  int cpus[2], n = 0;
  for (int c = 0; c < CPU_SETSIZE && n < 2; ++c)
    if (CPU_ISSET(c, &mask)) cpus[n++] = c;
  if (n < 2) {
    fprintf(stderr, "core_latency: this process may use fewer than two CPUs\n");
    return 3;
  }
  cpu_b = cpus[1];
  if (pin(cpus[0])) return 3;
  pthread_t tb;
  if (pthread_create(&tb, NULL, answer, NULL)) return 3;
  double *ns = malloc(sizeof(double) * (size_t)batches);
  long v = 0;
  for (int b = 0; b < batches; ++b) {
    const double t0 = now();
    for (long r = 0; r < rounds; ++r) {
      atomic_store_explicit(&line, ++v, memory_order_release);   /* odd: B's turn */
      ++v;
      while (atomic_load_explicit(&line, memory_order_acquire) != v) {
      }
    }
    ns[b] = (now() - t0) / (double)rounds * 1e9;
  }
  atomic_store(&line, -1);
  void *rc;
  pthread_join(tb, &rc);
  if (rc) return 3;
  qsort(ns, (size_t)batches, sizeof *ns, cmp);
  printf("core_latency: round_trip_ns=%.1f min=%.1f max=%.1f cpus=%d,%d\n", ns[batches / 2], ns[0], ns[batches - 1],
         cpus[0], cpus[1]);
  free(ns);
  return 0;
}
