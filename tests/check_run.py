#!/usr/bin/env python3
"""Check the output directory of an `insdg run` (tests/run.cmake), reading it with the
standard json and csv modules and netCDF4 -- not with insdg's own code.

usage: check_run.py DIR --steps S --files F [--forces NAME ...] [--coefficients]
                    [--max-error FIELD=TOL ...] [--compare OTHER_DIR --rtol R [--atol A]]
                    [--status "not converged"] [--iterations FIELD=LO:HI ...] [--allocator jemalloc|system]

Checks: summary.json parses, has every documented key, status "completed" (or the one
given, with converged false for "not converged"), steps S, and relative L2 errors below the tolerances; diagnostics.csv has the documented
header (with fx_/fy_ columns per force boundary, cd_/cl_ with --coefficients) and one row
per step with increasing step numbers and times; exactly F files fields_NNNNNN.nc, each
readable by netCDF4 with u, v, p, vorticity, divergence on the UGRID mesh (the divergence's
largest magnitude equal to diagnostics.csv's max_div_u of that step) and a time equal to its
step's time. With --compare: the same errors and last diagnostics row as another run's,
to relative tolerance R (decomposition invariance): |a - b| <= R |b| + A for every value, A
(default 0) for values that are zero to round-off (the net force on a body that has none).
"""
import argparse
import csv
import glob
import json
import math
import os
import sys

import netCDF4
import numpy as np

SUMMARY_KEYS = ["case", "case_file", "mesh", "N", "K", "dofs", "ranks", "blocks", "workers", "nu", "dt",
                "time_order", "substeps", "steps", "steps_planned", "final_time", "time", "wall_seconds",
                "seconds_per_step", "stage_seconds", "step_seconds", "mean_iterations", "errors", "field_files", "converged",
                "status", "cuda_workers", "runtime", "runtime_counters", "pressure_coarse_solve", "allocator",
                "worker_pauses"]
CSV_COLUMNS = ["step", "time", "dt", "iterations_u", "iterations_v", "iterations_p", "converged",
               "kinetic_energy", "max_div_u", "cfl", "velocity_change"]


def fail(msg):
    sys.exit(f"check_run: FAIL: {msg}")


def check_summary(d, args):
    with open(os.path.join(d, "summary.json")) as f:
        s = json.load(f)
    missing = [k for k in SUMMARY_KEYS if k not in s]
    if missing:
        fail(f"summary.json lacks {missing}")
    converged = args.status != "not converged"
    if s["steps"] != args.steps or s["converged"] is not converged or s["status"] != args.status:
        fail(f"summary.json: steps {s['steps']} (expected {args.steps}), converged {s['converged']}, "
             f"status {s['status']} (expected {args.status})")
    if s["dofs"] != 3 * s["K"] * (s["N"] + 1) * (s["N"] + 2) // 2:
        fail(f"summary.json: dofs {s['dofs']} is not 3 K Np")
    for stage in ("setup", "step", "diagnostics", "output"):
        if not s["stage_seconds"].get(stage, -1) >= 0:
            fail(f"summary.json: stage_seconds lacks {stage}")
    for spec in args.max_error:
        field, tol = spec.split("=")
        err = s["errors"][field]["relative"]
        print(f"  {field}: relative L2 error {err:.3e} (tolerance {tol})")
        if not err < float(tol):
            fail(f"relative L2 error of {field} {err} >= {tol}")
    if args.coarse is not None:
        print(f"  pressure coarse solve: {s['pressure_coarse_solve']} (expected {args.coarse})")
        if s["pressure_coarse_solve"] != args.coarse:
            fail(f"summary.json: pressure_coarse_solve {s['pressure_coarse_solve']}, expected {args.coarse}")
    if args.scheduler is not None:   # "direct": one CPU worker, the main thread runs the tasks (tasks/runtime.h)
        print(f"  scheduler: {s['scheduler']} (expected {args.scheduler})")
        if s["scheduler"] != args.scheduler:
            fail(f"summary.json: scheduler {s['scheduler']!r}, expected {args.scheduler}")
    if args.main_thread is not None:   # tasks/runtime.h insdg_runtime_main_thread
        print(f"  main thread: {s['main_thread']} (expected {args.main_thread})")
        if s["main_thread"] != args.main_thread:
            fail(f"summary.json: main_thread {s['main_thread']!r}, expected {args.main_thread}")
    if args.allocator is not None:   # "jemalloc 5.3.0" or "system" (CMakeLists.txt, INSDG_ALLOCATOR)
        print(f"  malloc: {s['allocator']} (expected {args.allocator})")
        if s["allocator"].split(" ")[0] != args.allocator:
            fail(f"summary.json: allocator {s['allocator']!r}, expected {args.allocator}")
    if not (isinstance(s["worker_pauses"], int) and s["worker_pauses"] >= 0):
        fail(f"summary.json: worker_pauses {s['worker_pauses']!r} is not a count")
    check_runtime(s, args.profiled)
    check_counters(s)
    if args.workers is not None:
        print(f"  {s['workers']} CPU worker(s) per rank (expected {args.workers})")
        if s["workers"] != args.workers:
            fail(f"summary.json: {s['workers']} CPU workers, expected {args.workers}")
    for k in ("advection", "velocity", "pressure", "update"):
        if not s["step_seconds"].get(k, -1) >= 0:
            fail(f"summary.json: step_seconds lacks {k}")
    for spec in args.iterations:   # FIELD=LO:HI, bounds on the mean iterations per step
        field, bounds = spec.split("=")
        lo, hi = (float(x) for x in bounds.split(":"))
        it = s["mean_iterations"][field]
        print(f"  {field}: {it} mean iterations (expected {lo}..{hi})")
        if not lo <= it <= hi:
            fail(f"mean iterations of {field} {it} not in [{lo}, {hi}]")
    return s


