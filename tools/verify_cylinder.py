#!/usr/bin/python3
"""verify_cylinder.py -- drag and lift of the DFG benchmark 2D-1 (Re = 20) against N, on the
shipped curved mesh (cases/cylinder/cylinder.msh, 501 triangles) and on the polygon of the
same vertices (the same .geo meshed with -order 1).

Runs `insdg run` on cases/cylinder/cylinder_re20.ini for orders N (default 2..6) to
T = --final-time (default 6: the drag has settled to ~2e-5 by then) at the time steps
--dts (default 0.02 and 0.01), substeps max(2, ceil(N^2 / 3)) (advection CFL); C_D and C_L
are the last row of diagnostics.csv, compared with the reference values of John & Matthies
(2001): C_D = 5.57953523384, C_L = 0.010618948146.
The steady state of the subcycled scheme depends on dt: advecting the steady field along
its characteristics, BDF2 makes an O(dt^2) error (docs/verification.md "Subcycling at large
dt"); with two dts the drag is extrapolated to dt = 0 (Richardson, order 2), and that value
is the one compared across N. The polygon runs use the first dt only (their geometric
error is far above the dt error).
Writes WORKDIR/dfg_cylinder.csv, docs/verification/dfg_cylinder.md and docs/figures/dfg_cylinder.png.

Checks (exit 1 when one fails): every run completes; the extrapolated curved drag error
falls by >= --min-drop (default 2) per order until it is below FLOOR = 1.5e-4 (what the
extrapolation from two dts and the settling at T leave); at the highest N it is below 1e-4; the polygon's drag error at its highest N stays
above 10x that.
"""
import csv
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verify_common as vc

CD_REF, CL_REF = 5.57953523384, 0.010618948146
FLOOR = 1.5e-4   # what the two-dt extrapolation leaves (N = 5 and 6 agree to 1e-5 in C_D)
FIELDS = ["kind", "N", "K", "dt", "substeps", "final_time", "steps", "status", "cd", "cl", "err_cd", "err_cl",
          "wall_seconds", "run", "insdg_built"]
CASE_DIR = os.path.join(vc.ROOT, "cases", "cylinder")


def straight_mesh(args):
    path = os.path.join(args.workdir, "cylinder_straight.msh")
    if not os.path.exists(path):
        os.makedirs(args.workdir, exist_ok=True)
        subprocess.check_call(["gmsh", os.path.join(CASE_DIR, "cylinder.geo"), "-2", "-order", "1", "-format", "msh41",
                               "-o", path], stdout=subprocess.DEVNULL)
    return path


def case_text(mesh, N, dt, T, substeps):
    with open(os.path.join(CASE_DIR, "cylinder_re20.ini")) as f:
        s = f.read()
    s = re.sub(r"(?m)^mesh = .*$", "mesh = %s" % mesh, s)
    s = re.sub(r"(?m)^order = 6$", "order = %d" % N, s)
    s = re.sub(r"(?m)^dt = .*$", "dt = %r" % dt, s)
    s = re.sub(r"(?m)^final_time = .*$", "final_time = %r" % T, s)
    s = re.sub(r"(?m)^substeps = .*$", "substeps = %d" % substeps, s)
    s = re.sub(r"(?m)^interval = .*$", "interval = 0", s)
    return s


def run_one(args, kind, N, dt):
    mesh = os.path.join(CASE_DIR, "cylinder.msh") if kind == "curved" else straight_mesh(args)
    ns = max(2, math.ceil(N * N / 3))
    name = "%s_N%d_dt%s" % (kind, N, ("%g" % dt).replace(".", "p"))
    summ = os.path.join(args.workdir, name, "summary.json")
    if args.reuse and os.path.exists(summ):   # a completed run of an earlier call
        with open(summ) as f:
            s = json.load(f)
        s.update(process_seconds=s.get("wall_seconds", 0.0), insdg_built=vc.built(args.insdg))
        print("  %-28s reused" % name)
    else:
        s = vc.run_insdg(args.insdg, args.workdir, name, case_text(mesh, N, dt, args.final_time, ns))
    cd = cl = ""
    diag = os.path.join(args.workdir, name, "diagnostics.csv")
    if os.path.exists(diag):
        with open(diag, newline="") as f:
            last = list(csv.DictReader(f))[-1]
        cd, cl = float(last["cd_cylinder"]), float(last["cl_cylinder"])
    row = vc.summary_row(s, name, iterations=False)
    return {"kind": kind, "N": N, "K": s.get("K", ""), "dt": dt, "substeps": ns, "final_time": args.final_time,
            "steps": row["steps"], "status": row["status"], "cd": cd, "cl": cl,
            "err_cd": abs(cd / CD_REF - 1) if cd != "" else "", "err_cl": abs(cl / CL_REF - 1) if cl != "" else "",
            "wall_seconds": row["wall_seconds"], "run": name, "insdg_built": row["insdg_built"]}


