#!/usr/bin/python3
"""bench_projection.py [--insdg PATH] [--work DIR] [--cases NAME ...] [--workers W]
                     [--tolerance T] [--min-iterations K ...]

Solution projection (tasks/projection.h, docs/solvers.md "Solution projection") on the
shipped cases: each case runs with the solves' initial guesses

  off       no projection: extrapolated velocity, the last pressure increment
  pressure  projection of the pressure increment only (window 8)
  default   the defaults: pressure and velocity projected (window 8), velocity solves
            at least 4 iterations

and the script prints, per case and setting, the mean PCG iterations per step (u / v /
p), ms per step (1 rank, W workers, default 1) and the errors against the exact solution
or the last row's forces, so that the guesses' effect on the solution is seen beside
their effect on the cost. Cases (steps):

  tv_bench       the lean-step benchmark's Taylor vortex: K = 1990 (gmsh
                 cases/taylor_vortex/square.geo -2 -format msh41 -setnumber h 0.035),
                 N = 4, dt = 6.25e-4, BDF2 (100 steps)
  taylor_vortex  cases/taylor_vortex (42 triangles, N = 6, dt = 0.01; 300 steps)
  kovasznay      cases/kovasznay (N = 6, dt = 0.005; 200 steps)
  square_cylinder cases/square_cylinder (N = 5, dt = 0.05, 8 substeps; 40 steps)

--tolerance T sets both solvers' tolerance (a converged reference: 1e-12). --min-iterations
K ... adds a setting per K: the defaults with [velocity_solver] min_iterations = K (the
table of docs/solvers.md: --cases tv_bench --min-iterations 0 1 2 3 4 5 6).

No timing is asserted: the figures are for docs/solvers.md, with the CPU model. Needs gmsh.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import scaling  # noqa: E402  (write_case)

CASES = {
    "tv_bench": ("cases/taylor_vortex/taylor_vortex.ini", 100,
                 {("case", "order"): "4", ("time", "dt"): "0.000625"}),
    "taylor_vortex": ("cases/taylor_vortex/taylor_vortex.ini", 300, {}),
    "kovasznay": ("cases/kovasznay/kovasznay.ini", 200, {}),
    "square_cylinder": ("cases/square_cylinder/square_cylinder.ini", 40, {}),
}
SETTINGS = {
    "off": {("velocity_solver", "projection"): "0", ("pressure_solver", "projection"): "0"},
    "pressure": {("velocity_solver", "projection"): "0", ("pressure_solver", "projection"): "8"},
    "default": {},
}


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def bench_mesh(work):
    path = os.path.join(work, "square_h0.035.msh")
    if not os.path.exists(path):
        subprocess.run(["gmsh", os.path.join(ROOT, "cases/taylor_vortex/square.geo"), "-2", "-format", "msh41",
                        "-setnumber", "h", "0.035", "-o", path], check=True, stdout=subprocess.DEVNULL)
    return path


def run(insdg, work, case, setting, workers, more):
    src, steps, extra = CASES[case]
    mesh = bench_mesh(work) if case == "tv_bench" else None
    d = os.path.join(work, case, setting)
    ini = os.path.join(d, "case.ini")
    settings = dict(extra)
    settings.update(more)
    scaling.write_case(os.path.join(ROOT, src), ini, mesh, steps, settings)
    env = dict(os.environ, STARPU_NCPU=str(workers))
    out = os.path.join(d, "out")
    r = subprocess.run([insdg, "run", ini, "--output", out, "--progress", "log"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit(f"bench_projection: {case}/{setting}: insdg exited {r.returncode}:\n{r.stdout[-2000:]}")
    s = json.load(open(os.path.join(out, "summary.json")))
    rows = list(csv.DictReader(open(os.path.join(out, "diagnostics.csv"))))
    forces = {k: float(v) for k, v in rows[-1].items() if k.startswith(("cd_", "cl_"))}
    return s, forces


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--insdg", default=os.path.join(ROOT, "build/insdg"))
    p.add_argument("--work", default=os.path.join(ROOT, "build/bench_projection"))
    p.add_argument("--cases", nargs="*", default=list(CASES))
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--tolerance", help="both solvers' relative tolerance")
    p.add_argument("--min-iterations", type=int, nargs="*", default=[])
    a = p.parse_args()
    settings = dict(SETTINGS)
    for k in a.min_iterations:
        settings[f"vmin{k}"] = {("velocity_solver", "min_iterations"): str(k)}
    if a.tolerance:
        for v in settings.values():
            v[("velocity_solver", "tolerance")] = v[("pressure_solver", "tolerance")] = a.tolerance
    os.makedirs(a.work, exist_ok=True)
    print(f"bench_projection: {a.insdg}; CPU {cpu_model()}; 1 rank x {a.workers} worker(s)")
    print("| case | K, N | steps | guesses | it u / v / p | ms/step | velocity / pressure ms | errors u, v, p (rel.) or forces |")
    print("|---|---|---:|---|---|---:|---|---|")
    for case in a.cases:
        for setting, more in settings.items():
            s, forces = run(a.insdg, a.work, case, setting, a.workers, more)
            it = s["mean_iterations"]
            st = s["step_seconds"]
            n = s["steps"]
            if s.get("errors"):
                what = ", ".join(f"{s['errors'][k]['relative']:.3e}" for k in ("u", "v", "p"))
            else:
                what = ", ".join(f"{k} {v:.6g}" for k, v in forces.items()) or "-"
            print(f"| {case} | {s['K']}, {s['N']} | {n} | {setting} | {it['u']:.2f} / {it['v']:.2f} / {it['p']:.2f} | "
                  f"{1e3 * s['seconds_per_step']:.1f} | {1e3 * st['velocity'] / n:.1f} / {1e3 * st['pressure'] / n:.1f} | "
                  f"{what} |", flush=True)


if __name__ == "__main__":
    main()
