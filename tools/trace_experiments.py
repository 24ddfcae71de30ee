#!/usr/bin/env python3
"""Analyses of a task trace written by a build with tools/trace-experiments.patch applied
(docs/performance.md, "Where the two-worker step loses", 2026-11-28). Not part of the
build: the patch is an experiment kept so that the figures there can be measured again.

    git apply tools/trace-experiments.patch && cmake --build B     # then, after: git checkout tasks/
    INSDG_TRACE=/tmp/tr STARPU_NCPU=2 B/insdg run CASE --output OUT --blocks 2
    python3 tools/trace_experiments.py stages /tmp/tr        # each stage's efficiency
    python3 tools/trace_experiments.py stalls /tmp/tr [K]    # stage K (2: pressure): idle, no task ready / ready
    python3 tools/trace_experiments.py ready /tmp/tr         # time by busy workers and ready tasks
    python3 tools/trace_experiments.py handles /tmp/tr NAME  # NAME's tasks by first handle (block)
    python3 tools/trace_experiments.py states /tmp/tr        # inside steps: busy, ready and the host

The patched trace has six columns: name, worker, start, end (us), the task's first handle,
the time it became ready (StarPU's push_start_time); its host waits include the stage waits
("stage_wait"); since the stages stopped waiting for each other (2026-11-28, 442a646) a step
has none, and `stages` and `stalls` find no stage windows (`states` and `ready` need none).
The patch also reads DBG_CPU=1 (the main thread's CPU ms per step on stderr),
DBG_NICE=n (worker threads at nice n) and DBG_AFF=1|2|3 (tasks pinned to a worker per block:
1 all, 2 the other way round, 3 only tasks that write a block; the blocks are the tags the
tree's scheduler puts on the block handles, insdg_sched_home_tag, which the patch set itself
before 2026-12-05).
"""
import bisect
import collections
import statistics
import sys


def load(path):
    recs = []
    for line in open(path):
        r = line.split()
        recs.append((r[0], int(r[1]), float(r[2]), float(r[3]), r[4] if len(r) > 4 else "", float(r[5]) if len(r) > 5 else 0.0))
    tasks = sorted([r for r in recs if r[1] >= 0], key=lambda r: r[2])
    steps = sorted([r for r in recs if r[1] == -2], key=lambda r: r[2])[10:]   # the first 10 steps: start-up
    return recs, tasks, steps


def stage_windows(recs, steps, k):
    """stage k (0 advection, 1 velocity, 2 pressure, 3 update, 4 the new N(U)) of each step"""
    sw = sorted([r for r in recs if r[0] == "stage_wait"], key=lambda r: r[2])
    wins = []
    for st in steps:
        ends = [r[3] for r in sw if r[2] >= st[2] - 1 and r[3] <= st[3] + 1]
        if len(ends) == 7:   # the step's start, five stage ends, the run loop's
            wins.append((ends[k], ends[k + 1]))
    return wins


def stages(path):
    recs, tasks, steps = load(path)
    nw = len(set(r[1] for r in tasks))
    for k, name in enumerate(["advection", "velocity", "pressure", "update", "N(U)"]):
        wins = stage_windows(recs, steps, k)
        wall = sum(e - a for a, e in wins)
        busy = sum(max(0, min(e, r[3]) - max(a, r[2])) for a, e in wins for r in tasks if r[3] > a and r[2] < e)
        if wins:
            print(f"{name:9s} wall {wall / len(wins) / 1e3:6.2f} ms  busy {busy / len(wins) / 1e3:6.2f} ms  "
                  f"efficiency {busy / (nw * wall):.2f}")


def stalls(path, k=2):
    recs, tasks, steps = load(path)
    wins = stage_windows(recs, steps, k)
    if not wins:
        sys.exit("trace_experiments.py: no stage windows in this trace (no stage waits since 442a646): use states")
    ns, ws = len(wins), [w[0] for w in wins]

    def inwin(t):
        i = bisect.bisect_right(ws, t) - 1
        return i >= 0 and t < wins[i][1]
    allpush = sorted(r[5] for r in tasks)
    byw = collections.defaultdict(list)
    for r in tasks:
        byw[r[1]].append(r)
    agg, cnt, ready = collections.Counter(), collections.Counter(), 0.0
    for w in byw:
        others = [x for x in byw if x != w]
        ot = byw[others[0]] if others else []
        ost = [r[2] for r in ot]
        L = byw[w]
        for a, b in zip(L, L[1:]):
            if not inwin(a[3]):
                continue
            g0, g1 = a[3], min(b[2], b[5])   # idle until the next task, or until one became ready
            i = bisect.bisect_right(allpush, g0)
            if i < len(allpush):
                g1 = min(g1, allpush[i])
            ready += max(0.0, b[2] - max(g0, g1))
            if g1 <= g0:
                continue
            i, covered = max(bisect.bisect_right(ost, g0) - 1, 0), 0.0
            while i < len(ot) and ot[i][2] < g1:
                ov = max(0.0, min(g1, ot[i][3]) - max(g0, ot[i][2]))
                if ov > 0:
                    agg[(ot[i][0], b[0])] += ov
                    cnt[(ot[i][0], b[0])] += 1
                    covered += ov
                i += 1
            agg[("(nothing)", b[0])] += g1 - g0 - covered
    print(f"stage {k}: a worker idle with no task ready {sum(agg.values()) / ns / 1e3:.2f} ms per step, "
          f"idle with a task ready {ready / ns / 1e3:.2f} ms per step (workers summed)")
    for key, v in agg.most_common(15):
        print(f"{v / ns / 1e3:7.3f} ms  n={cnt[key] / ns:6.1f}  the other runs {key[0]:24s} the idle one next runs {key[1]}")


