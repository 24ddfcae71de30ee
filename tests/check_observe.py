#!/usr/bin/env python3
"""check_observe.py -- the outputs of [probes], [statistics] and [time] steady_tolerance
(issue 16) against computations of their own (tests/run.cmake, run_observe*).

  check_observe.py probes DIR --exact NAME=EXPR...   probes.csv of DIR: every row's value at
        every probe is the element polynomial of the field file of that step (fields_<step>.nc),
        evaluated here by a monomial fit in x, y of the element's nodal values, from one of
        the elements that hold the point (all of them when it is on an edge or a vertex);
        a probe on a mesh vertex equals that node's nodal value in one of them; and the
        values are the exact solution's (Python expressions in x, y, t) to a tolerance
  check_observe.py same A B --rtol R                 two probes.csv agree (1 rank vs 2 ranks)
  check_observe.py statistics DIR --start S          u/v/p_mean and _rms of the last field
        file are the mean and RMS (of the fluctuation) over the field files of the steps
        t >= S; summary.json's force statistics those of diagnostics.csv's rows t >= S
  check_observe.py change DIR --rate R --rtol E      diagnostics.csv's velocity_change of the
        Taylor vortex against its exact decay (e^{R dt} - 1) / dt, R = k^2 nu
  check_observe.py steady DIR --tolerance T          the run stopped at steady state: the last
        row's velocity_change below T, every earlier one at or above it; summary.json says so
  check_observe.py vorticity DIR                     every field file's vorticity is dv/dx - du/dy
        of its own u and v (the derivatives of each element's monomial fit, at its nodes; a
        straight-sided mesh), not a stale or zero field
"""
import argparse
import csv
import glob
import json
import math
import os
import sys

import netCDF4
import numpy as np


def fail(msg):
    sys.exit(f"check_observe: FAIL: {msg}")


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [[float(v) for v in r] for r in rows[1:]]


class Fields:
    """one field file: per element the node coordinates and the nodal values"""

    def __init__(self, path):
        with netCDF4.Dataset(path) as d:
            self.x = np.array(d["mesh2d_node_x"][:])
            self.y = np.array(d["mesh2d_node_y"][:])
            nfaces = d.dimensions["mesh2d_nFaces"].size
            self.values = {v: np.array(d[v][-1, :]) for v in d.variables
                           if d[v].dimensions == ("time", "mesh2d_nNodes")}
            self.attrs = {v: d[v].getncattr("long_name") for v in self.values}
        nnodes = self.x.size
        # K N^2 sub-triangles, K (N+1)(N+2)/2 nodes
        for n in range(1, 16):
            np_ = (n + 1) * (n + 2) // 2
            if nnodes * n * n == nfaces * np_:
                self.N, self.Np = n, np_
                break
        self.K = nnodes // self.Np
        self.powers = [(a, b) for a in range(self.N + 1) for b in range(self.N + 1 - a)]

    def vertices(self, e):
        """nodes 0, N and Np-1 of the Warp & Blend ordering are the vertices"""
        i = e * self.Np
        return [(self.x[i + j], self.y[i + j]) for j in (0, self.N, self.Np - 1)]

    def holding(self, px, py, tol=1e-9):
        """the elements whose closed triangle holds (px, py)"""
        out = []
        for e in range(self.K):
            (x0, y0), (x1, y1), (x2, y2) = self.vertices(e)
            det = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
            l1 = ((px - x0) * (y2 - y0) - (py - y0) * (x2 - x0)) / det
            l2 = ((x1 - x0) * (py - y0) - (y1 - y0) * (px - x0)) / det
            if min(l1, l2, 1 - l1 - l2) >= -tol:
                out.append(e)
        return out

    def evaluate(self, e, name, px, py):
        """the degree-N polynomial through element e's nodal values of name, at (px, py)"""
        s = slice(e * self.Np, (e + 1) * self.Np)
        x, y = self.x[s], self.y[s]
        xc, yc, h = x.mean(), y.mean(), max(np.ptp(x), np.ptp(y))
        A = np.array([[((xi - xc) / h) ** a * ((yi - yc) / h) ** b for a, b in self.powers] for xi, yi in zip(x, y)])
        c = np.linalg.solve(A, self.values[name][s])
        return sum(ci * ((px - xc) / h) ** a * ((py - yc) / h) ** b for ci, (a, b) in zip(c, self.powers))

    def nodal(self, e, name, px, py):
        """the nodal value at the node of element e at (px, py), or None"""
        s = slice(e * self.Np, (e + 1) * self.Np)
        d = np.hypot(self.x[s] - px, self.y[s] - py)
        j = int(np.argmin(d))
        return self.values[name][e * self.Np + j] if d[j] < 1e-12 else None


