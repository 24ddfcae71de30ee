#!/usr/bin/env python3
"""gpu_table.py CSV -- Markdown tables for docs/performance.md from bench_gpu's CSV (--csv):

1. every kernel in its default version (the last of the four studied ones): the fraction
   of the empirical roofline (min of the copy and shared-memory bounds) reached for each
   N, and GFLOP/s and GB/s at N = 1, 5 and the highest N;
2. the version ladder of the paper's four kernels: GFLOP/s per version and N, with the
   bound.
Standard library only.
"""
import csv
import sys
from collections import defaultdict

STUDIED = ["local_gradient", "sipdg", "adv_volume", "adv_surface"]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gpu_table.py bench_gpu.csv")
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    device = rows[0]["device"]
    ns = sorted({int(r["N"]) for r in rows})
    by = defaultdict(dict)
    order = []
    for r in rows:
        key = (r["kernel"], int(r["version"]))
        if key not in by:
            order.append(key)
        by[key][int(r["N"])] = r
    last = {}
    for k, v in order:
        last[k] = max(v, last.get(k, v))
    copy = float(rows[0]["copy_gbs"])
    smem = float(rows[0]["smem_gbs"])
    print(f"Device: {device}; measured device-to-device copy {copy:.0f} GB/s, shared memory {smem:.0f} GB/s.\n")
    print("Fraction of the empirical roofline, default version of each kernel:\n")
    print("| kernel | v | " + " | ".join(f"N={n}" for n in ns) + " | GFLOP/s (N=1 / 5 / %d) | GB/s (N=1 / 5 / %d) |"
          % (ns[-1], ns[-1]))
    print("|---|---|" + "---:|" * len(ns) + "---:|---:|")
    for k, v in order:
        if v != last[k]:
            continue
        d = by[(k, v)]
        frac = " | ".join(f"{100 * float(d[n]['fraction']):.0f}%" if n in d else "" for n in ns)
        pick = [n for n in (ns[0], 5, ns[-1]) if n in d]
        gf = " / ".join(f"{float(d[n]['gflops']):.0f}" for n in pick)
        gb = " / ".join(f"{float(d[n]['gbs']):.0f}" for n in pick)
        print(f"| {k} | {v} | {frac} | {gf} | {gb} |")
    print("\nVersion ladder of the paper's four kernels, GFLOP/s (bound of the last version):\n")
    print("| kernel | v | " + " | ".join(f"N={n}" for n in ns) + " |")
    print("|---|---|" + "---:|" * len(ns))
    for k in STUDIED:
        for v in sorted(vv for (kk, vv) in by if kk == k):
            d = by[(k, v)]
            print(f"| {k} | {v} | " + " | ".join(f"{float(d[n]['gflops']):.0f}" if n in d else "" for n in ns) + " |")
        d = by[(k, last[k])]
        print(f"| {k} | bound | " + " | ".join(f"{float(d[n]['bound_gflops']):.0f}" if n in d else "" for n in ns)
              + " |")


if __name__ == "__main__":
    main()
