#!/usr/bin/python3
"""verify_taylor_temporal.py -- temporal convergence and largest stable dt of insdg on the Taylor vortex.

N = 6 on cases/taylor_vortex/square.msh (42 triangles), BDF2/EXT2 (S = 2), without
subcycling (Ns = 0) and with Ns = 1, 2, 4, 8 semi-Lagrangian LSERK4 substeps, started
from the exact history ([time] start = exact; --start lower_order for a BDF1 first step,
whose O(dt^2) error dominates the subcycled runs' error at small T).

1. Convergence: for each Ns, runs to T (default 0.4) with dt = 0.04, 0.02, 0.01, 0.005,
   0.0025 (--dts); the relative L2 error of u at T and the observed order
   log2(e(dt) / e(dt/2)) between neighbours. A run that does not complete with a finite
   relative u error below 0.1 is "unstable" and left out of the orders.
2. Largest stable dt: for each Ns the dt are the geometric sequence
   dt_k = 0.005 * 2^(k/4), k = 0, 1, 2, ...; a dt is stable when the run to T
   (default 1) completes with a finite relative u error below 0.1. The largest stable dt
   of Ns is the largest dt_k such that dt_k and the scanned dt below it are stable: the scan
   starts at the largest stable dt of the previous Ns (at dt_0 for the first), goes up one
   step at a time until the first unstable dt, and goes down instead when its start is
   unstable. (Starting there assumes the largest stable dt does not fall with Ns, which the
   check below then tests only from above: the start itself is always run.)

Writes WORKDIR/taylor_temporal.csv, docs/verification/taylor_temporal.md and
docs/figures/taylor_temporal.png (error vs dt per Ns with a slope-2 guide; largest
stable dt vs Ns); `--plot-only CSV` redraws the tables and the plot only.

Checks (exit status 1 when one fails, unless --keep-going): for each Ns the order of the
last pair of stable runs is >= 1.7; the largest stable dt does not decrease with Ns and
is larger at the last Ns than --min-growth times the first's. --quick: the orders for
Ns = 0, 2 at dt = 0.01, 0.005 (T = 0.2) and the scan for Ns = 0, 8 from dt = 0.02 up to
0.08 with --min-growth 2.
"""
import csv
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verify_common as vc

ORDER_MIN = 1.7
STABLE_ERROR = 0.1
FIELDS = ["study", "Ns", "dt", "k", "final_time", "start", "steps", "status", "stable", "err_u", "err_v",
          "err_p", "max_cfl", "final_max_div_u", "wall_seconds", "run", "insdg_built"]


def stable_row(s):
    e = s.get("errors", {}).get("u", {}).get("relative")
    return int(s["status"] == "completed" and e is not None and math.isfinite(e) and e < STABLE_ERROR)


def run_one(args, study, Ns, dt, T, k=""):
    name = "%s_Ns%d_dt%s" % (study, Ns, ("%.6g" % dt).replace(".", "p"))
    s = vc.run_insdg(args.insdg, args.workdir, name,
                     vc.taylor_case(name, os.path.abspath(args.mesh), args.order, 0, dt, T, 2, Ns,
                                    start=args.start))
    max_cfl = div = ""
    diag = os.path.join(args.workdir, name, "diagnostics.csv")
    if os.path.exists(diag):
        with open(diag) as f:
            d = list(csv.DictReader(f))
        if d:
            max_cfl = max(float(x["cfl"]) for x in d)
            div = d[-1]["max_div_u"]
    return {"study": study, "Ns": Ns, "dt": dt, "k": k, "final_time": T, "start": args.start,
            "stable": stable_row(s),
            "max_cfl": max_cfl, "final_max_div_u": div, **vc.summary_row(s, name, iterations=False)}


def run_all(args):
    rows = []
    subs = [int(x) for x in args.substeps.split(",")]
    dts = [float(x) for x in args.dts.split(",")]
    print("Taylor vortex, temporal: N = %d on %s, S = 2, Ns %s" % (args.order, os.path.relpath(
        os.path.abspath(args.mesh), vc.ROOT), subs), flush=True)
    print("convergence, T = %g, dt %s" % (args.final_time, dts), flush=True)
    for Ns in subs:
        for dt in dts:
            rows.append(run_one(args, "convergence", Ns, dt, args.final_time))
    if args.no_stability:
        return rows
    subs = [int(x) for x in (args.stability_substeps or args.substeps).split(",")]
    print("largest stable dt, T = %g, dt_k = %g * 2^(k/4)" % (args.stability_time, args.dt_base), flush=True)
    start = 0
    for Ns in subs:
        results = {}

        def probe(k):
            if k not in results:
                r = run_one(args, "stability", Ns, args.dt_base * 2 ** (k / 4.0), args.stability_time, k)
                rows.append(r)
                results[k] = r["stable"]
            return results[k]

        k = start
        if probe(k):
            while k < args.k_max and probe(k + 1):
                k += 1
            best = k
        else:
            while k > 0 and not probe(k - 1):
                k -= 1
            best = k - 1 if k > 0 else None
        start = best if best is not None else 0
    return rows


