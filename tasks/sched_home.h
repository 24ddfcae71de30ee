/* sched_home.h -- "insdg-home", the StarPU scheduling policy of CPU-only runs: each block's
 * tasks on one worker, the block's home; a worker with none of its own takes another's
 * (sched_home.c; tasks/README.md "Workers and cores"). */
#ifndef INSDG_SCHED_HOME_H
#define INSDG_SCHED_HOME_H

#include <starpu.h>

/* Mark h as data of this rank's block `block` (0-based): a task that writes it runs on the
   block's home worker when that one is free. */
void insdg_sched_home_tag(starpu_data_handle_t h, int block);
/* The block a task belongs to: that of the first tagged handle it writes, else of the first
   it reads; -1 if none. */
int insdg_sched_home_block(const struct starpu_task *t);
/* The policy, for starpu_conf.sched_policy. */
struct starpu_sched_policy *insdg_sched_home_policy(void);
/* Pause the CPU workers k (in worker order, 0 .. CPU workers - 1) with paused[k] != 0, resume the
   others: a paused worker's blocks go to the running ones and it takes no other worker's
   tasks (taken_cores.h). Results do not change: which worker runs a task never does.
   Returns how many run now (all when paused[] names every worker), -1 when StarPU does not
   run with this policy. */
int insdg_sched_home_pause(const int *paused);
/* Whether StarPU worker id is paused (insdg_sched_home_pause); 0 with another policy. */
int insdg_sched_home_worker_paused(int id);
/* Of the tasks popped so far, the share taken from another worker's queue; -1 when StarPU
   does not run with this policy. */
double insdg_sched_home_stolen_share(void);

#endif
