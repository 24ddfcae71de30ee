#!/usr/bin/python3
"""bench_step.py [--insdg PATH] [--steps T] [--warmup W] [--repeats R] [--budget S] [--markdown FILE]
              [--settings 1w 2w 2r Ns4] [--blocks-per-rank B] [--work DIR]
              [--against PATH] [--env KEY=VAL ...] [--against-env KEY=VAL ...] [--pairs P] [--busy N]

The cost of one Navier-Stokes time step and of the runtime around it (the lean-step
issue): the Taylor vortex on a 1990-triangle mesh (gmsh cases/taylor_vortex/square.geo
-2 -format msh41 -setnumber h 0.035), N = 4, BDF2/EXT2, dt = 6.25e-4, PCG tolerances
1e-8 (the defaults), run by `insdg run` (PATH, default build/insdg) in four settings:

  1w   1 rank x 1 StarPU CPU worker
  2w   1 rank x 2 workers
  2r   2 ranks x 1 worker (mpirun -np 2, as a user runs it: insdg gives each rank its
       share of the cores)
  Ns4  1 rank x 1 worker, subcycling with 4 substeps
  1wx2 two independent 1w runs at the same time: the two-core bound. Each copy's step
       time, halved, is what one step's work takes when it is split perfectly over both
       cores, with both cores' share of the caches, memory and the host's CPU; ms_2w and
       ms_2r cannot beat it. Copy i runs on core i (taskset)

Time per step: each setting runs W warm-up steps alone and W + T steps, and the step
time is the difference of their "step" stage seconds (summary.json) over T, so that the
start-up, the first steps and the final output are not counted; R repeats, min and
median. The repeats run in rounds: round r runs every setting once before round r + 1,
so that the settings of a round ran side by side (this VM's speed drifts by up to 2x
over minutes; before 2026-11-28 each setting ran its repeats back to back, and a drift
between settings went into their ratios). Each round's times are printed as it ends, and
ms_2w, ms_2r and the bound over ms_1w round by round (with their medians) at the end.
Before each round bench/core_latency (built beside PATH) measures the two cores' cache-line
round trip: on the 2-vCPU VMs the host moves the vCPUs nearer or farther (80 to 750 ns
from minute to minute), and 2w, which shares memory between the cores, moves with it (0.6
x ms_1w at 80 ns, 0.8 at 380 ns on a Zen 5 VM, 2026-12-05); the round lines and the end
say it. A setting whose step takes over 1 s (2 ranks before issue 12) runs fewer steps and one
repeat, to stay within the budget (seconds per setting, default 150); the table says how
many. Per setting also (insdg's own counters, summary.json "runtime_counters", rank 0):
tasks inserted per step and per pressure PCG iteration and block, host waits per step,
MPI messages, bytes, MPI_Test/Testall calls and collectives per step per rank, the
workers' time waiting in MPI for neighbours; the stages' ms per step; the diagnostics
after each step (insdg's "diagnostics" stage: D u, the host copies, the kinetic energy,
forces and CSV row; outside the step time, but in every run's wall time); the load average
before the runs. Blocks: insdg's default (one per worker of a rank). runtime_share: the fraction of the 1-worker step time the
worker spends outside task functions (two extra runs with STARPU_PROFILING=1, of W and
of W + T steps: the difference of their workers' task and worker seconds, so the same T
steps as the step time; until 2026-12-05 one run of W + 10 steps, which weighed the first
steps; task functions are the kernels and halo copies). The last line is

  bench_step: ms_1w=<x> ms_2w=<x> ms_2r=<x> runtime_share=<x> tasks_per_p_iteration=<x> messages_per_step=<x>

(medians; messages per step per rank on 2 ranks). No timing is asserted: this prints
figures for docs/performance.md, with the CPU model. Needs gmsh and mpirun.

Paired mode, for a change's before and after on a machine whose speed drifts:
--against PATH (another insdg binary; by default the same one) and/or --against-env
KEY=VAL (its environment: STARPU_SCHED=lws, ...), --env KEY=VAL for --insdg's. Each
setting (not 1wx2) is then measured P times (--pairs, default 16) on each side, the two
sides of a pair one after the other, in alternating order (new first in even pairs, old
first in odd ones), each as above (W + T steps less W steps). It prints every pair, and
per setting the median and mean of new/old over the pairs, how many pairs new won and the
two-sided sign test's p-value (the chance of a split at least that uneven if neither
side were faster), and the sides' medians. On the 2-vCPU VM of 2026-11-28, where single
runs of one binary moved by 1.7x, 16 pairs resolved a 5% difference (4 blocks against 2:
14 of 16, docs/performance.md). The last line is, per setting,

  bench_step pairs: <setting> new/old=<median> new_faster=<k>/<P> p=<p>

--busy N: N CPU-bound processes (Python loops, children of this script and so in its
session and the kernel's scheduling group) run beside the measurements, in either mode: a
user's machine that is doing something else. No figure of the acceptance list is measured
so; docs/performance.md, "Two workers beside a busy process" (2026-12-06), is.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGES = ["advection", "velocity", "pressure", "update"]


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def loadavg():
    try:
        return float(open("/proc/loadavg").read().split()[0])
    except OSError:
        return float("nan")


def write_case(path, mesh, steps, dt, substeps):
    src = open(os.path.join(ROOT, "cases/taylor_vortex/taylor_vortex.ini")).read().splitlines()
    out, degree_done = [], False
    for line in src:
        key = line.split("=")[0].strip()
        if key == "mesh":
            line = f"mesh = {mesh}"
        elif key == "order" and not degree_done:
            line, degree_done = "order = 4", True
        elif key == "dt":
            line = f"dt = {dt!r}"
        elif key == "final_time":
            line = f"final_time = {steps * dt!r}"
        elif key == "output":
            line = f"output = {os.path.dirname(path)}/unused"
        elif key == "interval":
            line = "interval = 0"
        elif key == "forces":
            continue
        out.append(line)
        if key == "order" and line != "order = 4" and substeps:   # [time] order: the BDF order
            out.append(f"substeps = {substeps}")
    open(path, "w").write("\n".join(out) + "\n")


def start(args, setting, steps, outdir, profile=False, core=None, insdg=None, env_extra=None):
    ranks, workers, substeps = setting
    os.makedirs(outdir, exist_ok=True)
    case = os.path.join(outdir, "case.ini")
    write_case(case, args.mesh, steps, args.dt, substeps)
    env = dict(os.environ, STARPU_SILENT="1", STARPU_NCPU=str(workers), STARPU_HOME=args.work,
               OPENBLAS_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    if profile:
        env["STARPU_PROFILING"] = "1"
    env.update(args.env if env_extra is None else env_extra)   # --env in every run of --insdg
    cmd = [insdg or args.insdg, "run", case, "--output", os.path.join(outdir, "out"), "--progress", "log"]
    if args.blocks_per_rank:
        cmd += ["--blocks", str(args.blocks_per_rank * ranks)]
    if ranks > 1:
        cmd = ["mpirun", "-np", str(ranks)] + cmd
    if core is not None:
        cmd = ["taskset", "-c", str(core)] + cmd
    shutil.rmtree(os.path.join(outdir, "out"), ignore_errors=True)
    return cmd, outdir, subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(started):
    cmd, outdir, p = started
    out = p.communicate()[0]
    if p.returncode != 0:
        sys.exit(f"bench_step: {' '.join(cmd)} failed ({p.returncode}):\n{out[-2000:]}")
    return json.load(open(os.path.join(outdir, "out", "summary.json")))


def step_ms(s0, s1, T):
    """ms per step of the T steps a run of W + T steps (summary s1) took beyond one of W (s0)"""
    return 1e3 * (s1["stage_seconds"]["step"] - s0["stage_seconds"]["step"]) / T


def core_latency(args):
    """the two cores' cache-line round trip in ns (bench/core_latency, built beside insdg),
    or None where it is missing or the process has one CPU"""
    exe = os.path.join(os.path.dirname(args.insdg), "bench", "core_latency")
    if not os.path.exists(exe):
        return None
    p = subprocess.run([exe, "--rounds", "50000", "--batches", "3"], capture_output=True, text=True)
    m = re.search(r"round_trip_ns=([0-9.]+)", p.stdout) if p.returncode == 0 else None
    return float(m.group(1)) if m else None


def run(args, setting, steps, outdir, profile=False, insdg=None, env_extra=None):
    return finish(start(args, setting, steps, outdir, profile, insdg=insdg, env_extra=env_extra))


def run_copies(args, setting, steps, outdir, copies):
    """copies of the same run at the same time, in outdir/copy<i>, copy i on core i (a single
    run: where insdg puts it); their summaries"""
    started = [start(args, setting, steps, os.path.join(outdir, f"copy{i}"),
                     core=i % os.cpu_count() if copies > 1 else None) for i in range(copies)]
    return [finish(s) for s in started]


def measure_all(args, settings):
    """each setting's step time (the rows) and the core_latency probe before each round.
    Round r runs every setting once (W + T steps, and W steps
    for the difference) before round r + 1 starts, so that the settings of one round ran
    side by side: this VM's speed drifts by up to 2x over minutes, and ratios of one round
    (measured.ratios) compare what ran together. With copies > 1 (1wx2), that many
    independent runs at the same time (each copy's step time, the mean over the copies)."""
    def once(name, steps):
        setting, copies = settings[name]
        outdir = os.path.join(args.work, name)
        os.makedirs(outdir, exist_ok=True)
        s = run_copies(args, setting, steps, outdir, copies)
        if copies == 1:
            return s[0]
        m = dict(s[0])   # step seconds: the mean over the copies; the rest from copy 0
        m["stage_seconds"] = {k: statistics.mean(x["stage_seconds"][k] for x in s) for k in ("step", "diagnostics")}
        m["step_seconds"] = {k: statistics.mean(x["step_seconds"][k] for x in s) for k in STAGES}
        return m

    W = args.warmup
    plan, acc = {}, {}
    for name in settings:   # the first short run sizes the setting
        load = loadavg()
        short = once(name, W)
        per_step = short["stage_seconds"]["step"] / W
        T, R = args.steps, args.repeats
        if per_step > 1.0:   # a slow setting: fewer steps, one repeat, within the budget
            T = max(2, min(T, int(args.budget / per_step) - W))
            R = 1
        plan[name] = (T, R, short)
        acc[name] = {"times": [], "stages": [], "diag": [], "last": None, "load": load}
    lat = []   # the two cores' round trip before each round (core_latency)
    for r in range(max(R for T, R, _ in plan.values())):
        lat.append(core_latency(args))
        for name in settings:
            T, R, short = plan[name]
            if r >= R:
                continue
            a = acc[name]
            s0 = short if r == 0 else once(name, W)
            s1 = once(name, W + T)
            a["times"].append(step_ms(s0, s1, T))
            a["stages"].append({k: 1e3 * (s1["step_seconds"][k] - s0["step_seconds"][k]) / T for k in STAGES})
            a["diag"].append(1e3 * (s1["stage_seconds"]["diagnostics"] - s0["stage_seconds"]["diagnostics"]) / T)
            a["last"] = s1
        print(f"  round {r + 1}: " + ", ".join(f"{n} {acc[n]['times'][r]:.1f}" for n in settings
                                               if len(acc[n]["times"]) > r) + " ms/step"
              + (f" (core round trip before it {lat[-1]:.0f} ns)" if lat[-1] else ""), flush=True)
    rows = []
    for name in settings:
        setting, copies = settings[name]
        T, R, _ = plan[name]
        a = acc[name]
        times, last = a["times"], a["last"]
        med = statistics.median(times)
        c = last["runtime_counters"]
        it = last["mean_iterations"]
        rows.append({"name": name, "ranks": setting[0], "workers": setting[1], "substeps": setting[2],
                     "blocks": last["blocks"], "K": last["K"], "steps": T, "repeats": R, "times": times,
                     "ms_min": min(times), "ms_median": med,
                     "stages": {k: statistics.median(st[k] for st in a["stages"]) for k in STAGES},
                     "diag_ms": statistics.median(a["diag"]),
                     "iterations": (it["u"], it["v"], it["p"]),
                     "tasks_per_step": c["tasks_per_step"], "tasks_per_p_iteration": c["pressure_tasks_per_iteration_per_block"],
                     "waits_per_step": c["waits_per_step"], "messages_per_step": c["mpi_messages_per_step"],
                     "bytes_per_step": c["mpi_bytes_per_step"], "tests_per_step": c["mpi_tests_per_step"],
                     "collectives_per_step": c.get("mpi_collectives_per_step", 0.0),
                     "wait_ms_per_step": c.get("mpi_wait_ms_per_step", 0.0),
                     "host_cpu_ms_per_step": c.get("host_cpu_ms_per_step", float("nan")),
                     "p_iterations_per_step": it["p"], "all_iterations_per_step": it["u"] + it["v"] + it["p"],
                     "load": a["load"], "errors": {k: last["errors"][k]["relative"] for k in ("u", "v", "p")}})
        print(f"  {name}: {med:.1f} ms/step (min {min(times):.1f}, {T} steps x {R}), "
              f"{c['tasks_per_step']:.0f} tasks and {c['waits_per_step']:.1f} waits per step, "
              f"{c['mpi_messages_per_step']:.0f} MPI messages per step per rank; scheduler {last.get('scheduler', '?')}; "
              f"worker pauses {last.get('worker_pauses', '?')}; load before {a['load']:.2f}", flush=True)
    return rows, lat


def sign_test(k, n):
    """two-sided p-value of a split of k against n - k pairs when each side wins a pair
    with probability 1/2"""
    from math import comb
    tail = sum(comb(n, i) for i in range(min(k, n - k) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def measure_pairs(args, settings):
    """paired mode: per setting, args.pairs pairs of (new, old) step times, alternating
    which side runs first; a summary per setting and the last lines"""
    sides = {"new": (args.insdg, args.env), "old": (args.against, args.against_env)}
    W, T = args.warmup, args.steps
    results = []
    for name, setting in settings.items():
        times, last = {"new": [], "old": []}, {}
        for i in range(args.pairs):
            for side in (("new", "old") if i % 2 == 0 else ("old", "new")):
                insdg, env = sides[side]
                outdir = os.path.join(args.work, "pairs", name, side)
                s0 = run(args, setting, W, outdir, insdg=insdg, env_extra=env)
                s1 = run(args, setting, W + T, outdir, insdg=insdg, env_extra=env)
                times[side].append(step_ms(s0, s1, T))
                last[side] = s1
            print(f"  {name} pair {i + 1}: new {times['new'][-1]:.2f}, old {times['old'][-1]:.2f} ms/step "
                  f"(new/old {times['new'][-1] / times['old'][-1]:.3f})", flush=True)
        r = [a / b for a, b in zip(times["new"], times["old"])]
        k = sum(x < 1 for x in r)
        p = sign_test(k, len(r))
        c = {s: last[s]["runtime_counters"] for s in last}
        print(f"  {name}: new/old median {statistics.median(r):.3f} (mean {statistics.mean(r):.3f}); new faster in "
              f"{k} of {len(r)} pairs (sign test p = {p:.2g}); medians new {statistics.median(times['new']):.2f}, "
              f"old {statistics.median(times['old']):.2f} ms/step; tasks per step new {c['new']['tasks_per_step']:.0f}, "
              f"old {c['old']['tasks_per_step']:.0f}; scheduler new {last['new'].get('scheduler', '?')}, "
              f"old {last['old'].get('scheduler', '?')}; worker pauses new {last['new'].get('worker_pauses', '?')}, "
              f"old {last['old'].get('worker_pauses', '?')}", flush=True)
        results.append((name, statistics.median(r), k, len(r), p))
    for name, med, k, n, p in results:
        print(f"bench_step pairs: {name} new/old={med:.3f} new_faster={k}/{n} p={p:.2g}")


def round_ratios(by, name, ref="1w"):
    """name's step time over ref's, round by round (the runs that ran side by side)"""
    if name not in by or ref not in by:
        return []
    return [a / b for a, b in zip(by[name]["times"], by[ref]["times"])]


def markdown(rows, share, cpu):
    lines = [f"CPU: {cpu}; {os.cpu_count()} cores seen; Taylor vortex, K = {rows[0]['K']}, N = 4, "
             f"dt = 6.25e-4, BDF2, tolerances 1e-8.", "",
             "| setting | blocks | ms/step median (min) | adv / vel / pres / upd ms | diagnostics ms | it u/v/p | tasks/step | "
             "tasks/p-it/block | waits/step | MPI msgs/step/rank | MPI bytes/step | MPI_Test/step | collectives/step | "
             "MPI wait ms/step | host CPU ms/step | steps x repeats | load |",
             "|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        st = " / ".join(f"{r['stages'][k]:.1f}" for k in STAGES)
        it = "/".join(f"{x:.1f}" for x in r["iterations"])
        what = "two 1r x 1w runs at once" if r["name"] == "1wx2" else \
            f"{r['ranks']}r x {r['workers']}w{', Ns=%d' % r['substeps'] if r['substeps'] else ''}"
        lines.append(f"| {r['name']} ({what}) "
                     f"| {r['blocks']} | {r['ms_median']:.1f} ({r['ms_min']:.1f}) | {st} | {r['diag_ms']:.2f} | {it} | "
                     f"{r['tasks_per_step']:.0f} | {r['tasks_per_p_iteration']:.1f} | {r['waits_per_step']:.1f} | "
                     f"{r['messages_per_step']:.0f} | {r['bytes_per_step']:.0f} | {r['tests_per_step']:.3g} | "
                     f"{r['collectives_per_step']:.0f} | {r['wait_ms_per_step']:.1f} | {r['host_cpu_ms_per_step']:.2f} | "
                     f"{r['steps']} x {r['repeats']} | {r['load']:.2f} |")
    lines.append("")
    lines.append(f"runtime_share (1w, STARPU_PROFILING=1, steps W + 1 to W + T): {share:.3f}")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--insdg", default=os.path.join(ROOT, "build/insdg"))
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--budget", type=float, default=150.0, help="seconds per slow setting")
    p.add_argument("--work", default=os.path.join(ROOT, "build/bench_step"))
    p.add_argument("--settings", nargs="*", default=["1w", "2w", "2r", "Ns4", "1wx2"])
    p.add_argument("--markdown", help="write the table to this file too")
    p.add_argument("--blocks-per-rank", type=int, default=0, help="--blocks for insdg (default: insdg's choice)")
    p.add_argument("--against", help="paired mode: the insdg binary to compare with (default: --insdg)")
    p.add_argument("--env", nargs="*", default=[], metavar="KEY=VAL", help="environment of --insdg's runs (both modes)")
    p.add_argument("--against-env", nargs="*", default=[], metavar="KEY=VAL", help="paired mode: the other side's")
    p.add_argument("--pairs", type=int, default=16, help="paired mode: pairs per setting")
    p.add_argument("--busy", type=int, default=0, help="CPU-bound processes running beside the measurements")
    args = p.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(max(args.busy, 0))]
    try:
        measure(p, args)
    finally:
        for b in busy:
            b.kill()
            b.wait()


def measure(p, args):
    for k in ("env", "against_env"):
        bad = [e for e in getattr(args, k) if "=" not in e or e.startswith("=")]
        if bad:
            p.error(f"--{k.replace('_', '-')}: {bad[0]!r} is not KEY=VAL")
        setattr(args, k, dict(e.split("=", 1) for e in getattr(args, k)))
    args.insdg, args.work = os.path.abspath(args.insdg), os.path.abspath(args.work)
    args.dt = 6.25e-4
    os.makedirs(args.work, exist_ok=True)
    args.mesh = os.path.join(args.work, "square_h0.035.msh")
    if not os.path.exists(args.mesh):
        subprocess.run(["gmsh", os.path.join(ROOT, "cases/taylor_vortex/square.geo"), "-2", "-v", "0", "-format",
                        "msh41", "-setnumber", "h", "0.035", "-o", args.mesh], check=True)
    cpu = cpu_model()
    settings = {"1w": (1, 1, 0), "2w": (1, 2, 0), "2r": (2, 1, 0), "Ns4": (1, 1, 4), "1wx2": (1, 1, 0)}
    unknown = [n for n in args.settings if n not in settings]
    if unknown:
        p.error(f"--settings: unknown setting {unknown[0]!r} (1w 2w 2r Ns4 1wx2)")
    if args.against or args.against_env:
        args.against = os.path.abspath(args.against or args.insdg)
        if "1wx2" in args.settings or args.pairs < 1:
            p.error("paired mode: settings 1w 2w 2r Ns4, --pairs >= 1")
        envs = {k: " ".join(f"{a}={b}" for a, b in getattr(args, k).items()) for k in ("env", "against_env")}
        print(f"bench_step pairs: new {args.insdg} {envs['env']}, old {args.against} {envs['against_env']}; "
              f"CPU {cpu}; {args.warmup} + {args.steps} steps, {args.pairs} pairs"
              + (f"; {args.busy} busy process(es) beside" if args.busy > 0 else ""), flush=True)
        measure_pairs(args, {n: settings[n] for n in args.settings})
        return
    print(f"bench_step: {args.insdg}; CPU {cpu}; {args.warmup} + {args.steps} steps x {args.repeats}"
          + (f"; {args.busy} busy process(es) beside" if args.busy > 0 else ""), flush=True)
    t0 = time.time()
    rows, lat = measure_all(args, {name: (settings[name], 2 if name == "1wx2" else 1) for name in args.settings})
    # the workers' profile of W and of W + T steps: their difference is the T steps the step
    # time counts (a profile of the first steps alone weighs the start: on the Zen 5 VM, W + 10
    # steps gave 0.17-0.19 where the difference gives 0.10-0.12, 2026-12-05)
    prof = [run(args, settings["1w"], n, os.path.join(args.work, "profile"), profile=True)["runtime"]["cpu"]
            for n in (args.warmup, args.warmup + args.steps)]
    share = 1.0 - (prof[1]["task_seconds"] - prof[0]["task_seconds"]) / (prof[1]["worker_seconds"] - prof[0]["worker_seconds"])
    table = markdown(rows, share, cpu)
    print(table)
    if args.markdown:
        open(args.markdown, "w").write(table)
    by = {r["name"]: r for r in rows}
    get = lambda n, k: by[n][k] if n in by else float("nan")  # noqa: E731
    msgs = get("2r", "messages_per_step")
    for name, what in (("2w", "ms_2w"), ("2r", "ms_2r"), ("1wx2", "the two-core bound x 2")):
        rr = round_ratios(by, name)
        if rr:
            print(f"({what} / ms_1w round by round: {' '.join(f'{x:.2f}' for x in rr)}; median {statistics.median(rr):.2f})")
    if any(lat):
        print(f"(the two cores' cache-line round trip before each round, bench/core_latency: "
              f"{' '.join('%.0f' % x if x else '-' for x in lat)} ns; the shared-memory settings (2w) move with it)")
    if "1wx2" in by and "1w" in by:
        bound = get("1wx2", "ms_median") / 2
        print(f"(two-core bound: two 1-worker runs at once take {get('1wx2', 'ms_median'):.1f} ms/step each, so the "
              f"work of one step split perfectly over both cores takes {bound:.1f} ms = {bound / get('1w', 'ms_median'):.2f} "
              f"x ms_1w; measured ms_2w = {get('2w', 'ms_median') / get('1w', 'ms_median'):.2f} x ms_1w, "
              f"ms_2r = {get('2r', 'ms_median') / get('1w', 'ms_median'):.2f} x ms_1w)")
    print(f"(messages_per_step on 2 ranks: {msgs:.0f}, against 20 x {get('2r', 'all_iterations_per_step'):.1f} "
          f"PCG iterations per step = {20 * get('2r', 'all_iterations_per_step'):.0f}; {time.time() - t0:.0f} s in all)")
    print(f"bench_step: ms_1w={get('1w', 'ms_median'):.2f} ms_2w={get('2w', 'ms_median'):.2f} "
          f"ms_2r={get('2r', 'ms_median'):.2f} runtime_share={share:.3f} "
          f"tasks_per_p_iteration={get('1w', 'tasks_per_p_iteration'):.1f} messages_per_step={msgs:.0f}")


if __name__ == "__main__":
    main()