QUANTITIES = ("u", "v", "p", "vorticity")


def probe_names(header):
    return [h[:-2] for h in header[2:] if h.endswith("_u")]


def check_probes(args):
    header, rows = read_csv(os.path.join(args.dir, "probes.csv"))
    names = probe_names(header)
    case_points = dict(p.split("=", 1) for p in args.points)
    exact = dict(e.split("=", 1) for e in args.exact)
    if header[:2] != ["step", "time"] or len(header) != 2 + 4 * len(names) or set(case_points) != set(names):
        fail(f"probes.csv header {header}, probes {sorted(case_points)}")
    worst_fit = worst_node = worst_initial = 0.0
    worst_exact = {q: 0.0 for q in QUANTITIES}
    jumps = {}
    for row in rows:
        step, t = int(row[0]), row[1]
        path = os.path.join(args.dir, f"fields_{step:06d}.nc")
        if not os.path.exists(path):
            fail(f"probes.csv has step {step}, and there is no {path}")
        F = Fields(path)
        for i, name in enumerate(names):
            px, py = (float(v) for v in case_points[name].split(","))
            elems = F.holding(px, py)
            if not elems:
                fail(f"probe {name} ({px}, {py}) is in no element of {path}")
            for k, q in enumerate(QUANTITIES):
                got = row[2 + 4 * i + k]
                scale = max(1.0, float(np.abs(F.values[q]).max()))
                cand = [F.evaluate(e, q, px, py) for e in elems]
                diff = min(abs(got - c) for c in cand) / scale
                worst_fit = max(worst_fit, diff)
                if diff > 1e-9:
                    fail(f"step {step}, probe {name}, {q} = {got!r}: the element polynomials there give {cand}")
                if len(cand) > 1 and step == 0 and q != "vorticity":
                    # the initial interpolant is continuous (neighbours share their face
                    # nodes): from both sides of an edge, or all around a vertex, the same
                    spread = (max(cand) - min(cand)) / scale
                    worst_initial = max(worst_initial, spread)
                    if spread > 1e-12:
                        fail(f"step 0, probe {name}, {q}: the elements holding it give {cand}")
                elif len(cand) > 1:
                    jumps[name] = max(jumps.get(name, 0.0), (max(cand) - min(cand)) / scale)
                nodal = [F.nodal(e, q, px, py) for e in elems]
                nodal = [v for v in nodal if v is not None]
                if nodal:   # on a node: one of its nodal values
                    d = min(abs(got - v) for v in nodal) / scale
                    worst_node = max(worst_node, d)
                    if d > 1e-12:
                        fail(f"step {step}, probe {name} on a node: {q} = {got!r}, nodal values {nodal}")
                if q in exact:
                    ex = eval(exact[q], {"x": px, "y": py, "t": t, "pi": math.pi, "sin": math.sin,
                                         "cos": math.cos, "exp": math.exp})
                    worst_exact[q] = max(worst_exact[q], abs(got - ex))
    for q, tol in (kv.split("=") for kv in args.tolerance):
        if worst_exact[q] > float(tol):
            fail(f"{q}: largest difference to the exact solution {worst_exact[q]:.3e} > {tol}")
    if args.node and args.node not in case_points:
        fail(f"no probe {args.node}")
    print(f"  {len(rows)} rows, {len(names)} probes: polynomial evaluation agrees to {worst_fit:.1e}, "
          f"nodal values to {worst_node:.1e}; at step 0 the elements sharing a point agree to {worst_initial:.1e}, "
          f"later they differ by the DG jumps {jumps}")
    print("  largest difference to the exact solution: " +
          ", ".join(f"{q} {v:.2e}" for q, v in worst_exact.items()))
    if args.steps is not None and [int(r[0]) for r in rows] != args.steps:
        fail(f"probes.csv steps {[int(r[0]) for r in rows]}, expected {args.steps}")


