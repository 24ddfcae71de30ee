#!/usr/bin/env python3
"""compare_runs.py A B [--rtol R] [--label TEXT] [--expect-cuda W]

Compares two `insdg run` output directories of the same case (summary.json and
diagnostics.csv; the Python standard library only, so that it runs on a bare GPU
machine): both runs completed with the same step count; the L2 errors against the exact
solution (where the case has one; relative to the exact solution's norm) and every number
of the last diagnostics row (kinetic energy, max |div u| relative to cfl/dt, CFL; force
components relative to their force vector's size) agree to R relative. Prints one table of the two runs:
workers, mean iterations per step, ms per step by stage, and StarPU's profile (the share
of the workers' time inside tasks; summary.json "runtime", with STARPU_PROFILING=1).
--expect-cuda W: run A must have had W CUDA workers. --rtol-solver T: the tolerance when
the runs' mean iteration counts differ (the solvers' relative tolerance; a last-bit
difference of the kernels can move one convergence test across its threshold).
Exit status 0 when they agree, 1 when not (the reason is printed), 2 when a run is missing.
"""
import argparse
import csv
import json
import math
import os
import sys


def load(d):
    try:
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        with open(os.path.join(d, "diagnostics.csv"), newline="") as f:
            rows = list(csv.reader(f))
    except (OSError, ValueError) as e:
        print(f"compare_runs: {d}: {e}")
        sys.exit(2)
    return s, rows[0], rows[-1]


def describe(name, s):
    n = max(s["steps"], 1)
    st = s["step_seconds"]
    stages = " ".join(f"{k} {1e3 * v / n:.2f}" for k, v in st.items())
    it = s["mean_iterations"]
    line = (f"  {name}: {s['ranks']} rank(s), {s['workers']} CPU + {s.get('cuda_workers', 0)} CUDA workers, "
            f"{s['blocks']} blocks; {1e3 * s['seconds_per_step']:.2f} ms/step ({stages}); "
            f"iterations u {it['u']:.2f} v {it['v']:.2f} p {it['p']:.2f}")
    r = s.get("runtime")
    if r:
        parts = [f"{k} {r[k]['tasks']} tasks, {100 * r[k]['task_share']:.1f}% of worker time in tasks"
                 for k in ("cpu", "cuda") if r[k]["workers"] > 0 and r[k]["task_share"] is not None]
        line += "; rank 0 profile: " + "; ".join(parts)
    return line


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--rtol", type=float, default=1e-10)
    p.add_argument("--label", default="")
    p.add_argument("--expect-cuda", type=int)
    p.add_argument("--rtol-solver", type=float, default=None,
                   help="tolerance when the runs' iteration counts differ (the solvers' relative tolerance)")
    args = p.parse_args()
    sa, header, ra = load(args.a)
    sb, _, rb = load(args.b)
    print(f"{args.label or args.a + ' vs ' + args.b}")
    print(describe("A " + os.path.basename(args.a.rstrip("/")), sa))
    print(describe("B " + os.path.basename(args.b.rstrip("/")), sb))
    problems = []
    for name, s in (("A", sa), ("B", sb)):
        if s["status"] != "completed":
            problems.append(f"{name} status {s['status']}")
    if sa["steps"] != sb["steps"]:
        problems.append(f"steps {sa['steps']} vs {sb['steps']}")
    if args.expect_cuda is not None and sa.get("cuda_workers") != args.expect_cuda:
        problems.append(f"A had {sa.get('cuda_workers')} CUDA workers, expected {args.expect_cuda}")
    # (name, A, B, scale): the difference is measured against scale. An L2 error against
    # the exact solution x is compared relative to |x|: | |a - x| - |b - x| | <= |a - b|,
    # so this bounds (from below) the difference of the two solutions relative to their
    # size; relative to the error itself it would ask the solutions to agree far below
    # round-off when the error is small (Taylor p at N = 4: error 6e-7 of |p| = 0.48).
    pairs = []
    if sa.get("errors") and sb.get("errors"):
        for k in ("u", "v", "p"):
            ea, eb = sa["errors"].get(k), sb["errors"].get(k)
            if ea and eb:
                norm = eb["absolute"] / eb["relative"] if eb["relative"] else abs(eb["absolute"])
                pairs.append((f"error {k}", ea["absolute"], eb["absolute"], norm))
    # a force component against the size of its force vector (fx of 6e-8 beside fy of 0.06
    # is a small difference of large terms); max |div u| against cfl/dt = N^2 max |u|/h,
    # the inverse-estimate bound of the velocity gradient whose terms it sums (Taylor N = 4:
    # max |div u| = 2.2e-6 from terms of size ~10 differed by 2e-12 between the GPU and
    # the CPU kernels, 9e-7 of itself); every other number against itself
    value = {name: float(y) for name, y in zip(header, rb)}
    for name, x, y in zip(header[7:], ra[7:], rb[7:]):
        scale = abs(float(y))
        if name == "max_div_u" and value.get("dt", 0.0) > 0:
            scale = max(scale, value.get("cfl", 0.0) / value["dt"])
        for a, b in (("fx_", "fy_"), ("cd_", "cl_")):
            if name.startswith(a) or name.startswith(b):
                where = name[3:]
                scale = max(abs(value.get(a + where, 0.0)), abs(value.get(b + where, 0.0)))
        pairs.append((name, float(x), float(y), scale))
    worst, worst_name = 0.0, ""
    for name, x, y, scale in pairs:
        d = abs(x - y) / max(scale, 1e-300)
        if not math.isfinite(d) or d > worst:
            worst, worst_name = (d if math.isfinite(d) else math.inf), name
        print(f"    {name:>16}: {x:.15e} {y:.15e}  rel. diff {d:.2e}")
    # Kernels that differ in the last bit (FMA contraction) can move a solver's convergence
    # test across its threshold: one iteration more or less in one solve, and from there
    # on the two runs agree only to the solvers' tolerance (seen: Taylor N = 6, 300 steps
    # with solution projection, u iterations 5.73 vs 5.74 per step, errors 3e-10 apart).
    rtol = args.rtol
    ita, itb = sa["mean_iterations"], sb["mean_iterations"]
    if args.rtol_solver is not None and any(ita[k] != itb[k] for k in ("u", "v", "p")):
        rtol = max(rtol, args.rtol_solver)
        print(f"  iteration counts differ (a convergence test fell the other way): tolerance {rtol:.0e}, "
              f"the solvers' relative tolerance")
    print(f"  largest relative difference {worst:.2e} ({worst_name}), tolerance {rtol:.0e}")
    if worst > rtol:
        problems.append(f"{worst_name} differs by {worst:.2e} > {rtol:.0e}")
    if problems:
        print("  DIFFERENT: " + "; ".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
