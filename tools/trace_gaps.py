#!/usr/bin/env python3
"""Where the workers of a traced run wait (a trace of INSDG_TRACE=FILE; tools/trace_summary.py).

    python3 tools/trace_gaps.py TRACE [--skip 0.3] [--top 12]

Two tables over the tasks after the first --skip fraction:
  host-woken gaps: idle gaps of a worker (5 us or more) inside which a host wait ended, by
    the tasks before and after: how long the host took to come back after the task's end
    (its wake-up) and how long after that the next task started (what the host submitted
    first); the rest of the gaps counted beside them;
  one worker idle beside a busy one (two or more workers): for each idle interval of a
    worker inside a step, the time another worker was busy, by the idle worker's tasks
    before and after, in ms per step.
"""
import argparse
import bisect
import collections
import statistics

from trace_summary import load, overlap


def host_woken(tasks, waits, top):
    ends = sorted(w[3] for w in waits)
    by = collections.defaultdict(lambda: ([], [], [0, 0.0]))
    for w in sorted(set(r[1] for r in tasks)):
        mine = [r for r in tasks if r[1] == w]
        for a, b in zip(mine, mine[1:]):
            gap = b[2] - a[3]
            if gap < 5:
                continue
            k = bisect.bisect_left(ends, a[3])
            entry = by[(a[0], b[0])]
            if k < len(ends) and ends[k] <= b[2]:
                entry[0].append(ends[k] - a[3]), entry[1].append(b[2] - ends[k])
            else:
                entry[2][0] += 1
                entry[2][1] += gap
    print("host-woken gaps (us: median, 90th percentile), by the worker's tasks before and after:")
    rows = sorted(by.items(), key=lambda kv: -(sum(kv[1][0]) + sum(kv[1][1]) + kv[1][2][1]))[:top]
    for (before, after), (back, start, other) in rows:
        q = lambda v: f"{statistics.median(v):6.1f} {sorted(v)[int(0.9 * len(v))]:6.1f}" if v else "     -      -"
        print(f"  {before:>22} -> {after:<22} woken n={len(back):5d} end->host back {q(back)} | host back->start "
              f"{q(start)} | other gaps n={other[0]:5d} {other[1] / 1e3:7.1f} ms")


def one_idle(tasks, steps, top):
    workers = sorted(set(r[1] for r in tasks))
    if len(workers) < 2:
        return
    per = {w: [r for r in tasks if r[1] == w] for w in workers}
    starts = [s[2] for s in steps]
    by = collections.defaultdict(lambda: [0, 0.0])
    for w in workers:
        others = sorted((r for r in tasks if r[1] != w), key=lambda r: r[2])
        ostarts = [r[2] for r in others]
        for a, b in zip(per[w], per[w][1:]):
            lo, hi = a[3], b[2]
            k = bisect.bisect_right(starts, lo) - 1
            if hi - lo < 1 or k < 0 or steps[k][3] < hi:   # between steps: the host's diagnostics
                continue
            busy = overlap(lo, hi, others, ostarts)
            if busy > 0:
                by[(a[0], b[0])][0] += 1
                by[(a[0], b[0])][1] += busy
    n = max(len([s for s in steps if s[2] >= tasks[0][2]]), 1)
    print(f"one worker idle while another is busy, inside steps: {sum(v[1] for v in by.values()) / n / 1e3:.2f} ms "
          f"per step; by the idle worker's tasks before and after:")
    for (before, after), (cnt, t) in sorted(by.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {before:>22} -> {after:<22} n={cnt:6d} {t / n / 1e3:7.3f} ms per step, mean {t / cnt:7.1f} us")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace")
    p.add_argument("--skip", type=float, default=0.3, help="fraction of the tasks left out at the start")
    p.add_argument("--top", type=int, default=12)
    a = p.parse_args()
    tasks, waits, steps = load(a.trace)
    tasks = tasks[int(len(tasks) * a.skip):]
    host_woken(tasks, waits, a.top)
    one_idle(tasks, steps, a.top)


if __name__ == "__main__":
    main()
