/* sched_home.c -- "insdg-home": a StarPU scheduling policy that keeps each block's tasks on
 * one worker (its home) and lets a worker take another's tasks only when that one has a
 * backlog (sched_home.h).
 *
 * Every worker has a FIFO of ready tasks. A task that writes a block's data (a handle tagged
 * by insdg_sched_home_tag) goes to the FIFO of that block's home worker, block b of the rank
 * -> the (b mod W)-th CPU worker; a task that writes no tagged handle but reads one goes to
 * the home of the first it reads; any other task (the rank's reductions, the coarse solve,
 * the exchanges) to the worker that made it ready, or to worker 0 when the main thread did.
 * A worker pops the oldest task of its own FIFO; with none, the oldest of the next FIFO
 * after its own (in worker order) that holds at least HOME_BACKLOG tasks.
 *
 * Why a backlog of two: a single task queued behind a busy home worker waits for it (the
 * tasks are 2-50 us; it starts when the current one ends), because running it on another
 * core moves the block's vectors between the cores' caches, and on the 2-vCPU Zen 5 VM
 * measured that cost more than the wait: with a one-task threshold a fifth of the tasks ran
 * away from home and the two-worker step was 4-9% slower, with StarPU's lws (which queues a
 * task on the worker that made it ready) 8-12% slower (docs/performance.md, "The two-worker
 * step on a Zen 5 VM", 2026-12-05; on the Intel VM of 2026-11-28 the one-task rule against
 * lws made no difference). Two or more queued is a backlog the home worker cannot clear soon:
 * the other worker takes the oldest, so the balance between the blocks' chains holds.
 *
 * Waking: a push wakes the home worker; when the home is running a task and its FIFO now
 * holds a backlog, it also wakes the others, so that an idle one takes the task at once.
 *
 * Paused workers (insdg_sched_home_pause; taken_cores.h: another process took their cores):
 * the blocks of a paused worker go to the workers that are not, in turn; a paused worker
 * runs what is left in its FIFO and takes nothing from others, and the others take from its
 * FIFO any task it holds (no backlog needed), so it soon sleeps and leaves its core.
 *
 * One mutex guards the FIFOs: a push or pop holds it for a few list operations, against
 * tasks of microseconds to milliseconds. Which worker runs a task never changes a result
 * (reductions are summed in block order by their own tasks).
 */
#include "sched_home.h"

#include "error.h"
#include "runtime.h"

#include <starpu_scheduler.h>
#include <stdint.h>
#include <stdlib.h>

/* a worker takes tasks from another worker's FIFO only while it holds this many (see above) */
enum { HOME_BACKLOG = 2 };

typedef struct {
  starpu_pthread_mutex_t lock;
  int nw;                                /* CPU workers */
  int worker[STARPU_NMAXWORKERS];        /* the k-th CPU worker's id */
  int index[STARPU_NMAXWORKERS];         /* worker id -> k, -1 if not a CPU worker */
  struct starpu_task_list q[STARPU_NMAXWORKERS];   /* by k */
  volatile int busy[STARPU_NMAXWORKERS];           /* by k: running a task it popped */
  int queued[STARPU_NMAXWORKERS];                  /* by k: tasks in q[k] */
  int paused[STARPU_NMAXWORKERS];                  /* by k: its core taken (insdg_sched_home_pause) */
  int to[STARPU_NMAXWORKERS];                      /* by k: whose FIFO takes k's tasks (k unless paused) */
  long pops, stolen;                                /* counters (under the lock) */
} home_data;

static home_data *home_active;   /* the policy's data while StarPU runs with it */

void insdg_sched_home_tag(starpu_data_handle_t h, int block)
{
  starpu_data_set_user_data(h, (void *)(intptr_t)(block + 1));
}

int insdg_sched_home_block(const struct starpu_task *t)
{
  const int n = STARPU_TASK_GET_NBUFFERS(t);
  int read_block = -1;
  for (int i = 0; i < n; ++i) {
    const intptr_t b = (intptr_t)starpu_data_get_user_data(STARPU_TASK_GET_HANDLE(t, i));
    if (b <= 0) continue;
    if (STARPU_TASK_GET_MODE(t, i) & STARPU_W) return (int)(b - 1);
    if (read_block < 0) read_block = (int)(b - 1);
  }
  return read_block;
}

static void home_init(unsigned ctx)
{
  home_data *d = insdg_calloc(1, sizeof *d);
  STARPU_PTHREAD_MUTEX_INIT(&d->lock, NULL);
  for (int w = 0; w < STARPU_NMAXWORKERS; ++w) d->index[w] = -1;
  const unsigned nworkers = starpu_worker_get_count();
  for (unsigned w = 0; w < nworkers && d->nw < STARPU_NMAXWORKERS; ++w)
    if (starpu_worker_get_type((int)w) == STARPU_CPU_WORKER) d->index[w] = d->nw, d->worker[d->nw++] = (int)w;
  for (int k = 0; k < d->nw; ++k) starpu_task_list_init(&d->q[k]), d->to[k] = k;
  starpu_sched_ctx_set_policy_data(ctx, d);
  home_active = d;
}

