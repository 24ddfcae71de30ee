#!/usr/bin/python3
"""verify_couette.py -- curved elements on the Navier-Stokes solver: circular Couette flow.

The steady flow between a rotating inner circle (r = 0.5, angular velocity 1, given as
inflow data u = -y, v = x) and a fixed outer one (r = 1, a wall), nu = 0.05:
u_theta = A r + B / r with A = -1/3, B = 1/3, p = A^2 r^2 / 2 + 2 A B ln r - B^2 / (2 r^2)
(+ a constant: the pressure is pure Neumann). Runs `insdg run` from the exact solution to
T = 0.5 (dt = 0.01, BDF2/EXT2) on annulus meshes from tests/meshes/annulus.py:
  p-sweep: N = 2..8 on the 64-triangle annulus (2 layers of 16 cells), curved (edge nodes
           of order 8 on the circles) and straight (the polygon of the same vertices);
  h-sweep: N = 2, 3, 4 on 1, 2, 4 layers (16, 64, 256 triangles), curved of order q = N
           and straight.
Writes WORKDIR/couette.csv, docs/verification/couette.md and docs/figures/couette.png.

Checks (exit status 1 when one fails): every run completes; p-sweep: the curved u error
falls by >= --min-drop (default 3) per order while above 1e-9, the straight one does not
fall below half its N = 2 value; h-sweep: the curved u rate over the last refinement is
>= N + 0.5, the straight one <= 2.6.
"""
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verify_common as vc

FIELDS = ["kind", "N", "q", "layers", "K", "dt", "final_time", "steps", "status", "err_u", "err_v", "err_p",
          "mean_it_u", "mean_it_p", "wall_seconds", "run", "insdg_built"]
EXACT = {
    "u": "-(A + B/(x^2+y^2))*y",
    "v": "(A + B/(x^2+y^2))*x",
    "p": "A^2*(x^2+y^2)/2 + A*B*ln(x^2+y^2) - B^2/(2*(x^2+y^2))",
}


def case(name, mesh, N, dt, T):
    ex = "".join("%s = %s\n" % (f, EXACT[f]) for f in ("u", "v", "p"))
    return ("; written by tools/verify_couette.py\n[case]\nname = %s\nmesh = %s\norder = %d\n\n"
            "[constants]\nA = -1/3\nB = 1/3\n\n[physics]\nnu = 0.05\n\n"
            "[time]\ndt = %r\nfinal_time = %r\norder = 2\n\n"
            "[velocity_solver]\ntolerance = 1e-12\nmax_iterations = 20000\n\n"
            "[pressure_solver]\ntolerance = 1e-12\nmax_iterations = 5000\n\n"
            "[initial]\n%s\n[boundary.inner]\ntype = inflow\nu = -y\nv = x\n\n[boundary.outer]\ntype = wall\n\n"
            "[exact]\n%s" % (name, mesh, N, dt, T, ex, ex))


def mesh(args, q, layers):
    path = os.path.join(args.workdir, "annulus_q%d_n%d.msh" % (q, layers))
    if not os.path.exists(path):
        os.makedirs(args.workdir, exist_ok=True)
        subprocess.check_call([sys.executable, os.path.join(vc.ROOT, "tests", "meshes", "annulus.py"), path,
                               "--nr", str(layers), "--nt", str(8 * layers), "--order", str(q)])
    return path


def run_one(args, kind, N, q, layers):
    name = "%s_N%d_q%d_n%d" % (kind, N, q, layers)
    s = vc.run_insdg(args.insdg, args.workdir, name, case(name, mesh(args, q, layers), N, args.dt, args.final_time))
    return {"kind": kind, "N": N, "q": q, "layers": layers, "K": s.get("K", ""), "dt": args.dt,
            "final_time": args.final_time, **vc.summary_row(s, name)}


def run_all(args):
    rows = []
    for N in args.p_orders:
        for q in (args.p_q, 1):
            rows.append(run_one(args, "p", N, q, 2))
    for N in args.h_orders:
        for layers in args.h_layers:
            for q in (N, 1):
                rows.append(run_one(args, "h", N, q, layers))
    return rows


def err(r):
    return vc.fnum(r["err_u"])


