#!/usr/bin/env python3
"""ncu_summary.py NCU.csv -- one Markdown row per profiled kernel launch configuration from
Nsight Compute's `--csv` output (tools/gpu-tune.sh --ncu): duration, DRAM throughput, the
L1/TEX (shared memory and L1 loads) throughput, SM throughput, issue slots busy, achieved
and theoretical occupancy, registers per thread and static shared memory per block.
Launches of the same kernel and template arguments are averaged. Lines of the profiled
program's own output (not starting with a quote) are skipped; several runs' CSVs appended
to one file (each with its header) are read one after the other. Standard library only.
"""
import csv
import io
import re
import sys
from collections import OrderedDict

METRICS = [("Duration", "us", 1e-3), ("DRAM Throughput", "DRAM %", 1), ("L1/TEX Cache Throughput", "L1/TEX %", 1),
           ("Compute (SM) Throughput", "SM %", 1), ("Issue Slots Busy", "issue %", 1),
           ("Achieved Occupancy", "occ. %", 1), ("Theoretical Occupancy", "theor. %", 1),
           ("Registers Per Thread", "regs", 1), ("Static Shared Memory Per Block", "smem B", 1),
           ("Block Size", "threads", 1)]


def number(text):
    return float(text.replace(",", ""))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ncu_summary.py NCU.csv")
    lines = [line for line in open(sys.argv[1]) if line.startswith('"')]
    if not lines:
        sys.exit(f"{sys.argv[1]}: no Nsight Compute rows")
    # several ncu runs appended to one file: each starts with its header, its launch IDs from 0
    runs, header = [], lines[0]
    for line in lines:
        if line == header:
            runs.append([])
        runs[-1].append(line)
    launches = OrderedDict()
    for k, run in enumerate(runs):
        for r in csv.DictReader(io.StringIO("".join(run))):
            launches.setdefault((k, r["ID"]), {"name": r["Kernel Name"]})[r["Metric Name"]] = r["Metric Value"]
    kernels = OrderedDict()
    for m in launches.values():
        # "void insdg_gpu::(anonymous namespace)::sipdg_blocked<5, 7, 2>(...)" -> "sipdg_blocked<5, 7, 2>"
        t = re.search(r"(\w+<[^<>]*>)\s*\(", m["name"])
        name = t.group(1) if t else m["name"]
        kernels.setdefault(name, []).append(m)
    print("| kernel<N, ...> | " + " | ".join(h for _, h, _ in METRICS) + " |")
    print("|---|" + "---:|" * len(METRICS))
    for name, ms in kernels.items():
        cells = []
        for key, _, scale in METRICS:
            vals = [number(m[key]) * scale for m in ms if key in m]
            cells.append(f"{sum(vals) / len(vals):.0f}" if vals else "")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
