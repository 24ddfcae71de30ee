"""verify_common.py -- shared helpers of the verification scripts (tools/verify_*.py).

Each script writes case files into a work directory, runs `insdg run` on them one at a
time (one process, one StarPU worker, one block), reads each run's summary.json and
writes a CSV of the results, markdown tables and PNG plots. Nothing here writes into
cases/.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The Taylor vortex of the paper's section 4.1 on [-0.5, 0.5]^2 (cases/taylor_vortex):
# exact data on bottom, top and left (inflow), exact pressure on the right (outflow).
TAYLOR_EXACT = {
    "u": "-sin(k*y)*exp(-k^2*nu*t)",
    "v": "sin(k*x)*exp(-k^2*nu*t)",
    "p": "-cos(k*x)*cos(k*y)*exp(-2*k^2*nu*t)",
}

# The Kovasznay flow at Re = 40 on [-0.5, 1] x [-0.5, 1.5] (cases/kovasznay).
KOVASZNAY_EXACT = {
    "u": "1 - exp(lambda*x)*cos(2*pi*y)",
    "v": "lambda/(2*pi)*exp(lambda*x)*sin(2*pi*y)",
    "p": "(1 - exp(2*lambda*x))/2",
}


def _solvers(tol_u, tol_p):
    return ("[velocity_solver]\ntolerance = %g\nmax_iterations = 20000\n\n"
            "[pressure_solver]\ntolerance = %g\nmax_iterations = 5000\n\n" % (tol_u, tol_p))


def _flow_case(name, mesh, order, refine, dt, final_time, time_order, substeps, constants, nu,
               exact, tol_u, tol_p, start="lower_order"):
    inflow = "type = inflow\nu = %s\nv = %s\n" % (exact["u"], exact["v"])
    s = ["; written by tools/verify_*.py\n[case]\nname = %s\nmesh = %s\norder = %d\nrefine = %d\n"
         % (name, mesh, order, refine)]
    s.append("\n[constants]\n" + "".join("%s = %s\n" % kv for kv in constants))
    s.append("\n[physics]\nnu = %s\n" % nu)
    s.append("\n[time]\ndt = %r\nfinal_time = %r\norder = %d\nsubsteps = %d\n%s\n"
             % (dt, final_time, time_order, substeps, "" if start == "lower_order" else "start = %s\n" % start))
    s.append(_solvers(tol_u, tol_p))
    s.append("[initial]\n" + "".join("%s = %s\n" % (f, exact[f]) for f in ("u", "v", "p")))
    for b in ("bottom", "top", "left"):
        s.append("\n[boundary.%s]\n%s" % (b, inflow))
    s.append("\n[boundary.right]\ntype = outflow\np = %s\n" % exact["p"])
    s.append("\n[exact]\n" + "".join("%s = %s\n" % (f, exact[f]) for f in ("u", "v", "p")))
    return "".join(s)


def taylor_case(name, mesh, order, refine, dt, final_time, time_order=2, substeps=0,
                tol_u=1e-12, tol_p=1e-12, start="lower_order"):
    """The Taylor vortex case file (nu = 0.01) as a string; start: [time] start."""
    return _flow_case(name, mesh, order, refine, dt, final_time, time_order, substeps,
                      [("k", "2*pi")], "0.01", TAYLOR_EXACT, tol_u, tol_p, start)


def kovasznay_case(name, mesh, order, refine, dt, final_time, time_order=2, substeps=0,
                   tol_u=1e-12, tol_p=1e-12):
    """The Kovasznay case file (Re = 40, nu = 1/Re) as a string; it starts from the exact
    solution (the [initial] values are the exact ones, which do not depend on t)."""
    return _flow_case(name, mesh, order, refine, dt, final_time, time_order, substeps,
                      [("Re", "40"), ("lambda", "Re/2 - sqrt(Re^2/4 + 4*pi^2)")], "1/Re",
                      KOVASZNAY_EXACT, tol_u, tol_p)


def common_args(description, default_workdir):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--workdir", default=os.path.join(ROOT, default_workdir),
                    help="where case files and run outputs go (default: %(default)s)")
    ap.add_argument("--insdg", default=os.path.join(ROOT, "build", "insdg"),
                    help="the insdg binary (default: %(default)s)")
    ap.add_argument("--quick", action="store_true",
                    help="a small subset (under a minute), for the ctest 'verify' tests")
    ap.add_argument("--plot-only", metavar="CSV",
                    help="redraw the tables and plots from a CSV written earlier; run nothing")
    ap.add_argument("--figures", default=os.path.join(ROOT, "docs", "figures"),
                    help="directory of the PNG plots (default: %(default)s); 'none': no plots")
    ap.add_argument("--tables", default=os.path.join(ROOT, "docs", "verification"),
                    help="directory of the markdown tables (default: %(default)s); 'none': only print")
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "verification.md"),
                    help="markdown file whose block between '<!-- begin STEM.md -->' and "
                         "'<!-- end STEM.md -->' gets the tables (default: %(default)s); 'none': leave it")
    ap.add_argument("--stem", default=None,
                    help="name of the CSV, table, plot and doc block (default: the study's name)")
    ap.add_argument("--keep-going", action="store_true",
                    help="exit 0 even when a check fails (the failures are still printed)")
    return ap


def out_paths(args, stem):
    """CSV, markdown table and PNG paths of a study; --quick writes them all into the
    work directory so that a quick run never overwrites the documented results."""
    stem = args.stem or stem
    if args.quick:
        d = args.workdir
        return (os.path.join(d, stem + ".csv"), os.path.join(d, stem + ".md"), os.path.join(d, stem + ".png"))
    tables = None if args.tables == "none" else args.tables
    figs = None if args.figures == "none" else args.figures
    return (os.path.join(args.workdir, stem + ".csv"),
            os.path.join(tables, stem + ".md") if tables else None,
            os.path.join(figs, stem + ".png") if figs else None)


def run_insdg(insdg, workdir, name, case_text, log=True):
    """Write workdir/name.ini, run `insdg run` on it into workdir/name/ and return its
    summary (a dict; status 'failed' with the exit status when there is no summary)."""
    os.makedirs(workdir, exist_ok=True)
    ini = os.path.join(workdir, name + ".ini")
    out = os.path.join(workdir, name)
    with open(ini, "w") as f:
        f.write(case_text)
    env = dict(os.environ)
    env.update({"STARPU_SILENT": "1", "STARPU_WORKERS_NOBIND": "1", "STARPU_NCPU": "1"})
    for k in ("STARPU_NCUDA", "STARPU_NOPENCL"):
        env.setdefault(k, "0")
    summ = os.path.join(out, "summary.json")
    if os.path.exists(summ):
        os.remove(summ)
    t0 = time.time()
    with open(os.path.join(workdir, name + ".log"), "w") as lf:
        rc = subprocess.call([insdg, "run", ini, "--output", out, "--blocks", "1", "--progress", "log"],
                             stdout=lf, stderr=subprocess.STDOUT, env=env)
    wall = time.time() - t0
    if os.path.exists(summ):
        with open(summ) as f:
            s = json.load(f)
    else:
        s = {"status": "failed (exit status %d, no summary.json)" % rc}
    s["exit_status"] = rc
    s["process_seconds"] = wall
    s["insdg_built"] = built(insdg)
    if log:
        e = s.get("errors") or {}
        print("  %-28s %-14s steps %5s  %6.1f s  u %s  p %s" % (
            name, s["status"], s.get("steps", "-"), wall, fmt(e.get("u", {}).get("relative")),
            fmt(e.get("p", {}).get("relative"))), flush=True)
    return s


def built(insdg):
    """The modification time of the insdg binary (UTC), to tell which build made a run."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(insdg)))


