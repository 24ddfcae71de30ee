/* test_sched_home.c -- the "insdg-home" scheduling policy (tasks/sched_home.h), STARPU_NCPU=2.
 *
 * 1. insdg_runtime_init picks it on a CPU-only StarPU when no scheduler is named.
 * 2. A task's block: the first tagged handle it writes, else the first it reads, else none.
 * 3. A worker takes another's tasks while that one is busy and has a backlog, never its last
 *    one: a spinning task holds worker s; of eight tasks of s's block submitted then, the
 *    other worker o runs the first seven while s still spins (a policy that does not take
 *    them would leave them until the spinner's 10 s are over: the test fails on the
 *    spinner's timeout flag), and the eighth waits for s (a policy that takes a lone task
 *    runs it on o).
 * 4. A worker runs its own tasks before another's: with s held again, a second spinner holds
 *    o while eight tasks of o's block and eight of s's are queued, interleaved; o, released,
 *    runs all of its own before any of s's, then s's first seven; the last one waits for s.
 * 5. A paused worker (insdg_sched_home_pause; tasks/taken_cores.h) runs none of the tasks
 *    submitted after its pause: with s held by a spinner and o paused, eight tasks of o's
 *    block and eight of s's wait for s (none runs in 50 ms: a policy that leaves o's on o, or
 *    lets o take s's backlog, runs them at once), then all sixteen run on s. Resumed, o runs
 *    its block's tasks again while s is held (a policy still sending them to s leaves them
 *    until the spinner's 10 s are over).
 * The steps depend on which worker is busy, never on timing, so a loaded machine changes
 * nothing but the run time. Exit 77 (skipped) on a StarPU with GPU workers, where insdg keeps
 * StarPU's scheduler. */
#include <starpu.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "expect.h"
#include "runtime.h"
#include "sched_home.h"

enum { NT = 8 };

static atomic_int seq;
static int ran_on[6 * NT], order[6 * NT];

typedef struct {
  atomic_int started, release, timed_out, worker;
} spinner;

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cpu_index(void)
{
  const int w = starpu_worker_get_id();
  for (int k = 0; k < (int)starpu_cpu_worker_get_count(); ++k)
    if (starpu_worker_get_by_type(STARPU_CPU_WORKER, k) == w) return k;
  return -1;
}

static void record(void *buffers[], void *arg)
{
  (void)buffers;
  const int i = (int)(intptr_t)arg;
  ran_on[i] = cpu_index();
  order[i] = atomic_fetch_add(&seq, 1);
}

static void spin(void *buffers[], void *arg)
{
  (void)buffers;
  spinner *s = arg;
  atomic_store(&s->worker, cpu_index());
  atomic_store(&s->started, 1);
  const double t0 = now();
  while (!atomic_load(&s->release))
    if (now() - t0 > 10.0) {
      atomic_store(&s->timed_out, 1);
      break;
    }
}

static struct starpu_codelet cl_record = {.cpu_funcs = {record}, .nbuffers = 1, .modes = {STARPU_W}, .name = "record"};
static struct starpu_codelet cl_spin = {.cpu_funcs = {spin}, .nbuffers = 1, .modes = {STARPU_RW}, .name = "spin"};
static struct starpu_codelet cl_rw = {.cpu_funcs = {spin}, .nbuffers = 2, .modes = {STARPU_R, STARPU_W}, .name = "rw"};

static double mem[8 * NT];

/* a one-double vector of block b (b < 0: untagged) */
static starpu_data_handle_t tagged(int i, int b)
{
  starpu_data_handle_t h;
  starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)&mem[i], 1, sizeof(double));
  if (b >= 0) insdg_sched_home_tag(h, b);
  return h;
}

static struct starpu_task *submit(struct starpu_codelet *cl, starpu_data_handle_t h, void *arg)
{
  struct starpu_task *t = starpu_task_create();
  t->cl = cl, t->handles[0] = h, t->cl_arg = arg, t->detach = 0;
  INSDG_CHECK(starpu_task_submit(t) == 0);
  return t;
}

static void wait_task(struct starpu_task *t) { INSDG_CHECK(starpu_task_wait(t) == 0); }

static void wait_started(spinner *s)
{
  const double t0 = now();
  while (!atomic_load(&s->started) && now() - t0 < 10.0) {
  }
}