def analyse(rows, min_drop):
    failures = ["%s N = %s q = %s: status %s" % (r["kind"], r["N"], r["q"], r["status"]) for r in rows if vc.failed(r)]
    p = {(int(r["N"]), int(r["q"]) > 1): r for r in rows if r["kind"] == "p" and not vc.failed(r)}
    orders = sorted({n for n, _ in p})
    for a, b in zip(orders, orders[1:]):
        if (a, True) in p and (b, True) in p and err(p[b, True]) > 1e-9 and err(p[a, True]) / err(p[b, True]) < min_drop:
            failures.append("curved u error falls only %.2fx from N = %d to %d" % (err(p[a, True]) / err(p[b, True]), a, b))
    straight = [err(p[n, False]) for n in orders if (n, False) in p]
    if straight and min(straight) < 0.5 * straight[0]:
        failures.append("the polygon's u error fell to %.3e from %.3e: no geometric floor?" % (min(straight), straight[0]))
    rates = {}
    for N in sorted({int(r["N"]) for r in rows if r["kind"] == "h"}):
        for curved in (True, False):
            seq = sorted([r for r in rows if r["kind"] == "h" and int(r["N"]) == N and (int(r["q"]) > 1) == curved
                          and not vc.failed(r)], key=lambda r: int(r["layers"]))
            rates[N, curved] = [(int(b["layers"]), math.log2(err(a) / err(b))) for a, b in zip(seq, seq[1:])]
            if rates[N, curved]:
                last = rates[N, curved][-1][1]
                if curved and last < N + 0.5:
                    failures.append("N = %d curved: u rate %.2f < %.1f" % (N, last, N + 0.5))
                if not curved and last > 2.6:
                    failures.append("N = %d straight: u rate %.2f > 2.6" % (N, last))
    return p, orders, rates, failures


def tables(rows, p, orders, rates):
    lines = ["<!-- written by tools/verify_couette.py; do not edit -->",
             "Relative L2 errors at T = %s (dt = %s, BDF2/EXT2, from the exact solution). %s"
             % (rows[0]["final_time"], rows[0]["dt"], vc.built_line(rows)), "",
             "p-sweep, 64 triangles (2 layers of 16 cells); curved: circle edge nodes of order %s" %
             next((r["q"] for r in rows if r["kind"] == "p" and int(r["q"]) > 1), "-"), "",
             "| N | curved u | curved p | straight u | straight p |", "|---:|---:|---:|---:|---:|"]
    for n in orders:
        c, s = p.get((n, True)), p.get((n, False))
        lines.append("| %d | %s | %s | %s | %s |" % (n, vc.fmt(err(c)) if c else "", vc.fmt(vc.fnum(c["err_p"])) if c else "",
                                                   vc.fmt(err(s)) if s else "", vc.fmt(vc.fnum(s["err_p"])) if s else ""))
    lines += ["", "h-sweep (curved: edge nodes of order q = N), u error and rate", "",
              "| N | K | curved u | rate | straight u | rate |", "|---:|---:|---:|---:|---:|---:|"]
    for N in sorted({int(r["N"]) for r in rows if r["kind"] == "h"}):
        for r in sorted([r for r in rows if r["kind"] == "h" and int(r["N"]) == N and int(r["q"]) > 1],
                        key=lambda r: int(r["layers"])):
            L = int(r["layers"])
            s = next((x for x in rows if x["kind"] == "h" and int(x["N"]) == N and int(x["q"]) == 1
                      and int(x["layers"]) == L), None)
            rc = dict(rates.get((N, True), [])).get(L)
            rs = dict(rates.get((N, False), [])).get(L)
            lines.append("| %d | %s | %s | %s | %s | %s |" % (N, r["K"], vc.fmt(err(r)), "%.2f" % rc if rc else "",
                                                           vc.fmt(err(s)) if s else "", "%.2f" % rs if rs else ""))
    return "\n".join(lines) + "\n"


def plot(p, orders, png):
    plt = vc.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.6))
    for curved, lab, m in ((True, "curved", "o"), (False, "straight (polygon)", "s")):
        ns = [n for n in orders if (n, curved) in p]
        ax.semilogy(ns, [err(p[n, curved]) for n in ns], m + "-", label="u, " + lab)
        ax.semilogy(ns, [vc.fnum(p[n, curved]["err_p"]) for n in ns], m + ":", alpha=0.6, label="p, " + lab)
    vc.save_figure(fig, ax, "N", "relative L2 error", "Circular Couette flow, 64 triangles", png)


def main():
    ap = vc.common_args(__doc__.split("\n")[0], os.path.join("out", "verify", "couette"))
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--final-time", type=float, default=0.5)
    ap.add_argument("--min-drop", type=float, default=3.0)
    args = ap.parse_args()
    args.p_orders, args.p_q, args.h_orders, args.h_layers = list(range(2, 9)), 8, [2, 3, 4], [1, 2, 4]
    if args.quick:
        args.p_orders, args.p_q, args.h_orders, args.h_layers, args.final_time = [2, 3, 4], 4, [3], [1, 2], 0.1

    def report(rows):
        p, orders, rates, failures = analyse(rows, args.min_drop)
        return tables(rows, p, orders, rates), failures, lambda png: plot(p, orders, png)

    vc.run_study(args, "couette", FIELDS, lambda: run_all(args), report)

if __name__ == "__main__":
    main()
