#!/usr/bin/python3
"""verify_kovasznay.py -- p-convergence of insdg on the Kovasznay flow (Re = 40).

Runs `insdg run` for orders N (default 1..10) on cases/kovasznay/kovasznay.msh
(52 triangles), BDF2/EXT2, from the exact solution to T (default 1) with dt (default
0.005; cases/kovasznay/README.md: 0.01 is unstable at N = 6); the relative L2 errors of
u, v and p at T measure the spatial error of the steady state (plus the splitting error,
which the extra run at N = --floor-order with dt/2 bounds: the floor). Writes
WORKDIR/kovasznay.csv, docs/verification/kovasznay.md and docs/figures/kovasznay.png
(error vs N, semilog); `--plot-only CSV` redraws the table and the plot only.

Checks (exit status 1 when one fails, unless --keep-going): every run completes with a
finite relative u error below 1; the u error falls geometrically in N: from each N to
N + 1 it falls by at least the factor --min-drop (default 2) as long as the error at N + 1
is above FLOOR_FACTOR times the floor, and the mean decay rate over that range
(fitted slope of ln e against N) is at least ln(--min-drop).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verify_common as vc

FLOOR_FACTOR = 3.0
FIELDS = ["kind", "N", "K", "dofs", "dt", "final_time", "steps", "status", "err_u", "err_v", "err_p",
          "mean_it_u", "mean_it_p", "wall_seconds", "run", "insdg_built"]


def parse_list(s):
    out = []
    for part in s.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += list(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def run_one(args, kind, N, dt):
    name = "%s_N%d_dt%s" % (kind, N, ("%g" % dt).replace(".", "p"))
    s = vc.run_insdg(args.insdg, args.workdir, name,
                     vc.kovasznay_case(name, os.path.abspath(args.mesh), N, 0, dt, args.final_time))
    return {"kind": kind, "N": N, "K": s.get("K", ""), "dofs": (s["dofs"] // 3) if "dofs" in s else "",
            "dt": dt, "final_time": args.final_time, **vc.summary_row(s, name)}


bad = vc.failed


def run_all(args):
    orders = parse_list(args.orders)
    print("Kovasznay, p-convergence: mesh %s, N %s, dt = %g, T = %g" % (
        os.path.relpath(os.path.abspath(args.mesh), vc.ROOT), orders, args.dt, args.final_time), flush=True)
    rows = [run_one(args, "sweep", N, args.dt) for N in orders]
    if args.floor_order:
        rows.append(run_one(args, "floor", args.floor_order, args.dt / 2))
    return rows


def analyse(rows):
    sweep = sorted([r for r in rows if r["kind"] == "sweep"], key=lambda r: int(r["N"]))
    floor_rows = [r for r in rows if r["kind"] == "floor"]
    failures = []
    floor = None
    if floor_rows:
        # the floor: how much the error of the highest order moves when dt is halved
        fr = floor_rows[0]
        same = next((r for r in sweep if r["N"] == fr["N"]), None)
        if same and not bad(same) and not bad(fr):
            floor = abs(float(same["err_u"]) - float(fr["err_u"]))
    for r in sweep:
        if bad(r):
            failures.append("N = %s: status %s, u error %s" % (r["N"], r["status"], r["err_u"]))
    ok = [r for r in sweep if not bad(r)]
    drops = {}
    above = []
    for a, b in zip(ok, ok[1:]):
        ea, eb = float(a["err_u"]), float(b["err_u"])
        drops[int(b["N"])] = ea / eb
        if floor is None or eb > FLOOR_FACTOR * floor:
            if not above:
                above.append(a)
            above.append(b)
    slope = None
    if len(above) >= 2:
        xs = [int(r["N"]) for r in above]
        ys = [math.log(float(r["err_u"])) for r in above]
        xm, ym = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = -sum((x - xm) * (y - ym) for x, y in zip(xs, ys)) / sum((x - xm) ** 2 for x in xs)
    return sweep, floor_rows, floor, drops, above, slope, failures


def check(min_drop, drops, above, slope, failures):
    for a, b in zip(above, above[1:]):
        d = drops.get(int(b["N"]))
        if d is not None and d < min_drop:
            failures.append("u error falls only by %.2f from N = %s to N = %s (< %g)" % (d, a["N"], b["N"], min_drop))
    if slope is None:
        failures.append("fewer than two runs above the floor: no decay rate")
    elif slope < math.log(min_drop):
        failures.append("mean decay rate %.2f per N < ln %g" % (slope, min_drop))


def tables(sweep, floor_rows, floor, drops, above, slope):
    T = sweep[0]["final_time"] if sweep else ""
    dt = sweep[0]["dt"] if sweep else ""
    lines = ["<!-- written by tools/verify_kovasznay.py; do not edit -->",
             "Relative L2 errors at T = %s (dt = %s, BDF2/EXT2, from the exact solution), K = %s "
             "triangles; drop: e_u(N-1)/e_u(N). %s" % (T, dt, sweep[0]["K"] if sweep else "",
                                                       vc.built_line(sweep + floor_rows)), "",
             "| N | dofs per field | u | v | p | drop (u) | wall [s] |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sweep:
        d = drops.get(int(r["N"]))
        lines.append("| %s | %s | %s | %s | %s | %s | %.1f |" % (
            r["N"], r["dofs"], vc.fmt(vc.fnum(r["err_u"])), vc.fmt(vc.fnum(r["err_v"])),
            vc.fmt(vc.fnum(r["err_p"])), "%.1f" % d if d else "", float(r["wall_seconds"])))
    lines.append("")
    if floor_rows:
        fr = floor_rows[0]
        lines.append("Floor: N = %s with dt = %s gives u error %s; the change from dt = %s, %s, is the "
                     "splitting error at this dt (errors below %g x this are not used for the rate)."
                     % (fr["N"], fr["dt"], vc.fmt(vc.fnum(fr["err_u"])), dt, vc.fmt(floor), FLOOR_FACTOR))
    if slope is not None:
        lines.append("Fitted decay over N = %s..%s: e_u ~ exp(-%.2f N), a factor %.1f per order."
                     % (above[0]["N"], above[-1]["N"], slope, math.exp(slope)))
    return "\n".join(lines) + "\n"


def plot(sweep, floor, above, slope, png):
    plt = vc.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.6))
    ok = [r for r in sweep if not bad(r)]
    for key, lab, m in (("err_u", "u", "o"), ("err_v", "v", "s"), ("err_p", "p", "^")):
        ax.semilogy([int(r["N"]) for r in ok], [float(r[key]) for r in ok], m + "-", label=lab)
    if slope is not None:
        n0 = int(above[0]["N"])
        n = [int(r["N"]) for r in above]
        ax.semilogy(n, [float(above[0]["err_u"]) * math.exp(-slope * (x - n0)) for x in n], "k:",
                    lw=1, label="exp(-%.2f N)" % slope)
    if floor:
        ax.axhline(floor, color="gray", ls="--", lw=1, label="floor (dt)")
    vc.save_figure(fig, ax, "N", "relative L2 error at T = %s" % (sweep[0]["final_time"] if sweep else ""),
                   "Kovasznay, Re = 40, K = %s" % (sweep[0]["K"] if sweep else ""), png)


def main():
    ap = vc.common_args(__doc__.split("\n")[0], os.path.join("out", "verify", "kovasznay"))
    ap.add_argument("--orders", default="1-10", help="orders N (default %(default)s)")
    ap.add_argument("--dt", type=float, default=0.005, help="dt (default %(default)s)")
    ap.add_argument("--final-time", type=float, default=1.0, help="T (default %(default)s)")
    ap.add_argument("--floor-order", type=int, default=None,
                    help="N of the dt/2 floor run (default: the highest order; 0: none)")
    ap.add_argument("--min-drop", type=float, default=2.0, help="least error drop per order (default %(default)s)")
    ap.add_argument("--mesh", default=os.path.join(vc.ROOT, "cases", "kovasznay", "kovasznay.msh"))
    args = ap.parse_args()
    if args.quick and not args.plot_only:
        args.orders, args.final_time = "2-5", 0.1
        if args.floor_order is None:
            args.floor_order = 0
    if args.floor_order is None:
        args.floor_order = max(parse_list(args.orders))

    def report(rows):
        sweep, floor_rows, floor, drops, above, slope, failures = analyse(rows)
        check(args.min_drop, drops, above, slope, failures)
        return (tables(sweep, floor_rows, floor, drops, above, slope), failures,
                lambda png: plot(sweep, floor, above, slope, png))

    vc.run_study(args, "kovasznay", FIELDS, lambda: run_all(args), report)

if __name__ == "__main__":
    main()
