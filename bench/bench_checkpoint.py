#!/usr/bin/python3
"""bench_checkpoint.py [--insdg PATH] [--h H] [--order N] [--ranks 1 2] [--work DIR]

Checkpoint write and read times of `insdg run` (the cluster issue): the Taylor vortex on
the mesh of cases/taylor_vortex/square.geo with mesh size H (default 0.0095: 26 070
triangles), order N (default 4), dt = 6.25e-4, BDF2; for each rank count R: 2 steps with a
checkpoint after each (summary.json "checkpoints": written, write_seconds), then a restart
from the first checkpoint (restart_read_seconds). Prints per R the checkpoint size, the
seconds per checkpoint written and read, MB/s, and the peak memory per rank. No timing is
asserted; the CPU model is printed with the figures. Needs gmsh and mpirun.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from scaling import write_case  # noqa: E402  (the case-file rewriting of the scaling studies)


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def run(cmd, env):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit(f"bench_checkpoint: {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-2000:]}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--insdg", default=os.path.join(ROOT, "build/insdg"))
    p.add_argument("--h", type=float, default=0.0095)
    p.add_argument("--order", type=int, default=4)
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    p.add_argument("--work", default=os.path.join(ROOT, "build/bench_checkpoint"))
    a = p.parse_args()
    a.insdg, a.work = os.path.abspath(a.insdg), os.path.abspath(a.work)
    os.makedirs(a.work, exist_ok=True)
    mesh = os.path.join(a.work, f"square_h{a.h}.msh")
    if not os.path.exists(mesh):
        subprocess.run(["gmsh", os.path.join(ROOT, "cases/taylor_vortex/square.geo"), "-2", "-v", "0", "-format",
                        "msh41", "-setnumber", "h", repr(a.h), "-o", mesh], check=True)
    case = os.path.join(a.work, "case.ini")
    write_case(os.path.join(ROOT, "cases/taylor_vortex/taylor_vortex.ini"), case, mesh, 2,
               {("case", "order"): str(a.order), ("time", "dt"): "6.25e-4", ("output", "checkpoint_interval_steps"): "1",
                ("output", "forces"): None})
    env = dict(os.environ, STARPU_SILENT="1", STARPU_NCPU="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    print(f"bench_checkpoint: {a.insdg}; CPU {cpu_model()}; h = {a.h}, N = {a.order}")
    print("| ranks | K | checkpoint MB | write s (per checkpoint) | write MB/s | read s | read MB/s | peak RSS per rank MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|")
    for R in a.ranks:
        out = os.path.join(a.work, f"R{R}")
        shutil.rmtree(out, ignore_errors=True)
        run(["mpirun", "-np", str(R), a.insdg, "run", case, "--output", out, "--progress", "log"], env)
        s = json.load(open(os.path.join(out, "summary.json")))
        ck = sorted(glob.glob(os.path.join(out, "checkpoint_*.nc")))
        mb = os.path.getsize(ck[0]) / 1e6
        w = s["checkpoints"]["write_seconds"] / max(s["checkpoints"]["written"], 1)
        out2 = os.path.join(a.work, f"R{R}_restart")
        shutil.rmtree(out2, ignore_errors=True)
        run(["mpirun", "-np", str(R), a.insdg, "run", case, "--output", out2, "--progress", "log", "--restart", ck[0]],
            env)
        s2 = json.load(open(os.path.join(out2, "summary.json")))
        rd = s2["checkpoints"]["restart_read_seconds"]
        rss = ", ".join(f"{x:.0f}" for x in s["rss_mib_per_rank"])
        print(f"| {R} | {s['K']} | {mb:.1f} | {w:.3f} | {mb / w:.0f} | {rd:.3f} | {mb / rd:.0f} | {rss} |", flush=True)


if __name__ == "__main__":
    main()
