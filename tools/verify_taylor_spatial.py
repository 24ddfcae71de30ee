#!/usr/bin/python3
"""verify_taylor_spatial.py -- spatial convergence of insdg on the Taylor vortex.

Runs `insdg run` for orders N (default 1..8) on the mesh cases/taylor_vortex/square35.msh
(36 triangles) and its uniform refinements R = 0..3 ([case] refine), BDF2/EXT2 without
subcycling, to the final time T; reads the relative L2 errors of u and p from each run's
summary.json and prints / writes:
  WORKDIR/taylor_spatial.csv            one row per run (and per skipped run)
  docs/verification/taylor_spatial.md   the tables (markdown)
  docs/figures/taylor_spatial.png       error vs h per N, log-log, u and p
`--plot-only CSV` redraws the tables and the plot from a CSV without running anything.

Time step. The splitting error of the time stepping is mostly a start-up error of about
2.8 dt^2 (relative, in u; 11 dt^2 in p) that grows only slowly with T
(docs/verification.md), so the final time does not lower it, only dt does, and each
error to be measured needs a dt whose floor is well below it. Each N has its own
schedule dt_{N,R} = dt0_N / q_N^R (--schedule), chosen so that the errors stay about
10 times above the floor where the cost allows: N = 1, 2: dt0 = 0.01, q = 2 (constant
CFL number); N = 3: 0.01, q = 4; N = 4: 0.0025, q = 4; N = 5: 0.00125, q = 4;
N >= 6: 0.0025, q = 4 (at the floor on the coarsest mesh anyway).

Temporal floor. The floor of a dt is the error of a run at order --floor-order (default
8) on the coarsest mesh with that dt, whose spatial error (about 3e-9) is far below it;
it is run for each dt >= --floor-dt-min (default 0.00125) in use, and below that it is
C dt^2 with C from the smallest run one (the measured floors follow C dt^2 to 1%). A run
is "at the floor" when its error is below FLOOR_FACTOR times the floor of its dt. The
finer meshes of an N are not run when the coarser one is at the floor, when the error
expected there (the coarser one's divided by 2^(N+1)) would be at the floor, or when
the run would take more than --max-steps steps. Rates log2(e_R / e_{R+1}) are computed
only for pairs with both errors above the floor.

Checks (exit status 1 when one fails, unless --keep-going): every run completes with a
finite relative u error below 1; for each N with a pair above the floor the u rate of
its last such pair is >= N + 1 - 0.5 and the p rate >= N - 0.5 (the pressure converges
one order lower). An N without such a pair has no rate (the tables say why).
"""
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verify_common as vc

FLOOR_FACTOR = 3.0
U_TOL = 0.5
P_TOL = 0.5
FIELDS = ["N", "refine", "K", "h", "dt", "final_time", "start", "tolerance", "steps", "status", "kind",
          "err_u", "err_v", "err_p", "floor_u", "floor_p", "at_floor_u", "at_floor_p",
          "floor_model", "mean_it_u", "mean_it_p", "wall_seconds", "run", "insdg_built"]