def check_same(args):
    ha, a = read_csv(os.path.join(args.a, "probes.csv"))
    hb, b = read_csv(os.path.join(args.b, "probes.csv"))
    a, b = np.array(a), np.array(b)
    if ha != hb or a.shape != b.shape or not np.array_equal(a[:, 0], b[:, 0]):
        fail(f"probes.csv differ in shape or steps: {a.shape} {b.shape}")
    scale = np.maximum(np.abs(a).max(axis=0), 1.0)
    d = (np.abs(a - b) / scale).max()
    print(f"  probes.csv: largest difference {d:.2e} (relative to each column's largest value)")
    if d > args.rtol:
        fail(f"probes.csv of {args.a} and {args.b} differ by {d:.2e} > {args.rtol}")


def stats(x):
    x = np.asarray(x)
    m = x.mean()
    return {"mean": m, "rms": math.sqrt(((x - m) ** 2).mean()), "min": x.min(), "max": x.max()}


def check_statistics(args):
    with open(os.path.join(args.dir, "summary.json")) as f:
        s = json.load(f)
    st = s["statistics"]
    files = sorted(glob.glob(os.path.join(args.dir, "fields_*.nc")))
    window = []
    for path in files:
        with netCDF4.Dataset(path) as d:
            t = float(d["time"][-1])
        if t >= args.start - 1e-9:
            window.append(path)
    if st["samples"] != len(window) and not args.no_fields:
        fail(f"summary.json: {st['samples']} samples, {len(window)} field files in the window")
    last = Fields(files[-1])
    worst = 0.0
    for q in ("u", "v", "p") if not args.no_fields else ():
        series = np.array([Fields(p).values[q] for p in window])
        mean, rms = series.mean(axis=0), series.std(axis=0)
        scale = max(np.abs(series).max(), 1e-300)
        for name, want in ((f"{q}_mean", mean), (f"{q}_rms", rms)):
            d = np.abs(last.values[name] - want).max() / scale
            worst = max(worst, d)
            if d > 1e-12:
                fail(f"{name} of {files[-1]} differs from the field files' by {d:.2e}")
    header, rows = read_csv(os.path.join(args.dir, "diagnostics.csv"))
    rows = [r for r in rows if r[1] >= args.start - 1e-9]
    col = {h: i for i, h in enumerate(header)}
    worst_f = 0.0
    for name, forces in st["forces"].items():
        for key, column in (("fx", "fx_"), ("fy", "fy_"), ("cd", "cd_"), ("cl", "cl_")):
            if column + name not in col:
                continue
            want = stats([r[col[column + name]] for r in rows])
            scale = max(abs(want["min"]), abs(want["max"]), 1e-300)
            for m in ("mean", "rms", "min", "max"):
                d = abs(forces[key][m] - want[m]) / scale
                worst_f = max(worst_f, d)
                if d > 1e-9:   # diagnostics.csv has 11 significant digits
                    fail(f"summary.json statistics {name} {key} {m} = {forces[key][m]!r}, diagnostics.csv gives {want[m]!r}")
        if args.not_periodic and (forces["strouhal"] is not None or forces["not_periodic"] is None):
            fail(f"{name}: a Strouhal number {forces['strouhal']} for a lift that is not periodic")
        if args.strouhal is not None:
            st_ = forces["strouhal"]
            if st_ is None or abs(st_ - args.strouhal) > 1e-3 * args.strouhal:
                fail(f"{name}: Strouhal number {st_} ({forces['not_periodic']}), the lift's is {args.strouhal}")
            print(f"  {name}: Strouhal number {st_!r} over {forces['lift_periods']} periods (exact {args.strouhal})")
    print(f"  {st['samples']} steps in the window: field statistics agree to {worst:.1e}, force statistics "
          f"(from diagnostics.csv) to {worst_f:.1e}")


def check_change(args):
    """velocity_change against the exact decay of the Taylor vortex: u^{n+1} = e^{-k^2 nu dt} u^n,
    so ||u^{n+1} - u^n|| / (dt ||u^{n+1}||) = (e^{k^2 nu dt} - 1) / dt in any norm"""
    header, rows = read_csv(os.path.join(args.dir, "diagnostics.csv"))
    i = header.index("velocity_change")
    want = math.expm1(args.rate * rows[0][2]) / rows[0][2]
    worst = max(abs(r[i] - want) / want for r in rows[1:])   # step 1: the lower-order start
    print(f"  velocity_change {[r[i] for r in rows]}, exact decay {want:.6f}: within {worst:.1e} after step 1")
    if worst > args.rtol:
        fail(f"velocity_change differs from the exact {want} by {worst:.2e} > {args.rtol}")


