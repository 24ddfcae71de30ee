/* taken_cores.c -- pause the CPU workers whose cores another process takes (taken_cores.h). */
#define _GNU_SOURCE
#include "taken_cores.h"

#include "direct.h"
#include "error.h"
#include "runtime.h"
#include "sched_home.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* the thresholds of taken_cores.h, shares of a window's wall time */
#define PAUSE_DELAY 0.25   /* a worker waited this long for its core ... */
#define PAUSE_OTHER 0.30   /* ... that other processes kept busy this long: paused */
#define RESUME_OTHER 0.20  /* a paused worker's core busy with others less than this: resumed */
#define WINDOW_S 0.1       /* the shortest window (/proc/stat counts in 10 ms ticks: 10 or more) */

int insdg_taken_cores_decide(int n, const double *busy, const double *cpu, double ours, const double *delay,
                             int *paused, double *other)
{
  /* this process's threads other than the workers (the main thread's mostly) are not bound:
     a share of their time on each core */
  double workers = 0;
  int running = 0;
  for (int k = 0; k < n; ++k) workers += cpu[k], running += !paused[k];
  const double rest = ours > workers ? (ours - workers) / n : 0;
#define OTHERS(k) fmax(busy[k] - cpu[k] - rest, 0.0)   /* the other processes' share of core k */
  if (other)
    for (int k = 0; k < n; ++k) other[k] = OTHERS(k);
  int w = -1;
  if (running > 1)   /* the running worker that waited most for a core others took */
    for (int k = 0; k < n; ++k)
      if (!paused[k] && delay[k] >= PAUSE_DELAY && OTHERS(k) >= PAUSE_OTHER && (w < 0 || delay[k] > delay[w])) w = k;
  if (w >= 0) {
    paused[w] = 1;
    return w;
  }
  for (int k = 0; k < n; ++k)   /* the paused worker whose core others left most */
    if (paused[k] && OTHERS(k) < RESUME_OTHER && (w < 0 || OTHERS(k) < OTHERS(w))) w = k;
#undef OTHERS
  if (w >= 0) paused[w] = 0;
  return w;
}

/* the rank's threads (direct.h) or StarPU's workers under insdg-home (sched_home.h) */
static int pause_workers(const int *paused)
{
  return insdg_runtime_direct ? insdg_direct_pause(paused) : insdg_sched_home_pause(paused);
}

struct insdg_taken_cores {
  int n;
  int tid[STARPU_MAXCPUS], cpu[STARPU_MAXCPUS], paused[STARPU_MAXCPUS];
  long long busy0[STARPU_MAXCPUS], total0[STARPU_MAXCPUS];   /* /proc/stat ticks at the window's start */
  long long run0[STARPU_MAXCPUS], delay0[STARPU_MAXCPUS];    /* schedstat ns */
  double wall0, ours0;
  int pauses, npaused;
};

/* each worker's thread id and the one CPU its mask holds (-1: more or none) */
static void record_worker(void *buffers[], void *arg)
{
  (void)buffers;
  insdg_taken_cores *w = arg;
  const int id = starpu_worker_get_id_check();
  int k = 0;
  for (int v = 0; v < id; ++v) k += starpu_worker_get_type(v) == STARPU_CPU_WORKER;
  if (k >= w->n) return;
  w->tid[k] = (int)syscall(SYS_gettid);
  cpu_set_t m;
  CPU_ZERO(&m);
  w->cpu[k] = -1;
  if (pthread_getaffinity_np(pthread_self(), sizeof m, &m) == 0 && CPU_COUNT(&m) == 1)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &m)) w->cpu[k] = c;
}

static struct starpu_codelet record_cl = {.cpu_funcs = {record_worker}, .nbuffers = 0, .name = "taken_cores_record"};

/* busy and total ticks of every CPU the workers use, from /proc/stat; 0 on success */
static int read_stat(insdg_taken_cores *w, long long *busy, long long *total)
{
  FILE *f = fopen("/proc/stat", "r");
  if (!f) return 1;
  char line[512];
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    int c;
    long long v[8] = {0};   /* user nice system idle iowait irq softirq steal */
    if (strncmp(line, "cpu", 3) || sscanf(line + 3, "%d %lld %lld %lld %lld %lld %lld %lld %lld", &c, &v[0], &v[1],
                                          &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5)
      continue;
    for (int k = 0; k < w->n; ++k)
      if (w->cpu[k] == c) {
        busy[k] = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        total[k] = busy[k] + v[3] + v[4];
        ++found;
      }
  }
  fclose(f);
  return found != w->n;
}

/* worker k's CPU time and run-queue wait, ns, from its schedstat; 0 on success */
static int read_schedstat(int tid, long long *run, long long *delay)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
  FILE *f = fopen(path, "r");
  if (!f) return 1;
  const int n = fscanf(f, "%lld %lld", run, delay);
  fclose(f);
  return n != 2;
}

/* the window's start: every counter now; 0 on success */
static int sample(insdg_taken_cores *w)
{
  if (read_stat(w, w->busy0, w->total0)) return 1;
  for (int k = 0; k < w->n; ++k)
    if (read_schedstat(w->tid[k], &w->run0[k], &w->delay0[k])) return 1;
  w->wall0 = insdg_runtime_clock(CLOCK_MONOTONIC), w->ours0 = insdg_runtime_clock(CLOCK_PROCESS_CPUTIME_ID);
  return 0;
}

