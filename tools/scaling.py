#!/usr/bin/python3
"""Strong and weak scaling studies of insdg: write the case files, run them (through Slurm
when there is one, with mpirun otherwise), collect every summary.json into a CSV and plot
speed-up and efficiency against the ideal.

    # strong: one mesh, R = 1, 2, 4 ranks
    python3 tools/scaling.py strong CASE.ini --ranks 1 2 4 --out runs/strong
    # weak: about the same elements per rank: the mesh of R ranks from GEO with h = H / sqrt(R)
    python3 tools/scaling.py weak CASE.ini --geo cases/taylor_vortex/square.geo --h 0.05 \\
        --ranks 1 2 4 --out runs/weak

Options: --workers W (StarPU CPU workers per rank, default 1), --steps T (time steps per
run, default 50: final_time = T dt), --launcher auto|slurm|mpirun (auto: Slurm when `sbatch`
and a running controller are found), --insdg PATH (default build/insdg), --sbatch-args
"..." (extra sbatch options: partition, time, GPUs, ...), --script (the job script,
default jobs/insdg-cpu.sbatch; jobs/insdg-nvidia.sbatch for one GPU per rank), --replot
(only read the summaries again). Slurm runs go through the job script, one job per R
(`sbatch --wait --ntasks R --cpus-per-task W`). Each run: OUT/R<r>/case.ini and OUT/R<r>/out/summary.json.

CSV (OUT/scaling.csv), one row per R: ranks, workers, K, N, dofs, steps, ms per step and by
stage (advection, velocity, pressure, update: summary.json step_seconds / steps), mean
iterations u/v/p, speed-up and efficiency against the smallest R (strong: t_1 / t_R and
t_1 R_1 / (t_R R); weak: efficiency t_1 / t_R scaled by the work ratio K_R R_1 / (K_1 R),
speed-up R / R_1 times that), max RSS per rank (MiB) and its part held whatever R (setup_rss_mib:
the whole mesh and its geometry, read on every rank). Plot: OUT/scaling.png. The time per
step includes the first steps; use enough steps that they do not matter. The CSV and plot
are a study's record, not a pass/fail test.
"""
import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGES = ["advection", "velocity", "pressure", "update"]


def die(msg):
    sys.exit(f"scaling: error: {msg}")


def ini_value(text, section, key):
    sec = None
    for line in text.splitlines():
        line = line.split(";")[0].split("#")[0].strip()
        if line.startswith("["):
            sec = line.strip("[]").strip()
        elif "=" in line and sec == section and line.split("=")[0].strip() == key:
            return line.split("=", 1)[1].strip()
    return None


def write_case(src, dst, mesh, steps, settings=None):
    """the case of src, with the mesh (absolute), final_time = steps dt, fields at the end only,
    no checkpoints; settings: more {(section, key): value}, replacing or added to their
    section (bench/bench_checkpoint.py uses it)"""
    text = open(src).read()
    settings = dict(settings or {})
    dt = settings.get(("time", "dt"), ini_value(text, "time", "dt"))
    if dt is None:
        die(f"{src}: no [time] dt")
    base = os.path.dirname(os.path.abspath(src))
    if mesh is None:
        mesh = ini_value(text, "case", "mesh")
        if mesh is None:
            die(f"{src}: no [case] mesh")
        mesh = os.path.normpath(os.path.join(base, mesh))
    fixed = {("case", "mesh"): mesh, ("time", "final_time"): repr(steps * float(dt)), ("output", "interval"): "0",
             ("output", "checkpoint_interval_steps"): None, ("output", "checkpoint_interval_seconds"): None}
    fixed.update(settings)
    out, sec, done = [], None, set()

    def add_missing(section):   # settings of a section the file did not have as keys
        for (s, k), v in fixed.items():
            if s == section and (s, k) not in done and v is not None:
                out.append(f"{k} = {v}")

    seen = set()
    for raw in text.splitlines():
        line = raw.split(";")[0].strip()
        if line.startswith("["):
            add_missing(sec)
            sec = line.strip("[]").strip()
            seen.add(sec)
        key = line.split("=")[0].strip() if "=" in line else None
        if key is not None and (sec, key) in fixed and (sec, key) not in done:
            done.add((sec, key))
            if fixed[(sec, key)] is None:
                continue
            raw = f"{key} = {fixed[(sec, key)]}"
        out.append(raw)
    add_missing(sec)
    for section in dict.fromkeys(s for (s, k), v in fixed.items() if s not in seen and v is not None):
        out.append(f"[{section}]")   # a section the file did not have
        add_missing(section)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    open(dst, "w").write("\n".join(out) + "\n")


