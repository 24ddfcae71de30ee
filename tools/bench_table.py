#!/usr/bin/env python3
"""Turn bench_ops --csv output into the markdown table of docs/performance.md.

usage: /usr/bin/python3 tools/bench_table.py docs/bench_ops.csv
"""
import csv
import sys


def main(path):
    rows = list(csv.DictReader(open(path)))
    if not rows:
        sys.exit(f"{path}: no rows")
    bw = [float(r["stream_gbs"]) for r in rows]
    peak = [float(r["peak_gflops"]) for r in rows]
    # since 2026-11-28 each row has the roofline measured between its own repetitions
    print(f"stream triad {min(bw):.2f}-{max(bw):.2f} GB/s, FMA peak {min(peak):.1f}-{max(peak):.1f} GFLOP/s "
          f"(one core; each row's bound from its own)\n")
    # since 2026-11-29: the fraction of the compulsory-traffic bound too (bench_ops' "strict")
    strict = "fraction_compulsory" in rows[0]
    print("| N | K | operator | ns/element | GFLOP/s | GB/s | flop/byte | bound GFLOP/s | fraction |"
          + (" strict |" if strict else ""))
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if strict else ""))
    for r in rows:
        print(f"| {r['N']} | {r['K']} | {r['operator']} | {1e9 * float(r['seconds_per_element']):.1f} | "
              f"{float(r['gflops']):.2f} | {float(r['gbs']):.2f} | {float(r['intensity']):.2f} | "
              f"{float(r['bound_gflops']):.1f} | {100 * float(r['fraction']):.0f}% |"
              + (f" {100 * float(r['fraction_compulsory']):.0f}% |" if strict else ""))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
