#!/usr/bin/env python3
"""Strouhal number, mean drag and rms lift of the square-cylinder run, and the vorticity
plot of paper fig. VortexShedding2D, from the output directory of `insdg run
cases/square_cylinder/square_cylinder.ini`.

usage: cylinder_analysis.py DIR [--from T0] [--to T1] [--field FILE] [--boundary cylinder]
                            [--U 1] [--D 1] [--markdown OUT.md] [--plot-prefix PREFIX]
                            [--check]

Reads DIR/diagnostics.csv (time and the force on the boundary, per step) with the csv
module. The coefficients are C_D = 2 F_x / (U^2 D), C_L = 2 F_y / (U^2 D) (density 1).
Over the window [T0, T1] (default: the last half of the run):
  - the shedding frequency f from the upward zero crossings of C_L - mean(C_L) (after
    averaging consecutive steps, which removes the step-to-step oscillation the pressure
    force shows; with hysteresis at 30% of the amplitude; linear interpolation between
    samples; f = (crossings - 1) / (last - first crossing)), and St = f D / U;
  - mean C_D, rms C_L = sqrt(mean(C_L^2)) (time-weighted, trapezoidal), and the C_D and
    C_L amplitudes.
Prints a markdown table beside published values (paper §4.2: St = 0.145; Sohankar et al. 1998: St = 0.146,
C_D = 1.48) and
writes it to --markdown. Plots (--plot-prefix): C_D and C_L against t, and the vorticity
of the field file (default: the last fields_*.nc in DIR) with the paper's contour levels
(-1 to 1 by 0.05), near the cylinder. --check: exit status 1 unless St is within 2% of
0.145 (the acceptance criterion).
"""
import argparse
import csv
import glob
import math
import os
import sys

PUBLISHED = [
    ("Karakus et al. (paper §4.2)", 0.145, None, None),
    ("Sohankar et al. 1998", 0.146, 1.48, None),
]


def read_forces(path, boundary, U, D):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    try:
        it, ix, iy = head.index("time"), head.index("fx_" + boundary), head.index("fy_" + boundary)
    except ValueError:
        sys.exit(f"cylinder_analysis: {path}: no columns fx_{boundary}, fy_{boundary} (is it a force boundary?)")
    t, cd, cl = [], [], []
    for r in rows[1:]:
        t.append(float(r[it]))
        cd.append(2 * float(r[ix]) / (U * U * D))
        cl.append(2 * float(r[iy]) / (U * U * D))
    return t, cd, cl


def window(t, *series, t0, t1):
    idx = [i for i, x in enumerate(t) if t0 <= x <= t1]
    return [t[i] for i in idx], *[[s[i] for i in idx] for s in series]


def trapezoid_mean(t, y):
    area = sum(0.5 * (y[i] + y[i + 1]) * (t[i + 1] - t[i]) for i in range(len(t) - 1))
    return area / (t[-1] - t[0])


def pair_average(t, y):
    """means of consecutive samples: removes a step-to-step (period 2 dt) oscillation"""
    return [0.5 * (t[i] + t[i + 1]) for i in range(len(t) - 1)], [0.5 * (y[i] + y[i + 1]) for i in range(len(y) - 1)]


def upward_crossings(t, y):
    """zero crossings upwards, with hysteresis: one per excursion from below -a to above
    +a, a = 0.3 max|y|, so that noise near zero does not count twice"""
    a = 0.3 * max(abs(v) for v in y)
    out, armed, last = [], False, None
    for i in range(len(t) - 1):
        if y[i] < -a:
            armed = True
        if y[i] < 0 <= y[i + 1]:
            last = t[i] + (t[i + 1] - t[i]) * (-y[i]) / (y[i + 1] - y[i])
        if armed and y[i + 1] > a and last is not None:
            out.append(last)
            armed = False
    return out


def analyse(t, cd, cl, U, D):
    mean_cl = trapezoid_mean(t, cl)
    ts, cls = pair_average(t, [c - mean_cl for c in cl])
    ups = upward_crossings(ts, cls)
    res = {"t0": t[0], "t1": t[-1], "crossings": len(ups)}
    if len(ups) >= 2:
        f = (len(ups) - 1) / (ups[-1] - ups[0])
        res["St"] = f * D / U
        res["periods"] = len(ups) - 1
    res["cd_mean"] = trapezoid_mean(t, cd)
    res["cl_mean"] = mean_cl
    res["cl_rms"] = math.sqrt(trapezoid_mean(t, [c * c for c in cl]))
    res["cd_amp"] = 0.5 * (max(cd) - min(cd))
    res["cl_amp"] = 0.5 * (max(cl) - min(cl))
    return res


