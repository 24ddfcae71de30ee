#!/usr/bin/env python3
"""Summarise a task trace written by insdg with INSDG_TRACE=FILE.

    INSDG_TRACE=/tmp/trace STARPU_NCPU=2 build/insdg run case.ini --output out
    python3 tools/trace_summary.py /tmp/trace [--skip 0.4]

The trace has one line per task, "name worker start_us end_us" (StarPU's clock; worker -1:
a host wait of the main thread, from its start to its return; worker -2: a time step, from
the call to its last task's end, as the run's step timer takes it). The summary covers the
tasks after the first --skip fraction (start-up excluded): each worker's busy share, the
share of time with 0, 1, ... workers busy, what runs while only one worker works (the
serial parts), the idle gaps (no worker busy) by the task before and after them, and
time per task kind.
"""
import argparse
import bisect
import collections
import statistics
import sys


def load(path):
    tasks, waits, steps = [], [], []
    for line in open(path):
        name, worker, start, end = line.split()
        rec = (name, int(worker), float(start), float(end))
        (tasks if rec[1] >= 0 else waits if rec[1] == -1 else steps).append(rec)
    tasks.sort(key=lambda r: r[2])
    waits.sort(key=lambda r: r[2])
    steps.sort(key=lambda r: r[2])
    return tasks, waits, steps


def overlap(a, b, spans, starts):
    """the time of [a, b] covered by the sorted, disjoint spans (records; starts: their starts)"""
    k, total = max(bisect.bisect_right(starts, a) - 1, 0), 0.0
    while k < len(spans) and spans[k][2] < b:
        total += max(0.0, min(b, spans[k][3]) - max(a, spans[k][2]))
        k += 1
    return total


def idle_in_steps(gaps, W, S, t0):
    """the idle gaps (no worker busy) inside the time steps, split by what the host did then"""
    S = [s for s in S if s[2] >= t0]
    if not S:
        return
    ss, ws = [s[2] for s in S], [w[2] for w in W]
    step_ms = sum(s[3] - s[2] for s in S) / len(S) / 1e3
    between = [S[i + 1][2] - S[i][3] for i in range(len(S) - 1)]
    print(f"steps: {len(S)}, {step_ms:.2f} ms each (the step timer's span), "
          f"{statistics.mean(between) / 1e3 if between else 0:.2f} ms between steps (the host's diagnostics)")
    idle = waiting = long_ms = 0.0
    n_long = 0
    for dt, _, _, g0, g1 in gaps:
        k = max(bisect.bisect_right(ss, g0) - 1, 0)
        while k < len(S) and S[k][2] < g1:   # the parts of the gap inside steps
            a, b = max(g0, S[k][2]), min(g1, S[k][3])
            if b > a:
                idle += b - a
                waiting += overlap(a, b, W, ws)
                if b - a > 700:
                    n_long, long_ms = n_long + 1, long_ms + (b - a)
            k += 1
    n = len(S)
    print(f"idle inside steps: {idle / n / 1e3:.2f} ms per step: the host in a wait {waiting / n / 1e3:.2f}, "
          f"the host working {(idle - waiting) / n / 1e3:.2f}; gaps over 0.7 ms: {n_long}, "
          f"{long_ms / n / 1e3:.2f} ms per step")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace")
    p.add_argument("--skip", type=float, default=0.4, help="fraction of the tasks left out at the start")
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--longest", type=int, default=0,
                   help="also list the K longest idle gaps, with how late the host's wait ended in them")
    a = p.parse_args()
    tasks, waits, steps = load(a.trace)
    if not tasks:
        sys.exit(f"trace_summary: no tasks in {a.trace}")
    t0 = tasks[int(len(tasks) * a.skip)][2]
    t1 = max(r[3] for r in tasks)
    R = [r for r in tasks if r[2] >= t0]
    span = t1 - t0
    print(f"window: {span / 1e3:.1f} ms, {len(R)} tasks")
    for w in sorted(set(r[1] for r in R)):
        busy = sum(r[3] - r[2] for r in R if r[1] == w)
        print(f"  worker {w}: busy {100 * busy / span:.1f}%, {sum(1 for r in R if r[1] == w)} tasks")

    events = sorted([(r[2], 1, i) for i, r in enumerate(R)] + [(r[3], -1, i) for i, r in enumerate(R)])
    active, last, prev_end = set(), t0, None
    nbusy, alone, gaps = collections.Counter(), collections.Counter(), []
    for t, d, i in events:
        dt = t - last
        nbusy[len(active)] += dt
        if len(active) == 1:
            alone[R[next(iter(active))][0]] += dt
        if not active and dt > 0 and prev_end is not None:
            gaps.append((dt, R[prev_end][0], R[i][0], last, t))
        last = t
        if d == 1:
            active.add(i)
        else:
            active.discard(i)
            prev_end = i
    print("share of the window with k workers busy:",
          ", ".join(f"{k}: {100 * v / span:.1f}%" for k, v in sorted(nbusy.items())))
    print("running alone (ms in the window):")
    for n, v in alone.most_common(a.top):
        print(f"  {n:24s} {v / 1e3:8.1f}")
    if gaps:
        print(f"idle gaps: {len(gaps)}, {sum(g[0] for g in gaps) / 1e3:.1f} ms, "
              f"median {statistics.median(g[0] for g in gaps):.1f} us; by the tasks around them:")
        count, total = collections.Counter(), collections.Counter()
        for g in gaps:
            count[g[1:3]] += 1
            total[g[1:3]] += g[0]
        for k, v in total.most_common(a.top):
            print(f"  {k[0]:20s} -> {k[1]:20s} n={count[k]:6d} {v / 1e3:8.1f} ms, mean {v / count[k]:7.1f} us")
    W = [w for w in waits if w[2] >= t0]
    if W:
        print(f"host waits: {len(W)}, {sum(w[3] - w[2] for w in W) / 1e3:.1f} ms waiting")
        # a wait that returned while no worker was busy: how long after the last task ended
        # (the data it waited for was there; the host was late to wake)
        starts = [g[3] for g in gaps]
        late = []
        for w in W:
            k = bisect.bisect_right(starts, w[3]) - 1
            if k >= 0 and gaps[k][3] <= w[3] <= gaps[k][4]:
                late.append(w[3] - gaps[k][3])
        if late:
            late.sort()
            print(f"host waits returning to idle workers: {len(late)}, {sum(late) / 1e3:.1f} ms after the "
                  f"last task's end in all; median {late[len(late) // 2]:.0f} us, "
                  f"p90 {late[int(0.9 * len(late))]:.0f} us, longest {late[-1]:.0f} us")
    idle_in_steps(gaps, W, steps, t0)
    if a.longest and gaps:   # a host wait that returned inside a gap: the host woke that late
        print(f"longest idle gaps (us after the window start; host wait returned: us into the gap):")
        for dt, before, after, g0, g1 in sorted(gaps, reverse=True)[:a.longest]:
            woke = [w[3] - g0 for w in W if g0 <= w[3] <= g1]
            how = f", host wait returned {woke[0]:.0f} us in" if woke else ""
            print(f"  {dt:8.0f} us at {g0 - t0:10.0f}: {before} -> {after}{how}")
    total, count = collections.Counter(), collections.Counter()
    for r in R:
        total[r[0]] += r[3] - r[2]
        count[r[0]] += 1
    print("time by task kind:")
    for n, v in total.most_common(a.top):
        print(f"  {n:24s} {v / 1e3:8.1f} ms {count[n]:7d} tasks {v / count[n]:8.1f} us/task")


if __name__ == "__main__":
    main()