def slurm_available():
    return shutil.which("sbatch") is not None and \
        subprocess.run(["sinfo", "-h"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def run_one(a, R, case, outdir):
    shutil.rmtree(outdir, ignore_errors=True)
    env = dict(os.environ, INSDG=a.insdg, STARPU_NCPU=str(a.workers), OPENBLAS_NUM_THREADS="1")
    if a.launcher == "slurm":
        cmd = ["sbatch", "--wait", f"--ntasks={R}", f"--cpus-per-task={a.workers}",
               f"--chdir={os.path.dirname(outdir)}"] + a.sbatch_args.split() + \
              [a.script, case, outdir]
    else:
        # unbound: insdg gives each rank its share of the cores (Open MPI would bind one or
        # two ranks to a single core each, whatever the worker count)
        cmd = ["mpirun", "-np", str(R), "--bind-to", "none", a.insdg, "run", case, "--output", outdir,
               "--progress", "log"]
    print(f"scaling: R = {R}: {' '.join(cmd)}", flush=True)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        die(f"R = {R} failed (exit {p.returncode}):\n{p.stdout[-2000:]}")


def collect(a, ranks):
    rows = []
    for R in ranks:
        path = os.path.join(a.out, f"R{R}", "out", "summary.json")
        try:
            s = json.load(open(path))
        except (OSError, ValueError) as e:
            die(f"{path}: {e}")
        n = max(s["steps"], 1)
        row = {"ranks": s["ranks"], "workers": s["workers"], "K": s["K"], "N": s["N"], "dofs": s["dofs"],
               "steps": s["steps"], "ms_per_step": 1e3 * s["stage_seconds"]["step"] / n}
        row.update({f"ms_{k}": 1e3 * s["step_seconds"][k] / n for k in STAGES})
        row.update({f"iterations_{k}": s["mean_iterations"][k] for k in ("u", "v", "p")})
        row["max_rss_mib"] = s.get("max_rss_mib", float("nan"))
        # the part every rank holds whatever R (the whole mesh and its geometry): the
        # memory that should fall as 1/R is max_rss_mib minus this
        row["setup_rss_mib"] = max(s.get("setup_rss_mib_per_rank", [float("nan")]))
        rows.append(row)
    r0 = rows[0]
    for row in rows:
        ratio = r0["ms_per_step"] / row["ms_per_step"]
        if a.mode == "strong":
            row["speedup"] = ratio
            row["efficiency"] = ratio * r0["ranks"] / row["ranks"]
        else:   # work per rank K/R may differ a little from R to R: scale by it
            work = (row["K"] / row["ranks"]) / (r0["K"] / r0["ranks"])
            row["efficiency"] = ratio * work
            row["speedup"] = row["efficiency"] * row["ranks"] / r0["ranks"]
    return rows


def plot(a, rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("scaling: no matplotlib: no plot")
        return None
    R = [r["ranks"] for r in rows]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(R, [r["speedup"] for r in rows], "o-", label="insdg")
    ax[0].plot(R, [x / R[0] for x in R], "k--", label="ideal")
    ax[0].set(xlabel="ranks", ylabel="speed-up" if a.mode == "strong" else "scaled speed-up",
              title=f"{a.mode} scaling: speed-up")
    ax[1].plot(R, [r["efficiency"] for r in rows], "o-", label="insdg")
    ax[1].axhline(1.0, color="k", ls="--", label="ideal")
    ax[1].set(xlabel="ranks", ylabel="parallel efficiency", ylim=(0, 1.2), title=f"{a.mode} scaling: efficiency")
    for x in ax:
        x.set_xscale("log", base=2)
        x.set_xticks(R)
        x.set_xticklabels([str(v) for v in R])
        x.legend()
    k = ", ".join(f"R={r['ranks']}: K={r['K']}" for r in rows) if a.mode == "weak" else f"K = {rows[0]['K']}"
    fig.suptitle(f"insdg, N = {rows[0]['N']}, {rows[0]['workers']} worker(s) per rank, {k}", fontsize=9)
    fig.tight_layout()
    path = os.path.join(a.out, "scaling.png")
    fig.savefig(path, dpi=110)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=["strong", "weak"])
    p.add_argument("case")
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--out", default="scaling")
    p.add_argument("--geo", help="weak: the .geo the meshes are made from (gmsh -setnumber h)")
    p.add_argument("--h", type=float, help="weak: the mesh size h of one rank")
    p.add_argument("--launcher", choices=["auto", "slurm", "mpirun"], default="auto")
    p.add_argument("--insdg", default=os.path.join(ROOT, "build/insdg"))
    p.add_argument("--sbatch-args", default="")
    p.add_argument("--script", default=os.path.join(ROOT, "jobs/insdg-cpu.sbatch"),
                   help="the batch script of one run (Slurm): jobs/insdg-cpu.sbatch, -nvidia or -amd")
    p.add_argument("--replot", action="store_true")
    a = p.parse_args()
    a.out, a.insdg = os.path.abspath(a.out), os.path.abspath(a.insdg)
    ranks = sorted(set(a.ranks))
    if not os.path.exists(a.case):
        die(f"{a.case}: no such case file")
    if a.mode == "weak" and (not a.geo or not a.h):
        die("weak scaling needs --geo and --h")
    if a.launcher == "auto":
        a.launcher = "slurm" if slurm_available() else "mpirun"
    if not a.replot:
        if not os.access(a.insdg, os.X_OK):
            die(f"{a.insdg}: not an executable (build insdg, or pass --insdg)")
        for R in ranks:
            d = os.path.join(a.out, f"R{R}")
            mesh = None
            if a.mode == "weak":
                mesh = os.path.join(d, "mesh.msh")
                os.makedirs(d, exist_ok=True)
                subprocess.run(["gmsh", a.geo, "-2", "-v", "0", "-format", "msh41", "-setnumber", "h",
                                repr(a.h / math.sqrt(R)), "-o", mesh], check=True)
            write_case(a.case, os.path.join(d, "case.ini"), mesh, a.steps)
            run_one(a, R, os.path.join(d, "case.ini"), os.path.join(d, "out"))
    rows = collect(a, ranks)
    path = os.path.join(a.out, "scaling.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    png = plot(a, rows)
    print(f"scaling: {a.mode}, launcher {a.launcher}: wrote {path}" + (f" and {png}" if png else ""))
    for r in rows:
        print(f"  R = {r['ranks']}: K = {r['K']}, {r['ms_per_step']:.2f} ms/step, speed-up {r['speedup']:.2f}, "
              f"efficiency {r['efficiency']:.2f}, max RSS {r['max_rss_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