def analyse(rows, min_growth=1.0):
    conv = [r for r in rows if r["study"] == "convergence"]
    stab = [r for r in rows if r["study"] == "stability"]
    subs = sorted({int(r["Ns"]) for r in rows})
    orders = {}
    failures = []
    for Ns in subs:
        rr = sorted([r for r in conv if int(r["Ns"]) == Ns], key=lambda r: -float(r["dt"]))
        o = []
        for a, b in zip(rr, rr[1:]):
            if int(a["stable"]) and int(b["stable"]):
                o.append(vc.rate(vc.fnum(a["err_u"]), vc.fnum(b["err_u"]), float(a["dt"]) / float(b["dt"])))
            else:
                o.append(None)
        orders[Ns] = (rr, o)
        last = [x for x in o if x is not None]
        if rr:
            if not last:
                failures.append("Ns = %d: fewer than two stable runs, no order" % Ns)
            elif last[-1] < ORDER_MIN:
                failures.append("Ns = %d: order %.2f < %.1f on the last pair" % (Ns, last[-1], ORDER_MIN))
    largest = {}
    for Ns in subs:
        rr = sorted([r for r in stab if int(r["Ns"]) == Ns], key=lambda r: int(r["k"]))
        if not rr:
            continue
        ok = [r for r in rr if int(r["stable"])]
        bad = [r for r in rr if not int(r["stable"])]
        first_bad = min((float(r["dt"]) for r in bad), default=None)
        good = [r for r in ok if first_bad is None or float(r["dt"]) < first_bad]
        best = max(good, key=lambda r: float(r["dt"])) if good else None
        largest[Ns] = (best, first_bad)
    if largest:
        seq = [(Ns, float(largest[Ns][0]["dt"]) if largest[Ns][0] else 0.0) for Ns in subs if Ns in largest]
        for (n1, d1), (n2, d2) in zip(seq, seq[1:]):
            if d2 < d1 * (1 - 1e-9):
                failures.append("largest stable dt falls from Ns = %d (%g) to Ns = %d (%g)" % (n1, d1, n2, d2))
        if len(seq) > 1 and not seq[-1][1] > seq[0][1] * min_growth:
            failures.append("largest stable dt does not grow by more than %gx from Ns = %d (%g) to Ns = %d (%g)"
                            % (min_growth, seq[0][0], seq[0][1], seq[-1][0], seq[-1][1]))
    return subs, orders, largest, failures


def tables(rows, subs, orders, largest):
    conv = [r for r in rows if r["study"] == "convergence"]
    lines = ["<!-- written by tools/verify_taylor_temporal.py; do not edit -->", vc.built_line(rows), ""]
    if conv:
        T = conv[0]["final_time"]
        dts = sorted({float(r["dt"]) for r in conv}, reverse=True)
        lines += ["Relative L2 error of u at T = %s, N = 6, 42 triangles, S = 2, start = %s; in "
                  "parentheses the observed order from the dt above; *unstable*: the run did not "
                  "complete with a relative u error below %g." % (T, conv[0].get("start", "lower_order"),
                                                                  STABLE_ERROR), "",
                  "| dt | " + " | ".join("Ns = %d" % Ns for Ns in subs) + " |",
                  "|---:|" + "---:|" * len(subs)]
        for dt in dts:
            cells = []
            for Ns in subs:
                rr, o = orders[Ns]
                i = next((j for j, r in enumerate(rr) if abs(float(r["dt"]) - dt) < 1e-12), None)
                if i is None:
                    cells.append("")
                    continue
                r = rr[i]
                if not int(r["stable"]):
                    cells.append("*unstable*")
                    continue
                c = vc.fmt(vc.fnum(r["err_u"]))
                if i > 0 and o[i - 1] is not None:
                    c += " (%.2f)" % o[i - 1]
                cells.append(c)
            lines.append("| %g | %s |" % (dt, " | ".join(cells)))
        lines.append("")
    if largest:
        stab = [r for r in rows if r["study"] == "stability"]
        lines += ["Largest stable dt (T = %s; dt_k = %s x 2^(k/4); stable: completed with a relative u "
                  "error below %g); max CFL is the largest `cfl` of its diagnostics.csv."
                  % (stab[0]["final_time"], "%g" % (float(stab[0]["dt"]) / 2 ** (int(stab[0]["k"]) / 4.0)),
                     STABLE_ERROR), "",
                  "| Ns | largest stable dt | its u error | its max CFL | first unstable dt | runs |",
                  "|---:|---:|---:|---:|---:|---:|"]
        for Ns in subs:
            if Ns not in largest:
                continue
            best, bad = largest[Ns]
            n = len([r for r in stab if int(r["Ns"]) == Ns])
            lines.append("| %d | %s | %s | %s | %s | %d |" % (
                Ns, "%.4g" % float(best["dt"]) if best else "none",
                vc.fmt(vc.fnum(best["err_u"])) if best else "",
                "%.2f" % float(best["max_cfl"]) if best and best["max_cfl"] != "" else "",
                "%.4g" % bad if bad else "", n))
        lines.append("")
    return "\n".join(lines) + "\n"