static void home_deinit(unsigned ctx)
{
  home_data *d = starpu_sched_ctx_get_policy_data(ctx);
  home_active = NULL;
  STARPU_PTHREAD_MUTEX_DESTROY(&d->lock);
  free(d);
}

static int home_push(struct starpu_task *t)
{
  home_data *d = starpu_sched_ctx_get_policy_data(t->sched_ctx);
  const int b = insdg_sched_home_block(t);
  int k;
  if (b >= 0) k = b % d->nw;
  else {
    const int me = starpu_worker_get_id();
    k = me >= 0 && d->index[me] >= 0 ? d->index[me] : 0;
  }
  STARPU_PTHREAD_MUTEX_LOCK(&d->lock);
  k = d->to[k];
  starpu_task_list_push_back(&d->q[k], t), ++d->queued[k];
  const int backlog = d->queued[k] >= HOME_BACKLOG;
  starpu_push_task_end(t);
  STARPU_PTHREAD_MUTEX_UNLOCK(&d->lock);
  starpu_wake_worker_relax_light(d->worker[k]);
  if (d->busy[k] && backlog)
    for (int j = 0; j < d->nw; ++j)
      if (j != k && !d->busy[j] && !d->paused[j]) starpu_wake_worker_relax_light(d->worker[j]);
  return 0;
}

static struct starpu_task *home_pop(unsigned ctx)
{
  home_data *d = starpu_sched_ctx_get_policy_data(ctx);
  const int me = starpu_worker_get_id_check();
  const int k = d->index[me];
  if (k < 0) return NULL;
  struct starpu_task *t = NULL;
  STARPU_PTHREAD_MUTEX_LOCK(&d->lock);
  if (!starpu_task_list_empty(&d->q[k])) t = starpu_task_list_pop_front(&d->q[k]), --d->queued[k];
  else if (!d->paused[k])
    for (int j = 1; j < d->nw && !t; ++j) {
      const int v = (k + j) % d->nw;
      if (d->queued[v] >= (d->paused[v] ? 1 : HOME_BACKLOG))
        t = starpu_task_list_pop_front(&d->q[v]), --d->queued[v], ++d->stolen;
    }
  if (t) ++d->pops;
  d->busy[k] = t != NULL;
  STARPU_PTHREAD_MUTEX_UNLOCK(&d->lock);
  if (!t && me == insdg_runtime_host_worker_id() && insdg_runtime_host_keep_awake()) {   /* the main thread's worker never sleeps */
    starpu_worker_lock_self();
    starpu_wake_worker_locked(me);
    starpu_worker_unlock_self();
  }
  return t;
}

static struct starpu_sched_policy home_policy = {
  .init_sched = home_init,
  .deinit_sched = home_deinit,
  .push_task = home_push,
  .pop_task = home_pop,
  .policy_name = "insdg-home",
  .policy_description = "each block's tasks on one worker; a worker with none of its own takes from another's backlog",
  .worker_type = STARPU_WORKER_LIST,
};

struct starpu_sched_policy *insdg_sched_home_policy(void) { return &home_policy; }

int insdg_sched_home_pause(const int *paused)
{
  home_data *d = home_active;
  if (!d) return -1;
  STARPU_PTHREAD_MUTEX_LOCK(&d->lock);
  int run[STARPU_NMAXWORKERS], nrun = 0;
  for (int k = 0; k < d->nw; ++k)
    if (!paused[k]) run[nrun++] = k;
  for (int k = 0, next = 0; k < d->nw; ++k) {
    d->paused[k] = nrun > 0 && paused[k];   /* all paused: none is */
    d->to[k] = d->paused[k] ? run[next++ % nrun] : k;
  }
  STARPU_PTHREAD_MUTEX_UNLOCK(&d->lock);
  for (int k = 0; k < d->nw; ++k)   /* the running ones take what the paused ones hold */
    if (!d->paused[k]) starpu_wake_worker_relax_light(d->worker[k]);
  return nrun > 0 ? nrun : d->nw;
}

int insdg_sched_home_worker_paused(int id)
{
  home_data *d = home_active;
  if (!d || id < 0 || id >= STARPU_NMAXWORKERS || d->index[id] < 0) return 0;
  return __atomic_load_n(&d->paused[d->index[id]], __ATOMIC_RELAXED);
}

double insdg_sched_home_stolen_share(void)
{
  home_data *d = home_active;
  if (!d) return -1;
  STARPU_PTHREAD_MUTEX_LOCK(&d->lock);
  const double s = d->pops > 0 ? (double)d->stolen / (double)d->pops : 0;
  STARPU_PTHREAD_MUTEX_UNLOCK(&d->lock);
  return s;
}
