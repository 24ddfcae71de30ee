/* taken_cores.h -- pause the CPU workers whose cores another process takes.
 *
 * With the workers bound one per core, a CPU-bound process of someone else (a build, a
 * second run, a browser) on one of those cores halves that worker's speed, and every
 * iteration's reductions wait for its blocks: two workers beside one busy process took 1.5x
 * one worker's time per step on the 2-vCPU VM (docs/performance.md, "Two workers beside a
 * busy process"). So the run watches, between steps, every 0.1 s at most:
 *  - how busy each worker's core was (/proc/stat: every process's time on it),
 *  - how much CPU this process took (its CPU clock),
 *  - how long each worker waited runnable for its core (/proc/self/task/TID/schedstat).
 * A core's time beyond its worker's (and a share of this process's other threads', the main
 * thread's mostly: they are not bound) is other processes' work. A worker that waited a
 * quarter of the window for a core that other processes kept busy 30% of it or more is
 * paused, the one that waited most first (sched_home.h: its blocks go to the others, it
 * sleeps and leaves its core); a paused worker whose core other processes keep busy less
 * than 20% of the window is resumed. One change per window; at least one worker always
 * runs. Which worker runs a task never changes a result, so neither does this.
 *
 * Only where it can be right: the insdg-home scheduler, two CPU workers or more, each bound
 * to a core of its own, /proc readable; INSDG_PAUSE_WORKERS=0 turns it off.
 */
#ifndef INSDG_TAKEN_CORES_H
#define INSDG_TAKEN_CORES_H

#include <stddef.h>

/* The rule, on one window's shares of its wall time (tested apart): n workers; busy[k], the
   share worker k's core was busy with any process; cpu[k], worker k's CPU time; ours, this
   process's CPU time (in cores: the workers' and the other threads'); delay[k], the share
   worker k waited runnable. other[k] (may be NULL) gets the other processes' share of core k.
   paused[k] is updated (at most one change); returns the worker changed, or -1. */
int insdg_taken_cores_decide(int n, const double *busy, const double *cpu, double ours, const double *delay,
                             int *paused, double *other);

typedef struct insdg_taken_cores insdg_taken_cores;

/* Start watching this rank's CPU workers (after StarPU's start: it runs one task on each
   worker, and waits for it); NULL where it does not apply (above), with the reason in why
   (may be NULL). */
insdg_taken_cores *insdg_taken_cores_start(char *why, size_t whylen);
/* Between steps: a new window every 0.1 s at most; returns 1 when a worker was paused or
   resumed, with a line for the log in msg. */
int insdg_taken_cores_poll(insdg_taken_cores *w, char *msg, size_t msglen);
/* Pauses so far; whether CPU worker k (in worker order) is paused now. */
int insdg_taken_cores_pauses(const insdg_taken_cores *w);
int insdg_taken_cores_paused(const insdg_taken_cores *w, int k);
/* Resume every worker and stop watching (NULL: nothing). */
void insdg_taken_cores_stop(insdg_taken_cores *w);

#endif