insdg_taken_cores *insdg_taken_cores_start(char *why, size_t whylen)
{
  const char *env = getenv("INSDG_PAUSE_WORKERS");
  const char *reason = NULL;
  const int n = (int)starpu_cpu_worker_get_count();
  const int direct = insdg_runtime_direct && insdg_direct_helpers() > 0;   /* the rank's threads run the tasks */
  if (env && !strcmp(env, "0")) reason = "INSDG_PAUSE_WORKERS=0";
  else if (!direct && strcmp(insdg_runtime_scheduler(), "insdg-home")) reason = "another scheduler than insdg-home";
  else if (n < 2) reason = "one CPU worker";
  else if (n > STARPU_MAXCPUS) reason = "more CPU workers than StarPU's CPU limit";
  insdg_taken_cores *w = NULL;
  if (!reason) {
    w = insdg_calloc(1, sizeof *w);
    w->n = n;
    for (int k = 0; direct && k < n; ++k) insdg_direct_thread(k, &w->tid[k], &w->cpu[k]);
    for (int id = 0, k = 0; !direct && id < (int)starpu_worker_get_count(); ++id) {
      if (starpu_worker_get_type(id) != STARPU_CPU_WORKER) continue;
      w->tid[k] = -1;
      if (id == insdg_runtime_host_worker_id())   /* the main thread is that worker */
        record_worker(NULL, w);
      else
        INSDG_CHECK(starpu_task_insert(&record_cl, STARPU_EXECUTE_ON_WORKER, id, STARPU_CL_ARGS_NFREE, w, sizeof *w,
                                       STARPU_TASK_SYNCHRONOUS, 1, 0) == 0);
      ++k;
    }
    for (int k = 0; k < n && !reason; ++k) {
      if (w->tid[k] <= 0 || w->cpu[k] < 0) reason = "workers not bound one per core";
      for (int j = 0; j < k && !reason; ++j)
        if (w->cpu[j] == w->cpu[k]) reason = "two workers on one core";
    }
    if (!reason && sample(w)) reason = "/proc/stat or the workers' schedstat unreadable";
  }
  if (reason) {
    free(w);
    if (why) snprintf(why, whylen, "%s", reason);
    return NULL;
  }
  return w;
}

int insdg_taken_cores_poll(insdg_taken_cores *w, char *msg, size_t msglen)
{
  if (!w) return 0;
  const double wall = insdg_runtime_clock(CLOCK_MONOTONIC), dt = wall - w->wall0;
  if (dt < WINDOW_S) return 0;
  long long busy[STARPU_MAXCPUS], total[STARPU_MAXCPUS], run[STARPU_MAXCPUS], wait[STARPU_MAXCPUS];
  double b[STARPU_MAXCPUS], cpu[STARPU_MAXCPUS], delay[STARPU_MAXCPUS], other[STARPU_MAXCPUS];
  if (read_stat(w, busy, total)) return 0;
  for (int k = 0; k < w->n; ++k)
    if (read_schedstat(w->tid[k], &run[k], &wait[k])) return 0;
  const double ours = (insdg_runtime_clock(CLOCK_PROCESS_CPUTIME_ID) - w->ours0) / dt;
  for (int k = 0; k < w->n; ++k) {
    const long long dtot = total[k] - w->total0[k];
    b[k] = dtot > 0 ? (double)(busy[k] - w->busy0[k]) / (double)dtot : 0;
    cpu[k] = 1e-9 * (double)(run[k] - w->run0[k]) / dt;
    delay[k] = 1e-9 * (double)(wait[k] - w->delay0[k]) / dt;
  }
  const int k = insdg_taken_cores_decide(w->n, b, cpu, ours, delay, w->paused, other);
  sample(w);
  if (k < 0) return 0;
  INSDG_CHECK(pause_workers(w->paused) > 0);
  w->npaused += w->paused[k] ? 1 : -1;
  w->pauses += w->paused[k];
  if (w->paused[k])
    snprintf(msg, msglen,
             "worker %d (core %d) paused: other processes kept its core busy %.0f%% of the last %.2f s and it "
             "waited %.0f%% of it for the core; %d of %d workers run the blocks",
             k, w->cpu[k], 100 * other[k], dt, 100 * delay[k], w->n - w->npaused, w->n);
  else
    snprintf(msg, msglen,
             "worker %d (core %d) resumed: other processes kept its core busy %.0f%% of the last %.2f s; %d of %d "
             "workers run the blocks",
             k, w->cpu[k], 100 * other[k], dt, w->n - w->npaused, w->n);
  return 1;
}

int insdg_taken_cores_pauses(const insdg_taken_cores *w) { return w ? w->pauses : 0; }
int insdg_taken_cores_paused(const insdg_taken_cores *w, int k) { return w && k >= 0 && k < w->n && w->paused[k]; }

void insdg_taken_cores_stop(insdg_taken_cores *w)
{
  if (!w) return;
  if (w->npaused) {
    int none[STARPU_MAXCPUS] = {0};
    pause_workers(none);
  }
  free(w);
}
