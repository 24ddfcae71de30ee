#!/usr/bin/env python3
"""Subcycling speed-up on the square cylinder (paper §4.2, figs. SquareCylinder2DSubcycle
and SquareCyclinder2DTimings): wall time per unit of simulated time for Ns = 4, 8, 16
LSERK4 substeps per step against no subcycling, each at its largest stable dt, for
N = 1..6, with the time split by stage (advection, velocity, pressure, update) and the
mean iterations of the solves.

usage: bench_subcycle.py [--insdg build/insdg] [--case cases/square_cylinder/square_cylinder.ini]
                         [--orders 1 2 3 4 5 6] [--substeps 0 4 8 16] [--final-time 3] [--min-steps 40]
                         [--workdir out/bench_subcycle] [--csv docs/bench_subcycle.csv]
                         [--markdown docs/bench_subcycle.md] [--plot docs/figures/subcycle.png]
                         [--plot-only CSV] [--resume] [--previous CSV]

Each run is `insdg run` of the case with [case] order = N, [time] substeps = Ns, dt and
final_time set, and no field output, from rest (the case's inflow ramp) to --final-time:
the flow past the cylinder is fully developed near the body once the ramp is over, which
is where the step is most restricted; a run takes at least --min-steps steps (default 40,
so that a slowly growing instability shows at large dt). Stable: the run completes (all solves converge,
the solution stays finite) and max |div u| at the end is below 100 (it is O(1)-O(10) near the
cylinder's corners in a healthy run and grows without bound in an unstable one).

Largest stable dt: dt_k = dt_0 2^(k/2), moving k up from a stable dt_0 until a run is
unstable, or down from an unstable one until a run is stable, so that the result is a
stable dt whose next step up, x sqrt(2), is not. Where the search starts only decides how
many runs it takes: when the same Ns at order N - 1 has a result (from this invocation or
from --previous), the search starts from it (times ((N-1)/N)^2 for Ns = 0, whose stable dt
falls like 1/N^2; unchanged for Ns > 0, whose stable dt barely depends on N); otherwise
at dt_0 = 0.2 h_min / (N^2 U) (h_min = 0.145, U = 1.5, the peak speed) for Ns = 0 and at
Ns times the Ns = 0 result for Ns > 0 (the substep at the stable explicit step).
(Up to commit 0ad6c53 every search started at the latter; the N = 1..4 rows of
docs/bench_subcycle.csv were measured so.) Cost: the step stage's wall time (summary.json stage_seconds.step) divided by
the simulated time; speed-up = cost(Ns = 0) / cost(Ns).

Everything is measured on the machine it runs on with the insdg binary given; it prints
the table and writes the CSV (one row per (N, Ns) run at its largest stable dt, plus one
row per rejected dt of the search), the markdown table and the plot.
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys

STAGES = ["advection", "velocity", "pressure", "update"]
H_MIN, U_PEAK, DIV_LIMIT = 0.145, 1.5, 100.0


def case_text(base, N, Ns, dt, T):
    s = base
    s = re.sub(r"(?m)^order = \d+.*$", f"order = {N}", s, count=1)          # [case] order (first)
    s = re.sub(r"(?m)^dt = .*$", f"dt = {dt!r}", s)
    s = re.sub(r"(?m)^final_time = .*$", f"final_time = {T!r}", s)
    s = re.sub(r"(?m)^substeps = .*$", f"substeps = {Ns}", s)
    s = re.sub(r"(?m)^interval = .*$", "interval = 0", s)
    s = re.sub(r"(?m)^checkpoint_interval_seconds = .*$", "checkpoint_interval_seconds = 0", s)
    return s


def run_one(a, base, case_dir, N, Ns, dt):
    tag = f"N{N}_Ns{Ns}_dt{dt:.6g}"
    d = os.path.join(a.workdir, tag)
    os.makedirs(d, exist_ok=True)
    ini = os.path.join(d, "case.ini")
    T = max(a.final_time, a.min_steps * dt)   # enough steps for a slow instability to show
    text = case_text(base, N, Ns, dt, T)
    text = re.sub(r"(?m)^mesh = (\S+)", lambda m: "mesh = " + os.path.join(case_dir, m.group(1)), text)
    with open(ini, "w") as f:
        f.write(text)
    env = dict(os.environ, STARPU_SILENT="1", STARPU_WORKERS_NOBIND="1")
    returncode = "reused"
    if not (a.resume and os.path.exists(os.path.join(d, "out", "summary.json"))):
        p = subprocess.run([a.insdg, "run", ini, "--output", os.path.join(d, "out"), "--progress", "log"],
                           capture_output=True, text=True, env=env)
        returncode = p.returncode
    try:
        with open(os.path.join(d, "out", "summary.json")) as f:
            s = json.load(f)
        with open(os.path.join(d, "out", "diagnostics.csv"), newline="") as f:
            last = list(csv.DictReader(f))[-1]
    except (OSError, ValueError, IndexError):
        return {"N": N, "Ns": Ns, "dt": dt, "stable": False, "status": f"no output (exit {returncode})"}
    div = float(last["max_div_u"])
    stable = s["status"] == "completed" and math.isfinite(div) and div < DIV_LIMIT
    row = {"N": N, "Ns": Ns, "dt": dt, "stable": stable, "status": s["status"], "max_div_u": div,
           "steps": s["steps"], "time": s["time"],
           "seconds_per_unit_time": s["stage_seconds"]["step"] / max(s["time"], 1e-300),
           "it_u": s["mean_iterations"]["u"], "it_v": s["mean_iterations"]["v"], "it_p": s["mean_iterations"]["p"]}
    for k in STAGES:
        row["share_" + k] = s["step_seconds"][k] / max(s["stage_seconds"]["step"], 1e-300)
    return row


def read_rows(path):
    """the rows of a CSV this bench wrote, numbers converted"""
    with open(path, newline="") as f:
        return [{k: (v if k in ("status", "stable", "best") or v == "" else int(v) if k in ("N", "Ns", "steps")
                     else float(v)) for k, v in r.items()} for r in csv.DictReader(f)]


def largest_stable(a, base, case_dir, N, Ns, dt0, log):
    """geometric search dt0 * 2^(k/2): returns (best row or None, all rows)"""
    rows = []
    def probe(k):
        r = run_one(a, base, case_dir, N, Ns, dt0 * 2 ** (k / 2))
        rows.append(r)
        log(f"  N={N} Ns={Ns:2d} dt={r['dt']:.5g}: {'stable' if r['stable'] else 'unstable'} ({r['status']})")
        return r
    k, r = 0, probe(0)
    if r["stable"]:
        best = r
        while k < 12:
            k += 1
            r = probe(k)
            if not r["stable"]:
                break
            best = r
    else:
        best = None
        while k > -12:
            k -= 1
            r = probe(k)
            if r["stable"]:
                best = r
                break
    return best, rows


def table(best):
    out = ["| N | Ns | largest stable dt | s per unit time | speed-up | advection | velocity | pressure | it u/v/p |",
           "|---|---|---|---|---|---|---|---|---|"]
    base = {r["N"]: r for r in best if r["Ns"] == 0}
    for r in best:
        b = base.get(r["N"])
        sp = b["seconds_per_unit_time"] / r["seconds_per_unit_time"] if b else float("nan")
        out.append(f"| {r['N']} | {r['Ns']} | {r['dt']:.4g} | {r['seconds_per_unit_time']:.3g} | {sp:.2f} | "
                   f"{100 * r['share_advection']:.0f}% | {100 * r['share_velocity']:.0f}% | "
                   f"{100 * r['share_pressure']:.0f}% | {r['it_u']:.0f}/{r['it_v']:.0f}/{r['it_p']:.0f} |")
    return "\n".join(out) + "\n"


def plot(best, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    Ns_list = sorted({r["Ns"] for r in best if r["Ns"] > 0})
    orders = sorted({r["N"] for r in best})
    base = {r["N"]: r for r in best if r["Ns"] == 0}
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for Ns in Ns_list:
        xs = [r["N"] for r in best if r["Ns"] == Ns and r["N"] in base]
        ys = [base[r["N"]]["seconds_per_unit_time"] / r["seconds_per_unit_time"] for r in best
              if r["Ns"] == Ns and r["N"] in base]
        ax[0].plot(xs, ys, "o-", label=f"Ns = {Ns}")
    ax[0].set_xlabel("N")
    ax[0].set_ylabel("speed-up over no subcycling")
    ax[0].legend()
    ax[0].grid(True, lw=0.3)
    # stacked stage shares, one bar per (N, Ns)
    labels, bottoms = [], None
    bars = [r for N in orders for r in best if r["N"] == N]
    x = range(len(bars))
    bottom = [0.0] * len(bars)
    for k in STAGES:
        h = [100 * r["share_" + k] for r in bars]
        ax[1].bar(x, h, bottom=bottom, label=k)
        bottom = [b + v for b, v in zip(bottom, h)]
    ax[1].set_xticks(list(x), [f"{r['N']}/{r['Ns']}" for r in bars], rotation=90, fontsize=7)
    ax[1].set_xlabel("N / Ns")
    ax[1].set_ylabel("% of the step time")
    ax[1].legend(fontsize=7)
    fig.suptitle("Square cylinder: subcycling speed-up and time split by stage")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--insdg", default="build/insdg")
    p.add_argument("--case", default="cases/square_cylinder/square_cylinder.ini")
    p.add_argument("--orders", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    p.add_argument("--substeps", type=int, nargs="+", default=[0, 4, 8, 16])
    p.add_argument("--final-time", type=float, default=3.0)
    p.add_argument("--min-steps", type=int, default=40)
    p.add_argument("--workdir", default="out/bench_subcycle")
    p.add_argument("--csv", default="out/bench_subcycle/bench_subcycle.csv")
    p.add_argument("--markdown")
    p.add_argument("--plot")
    p.add_argument("--plot-only")
    p.add_argument("--resume", action="store_true",
                   help="reuse the runs of the work directory that have a summary.json (same dt, N, Ns) "
                        "instead of running them again: an interrupted bench continues where it stopped")
    p.add_argument("--previous", metavar="CSV",
                   help="a CSV of an earlier run of this bench: its rows for the (N, Ns) not run now are kept "
                        "in the output (table, plot, CSV), and their results seed the searches (the next "
                        "order's, and Ns > 0 from the same order's Ns = 0)")
    a = p.parse_args()
    fields = ["N", "Ns", "dt", "stable", "status", "max_div_u", "steps", "time", "seconds_per_unit_time",
              "it_u", "it_v", "it_p"] + ["share_" + k for k in STAGES] + ["best"]
    if a.plot_only:
        best = [r for r in read_rows(a.plot_only) if r["best"] == "1"]
    else:
        with open(a.case) as f:
            base = f.read()
        case_dir = os.path.dirname(os.path.abspath(a.case))
        os.makedirs(a.workdir, exist_ok=True)
        all_rows, best = [], []
        now = {(N, Ns) for N in a.orders for Ns in a.substeps}
        if a.previous:      # keep the rows of the (N, Ns) not run now; their results seed the searches
            for r in read_rows(a.previous):
                if (r["N"], r["Ns"]) not in now:
                    all_rows.append(r)
                    if r["best"] == "1":
                        best.append(r)
        for N in a.orders:
            dt_ext = next((r["dt"] for r in best if r["N"] == N and r["Ns"] == 0), None)
            for Ns in sorted(a.substeps):
                prev = next((r["dt"] for r in best if r["N"] == N - 1 and r["Ns"] == Ns), None)
                if prev is not None:
                    dt0 = prev * ((N - 1) / N) ** 2 if Ns == 0 else prev
                elif Ns == 0 or dt_ext is None:
                    dt0 = 0.2 * H_MIN / (N * N * U_PEAK)
                else:
                    dt0 = Ns * dt_ext
                b, rows = largest_stable(a, base, case_dir, N, Ns, dt0, lambda s: print(s, flush=True))
                all_rows += rows
                if b:
                    b["best"] = "1"
                    best.append(b)
                    if Ns == 0:
                        dt_ext = b["dt"]
        all_rows.sort(key=lambda r: (r["N"], r["Ns"], r["dt"]))
        best.sort(key=lambda r: (r["N"], r["Ns"]))
        os.makedirs(os.path.dirname(os.path.abspath(a.csv)), exist_ok=True)
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            for r in all_rows:
                w.writerow(dict(r, best=r.get("best", "0")))
        print(f"wrote {a.csv}")
    text = table(best)
    print(text, end="")
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    if a.plot:
        plot(best, a.plot)


if __name__ == "__main__":
    sys.exit(main())