static void block_of_tasks(void)
{
  starpu_data_handle_t a = tagged(0, 3), b = tagged(1, 5), u = tagged(2, -1), v = tagged(3, -1);
  const struct {
    starpu_data_handle_t r, w;
    int block;
  } c[] = {{a, b, 5}, {u, b, 5}, {a, u, 3}, {u, v, -1}};
  for (int k = 0; k < 4; ++k) {
    struct starpu_task *t = starpu_task_create();
    t->cl = &cl_rw, t->handles[0] = c[k].r, t->handles[1] = c[k].w;
    EXPECT(insdg_sched_home_block(t) == c[k].block, "case %d: block %d, expected %d", k, insdg_sched_home_block(t),
           c[k].block);
    t->destroy = 0;
    starpu_task_destroy(t);
  }
  starpu_data_unregister(a), starpu_data_unregister(b), starpu_data_unregister(u), starpu_data_unregister(v);
}

int main(int argc, char **argv)
{
  setenv("INSDG_DIRECT", "0", 1);   /* its own StarPU tasks need StarPU's workers (runtime.h) */
  setenv("INSDG_HOST_WORKER", "0", 1);
  char err[256];
  insdg_runtime_opts opts = {.ncpu = 2};
  if (insdg_runtime_init(&argc, &argv, &opts, err, sizeof err)) insdg_die_user(err);
#if defined(STARPU_USE_CUDA) || defined(STARPU_USE_HIP)
  printf("skipped: a StarPU with GPU workers keeps its own scheduler\n");
  insdg_runtime_shutdown();
  return 77;
#endif
  EXPECT(strcmp(insdg_runtime_scheduler(), "insdg-home") == 0, "scheduler %s", insdg_runtime_scheduler());
  EXPECT(starpu_cpu_worker_get_count() == 2, "%u CPU workers", starpu_cpu_worker_get_count());
  block_of_tasks();

  /* 3. take from a busy worker's backlog, not its last task */
  static spinner s1, s2, s3;
  starpu_data_handle_t hs1 = tagged(4, 0);
  struct starpu_task *t1 = submit(&cl_spin, hs1, &s1);
  wait_started(&s1);
  const int s = atomic_load(&s1.worker), o = 1 - s;
  EXPECT(s == 0 || s == 1, "spinner on worker %d", s);
  starpu_data_handle_t h[4 * NT];
  struct starpu_task *t[4 * NT];
  for (int i = 0; i < 4 * NT; ++i) ran_on[i] = -1;
  for (int i = 0; i < NT; ++i) h[i] = tagged(8 + i, s), t[i] = submit(&cl_record, h[i], (void *)(intptr_t)i);
  for (int i = 0; i < NT - 1; ++i) wait_task(t[i]);
  EXPECT(!atomic_load(&s1.timed_out), "the tasks of the busy worker's block waited for it");
  for (int i = 0; i < NT - 1; ++i)
    EXPECT(ran_on[i] == o, "task %d of worker %d's block ran on %d, not %d", i, s, ran_on[i], o);
  EXPECT(ran_on[NT - 1] == -1, "the busy worker's last queued task ran (on %d) while it was busy", ran_on[NT - 1]);
  atomic_store(&s1.release, 1);
  wait_task(t[NT - 1]), wait_task(t1);
  EXPECT(ran_on[NT - 1] == s, "the last task ran on %d, not on its home %d", ran_on[NT - 1], s);

  /* 4. own tasks first */
  starpu_data_handle_t hs3 = tagged(6, s), hs2 = tagged(5, o);
  struct starpu_task *t3 = submit(&cl_spin, hs3, &s3);
  wait_started(&s3);
  EXPECT(atomic_load(&s3.worker) == s, "third spinner on worker %d, not %d", atomic_load(&s3.worker), s);
  struct starpu_task *t2 = submit(&cl_spin, hs2, &s2);
  wait_started(&s2);
  EXPECT(atomic_load(&s2.worker) == o, "second spinner on worker %d, not %d", atomic_load(&s2.worker), o);
  const int last = 3 * NT - 2;   /* s's last task */
  for (int i = NT; i < 3 * NT; ++i) {   /* odd: o's block, even: s's */
    h[i] = tagged(8 + i, i % 2 ? o : s);
    t[i] = submit(&cl_record, h[i], (void *)(intptr_t)i);
  }
  atomic_store(&s2.release, 1);
  for (int i = NT; i < 3 * NT; ++i)
    if (i != last) wait_task(t[i]);
  int last_own = -1, first_other = 1 << 30;
  for (int i = NT; i < 3 * NT; ++i) {
    if (i == last) continue;
    EXPECT(ran_on[i] == o, "task %d ran on %d, not %d", i, ran_on[i], o);
    if (i % 2) last_own = order[i] > last_own ? order[i] : last_own;
    else first_other = order[i] < first_other ? order[i] : first_other;
  }
  EXPECT(last_own < first_other, "worker %d ran another's task (#%d) before its last own (#%d)", o, first_other,
         last_own);
  EXPECT(ran_on[last] == -1, "worker %d's last queued task ran (on %d) while it was busy", s, ran_on[last]);
  EXPECT(!atomic_load(&s3.timed_out), "the spinner timed out");
  atomic_store(&s3.release, 1);
  wait_task(t[last]), wait_task(t3), wait_task(t2);
  EXPECT(ran_on[last] == s, "the last task ran on %d, not on its home %d", ran_on[last], s);
  const double stolen = insdg_sched_home_stolen_share();
  /* 27 tasks popped: 3 spinners, 8 in step 3 and 16 in step 4, of which 7 and 7 taken from s */
  EXPECT(stolen >= 14.0 / 27.0 - 1e-12 && stolen <= 1, "stolen share %g", stolen);

  for (int i = 0; i < 3 * NT; ++i) starpu_data_unregister(h[i]);

  /* 5. o paused: its block's new tasks go to s, and o takes none of s's backlog */
  int paused[2] = {0, 0};
  paused[o] = 1;
  EXPECT(insdg_sched_home_pause(paused) == 1, "pausing one of two workers leaves one running");
  static spinner s4, s5;
  starpu_data_handle_t hs4 = tagged(7, s);
  struct starpu_task *t4 = submit(&cl_spin, hs4, &s4);
  wait_started(&s4);
  EXPECT(atomic_load(&s4.worker) == s, "fourth spinner on worker %d, not %d", atomic_load(&s4.worker), s);
  for (int i = 3 * NT; i < 5 * NT; ++i) {   /* odd: o's block, even: s's */
    ran_on[i] = -1;
    h[i - 3 * NT] = tagged(8 + i, i % 2 ? o : s);
    t[i - 3 * NT] = submit(&cl_record, h[i - 3 * NT], (void *)(intptr_t)i);
  }
  const double t50 = now();
  while (now() - t50 < 0.05) {
  }
  int early = 0;
  for (int i = 3 * NT; i < 5 * NT; ++i) early += ran_on[i] != -1;
  EXPECT(early == 0, "%d of %d tasks ran while their only running worker %d was held", early, 2 * NT, s);
  atomic_store(&s4.release, 1);
  for (int i = 0; i < 2 * NT; ++i) wait_task(t[i]);
  wait_task(t4);
  for (int i = 3 * NT; i < 5 * NT; ++i)
    EXPECT(ran_on[i] == s, "task %d (block of worker %d) ran on %d with %d paused", i, i % 2 ? o : s, ran_on[i], o);
  for (int i = 0; i < 2 * NT; ++i) starpu_data_unregister(h[i]);

  /* resumed: o's block on o again while s is held */
  paused[o] = 0;
  EXPECT(insdg_sched_home_pause(paused) == 2, "resuming: two workers run");
  struct starpu_task *t5 = submit(&cl_spin, hs4, &s5);
  wait_started(&s5);
  for (int i = 5 * NT; i < 6 * NT; ++i) {
    ran_on[i] = -1;
    h[i - 5 * NT] = tagged(8 + i - 2 * NT, o);
    t[i - 5 * NT] = submit(&cl_record, h[i - 5 * NT], (void *)(intptr_t)i);
  }
  for (int i = 0; i < NT; ++i) wait_task(t[i]);
  EXPECT(!atomic_load(&s5.timed_out), "the resumed worker's tasks waited for the held one");
  for (int i = 5 * NT; i < 6 * NT; ++i) EXPECT(ran_on[i] == o, "task %d ran on %d, not on resumed %d", i, ran_on[i], o);
  atomic_store(&s5.release, 1);
  wait_task(t5);
  for (int i = 0; i < NT; ++i) starpu_data_unregister(h[i]);
  starpu_data_unregister(hs4);
  starpu_data_unregister(hs1), starpu_data_unregister(hs2), starpu_data_unregister(hs3);
  insdg_runtime_shutdown();
  printf("%s: %d failure(s)\n", argv[0], failures);
  return failures != 0;
}