def check_steady(args):
    with open(os.path.join(args.dir, "summary.json")) as f:
        s = json.load(f)
    header, rows = read_csv(os.path.join(args.dir, "diagnostics.csv"))
    change = [r[header.index("velocity_change")] for r in rows]
    if s["stop_reason"] != "steady" or s["status"] != "completed" or s["steps"] >= s["steps_planned"]:
        fail(f"summary.json: stop_reason {s['stop_reason']}, status {s['status']}, steps {s['steps']} "
             f"of {s['steps_planned']}")
    if not change[-1] < args.tolerance or not all(c >= args.tolerance for c in change[:-1]):
        fail(f"velocity_change {change}: the last should be the first below {args.tolerance}")
    if s["velocity_change"] != change[-1] and abs(s["velocity_change"] - change[-1]) > 1e-9 * change[-1]:
        fail(f"summary.json velocity_change {s['velocity_change']}, diagnostics.csv {change[-1]}")
    print(f"  stopped steady at step {s['steps']} of {s['steps_planned']}: velocity_change {change[-2]:.3e} "
          f"then {change[-1]:.3e} (tolerance {args.tolerance})")


def check_vorticity(args):
    files = sorted(glob.glob(os.path.join(args.dir, "fields_*.nc")))
    if not files:
        fail(f"no field file in {args.dir}")
    worst = 0.0
    for path in files:
        F = Fields(path)
        u, v, w = F.values["u"], F.values["v"], F.values["vorticity"]
        scale = max(float(np.abs(w).max()), 1e-300)
        for e in range(F.K):
            s = slice(e * F.Np, (e + 1) * F.Np)
            x, y = F.x[s], F.y[s]
            xc, yc, h = x.mean(), y.mean(), max(np.ptp(x), np.ptp(y))
            X, Y = (x - xc) / h, (y - yc) / h
            A = np.array([[Xi ** a * Yi ** b for a, b in F.powers] for Xi, Yi in zip(X, Y)])
            cu, cv = np.linalg.solve(A, u[s]), np.linalg.solve(A, v[s])
            dx = np.array([[a * Xi ** (a - 1) * Yi ** b / h if a else 0.0 for a, b in F.powers] for Xi, Yi in zip(X, Y)])
            dy = np.array([[b * Xi ** a * Yi ** (b - 1) / h if b else 0.0 for a, b in F.powers] for Xi, Yi in zip(X, Y)])
            worst = max(worst, float(np.abs(dx @ cv - dy @ cu - w[s]).max()) / scale)
        if worst > 1e-8:
            fail(f"{path}: the vorticity differs from dv/dx - du/dy of u, v by {worst:.2e} (relative)")
    print(f"  {len(files)} field files: vorticity = dv/dx - du/dy to {worst:.1e} relative")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="what", required=True)
    q = sub.add_parser("probes")
    q.add_argument("dir")
    q.add_argument("--points", nargs="+", required=True, help="NAME=x,y as in the case file")
    q.add_argument("--exact", nargs="*", default=[], help="QUANTITY=python expression in x, y, t")
    q.add_argument("--tolerance", nargs="*", default=[], help="QUANTITY=largest difference to the exact")
    q.add_argument("--node", help="the probe on a mesh vertex")
    q.add_argument("--steps", type=int, nargs="*")
    q = sub.add_parser("same")
    q.add_argument("a")
    q.add_argument("b")
    q.add_argument("--rtol", type=float, required=True)
    q = sub.add_parser("statistics")
    q.add_argument("dir")
    q.add_argument("--start", type=float, required=True)
    q.add_argument("--not-periodic", action="store_true")
    q.add_argument("--strouhal", type=float, help="the exact Strouhal number of the lift")
    q.add_argument("--no-fields", action="store_true", help="no field statistics to check (one field file)")
    q = sub.add_parser("change")
    q.add_argument("dir")
    q.add_argument("--rate", type=float, required=True, help="the exact decay rate k^2 nu")
    q.add_argument("--rtol", type=float, required=True)
    q = sub.add_parser("steady")
    q.add_argument("dir")
    q.add_argument("--tolerance", type=float, required=True)
    q = sub.add_parser("vorticity")
    q.add_argument("dir")
    args = p.parse_args()
    {"probes": check_probes, "same": check_same, "statistics": check_statistics, "change": check_change,
     "steady": check_steady, "vorticity": check_vorticity}[args.what](args)
    print("check_observe: ok")


if __name__ == "__main__":
    main()