def built_line(rows):
    b = sorted({r.get("insdg_built") for r in rows if r.get("insdg_built")})
    return "Runs made with build/insdg built %s." % " and ".join(b) if b else ""


def fmt(x, spec="%.3e"):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return spec % x


def rate(e1, e2, ratio):
    """Observed order from errors e1 (coarse) and e2 (fine) with step ratio `ratio`."""
    if not e1 or not e2 or e1 <= 0 or e2 <= 0:
        return None
    return math.log(e1 / e2) / math.log(ratio)


def write_csv(path, rows, fields):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summary_row(s, name, iterations=True):
    """the columns every study's CSV takes from a run's summary.json: status, relative
    errors, (mean iterations,) wall seconds, the run's name and the binary's build time"""
    e = s.get("errors") or {}
    row = {"steps": s.get("steps", ""), "status": s["status"],
           "err_u": e.get("u", {}).get("relative", ""), "err_v": e.get("v", {}).get("relative", ""),
           "err_p": e.get("p", {}).get("relative", "")}
    if iterations:
        row["mean_it_u"] = s.get("mean_iterations", {}).get("u", "")
        row["mean_it_p"] = s.get("mean_iterations", {}).get("p", "")
    row.update({"wall_seconds": "%.2f" % s["process_seconds"], "run": name, "insdg_built": s["insdg_built"]})
    return row