def parse_list(s):
    out = []
    for part in s.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += list(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def row_from_summary(s, N, r, dt, T, kind, name):
    K = s.get("K")
    return {"N": N, "refine": r, "K": K, "h": (1.0 / math.sqrt(K)) if K else "", "dt": dt,
            "final_time": T, "kind": kind, **vc.summary_row(s, name)}


bad = vc.failed


def parse_schedule(text):
    """'1-2:0.01:2,3:0.01:4,...' -> {N: (dt0, q)}"""
    sched = {}
    for item in text.split(","):
        ns, dt0, q = item.split(":")
        for N in parse_list(ns):
            sched[N] = (float(dt0), float(q))
    return sched


def run_all(args):
    orders = parse_list(args.orders)
    refs = parse_list(args.refinements)
    sched = parse_schedule(args.schedule)
    T = args.final_time
    mesh = os.path.abspath(args.mesh)
    rows = []
    print("Taylor vortex, spatial convergence: mesh %s, N %s, refinements %s, T = %g, dt_{N,R} = dt0_N / q_N^R (%s)"
          % (os.path.relpath(mesh, vc.ROOT), orders, refs, T, args.schedule), flush=True)
    dts = {}
    for N in orders:
        dt0, q = sched[N]
        for i, r in enumerate(refs):
            dts[(N, r)] = dt0 / q ** i
    floors = {}
    # the temporal floor of each dt in use: order --floor-order on the coarsest mesh
    for dt in sorted(set(dts.values()), reverse=True):
        if dt < args.floor_dt_min * (1 - 1e-9):
            continue
        name = "floor_N%d_dt%s" % (args.floor_order, ("%g" % dt).replace(".", "p"))
        s = vc.run_insdg(args.insdg, args.workdir, name,
                         vc.taylor_case(name, mesh, args.floor_order, refs[0], dt, T, start=args.start,
                                         tol_u=args.tolerance, tol_p=args.tolerance))
        row = row_from_summary(s, args.floor_order, refs[0], dt, T, "floor", name)
        floors[dt] = (vc.fnum(row["err_u"]), vc.fnum(row["err_p"]))
        rows.append(row)
    if not floors:
        sys.exit("no floor run: --floor-dt-min is below every dt")
    dmin = min(floors)

    def floor_of(dt):
        if dt in floors:
            return floors[dt] + (0,)
        cu, cp = floors[dmin][0] / dmin ** 2, floors[dmin][1] / dmin ** 2
        return (cu * dt * dt, cp * dt * dt, 1)

    for N in orders:
        skip = None
        prev = None
        for r in refs:
            dt = dts[(N, r)]
            fu, fp, model = floor_of(dt)
            name = "N%d_R%d" % (N, r)
            steps = int(round(T / dt))
            if skip is None and prev is not None and vc.fnum(prev["err_u"]) / 2 ** (N + 1) < FLOOR_FACTOR * fu:
                skip = "expected at the floor"
            if skip is None and steps > args.max_steps:
                skip = "more than %d steps" % args.max_steps
            if skip and not args.run_all:
                rows.append({"N": N, "refine": r, "dt": dt, "final_time": T, "status": "skipped: " + skip,
                             "kind": "skipped", "floor_u": fu, "floor_p": fp, "floor_model": model, "run": name})
                continue
            s = vc.run_insdg(args.insdg, args.workdir, name, vc.taylor_case(name, mesh, N, r, dt, T, start=args.start,
                                                                   tol_u=args.tolerance, tol_p=args.tolerance))
            row = row_from_summary(s, N, r, dt, T, "sweep", name)
            row["floor_u"], row["floor_p"], row["floor_model"] = fu, fp, model
            eu, ep = vc.fnum(row["err_u"]), vc.fnum(row["err_p"])
            row["at_floor_u"] = int(eu is not None and fu is not None and eu < FLOOR_FACTOR * fu)
            row["at_floor_p"] = int(ep is not None and fp is not None and ep < FLOOR_FACTOR * fp)
            rows.append(row)
            prev = row
            if bad(row):
                skip = "the coarser run failed"
            elif row["at_floor_u"]:
                skip = "the coarser mesh is at the floor"
    return rows


def analyse(rows):
    """Per N: the runs in refinement order, the rates of pairs above the floor, checks."""
    sweep = [r for r in rows if r["kind"] in ("sweep", "skipped")]
    orders = sorted({int(r["N"]) for r in sweep})
    out = {}
    failures = []
    for N in orders:
        runs = sorted([r for r in sweep if int(r["N"]) == N], key=lambda r: int(r["refine"]))
        rates_u, rates_p = [], []
        for a, b in zip(runs, runs[1:]):
            ru = rp = None
            if a["kind"] == "sweep" and b["kind"] == "sweep" and not bad(a) and not bad(b):
                if not int(a["at_floor_u"]) and not int(b["at_floor_u"]):
                    ru = vc.rate(vc.fnum(a["err_u"]), vc.fnum(b["err_u"]), 2.0)
                if not int(a["at_floor_p"]) and not int(b["at_floor_p"]):
                    rp = vc.rate(vc.fnum(a["err_p"]), vc.fnum(b["err_p"]), 2.0)
            rates_u.append(ru)
            rates_p.append(rp)
        out[N] = (runs, rates_u, rates_p)
        for r in runs:
            if r["kind"] == "sweep" and bad(r):
                failures.append("N = %d, R = %s: run %s (status %s, u error %s)"
                                % (N, r["refine"], r["run"], r["status"], r["err_u"]))
        last_u = [x for x in rates_u if x is not None]
        last_p = [x for x in rates_p if x is not None]
        if last_u:
            if last_u[-1] < N + 1 - U_TOL:
                failures.append("N = %d: u rate %.2f < %.1f" % (N, last_u[-1], N + 1 - U_TOL))
        if last_p and last_p[-1] < N - P_TOL:
            failures.append("N = %d: p rate %.2f < %.1f" % (N, last_p[-1], N - P_TOL))
    return orders, out, failures


def tables(rows, orders, out):
    floors = sorted([r for r in rows if r["kind"] == "floor"], key=lambda r: -float(r["dt"]))
    refs = sorted({int(r["refine"]) for r in rows if r["kind"] != "floor"})
    K0 = next((int(r["K"]) for r in rows if r["kind"] == "sweep" and r.get("K") not in (None, "")), 36)
    K0 //= 4 ** refs[0]
    T = rows[0]["final_time"]
    lines = ["<!-- written by tools/verify_taylor_spatial.py; do not edit -->",
             "Relative L2 errors at T = %s, BDF2/EXT2, no subcycling, start = %s, PCG tolerance %s, dt = dt0 / q^R on refinement R. "
             "In parentheses: the observed rate from the mesh to the left. *Italic*: at the temporal "
             "floor (below %g x the floor of its dt), not used for rates. -: not run (footnote). %s"
             % (T, rows[0].get("start") or "lower_order", rows[0].get("tolerance") or "1e-12", FLOOR_FACTOR, vc.built_line(rows)), ""]
    notes = {}
    for field, key, expect in (("u", "err_u", "N + 1"), ("p", "err_p", "N")):
        lines.append("**%s** (expected rate %s)" % (field, expect))
        lines.append("")
        lines.append("| N | dt0, q | " + " | ".join("K = %d" % (K0 * 4 ** R) for R in refs) + " | last rate |")
        lines.append("|---:|---:|" + "---:|" * len(refs) + "---:|")
        for N in orders:
            runs, ru, rp = out[N]
            rates = ru if field == "u" else rp
            cells = []
            for i, r in enumerate(runs):
                if r["kind"] == "skipped":
                    why = r["status"].replace("skipped: ", "")
                    notes.setdefault(why, len(notes) + 1)
                    cells.append("-%s" % ("*" * notes[why]))
                    continue
                e = vc.fnum(r[key])
                c = vc.fmt(e)
                if bad(r):
                    c += " (%s)" % (r["status"] if r["status"] != "completed" else "diverged")
                elif int(r["at_floor_" + field]):
                    c = "*%s*" % c
                if i > 0 and rates[i - 1] is not None:
                    c += " (%.2f)" % rates[i - 1]
                cells.append(c)
            d0 = float(runs[0]["dt"])
            q = d0 / float(runs[1]["dt"]) if len(runs) > 1 else 1
            last = [x for x in rates if x is not None]
            lines.append("| %d | %g, %g | %s | %s |" % (N, d0, q, " | ".join(cells),
                                                      "**%.2f**" % last[-1] if last else "none"))
        lines.append("")
    if notes:
        lines.append("-: " + "; ".join("%s %s" % ("*" * n, why) for why, n in sorted(notes.items(), key=lambda x: x[1])) + ".")
        lines.append("")
    if floors:
        lines.append("Temporal floor: the error of N = %s on the coarsest mesh (its spatial error is far below it) "
                     "at each dt; below dt = %g the floor is C dt^2 with C from the smallest dt here." %
                     (floors[0]["N"], float(floors[-1]["dt"])))
        lines.append("")
        lines.append("| dt | " + " | ".join("%g" % float(r["dt"]) for r in floors) + " |")
        lines.append("|---|" + "---:|" * len(floors))
        for f, key in (("u", "err_u"), ("p", "err_p")):
            lines.append("| floor %s | %s |" % (f, " | ".join(vc.fmt(vc.fnum(r[key])) for r in floors)))
            lines.append("| floor %s / dt^2 | %s |" % (f, " | ".join(
                "%.2f" % (vc.fnum(r[key]) / float(r["dt"]) ** 2) for r in floors)))
    return "\n".join(lines) + "\n"


def plot(rows, orders, out, png):
    plt = vc.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.0))
    cmap = plt.get_cmap("viridis")
    for ax, field, key in ((axes[0], "u", "err_u"), (axes[1], "p", "err_p")):
        for i, N in enumerate(orders):
            runs = [r for r in out[N][0] if r["kind"] == "sweep" and not bad(r)]
            if not runs:
                continue
            col = cmap(i / max(1, len(orders) - 1))
            h = [float(r["h"]) for r in runs]
            e = [float(r[key]) for r in runs]
            ax.loglog(h, e, "-", color=col, lw=1.2)
            for hh, ee, r in zip(h, e, runs):
                floor = int(r["at_floor_" + field])
                ax.loglog([hh], [ee], "o", color=col, mfc="none" if floor else col, ms=6)
            ax.plot([], [], "o-", color=col, label="N = %d" % N)
        for i, N in enumerate(orders):
            runs = [r for r in out[N][0] if r["kind"] == "sweep" and not bad(r)]
            if len(runs) > 1:
                col = cmap(i / max(1, len(orders) - 1))
                ax.loglog([float(r["h"]) for r in runs], [float(r["floor_" + field]) for r in runs], ":",
                          color=col, lw=1)
        ax.plot([], [], "k:", lw=1, label="floor of the dt")
        ax.set_xlabel("h = K$^{-1/2}$")
        ax.set_ylabel("relative L2 error of %s" % field)
        ax.set_title("Taylor vortex, %s at T = %s (open: at the floor)" % (field, rows[0]["final_time"]))
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, ncol=len(labels), loc="lower center")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    os.makedirs(os.path.dirname(png) or ".", exist_ok=True)
    fig.savefig(png, dpi=110)
    print("wrote %s" % os.path.relpath(png, os.getcwd()))