def check_runtime(s, profiled):
    """StarPU's worker profiling: null unless STARPU_PROFILING=1; then consistent counts"""
    r = s["runtime"]
    if not profiled:
        if r is not None:
            fail(f"summary.json: runtime {r} without STARPU_PROFILING")
        return
    if r is None:
        fail("summary.json: runtime is null with STARPU_PROFILING=1")
    cpu, cuda = r["cpu"], r["cuda"]
    if cpu["workers"] != s["workers"] or cuda["workers"] != s["cuda_workers"]:
        fail(f"summary.json: runtime workers {cpu['workers']}/{cuda['workers']}, "
             f"expected {s['workers']}/{s['cuda_workers']}")
    if not (cpu["tasks"] > 0 and 0 < cpu["task_seconds"] <= cpu["worker_seconds"] and 0 < cpu["task_share"] <= 1):
        fail(f"summary.json: runtime.cpu {cpu} is not a profile of a run that did work")
    # the profiled interval is the time loop: the workers together lived about workers x its wall time
    loop = s["wall_seconds"] - s["stage_seconds"]["setup"]
    if not cpu["worker_seconds"] <= 1.05 * s["workers"] * loop + 0.05:
        fail(f"summary.json: worker seconds {cpu['worker_seconds']} exceed {s['workers']} x {loop} s")
    print(f"  runtime: {cpu['tasks']} CPU tasks, {cpu['task_share']:.1%} of the workers' time in tasks")