def markdown(res, case_dir):
    st = f"{res['St']:.4f}" if "St" in res else "n/a (fewer than 2 lift cycles)"
    lines = [
        f"Window t = {res['t0']:.2f} .. {res['t1']:.2f} ({res.get('periods', 0)} shedding periods), "
        f"from `{case_dir}/diagnostics.csv`:",
        "",
        "| | St | mean C_D | rms C_L | C_L amplitude |",
        "|---|---|---|---|---|",
        f"| insdg | {st} | {res['cd_mean']:.4f} | {res['cl_rms']:.4f} | {res['cl_amp']:.4f} |",
    ]
    for name, st_p, cd_p, clrms_p in PUBLISHED:
        f = lambda v: "" if v is None else f"{v}"
        lines.append(f"| {name} | {f(st_p)} | {f(cd_p)} | {f(clrms_p)} | |")
    if "St" in res:
        lines += ["", f"St differs from the paper's 0.145 by {100 * (res['St'] / 0.145 - 1):+.2f}%."]
    return "\n".join(lines) + "\n"


def plot_forces(t, cd, cl, res, prefix):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    ax[0].plot(t, cd, lw=0.8)
    ax[0].set_ylabel("C_D")
    ax[1].plot(t, cl, lw=0.8)
    ax[1].set_ylabel("C_L")
    ax[1].set_xlabel("t")
    for a in ax:
        a.axvspan(res["t0"], res["t1"], color="0.9", zorder=0)
        a.grid(True, lw=0.3)
    fig.suptitle("Square cylinder, Re = 100: force coefficients (shaded: analysis window)")
    fig.tight_layout()
    fig.savefig(prefix + "forces.png", dpi=120)
    print(f"wrote {prefix}forces.png")


def plot_vorticity(path, prefix):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.tri as mtri
    import netCDF4
    import numpy as np
    with netCDF4.Dataset(path) as d:
        x = np.asarray(d["mesh2d_node_x"][:])
        y = np.asarray(d["mesh2d_node_y"][:])
        tri = np.asarray(d["mesh2d_face_nodes"][:])
        w = np.asarray(d["vorticity"][0])
        time = float(d["time"][0])
    # the paper's levels: -1 to 1 by 0.05 (values outside are drawn at the ends)
    levels = np.linspace(-1.0, 1.0, 41)
    fig, ax = plt.subplots(figsize=(10, 3.6))
    tr = mtri.Triangulation(x, y, tri)
    cs = ax.tricontourf(tr, np.clip(w, -1, 1), levels=levels, cmap="RdBu_r", extend="both")
    ax.fill([-0.5, 0.5, 0.5, -0.5], [-0.5, -0.5, 0.5, 0.5], color="k")
    ax.set_xlim(-4, 20)
    ax.set_ylim(-4, 4)
    ax.set_aspect("equal")
    ax.set_title(f"vorticity at t = {time:g} (contours -1 .. 1 by 0.05)")
    fig.colorbar(cs, ax=ax, shrink=0.8, ticks=[-1, -0.5, 0, 0.5, 1])
    fig.tight_layout()
    fig.savefig(prefix + "vorticity.png", dpi=120)
    print(f"wrote {prefix}vorticity.png (from {path})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir")
    p.add_argument("--from", dest="t0", type=float)
    p.add_argument("--to", dest="t1", type=float)
    p.add_argument("--field")
    p.add_argument("--boundary", default="cylinder")
    p.add_argument("--U", type=float, default=1.0)
    p.add_argument("--D", type=float, default=1.0)
    p.add_argument("--markdown")
    p.add_argument("--plot-prefix")
    p.add_argument("--check", action="store_true")
    a = p.parse_args()
    t, cd, cl = read_forces(os.path.join(a.dir, "diagnostics.csv"), a.boundary, a.U, a.D)
    if len(t) < 3:
        sys.exit("cylinder_analysis: fewer than 3 steps in diagnostics.csv")
    t0 = a.t0 if a.t0 is not None else 0.5 * t[-1]
    t1 = a.t1 if a.t1 is not None else t[-1]
    tw, cdw, clw = window(t, cd, cl, t0=t0, t1=t1)
    if len(tw) < 3:
        sys.exit(f"cylinder_analysis: fewer than 3 steps in the window [{t0}, {t1}]")
    res = analyse(tw, cdw, clw, a.U, a.D)
    text = markdown(res, a.dir)
    print(text, end="")
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    if a.plot_prefix:
        plot_forces(t, cd, cl, res, a.plot_prefix)
        field = a.field or (sorted(glob.glob(os.path.join(a.dir, "fields_*.nc"))) or [None])[-1]
        if field:
            plot_vorticity(field, a.plot_prefix)
    if a.check:
        ok = "St" in res and abs(res["St"] / 0.145 - 1) <= 0.02
        print(f"cylinder_analysis: {'ok' if ok else 'FAIL'}: St within 2% of 0.145")
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
