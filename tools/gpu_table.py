#!/usr/bin/env python3
"""gpu_table.py CSV -- Markdown tables for docs/performance.md from bench_gpu's CSV (--csv):

1. every kernel in its default version (the last of the four studied ones): the fraction
   of the empirical roofline (min of the copy and shared-memory bounds) reached for each
   N, and GFLOP/s and GB/s at N = 1, 5 and the highest N;
2. the version ladder of the paper's four kernels: GFLOP/s per version and N, with the
   bound;
3. with rows of bench_gpu --sweep (column candidate >= 0): per kernel and N, the best
   launch candidate and its fraction beside the build's choice, and the TUNED tables
   (candidate per N) that the best ones give, for the cuda/*.cu sources.
Standard library only.
"""
import csv
import sys
from collections import defaultdict

STUDIED = ["local_gradient", "sipdg", "adv_volume", "adv_surface"]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gpu_table.py bench_gpu.csv")
    allrows = list(csv.DictReader(open(sys.argv[1], newline="")))
    rows = [r for r in allrows if int(r.get("candidate") or -1) < 0]
    sweep = [r for r in allrows if int(r.get("candidate") or -1) >= 0]
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
        if k not in last:   # a run of some kernels only (bench_gpu --only)
            continue
        for v in sorted(vv for (kk, vv) in by if kk == k):
            d = by[(k, v)]
            print(f"| {k} | {v} | " + " | ".join(f"{float(d[n]['gflops']):.0f}" if n in d else "" for n in ns) + " |")
        d = by[(k, last[k])]
        print(f"| {k} | bound | " + " | ".join(f"{float(d[n]['bound_gflops']):.0f}" if n in d else "" for n in ns)
              + " |")
    if sweep:
        sweep_tables(sweep, by, last, ns)


def sweep_tables(sweep, by, last, ns):
    """Best candidate per kernel and N (by time) beside the build's choice."""
    best = {}
    for r in sweep:
        key = (r["kernel"], int(r["N"]))
        if key not in best or float(r["seconds"]) < float(best[key]["seconds"]):
            best[key] = r
    kernels = []
    for r in sweep:
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    print("\nLaunch candidates (bench_gpu --sweep): fraction of the bound with the build's choice -> with the "
          "fastest candidate (c: threads per block / elements per block / per thread):\n")
    print("| kernel | " + " | ".join(f"N={n}" for n in ns) + " |")
    print("|---|" + "---|" * len(ns))
    for k in kernels:
        cells = []
        for n in ns:
            b = best.get((k, n))
            d = by.get((k, last.get(k, 0)), {}).get(n)
            if not b:
                cells.append("")
                continue
            was = f"{100 * float(d['fraction']):.0f}%" if d else "?"
            cells.append(f"{was} -> {100 * float(b['fraction']):.0f}% (c{b['candidate']}: {b['threads']}/"
                         f"{b['elements_per_block']}/{b['elements_per_thread']})")
        print(f"| {k} | " + " | ".join(cells) + " |")
    print("\nTUNED tables from the fastest candidates (index N = 0..10):\n")
    for k in kernels:
        t = [0] + [int(best[(k, n)]["candidate"]) if (k, n) in best else -1 for n in range(1, 11)]
        print(f"    {k}: {{{', '.join(str(x) for x in t)}}}")


if __name__ == "__main__":
    main()