def main():
    ap = vc.common_args(__doc__.split("\n")[0], os.path.join("out", "verify", "taylor_spatial"))
    ap.add_argument("--orders", default="1-8", help="orders N, e.g. 1-8 or 2,3 (default %(default)s)")
    ap.add_argument("--refinements", default="0-3", help="refinements R (default %(default)s)")
    ap.add_argument("--final-time", type=float, default=0.25, help="T (default %(default)s)")
    ap.add_argument("--schedule", default="1-2:0.01:2,3:0.01:4,4:0.0025:4,5:0.00125:4,6-8:0.0025:4",
                    help="N:dt0:q,... the dt of refinement R is dt0 / q^R (default %(default)s)")
    ap.add_argument("--run-all", action="store_true",
                    help="run every (N, R), whatever the skip rules say (to show failures)")
    ap.add_argument("--max-steps", type=int, default=1000, help="longest run, in steps (default %(default)s)")
    ap.add_argument("--floor-dt-min", type=float, default=0.00125,
                    help="smallest dt of a floor run; below it the floor is C dt^2 (default %(default)s)")
    ap.add_argument("--floor-order", type=int, default=8, help="N of the floor runs (default %(default)s)")
    ap.add_argument("--start", default="lower_order", choices=["lower_order", "exact"],
                    help="[time] start of every run (default %(default)s; exact: the history before "
                         "t = 0 from the exact solution, no BDF1 step)")
    ap.add_argument("--tolerance", type=float, default=1e-12,
                    help="relative residual of both PCG solves (default %(default)s; the N = 8 study needs 1e-14)")
    ap.add_argument("--mesh", default=os.path.join(vc.ROOT, "cases", "taylor_vortex", "square35.msh"))
    args = ap.parse_args()
    if args.quick and not args.plot_only:
        args.orders, args.refinements, args.final_time, args.floor_order = "2,3", "0-1", 0.1, 6
        args.schedule, args.floor_dt_min = "2:0.01:2,3:0.01:4", 0.005
    csv_path, md_path, png_path = vc.out_paths(args, "taylor_spatial")
    t0 = time.time()
    if args.plot_only:
        rows = vc.read_csv(args.plot_only)
    else:
        rows = run_all(args)
        for r in rows:
            r["start"] = args.start
            r["tolerance"] = args.tolerance
        vc.write_csv(csv_path, rows, FIELDS)
        print("wrote %s" % os.path.relpath(csv_path, os.getcwd()))
    orders, out, failures = analyse(rows)
    text = tables(rows, orders, out)
    vc.write_text(md_path, text)
    vc.embed(args, "taylor_spatial", text)
    if png_path:
        plot(rows, orders, out, png_path)
    if not args.plot_only:
        print("wall time %.0f s" % (time.time() - t0))
    vc.finish(failures, args.keep_going)


if __name__ == "__main__":
    main()