def check_counters(s):
    """the runtime counters: tasks and waits in every step; MPI messages on 2+ ranks only"""
    c = s["runtime_counters"]
    if c["steps"] > 0:
        if not (c["tasks_per_step"] > 0 and c["waits_per_step"] >= 1):
            fail(f"summary.json: runtime_counters {c}: no tasks or waits")
        msgs = c["mpi_messages_per_step"]
        if (s["ranks"] == 1) != (msgs == 0):
            fail(f"summary.json: {msgs} MPI messages per step on {s['ranks']} rank(s)")
        # one message per neighbour rank per halo exchange (tasks/README.md "Messages"): at
        # most 20 per PCG iteration and neighbour (the lean-step issue's bound; ranks - 1
        # bounds rank 0's neighbours)
        it = s["mean_iterations"]
        bound = 20 * (it["u"] + it["v"] + it["p"]) * (s["ranks"] - 1)
        if s["ranks"] > 1 and not msgs <= bound:
            fail(f"summary.json: {msgs:.0f} MPI messages per step per rank, above 20 x {it} PCG iterations "
                 f"x {s['ranks'] - 1} neighbours = {bound:.0f}")
        # the main thread's CPU time in the steps: some (it submits every task), and no more
        # than the steps' wall time (a process-wide clock would count the workers too)
        host, wall = c["host_cpu_ms_per_step"], 1e3 * s["stage_seconds"]["step"] / c["steps"]
        if not 0 < host <= 1.02 * wall + 0.01:
            fail(f"summary.json: host_cpu_ms_per_step {host} outside (0, {wall:.3f}] (the steps' wall ms per step)")
        print(f"  runtime: {c['tasks_per_step']:.0f} tasks, {c['waits_per_step']:.1f} waits, "
              f"{msgs:.0f} MPI messages per step, host CPU {host:.2f} of {wall:.2f} ms per step")


