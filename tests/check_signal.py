#!/usr/bin/python3
"""check_signal.py INSDG CASE WORKDIR [--ranks R] [--signal USR1|TERM] [--to mpirun|ranks]

The stop-and-continue contract of `insdg run` that a batch job relies on (docs/user_guide.md
"Exit status", jobs/README.md), checked end to end under mpirun:

1. the case run without interruption (WORKDIR/full): exit 0, status "completed";
2. the same case in WORKDIR/chain, sent the signal once its diagnostics.csv has a few rows
   (to mpirun, which forwards it, or to every rank directly): every rank stops at the end of
   the same step, a checkpoint of that step is written, exit 3, status "stopped";
3. restarted from its newest checkpoint into the same directory until it completes: exit 0,
   the last field file bitwise equal to the uninterrupted run's and diagnostics.csv byte for
   byte the same;
4. restarted once more from the final checkpoint (a requeued finished job): exit 0,
   "already complete", no step taken, no new field file, diagnostics.csv untouched.

CASE must write checkpoints at its final step (checkpoint_interval_steps dividing the step
count) and enough steps that the run cannot end before the signal lands.
"""
import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import netCDF4
import numpy


def fail(msg):
    print(f"check_signal: FAILED: {msg}")
    sys.exit(1)


def mpirun(args, ranks):
    return ["mpirun", "-np", str(ranks)] + args


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(f"--- {what}: exit {p.returncode}\n{p.stdout[-1500:]}")
    return p


def summary(d):
    return json.load(open(os.path.join(d, "summary.json")))


def rows(d):
    try:
        return sum(1 for line in open(os.path.join(d, "diagnostics.csv")) if line[:1].isdigit())
    except OSError:
        return 0


def children(pid):
    """the processes whose parent is pid (the ranks mpirun started on this node)"""
    out = []
    for st in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = open(st).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(st.split("/")[2]))
    return out


def last_fields(d):
    files = sorted(glob.glob(os.path.join(d, "fields_*.nc")))
    if not files:
        fail(f"no field file in {d}")
    return files[-1]


def newest_checkpoint(d):
    files = sorted(glob.glob(os.path.join(d, "checkpoint_*.nc")))
    if not files:
        fail(f"no checkpoint in {d}")
    return files[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("insdg")
    ap.add_argument("case")
    ap.add_argument("work")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--signal", default="USR1", choices=["USR1", "TERM"])
    ap.add_argument("--to", default="mpirun", choices=["mpirun", "ranks"])
    a = ap.parse_args()
    sig = getattr(signal, "SIG" + a.signal)
    full, chain = os.path.join(a.work, "full"), os.path.join(a.work, "chain")
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    base = [a.insdg, "run", a.case, "--progress", "log", "--output"]

    p = run(mpirun(base + [full], a.ranks), "uninterrupted run")
    if p.returncode != 0 or summary(full)["status"] != "completed":
        fail("the uninterrupted run did not complete with exit 0")
    nsteps = summary(full)["steps"]

    proc = subprocess.Popen(mpirun(base + [chain], a.ranks), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    t0 = time.time()
    while rows(chain) < 3 and proc.poll() is None and time.time() - t0 < 120:
        time.sleep(0.002)
    if proc.poll() is not None:
        fail("the run ended before the signal could be sent (give the case more steps)")
    targets = [proc.pid] if a.to == "mpirun" else children(proc.pid)
    if not targets:
        fail("no rank process found under mpirun")
    for pid in targets:
        os.kill(pid, sig)
    out = proc.communicate()[0]
    print(f"--- sent SIG{a.signal} to {a.to} {targets} after {rows(chain)} rows: exit {proc.returncode}\n{out[-1500:]}")
    s = summary(chain)
    if proc.returncode != 3 or s["status"] != "stopped":
        fail(f"the signalled run: exit {proc.returncode}, status {s['status']!r}; expected 3 and 'stopped'")
    stopped_at = s["steps"]
    ck = newest_checkpoint(chain)
    if not (0 < stopped_at < nsteps) or not ck.endswith(f"checkpoint_{stopped_at:06d}.nc"):
        fail(f"stopped at step {stopped_at} of {nsteps}; newest checkpoint {ck}")
    if "signal received: checkpoint and stop" not in out:
        fail("no 'signal received' line")

    for attempt in range(5):   # the continuation chain: what a batch script does
        ck = newest_checkpoint(chain)
        p = run(mpirun(base + [chain, "--restart", ck], a.ranks), f"continue from {os.path.basename(ck)}")
        if p.returncode == 0:
            break
        if p.returncode != 3:
            fail(f"a continuation exited {p.returncode}")
    if summary(chain)["status"] != "completed" or summary(chain)["steps"] != nsteps:
        fail(f"the chain ended with {summary(chain)['status']!r} at step {summary(chain)['steps']}")
    fa, fb = last_fields(full), last_fields(chain)
    if os.path.basename(fa) != os.path.basename(fb):
        fail(f"last field files differ in name: {fa} vs {fb}")
    A, B = netCDF4.Dataset(fa), netCDF4.Dataset(fb)
    for v in ("u", "v", "p"):
        if not numpy.array_equal(A[v][:], B[v][:]):
            fail(f"{v} of {os.path.basename(fa)} differs between the uninterrupted run and the chain")
    csv_full = open(os.path.join(full, "diagnostics.csv"), "rb").read()
    if open(os.path.join(chain, "diagnostics.csv"), "rb").read() != csv_full:
        fail("diagnostics.csv of the chain differs from the uninterrupted run's")

    files = sorted(glob.glob(os.path.join(chain, "fields_*.nc")))
    mtimes = [os.path.getmtime(f) for f in files]
    ck = newest_checkpoint(chain)
    p = run(mpirun(base + [chain, "--restart", ck], a.ranks), "a requeued finished job")
    if p.returncode != 0 or "already complete" not in p.stdout or summary(chain)["status"] != "completed":
        fail("restart from the final checkpoint: expected exit 0, 'already complete', status 'completed'")
    if sorted(glob.glob(os.path.join(chain, "fields_*.nc"))) != files or \
            [os.path.getmtime(f) for f in files] != mtimes:
        fail("restart from the final checkpoint wrote field files")
    if open(os.path.join(chain, "diagnostics.csv"), "rb").read() != csv_full:
        fail("restart from the final checkpoint changed diagnostics.csv")
    print(f"check_signal: ok: SIG{a.signal} to {a.to} stopped all {a.ranks} ranks at step {stopped_at} of {nsteps} "
          f"(exit 3, checkpoint written); the continued run is bitwise the uninterrupted one; a restart at the end "
          f"takes no step (exit 0)")


if __name__ == "__main__":
    main()