def plot(rows, subs, orders, largest, png):
    plt = vc.pyplot()
    ncol = 2 if largest else 1
    fig, axes = plt.subplots(1, ncol, figsize=(5.5 * ncol, 4.6), squeeze=False)
    ax = axes[0][0]
    cmap = plt.get_cmap("plasma")
    allx = []
    for i, Ns in enumerate(subs):
        rr = [r for r in orders[Ns][0] if int(r["stable"])]
        if not rr:
            continue
        x = [float(r["dt"]) for r in rr]
        y = [float(r["err_u"]) for r in rr]
        allx += x
        ax.loglog(x, y, "o-", color=cmap(i / max(1, len(subs))), label="Ns = %d" % Ns)
    if allx:
        x0, x1 = min(allx), max(allx)
        ys = [float(r["err_u"]) for r in rows if r["study"] == "convergence" and int(r["stable"])]
        y0 = min(ys) * 0.5
        ax.loglog([x0, x1], [y0, y0 * (x1 / x0) ** 2], "k--", lw=1, label="slope 2")
    ax.set_xlabel("dt")
    ax.set_ylabel("relative L2 error of u")
    ax.set_title("Taylor vortex, N = 6, S = 2, T = %s" % next(
        (r["final_time"] for r in rows if r["study"] == "convergence"), ""))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    if largest:
        ax = axes[0][1]
        ns = [Ns for Ns in subs if Ns in largest and largest[Ns][0]]
        ax.semilogy(ns, [float(largest[Ns][0]["dt"]) for Ns in ns], "s-", label="largest stable dt")
        nb = [Ns for Ns in subs if Ns in largest and largest[Ns][1]]
        ax.semilogy(nb, [largest[Ns][1] for Ns in nb], "x", color="C3", label="first unstable dt")
        ax.set_xlabel("Ns (substeps; 0: no subcycling)")
        ax.set_ylabel("dt")
        ax.set_xticks(subs)
        ax.set_title("largest stable dt, T = %s" % next(r["final_time"] for r in rows if r["study"] == "stability"))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    vc.write_figure(fig, png)


def main():
    ap = vc.common_args(__doc__.split("\n")[0], os.path.join("out", "verify", "taylor_temporal"))
    ap.add_argument("--order", type=int, default=6, help="N (default %(default)s)")
    ap.add_argument("--mesh", default=os.path.join(vc.ROOT, "cases", "taylor_vortex", "square.msh"))
    ap.add_argument("--substeps", default="0,1,2,4,8", help="the Ns (default %(default)s)")
    ap.add_argument("--dts", default="0.04,0.02,0.01,0.005,0.0025", help="convergence dt (default %(default)s)")
    ap.add_argument("--final-time", type=float, default=0.4, help="T of the convergence runs (default %(default)s)")
    ap.add_argument("--stability-time", type=float, default=1.0, help="T of the stability runs (default %(default)s)")
    ap.add_argument("--dt-base", type=float, default=0.005, help="dt_0 of the stability scan (default %(default)s)")
    ap.add_argument("--k-max", type=int, default=40, help="largest k of the scan (default %(default)s)")
    ap.add_argument("--no-stability", action="store_true", help="only the convergence runs")
    ap.add_argument("--start", default="exact", choices=["exact", "lower_order"],
                    help="[time] start of the runs (default %(default)s: the history before t = 0 "
                         "from the exact solution, so that the first step is BDF2 already)")
    ap.add_argument("--stability-substeps", default=None, help="the Ns of the scan (default: --substeps)")
    ap.add_argument("--min-growth", type=float, default=1.0,
                    help="the largest stable dt at the last Ns must exceed this times the first's "
                         "(default %(default)s)")
    args = ap.parse_args()
    if args.quick and not args.plot_only:
        # the orders, and a short scan: Ns = 0 and 8 from dt = 0.02 to 0.08 (EXT's limit is
        # about 0.02; subcycled, 0.08 must stay stable: at least 2x)
        args.substeps, args.dts, args.final_time = "0,2", "0.01,0.005", 0.2
        args.stability_substeps, args.dt_base, args.k_max, args.min_growth = "0,8", 0.02, 8, 2.0
    csv_path, md_path, png_path = vc.out_paths(args, "taylor_temporal")
    t0 = time.time()
    if args.plot_only:
        rows = vc.read_csv(args.plot_only)
    else:
        rows = run_all(args)
        vc.write_csv(csv_path, rows, FIELDS)
        print("wrote %s" % os.path.relpath(csv_path, os.getcwd()))
    subs, orders, largest, failures = analyse(rows, args.min_growth)
    text = tables(rows, subs, orders, largest)
    vc.write_text(md_path, text)
    vc.embed(args, "taylor_temporal", text)
    if png_path:
        plot(rows, subs, orders, largest, png_path)
    if not args.plot_only:
        print("wall time %.0f s" % (time.time() - t0))
    vc.finish(failures, args.keep_going)


if __name__ == "__main__":
    main()
