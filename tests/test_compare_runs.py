#!/usr/bin/env python3
"""test_compare_runs.py -- tools/compare_runs.py (the GPU-vs-CPU verdict of gpu-check.sh)
on run directories made here: the same run passes; an L2 error 1e-9 of the solution's norm
apart fails at 1e-10 with equal iteration counts and passes with --rtol-solver 1e-8 when the
counts differ; max |div u| is measured against cfl/dt (a 2e-12 difference of a 2.2e-6
divergence passes, a 2e-6 one fails); a force component against its force vector.
Prints "test_compare_runs: ok"; exit 1 on the first wrong verdict."""
import json
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "compare_runs.py")
HEADER = "step,time,dt,iterations_u,iterations_v,iterations_p,converged,kinetic_energy,max_div_u,cfl,fx_right,fy_right"


def make(root, name, err_u=5.0e-7, iters=(4.24, 4.23, 3.05), div=2.211419e-06, fx=6.458887e-08):
    d = os.path.join(root, name)
    os.makedirs(d)
    norm = 0.69
    summary = {"status": "completed", "steps": 100, "ranks": 1, "workers": 1, "cuda_workers": 1, "blocks": 1,
               "seconds_per_step": 0.01, "step_seconds": {"advection": 0.1, "velocity": 0.2, "pressure": 0.7},
               "mean_iterations": dict(zip("uvp", iters)), "runtime": None,
               "errors": {k: {"absolute": e, "relative": e / norm} for k, e in
                          (("u", err_u), ("v", 4.257288e-07), ("p", 5.519979e-07))}}
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summary, f)
    with open(os.path.join(d, "diagnostics.csv"), "w") as f:
        f.write(HEADER + "\n")
        f.write(f"100,0.0625,0.000625,4,4,3,1,4.759248968900000e-01,{div:.9e},1.157832,{fx:.9e},6.130045943200000e-02\n")
    return d


def verdict(a, b, *extra):
    r = subprocess.run([sys.executable, TOOL, a, b, "--rtol", "1e-10", *extra], capture_output=True, text=True)
    return r.returncode


def main():
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}: exit {got}, expected {want}")

    with tempfile.TemporaryDirectory() as t:
        ref = make(t, "ref")
        expect("the same run", verdict(make(t, "same"), ref), 0)
        # 1e-9 of the solution's norm (0.69): 6.9e-10 absolute
        far = make(t, "far", err_u=5.0e-7 + 6.9e-10)
        expect("error 1e-9 apart, same iterations", verdict(far, ref, "--rtol-solver", "1e-8"), 1)
        moved = make(t, "moved", err_u=5.0e-7 + 6.9e-10, iters=(4.25, 4.23, 3.05))
        expect("error 1e-9 apart, iterations differ", verdict(moved, ref, "--rtol-solver", "1e-8"), 0)
        expect("iterations differ, no --rtol-solver", verdict(moved, ref), 1)
        worse = make(t, "worse", err_u=5.0e-7 + 6.9e-8, iters=(4.25, 4.23, 3.05))
        expect("error 1e-7 apart, iterations differ", verdict(worse, ref, "--rtol-solver", "1e-8"), 1)
        # cfl/dt = 1.157832 / 0.000625 = 1852.5: 2e-12 -> 1.1e-15, 2e-6 -> 1.1e-9
        expect("div 2e-12 apart", verdict(make(t, "div_near", div=2.211421e-06), ref), 0)
        expect("div 2e-6 apart", verdict(make(t, "div_far", div=4.211419e-06), ref), 1)
        # fx against |(fx, fy)| = 0.0613: 6e-15 apart passes, 6e-11 (1e-9) fails
        expect("fx 6e-15 apart", verdict(make(t, "fx_near", fx=6.458887e-08 + 6e-15), ref), 0)
        expect("fx 6e-11 apart", verdict(make(t, "fx_far", fx=6.458887e-08 + 6e-11), ref), 1)
    if failures:
        print("test_compare_runs: FAILED\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("test_compare_runs: ok")


if __name__ == "__main__":
    main()
