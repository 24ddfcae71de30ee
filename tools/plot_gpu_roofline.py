#!/usr/bin/python3
"""plot_gpu_roofline.py CSV [--out DIR] -- paper-style plots (Karakus et al. §5, figures
"Achieved floating point performance ... compared against the empirical roofline model")
from the CSV that bench/bench_gpu writes (--csv).

Writes into DIR (default: the CSV's folder):
  gpu_roofline_<kernel>.png  for the four studied kernels (local_gradient, sipdg,
      adv_volume, adv_surface): GFLOP/s against N for every version, the empirical
      roofline of the last version as a black line (min of the copy and shared-memory
      bounds) and the device-to-device copy bound dashed;
  gpu_roofline_fraction.png  fraction of the bound reached by every kernel (the last
      version of the studied ones) against N;
  gpu_bandwidth.png  achieved GB/s of every kernel against N, with the measured
      device-to-device copy bandwidth as a line.
Uses matplotlib's Agg backend (no display needed): /usr/bin/python3 on Debian.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STUDIED = ["local_gradient", "sipdg", "adv_volume", "adv_surface"]
TITLES = {
    "local_gradient": "Local gradient",
    "sipdg": "SIPDG (Ax)",
    "adv_volume": "Subcycling advection volume (SAV)",
    "adv_surface": "Subcycling advection surface (SAS)",
}


def read(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if int(r.get("candidate") or -1) >= 0:   # bench_gpu --sweep rows: tables only
                continue
            for k in ("N", "K", "version", "threads", "elements_per_block", "elements_per_thread"):
                r[k] = int(r[k])
            for k in ("gflops", "gbs", "copy_bound_gflops", "smem_bound_gflops", "bound_gflops", "fraction",
                      "copy_gbs", "smem_gbs"):
                r[k] = float(r[k])
            rows.append(r)
    if not rows:
        sys.exit(f"{path}: no rows")
    return rows


def studied_plots(rows, out, device):
    by = defaultdict(list)
    for r in rows:
        by[(r["kernel"], r["version"])].append(r)
    written = []
    for kern in STUDIED:
        versions = sorted(v for (k, v) in by if k == kern)
        if not versions:
            continue
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        for v in versions:
            pts = sorted(by[(kern, v)], key=lambda r: r["N"])
            ax.plot([r["N"] for r in pts], [r["gflops"] for r in pts], marker="o", ms=4, lw=1.2,
                    label=f"Kernel {v}")
        last = sorted(by[(kern, versions[-1])], key=lambda r: r["N"])
        ax.plot([r["N"] for r in last], [r["bound_gflops"] for r in last], color="black", lw=2,
                label="roofline (min of copy and shared-memory bounds)")
        ax.plot([r["N"] for r in last], [r["copy_bound_gflops"] for r in last], color="black", lw=1, ls="--",
                label="device-to-device copy bound")
        ax.set_xlabel("polynomial degree N")
        ax.set_ylabel("GFLOP/s (double)")
        ax.set_title(f"{TITLES[kern]}\n{device}, K >= {min(r['K'] for r in last)}", fontsize=10)
        ax.set_xticks(sorted({r["N"] for r in last}))
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(out, f"gpu_roofline_{kern}.png")
        fig.savefig(path, dpi=150)
        plt.close(fig)
        written.append(path)
    return written


def last_versions(rows):
    last = {}
    for r in rows:
        last[r["kernel"]] = max(last.get(r["kernel"], 0), r["version"])
    return [r for r in rows if r["version"] == last[r["kernel"]]]


def per_kernel_plot(rows, out, device, fname, value, ylabel, title, line, line_label=None):
    """One curve per kernel (its last version) of value(row) against N, a horizontal line at
    `line` (the bound), saved as out/fname."""
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    fig, ax = plt.subplots(figsize=(7.2, 4.8))
    for kern in kernels:
        pts = sorted((r for r in rows if r["kernel"] == kern), key=lambda r: r["N"])
        ax.plot([r["N"] for r in pts], [value(r) for r in pts], marker="o", ms=3, lw=1, label=kern)
    ax.axhline(line, color="black", lw=2 if line_label else 1, label=line_label)
    ax.set_xlabel("polynomial degree N")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title}\n{device}", fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path = os.path.join(out, fname)
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return [path]


def fraction_plot(rows, out, device):
    rows = [r for r in last_versions(rows) if r["bound_gflops"] > 0]
    return per_kernel_plot(rows, out, device, "gpu_roofline_fraction.png", lambda r: 100 * r["fraction"],
                           "% of the empirical roofline bound", "Fraction of the bound, last version of each kernel",
                           100)


def bandwidth_plot(rows, out, device):
    rows = last_versions(rows)
    return per_kernel_plot(rows, out, device, "gpu_bandwidth.png", lambda r: r["gbs"],
                           "GB/s (compulsory bytes / time)", "Achieved bandwidth", rows[0]["copy_gbs"],
                           "device-to-device copy (large buffer)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--out", default=None, help="folder for the PNG files (default: the CSV's)")
    a = ap.parse_args()
    rows = read(a.csv)
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    os.makedirs(out, exist_ok=True)
    device = rows[0]["device"]
    written = studied_plots(rows, out, device) + fraction_plot(rows, out, device) + bandwidth_plot(rows, out, device)
    for p in written:
        print(f"wrote {p}")


if __name__ == "__main__":
    main()