def failed(row):
    """a run that did not complete, or whose u error is not a finite number below 1"""
    e = fnum(row["err_u"])
    return row["status"] != "completed" or e is None or not math.isfinite(e) or e >= 1.0


def fnum(x):
    """A CSV cell as a float (None when empty)."""
    if x is None or x == "":
        return None
    return float(x)


def write_text(path, text):
    print(text)
    if path:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        print("wrote %s" % os.path.relpath(path, os.getcwd()))


def embed(args, stem, text):
    """Put the tables into args.doc between the markers of STEM.md (not in --quick mode)."""
    if args.quick or args.doc == "none" or not os.path.exists(args.doc):
        return
    stem = args.stem or stem
    begin, end = "<!-- begin %s.md -->" % stem, "<!-- end %s.md -->" % stem
    with open(args.doc) as f:
        doc = f.read()
    i, j = doc.find(begin), doc.find(end)
    if i < 0 or j < i:
        print("%s: no markers %s ... %s, not updated" % (args.doc, begin, end))
        return
    doc = doc[:i + len(begin)] + "\n" + text + doc[j:]
    with open(args.doc, "w") as f:
        f.write(doc)
    print("updated %s" % os.path.relpath(args.doc, os.getcwd()))


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def run_study(args, stem, fields, run_rows, report):
    """The flow every study shares: run (run_rows() -> rows) or, with --plot-only, read the
    rows of an earlier CSV; write the CSV, the markdown table (and the block of args.doc),
    the plot, and end with the checks. report(rows) -> (table text, failures, plot(png))."""
    csv_path, md_path, png_path = out_paths(args, stem)
    t0 = time.time()
    if args.plot_only:
        rows = read_csv(args.plot_only)
    else:
        rows = run_rows()
        write_csv(csv_path, rows, fields)
        print("wrote %s" % os.path.relpath(csv_path, os.getcwd()))
    text, failures, plot = report(rows)
    write_text(md_path, text)
    embed(args, stem, text)
    if png_path:
        plot(png_path)
    if not args.plot_only:
        print("wall time %.0f s" % (time.time() - t0))
    finish(failures, args.keep_going)


def save_figure(fig, ax, xlabel, ylabel, title, png):
    """Label, grid and legend a study's semilog axes, and write the figure to png."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    write_figure(fig, png)


def write_figure(fig, png):
    fig.tight_layout()
    os.makedirs(os.path.dirname(png) or ".", exist_ok=True)
    fig.savefig(png, dpi=110)
    print("wrote %s" % os.path.relpath(png, os.getcwd()))


def finish(failures, keep_going):
    if failures:
        print("FAILED checks:")
        for f in failures:
            print("  " + f)
        if not keep_going:
            sys.exit(1)
    else:
        print("all checks passed")