def ready(path):
    recs, tasks, steps = load(path)
    T0, T1 = steps[0][2], steps[-1][3]
    tasks = [r for r in tasks if r[2] >= T0 and r[3] <= T1]
    ev = []
    for r in tasks:
        ev += [(r[2], 0, 1), (r[3], 0, -1)]
        if r[5] < r[2]:
            ev += [(max(r[5], T0), 1, 1), (r[2], 1, -1)]
    ev.sort()
    busy = nready = 0
    last, acc = T0, collections.Counter()
    for t, kind, d in ev:
        acc[(busy, min(nready, 2))] += t - last
        last = t
        if kind == 0:
            busy += d
        else:
            nready += d
    tot, ns = sum(acc.values()), len(steps)
    for key in sorted(acc):
        print(f"busy={key[0]} ready={key[1]}{'+' if key[1] == 2 else ''}: {acc[key] / ns / 1e3:6.2f} ms per step "
              f"({100 * acc[key] / tot:4.1f}%)")
    lat = sorted(r[2] - r[5] for r in tasks)
    print(f"ready -> start: median {statistics.median(lat):.1f} us, p90 {lat[int(0.9 * len(lat))]:.1f} us")


def states(path):
    """Inside the steps (after the first 10): time by how many workers run a task, whether a
    task is ready and not started, and whether the host is in a wait (worker -1 records); and
    per worker the gap from a task's end to the next one's start where that one was already
    ready (StarPU's cost between two tasks)."""
    recs, tasks, steps = load(path)
    ev = [(r[2], "step", 1) for r in steps] + [(r[3], "step", -1) for r in steps]
    for r in recs:
        if r[1] == -1:
            ev += [(r[2], "wait", 1), (r[3], "wait", -1)]
    for r in tasks:
        ev += [(r[2], "busy", 1), (r[3], "busy", -1)]
        if 0 < r[5] < r[2]:
            ev += [(r[5], "ready", 1), (r[2], "ready", -1)]
    ev.sort()
    n, acc, last = collections.Counter(), collections.Counter(), None
    for t, kind, d in ev:
        if last is not None and n["step"] > 0:
            acc[(min(n["busy"], 2), min(n["ready"], 2), "host in a wait" if n["wait"] else "host running")] += t - last
        n[kind] += d
        last = t
    ns = len(steps)
    print(f"{ns} steps, {sum(acc.values()) / ns / 1e3:.2f} ms each (the step records' spans)")
    for key in sorted(acc):
        print(f"busy={key[0]} ready={key[1]}{'+' if key[1] == 2 else ''} {key[2]:15s} {acc[key] / ns / 1e3:6.2f} ms per step")
    T0, T1 = steps[0][2], steps[-1][3]
    byw = collections.defaultdict(list)
    for r in tasks:
        if T0 <= r[2] and r[3] <= T1:
            byw[r[1]].append(r)
    for w in sorted(byw):
        L = byw[w]
        gaps = [b[2] - a[3] for a, b in zip(L, L[1:]) if 0 < b[5] <= a[3]]
        if gaps:
            print(f"worker {w}: {len(L) / ns:.0f} tasks per step; from a task's end to the next, already ready: "
                  f"median {statistics.median(gaps):.1f} us, {sum(gaps) / ns / 1e3:.2f} ms per step")


def handles(path, name):
    recs, tasks, steps = load(path)
    tasks = tasks[len(tasks) // 5:]
    g = collections.defaultdict(list)
    for r in tasks:
        if r[0] == name:
            g[r[4]].append((r[3] - r[2], r[1]))
    for h, v in sorted(g.items(), key=lambda kv: -len(kv[1])):
        d = [x for x, _ in v]
        print(f"  {h} n={len(v)} median {statistics.median(d):7.1f} us, workers {dict(collections.Counter(w for _, w in v))}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    what, path = sys.argv[1], sys.argv[2]
    if what == "stages":
        stages(path)
    elif what == "stalls":
        stalls(path, int(sys.argv[3]) if len(sys.argv) > 3 else 2)
    elif what == "ready":
        ready(path)
    elif what == "states":
        states(path)
    elif what == "handles" and len(sys.argv) > 3:
        handles(path, sys.argv[3])
    else:
        sys.exit(__doc__)