def extrapolated(rows):
    """per N of the curved runs: {N: (row at the largest dt, row at the smallest dt, C_D at dt -> 0)}"""
    out = {}
    for N in sorted({int(r["N"]) for r in rows if r["kind"] == "curved"}):
        rs = sorted([r for r in rows if r["kind"] == "curved" and int(r["N"]) == N and r["cd"] != ""],
                    key=lambda r: -float(r["dt"]))
        if not rs:
            continue
        a, b = rs[0], rs[-1]
        if len(rs) > 1:
            ratio = (float(a["dt"]) / float(b["dt"])) ** 2
            cd0 = (ratio * float(b["cd"]) - float(a["cd"])) / (ratio - 1)
            cl0 = (ratio * float(b["cl"]) - float(a["cl"])) / (ratio - 1)
        else:
            cd0, cl0 = float(a["cd"]), float(a["cl"])
        out[N] = (a, b, cd0, cl0)
    return out


def analyse(rows, min_drop):
    failures = ["%s N = %s dt = %s: status %s" % (r["kind"], r["N"], r["dt"], r["status"]) for r in rows
                if r["status"] != "completed" or r["cd"] == ""]
    ext = extrapolated(rows)
    st = sorted([r for r in rows if r["kind"] == "straight" and r["status"] == "completed" and r["cd"] != ""],
                key=lambda r: int(r["N"]))
    err = {N: abs(v[2] / CD_REF - 1) for N, v in ext.items()}
    orders = sorted(err)
    for a, b in zip(orders, orders[1:]):
        if err[a] > FLOOR and err[a] / err[b] < min_drop:
            failures.append("curved drag error (dt -> 0) falls only %.2fx from N = %d to %d" % (err[a] / err[b], a, b))
    if orders and err[orders[-1]] > 1e-4:
        failures.append("curved drag error (dt -> 0) %.2e at N = %d" % (err[orders[-1]], orders[-1]))
    if orders and st and float(st[-1]["err_cd"]) < 10 * err[orders[-1]]:
        failures.append("the polygon's drag error %.2e is not 10x the curved one" % float(st[-1]["err_cd"]))
    return ext, err, st, failures


def tables(rows, ext, err, st):
    r0 = rows[0]
    dts = sorted({float(r["dt"]) for r in rows if r["kind"] == "curved"}, reverse=True)
    lines = ["<!-- written by tools/verify_cylinder.py; do not edit -->",
             "DFG 2D-1 (Re = 20) on cases/cylinder/cylinder.msh (K = %s), T = %s; C_D at dt = %s and extrapolated "
             "to dt = 0 (order 2); relative errors against C_D = %.11g, C_L = %.11g. %s"
             % (r0["K"], r0["final_time"], " and ".join("%g" % d for d in dts), CD_REF, CL_REF, vc.built_line(rows)),
             "",
             "| N | substeps | C_D, dt = %g | C_D, dt = %g | C_D, dt -> 0 | error | C_L, dt -> 0 | error | "
             "C_D polygon (dt = %g) | error |" % (dts[0], dts[-1], dts[0]),
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for N, (a, b, cd0, cl0) in sorted(ext.items()):
        s = next((r for r in st if int(r["N"]) == N), None)
        lines.append("| %d | %s | %.6f | %s | %.6f | %.1e | %.6f | %.1e | %s | %s |" % (
            N, a["substeps"], float(a["cd"]), "%.6f" % float(b["cd"]) if b is not a else "", cd0, err[N], cl0,
            abs(cl0 / CL_REF - 1), "%.6f" % float(s["cd"]) if s else "", "%.1e" % float(s["err_cd"]) if s else ""))
    return "\n".join(lines) + "\n"


def plot(ext, err, st, png):
    plt = vc.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.6))
    ns = sorted(ext)
    ax.semilogy(ns, [err[n] for n in ns], "o-", label="C_D, curved, dt -> 0")
    ax.semilogy(ns, [abs(float(ext[n][0]["cd"]) / CD_REF - 1) for n in ns], "o:", alpha=0.6,
                label="C_D, curved, dt = %s" % (ext[ns[0]][0]["dt"] if ns else ""))
    ax.semilogy([int(r["N"]) for r in st], [float(r["err_cd"]) for r in st], "s--", label="C_D, polygon")
    ax.axhline(FLOOR, color="gray", ls="--", lw=1, label="time-error floor")
    vc.save_figure(fig, ax, "N", "relative error of the drag", "DFG 2D-1 (Re = 20), %s triangles"
                   % (ext[ns[0]][0]["K"] if ns else ""), png)


def main():
    ap = vc.common_args(__doc__.split("\n")[0], os.path.join("out", "verify", "cylinder"))
    ap.add_argument("--orders", default="2,3,4,5,6")
    ap.add_argument("--straight-orders", default="2,3,4,5")
    ap.add_argument("--dts", default="0.02,0.01", help="time steps of the curved runs (default %(default)s)")
    ap.add_argument("--final-time", type=float, default=6.0)
    ap.add_argument("--min-drop", type=float, default=2.0)
    ap.add_argument("--reuse", action="store_true", help="take the runs already in WORKDIR instead of running them")
    args = ap.parse_args()
    dts = [float(d) for d in args.dts.split(",")]

    def run_rows():
        rows = [run_one(args, "curved", int(n), dt) for n in args.orders.split(",") for dt in dts]
        return rows + [run_one(args, "straight", int(n), dts[0]) for n in args.straight_orders.split(",") if n]

    def report(rows):
        ext, err, st, failures = analyse(rows, args.min_drop)
        return tables(rows, ext, err, st), failures, lambda png: plot(ext, err, st, png)

    vc.run_study(args, "dfg_cylinder", FIELDS, run_rows, report)

if __name__ == "__main__":
    main()
