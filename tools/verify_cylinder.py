#!/usr/bin/python3
"""verify_cylinder.py -- drag and lift of the DFG benchmark 2D-1 (Re = 20) against N, on the
shipped curved mesh (cases/cylinder/cylinder.msh, 501 triangles) and on the polygon of the
same vertices (the same .geo meshed with -order 1).

Runs `insdg run` on cases/cylinder/cylinder_re20.ini for orders N (default 2..7) to
T = --final-time (default 6: the drag has settled to ~2e-5 by then) with dt = --dt
(default 0.02) and substeps max(2, ceil(N^2 / 3)) (advection CFL); C_D and C_L are the
last row of diagnostics.csv, compared with the reference values of John & Matthies (2001):
C_D = 5.57953523384, C_L = 0.010618948146.
Writes WORKDIR/dfg_cylinder.csv, docs/verification/dfg_cylinder.md and docs/figures/dfg_cylinder.png.

Checks (exit 1 when one fails): every run completes; the curved drag error falls by
>= --min-drop (default 2) per order until it is below 2e-5 (the settling floor at T);
the curved drag error at the highest N is below 1e-4; the polygon's drag error at its
highest N stays above 10x that.
"""
import csv
import math
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verify_common as vc

CD_REF, CL_REF = 5.57953523384, 0.010618948146
FLOOR = 2e-5
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


def run_one(args, kind, N):
    mesh = os.path.join(CASE_DIR, "cylinder.msh") if kind == "curved" else straight_mesh(args)
    ns = max(2, math.ceil(N * N / 3))
    name = "%s_N%d" % (kind, N)
    s = vc.run_insdg(args.insdg, args.workdir, name, case_text(mesh, N, args.dt, args.final_time, ns))
    cd = cl = ""
    diag = os.path.join(args.workdir, name, "diagnostics.csv")
    if os.path.exists(diag):
        with open(diag, newline="") as f:
            last = list(csv.DictReader(f))[-1]
        cd, cl = float(last["cd_cylinder"]), float(last["cl_cylinder"])
    row = vc.summary_row(s, name, iterations=False)
    return {"kind": kind, "N": N, "K": s.get("K", ""), "dt": args.dt, "substeps": ns, "final_time": args.final_time,
            "steps": row["steps"], "status": row["status"], "cd": cd, "cl": cl,
            "err_cd": abs(cd / CD_REF - 1) if cd != "" else "", "err_cl": abs(cl / CL_REF - 1) if cl != "" else "",
            "wall_seconds": row["wall_seconds"], "run": name, "insdg_built": row["insdg_built"]}


def analyse(rows, min_drop):
    failures = ["%s N = %s: status %s" % (r["kind"], r["N"], r["status"]) for r in rows
                if r["status"] != "completed" or r["err_cd"] == ""]
    ok = lambda kind: sorted([r for r in rows if r["kind"] == kind and r["status"] == "completed" and r["err_cd"] != ""],
                             key=lambda r: int(r["N"]))
    cur, st = ok("curved"), ok("straight")
    for a, b in zip(cur, cur[1:]):
        ea, eb = float(a["err_cd"]), float(b["err_cd"])
        if ea > FLOOR and ea / eb < min_drop:
            failures.append("curved drag error falls only %.2fx from N = %s to %s" % (ea / eb, a["N"], b["N"]))
    if cur and float(cur[-1]["err_cd"]) > 1e-4:
        failures.append("curved drag error %.2e at N = %s" % (float(cur[-1]["err_cd"]), cur[-1]["N"]))
    if cur and st and float(st[-1]["err_cd"]) < 10 * float(cur[-1]["err_cd"]):
        failures.append("the polygon's drag error %.2e is not 10x the curved one" % float(st[-1]["err_cd"]))
    return cur, st, failures


def tables(rows, cur, st):
    r0 = rows[0]
    lines = ["<!-- written by tools/verify_cylinder.py; do not edit -->",
             "DFG 2D-1 (Re = 20) on cases/cylinder/cylinder.msh (K = %s), T = %s, dt = %s; relative errors "
             "against C_D = %.11g, C_L = %.11g. %s" % (r0["K"], r0["final_time"], r0["dt"], CD_REF, CL_REF,
                                                        vc.built_line(rows)), "",
             "| N | substeps | C_D curved | error | C_L curved | error | C_D polygon | error | C_L polygon | error |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    byN = {}
    for r in cur + st:
        byN.setdefault(int(r["N"]), {})[r["kind"]] = r
    for N in sorted(byN):
        c, s = byN[N].get("curved"), byN[N].get("straight")
        cell = lambda r, k, f: (f % float(r[k])) if r and r[k] != "" else ""
        lines.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            N, (c or s)["substeps"], cell(c, "cd", "%.6f"), cell(c, "err_cd", "%.1e"), cell(c, "cl", "%.6f"),
            cell(c, "err_cl", "%.1e"), cell(s, "cd", "%.6f"), cell(s, "err_cd", "%.1e"), cell(s, "cl", "%.6f"),
            cell(s, "err_cl", "%.1e")))
    return "\n".join(lines) + "\n"


def plot(cur, st, png):
    plt = vc.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.6))
    for rs, lab, m in ((cur, "curved", "o"), (st, "polygon", "s")):
        ax.semilogy([int(r["N"]) for r in rs], [float(r["err_cd"]) for r in rs], m + "-", label="C_D, " + lab)
        ax.semilogy([int(r["N"]) for r in rs], [float(r["err_cl"]) for r in rs], m + ":", alpha=0.6, label="C_L, " + lab)
    ax.axhline(FLOOR, color="gray", ls="--", lw=1, label="settling at T")
    vc.save_figure(fig, ax, "N", "relative error", "DFG 2D-1 (Re = 20), %s triangles" % (cur[0]["K"] if cur else ""),
                   png)


def main():
    ap = vc.common_args(__doc__.split("\n")[0], os.path.join("out", "verify", "cylinder"))
    ap.add_argument("--orders", default="2,3,4,5,6,7")
    ap.add_argument("--straight-orders", default="2,3,4,5")
    ap.add_argument("--dt", type=float, default=0.02)
    ap.add_argument("--final-time", type=float, default=6.0)
    ap.add_argument("--min-drop", type=float, default=2.0)
    args = ap.parse_args()
    csv_path, md_path, png_path = vc.out_paths(args, "dfg_cylinder")
    t0 = time.time()
    if args.plot_only:
        rows = vc.read_csv(args.plot_only)
    else:
        rows = [run_one(args, "curved", int(n)) for n in args.orders.split(",")]
        rows += [run_one(args, "straight", int(n)) for n in args.straight_orders.split(",") if n]
        vc.write_csv(csv_path, rows, FIELDS)
    cur, st, failures = analyse(rows, args.min_drop)
    text = tables(rows, cur, st)
    vc.write_text(md_path, text)
    vc.embed(args, "dfg_cylinder", text)
    if png_path:
        plot(cur, st, png_path)
    if not args.plot_only:
        print("wall time %.0f s" % (time.time() - t0))
    vc.finish(failures, args.keep_going)


if __name__ == "__main__":
    main()