def check_csv(d, args, dt):
    with open(os.path.join(d, "diagnostics.csv"), newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    expected = list(CSV_COLUMNS)
    expected += [f"{c}_{name}" for name in args.forces for c in ("fx", "fy")]
    if args.coefficients:
        expected += [f"{c}_{name}" for name in args.forces for c in ("cd", "cl")]
    if header != expected:
        fail(f"diagnostics.csv header {header}, expected {expected}")
    if len(rows) != args.steps:
        fail(f"diagnostics.csv has {len(rows)} rows, expected {args.steps}")
    for i, row in enumerate(rows):
        values = [float(v) for v in row]
        if len(values) != len(header) or int(values[0]) != i + 1 or abs(values[1] - (i + 1) * dt) > 1e-9:
            fail(f"diagnostics.csv row {i + 1}: {row}")
        if int(values[6]) != (args.status != "not converged" or i + 1 < args.steps):
            fail(f"diagnostics.csv row {i + 1}: converged column {row[6]}")
        if not all(math.isfinite(v) for v in values) or values[7] <= 0 or values[9] <= 0:
            fail(f"diagnostics.csv row {i + 1}: not finite or not positive energy/CFL: {row}")
    return rows


def check_fields(d, args, dt, rows=None):
    files = sorted(glob.glob(os.path.join(d, "fields_*.nc")))
    if len(files) != args.files or glob.glob(os.path.join(d, "*.tmp")):
        fail(f"{len(files)} field files (expected {args.files}), or a .tmp file left: {os.listdir(d)}")
    for path in files:
        step = int(os.path.basename(path)[7:13])
        with netCDF4.Dataset(path) as nc:
            if nc.variables["mesh2d"].cf_role != "mesh_topology":
                fail(f"{path}: no UGRID topology")
            n = nc.dimensions["mesh2d_nNodes"].size
            for name in ("u", "v", "p", "vorticity", "divergence"):
                data = np.asarray(nc.variables[name][:])
                if data.shape != (1, n) or not np.all(np.isfinite(data)):
                    fail(f"{path}: {name} has shape {data.shape} or is not finite")
            # the divergence field is what diagnostics.csv's max_div_u is the maximum of
            if step > 0 and rows is not None:
                want = float(rows[step - 1][8])
                got = float(np.max(np.abs(np.asarray(nc.variables["divergence"][:]))))
                if abs(got - want) > 1e-6 * max(want, 1e-300):   # diagnostics.csv prints 7 digits
                    fail(f"{path}: max |divergence| {got} but diagnostics.csv's max_div_u at step {step} is {want}")
            t = float(nc.variables["time"][0])
            if abs(t - step * dt) > 1e-9:
                fail(f"{path}: time {t}, expected {step * dt}")
    print(f"  {len(files)} field files read: {[os.path.basename(p) for p in files]}")


def compare(s, rows, args):
    with open(os.path.join(args.compare, "summary.json")) as f:
        o = json.load(f)
    with open(os.path.join(args.compare, "diagnostics.csv"), newline="") as f:
        orow = list(csv.reader(f))[-1]
    pairs = [(s["errors"][k]["absolute"], o["errors"][k]["absolute"]) for k in ("u", "v", "p")]
    pairs += [(float(a), float(b)) for a, b in zip(rows[-1][7:], orow[7:])]
    worst = max(abs(a - b) / max(abs(b), 1e-300) for a, b in pairs)
    print(f"  against {args.compare}: largest relative difference {worst:.2e} (tolerance {args.rtol}"
          + (f", or absolute {args.atol})" if args.atol else ")"))
    bad = [(a, b) for a, b in pairs if not abs(a - b) <= args.rtol * abs(b) + args.atol]
    if bad:
        a, b = max(bad, key=lambda ab: abs(ab[0] - ab[1]))
        fail(f"differs from {args.compare}: {a!r} against {b!r} (relative {abs(a - b) / max(abs(b), 1e-300):.3e})")


def check_trace(path, s):
    """INSDG_TRACE: one line per task ("name worker start end", worker in [0, workers)), per
    host wait (worker -1) and per time step (worker -2); at least the time loop's tasks and
    waits (summary.json counts them where they are submitted and waited for, the trace where
    they run), one step line per step, in order and not overlapping"""
    tasks = waits = 0
    steps = []
    with open(path) as f:
        for line in f:
            name, worker, start, end = line.split()
            w, t0, t1 = int(worker), float(start), float(end)
            if not (-2 <= w < s["workers"] + s["cuda_workers"] and 0 <= t0 <= t1) or (w == -2) != (name == "step"):
                fail(f"{path}: bad line {line.strip()!r} ({s['workers']} CPU workers)")
            tasks += w >= 0
            waits += w == -1
            if w == -2:
                steps.append((t0, t1))
    c = s["runtime_counters"]
    need_tasks, need_waits = round(c["tasks_per_step"] * c["steps"]), round(c["waits_per_step"] * c["steps"])
    print(f"  trace: {tasks} tasks, {waits} host waits, {len(steps)} steps (time loop: {need_tasks}, {need_waits}, "
          f"{s['steps']})")
    if tasks < need_tasks or waits < need_waits:
        fail(f"{path}: {tasks} tasks and {waits} waits, fewer than the time loop's {need_tasks} and {need_waits}")
    if len(steps) != s["steps"] or any(b[0] < a[1] for a, b in zip(steps, steps[1:])):
        fail(f"{path}: {len(steps)} step lines for {s['steps']} steps, or steps out of order")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--files", type=int, required=True)
    p.add_argument("--forces", nargs="*", default=[])
    p.add_argument("--coefficients", action="store_true")
    p.add_argument("--max-error", nargs="*", default=[])
    p.add_argument("--iterations", nargs="*", default=[])
    p.add_argument("--workers", type=int, help="the CPU workers per rank the run must have had")
    p.add_argument("--profiled", action="store_true", help="the run had STARPU_PROFILING=1")
    p.add_argument("--scheduler", help="the scheduler the run must have reported (direct, insdg-home, ...)")
    p.add_argument("--main-thread", help="what the run's main thread did with the tasks (summary.json main_thread)")
    p.add_argument("--allocator", choices=["jemalloc", "system"], help="the malloc the run must have reported")
    p.add_argument("--coarse", choices=["cholesky", "band", "amg", "none"], help="the pressure pMG's coarse solve the run must have had")
    p.add_argument("--compare")
    p.add_argument("--rtol", type=float, default=1e-9)
    p.add_argument("--atol", type=float, default=0.0)
    p.add_argument("--status", default="completed")
    p.add_argument("--trace", help="the run's INSDG_TRACE file")
    args = p.parse_args()
    s = check_summary(args.dir, args)
    rows = check_csv(args.dir, args, s["dt"])
    check_fields(args.dir, args, s["dt"], rows)
    if args.compare:
        compare(s, rows, args)
    if args.trace:
        check_trace(args.trace, s)
    print(f"check_run: ok: {args.dir}")


if __name__ == "__main__":
    main()
