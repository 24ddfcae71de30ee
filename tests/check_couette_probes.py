#!/usr/bin/env python3
"""check_couette_probes.py RUN_DIR [OTHER_RUN_DIR] -- the probes of tests/cases/run_couette.ini
(points in curved elements) against the exact circular Couette flow: u, v to 2e-4 of the
wall speed, the vorticity 2A = -2/3 to 5e-3 (computed here from the formulas, not by
insdg); with a second run directory, its probes.csv equal to 1e-8 (another decomposition)."""
import csv
import math
import sys

A, B = -1.0 / 3, 1.0 / 3
POINTS = {"near_outer": (0.995, math.pi / 16), "near_inner": (0.502, 5 * math.pi / 16), "mid": (0.75, 0.0)}


def rows(d):
    with open(d + "/probes.csv", newline="") as f:
        return list(csv.DictReader(f))


def main():
    last = rows(sys.argv[1])[-1]
    worst = {"u": 0.0, "w": 0.0}
    for name, (r, th) in POINTS.items():
        x, y = r * math.cos(th), r * math.sin(th)
        ut = A * r + B / r
        ue, ve = -ut * y / r, ut * x / r
        du = max(abs(float(last[name + "_u"]) - ue), abs(float(last[name + "_v"]) - ve))
        dw = abs(float(last[name + "_vorticity"]) - 2 * A)
        worst["u"], worst["w"] = max(worst["u"], du), max(worst["w"], dw)
        print("%-10s r = %.3f: |u - exact| %.2e, |vorticity - 2A| %.2e" % (name, r, du, dw))
    ok = worst["u"] < 2e-4 and worst["w"] < 5e-3
    if len(sys.argv) > 2:
        a, b = rows(sys.argv[1]), rows(sys.argv[2])
        diff = max(abs(float(ra[k]) - float(rb[k])) for ra, rb in zip(a, b) for k in ra if k not in ("step", "time"))
        print("second run: max difference %.2e over %d rows" % (diff, len(a)))
        ok = ok and len(a) == len(b) and diff < 1e-8
    print("couette probes: ok" if ok else "couette probes: FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
