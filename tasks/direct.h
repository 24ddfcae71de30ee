/* direct.h -- the tasks of a CPU-only rank run by its own threads, without StarPU's
 * scheduler: the main thread and W - 1 helper threads (tasks/README.md, "Direct execution
 * with helper threads").
 *
 * The main thread issues the tasks in submission order (INSDG_TASK_INSERT ->
 * insdg_runtime_run_now -> insdg_direct_issue). A task that writes (or, writing nothing,
 * reads) a block's data goes to that block's home, block b -> thread b mod W (thread 0 is
 * the main thread); the rank-level tasks (reductions, the coarse solve, MPI: every task
 * that holds the communication token) stay on the main thread. A helper runs its tasks in
 * the order it was given them. Before the main thread runs a task it waits for the
 * helpers' tasks in flight that the task conflicts with (the same handle, one of the two
 * writing it); a task given to a helper first waits, in that helper, for the conflicting
 * tasks in flight on the other helpers. So every pair of conflicting tasks runs in
 * submission order, as StarPU's sequential consistency orders them, and every task makes
 * the bits it makes under StarPU (reductions are tasks that sum block partials in block
 * order). The cost of a task is a copy of its handle list and a scan of the few tasks in
 * flight, not StarPU's dependency tracking (1.3-1.7 us of the main thread's time a task).
 *
 * Idle threads wait by spinning for a few tens of microseconds, then sleep on a futex
 * until woken: no core is kept busy by a thread with nothing to do.
 */
#ifndef INSDG_DIRECT_H
#define INSDG_DIRECT_H

#include <starpu.h>

/* Start W - 1 helper threads (W >= 2); returns 0, or -1 when one cannot be created. */
int insdg_direct_start(int W);
/* Wait for every task, then end the helpers. */
void insdg_direct_stop(void);
/* Helper threads running (0: none). */
int insdg_direct_helpers(void);
/* Run task (built, never submitted) on its home thread (see above); it is destroyed there. */
void insdg_direct_issue(struct starpu_task *task);
/* Wait until no task in flight conflicts with an access to h in mode (STARPU_R: the
   writers; with STARPU_W: every one that uses h). */
void insdg_direct_wait_for(starpu_data_handle_t h, enum starpu_data_access_mode mode);
/* Wait until every task issued has run. */
void insdg_direct_wait_all(void);
/* Thread k's blocks to another thread while paused[k] (taken_cores.h: another process
   took its core; at least one thread keeps its own): the running threads take the paused
   ones' in turn. Returns the threads that run blocks. */
int insdg_direct_pause(const int *paused);
/* Thread k's (0: the main thread) id and the CPU it is bound to (-1: not bound). */
void insdg_direct_thread(int k, int *tid, int *cpu);
/* Tasks run and their time (us) by thread k (0: main), counted while `timed` below is set
   by the caller's profiling or tracing. */
void insdg_direct_counts(int k, long *tasks, double *task_us);
void insdg_direct_reset_counts(void);

/* Run a built task's CPU function on this thread with the handles' main-memory interfaces,
   timed and traced as thread `worker` when timed; destroys it (runtime.c). */
void insdg_runtime_run_here(struct starpu_task *task, int worker, long *tasks, double *task_us);

#endif
