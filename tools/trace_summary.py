#!/usr/bin/env python3
"""Summarise a task trace written by insdg with INSDG_TRACE=FILE.

    INSDG_TRACE=/tmp/trace STARPU_NCPU=2 build/insdg run case.ini --output out
    python3 tools/trace_summary.py /tmp/trace [--skip 0.4]

The trace has one line per task, "name worker start_us end_us" (StarPU's clock; worker -1:
a host wait of the main thread, from its start to its return). The summary covers the
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
    tasks, waits = [], []
    for line in open(path):
        name, worker, start, end = line.split()
        rec = (name, int(worker), float(start), float(end))
        (waits if rec[1] < 0 else tasks).append(rec)
    tasks.sort(key=lambda r: r[2])
    return tasks, waits


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace")
    p.add_argument("--skip", type=float, default=0.4, help="fraction of the tasks left out at the start")
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--longest", type=int, default=0,
                   help="also list the K longest idle gaps, with how late the host's wait ended in them")
    a = p.parse_args()
    tasks, waits = load(a.trace)
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
