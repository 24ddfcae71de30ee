#!/usr/bin/env python3
"""tools/cylinder_analysis.py on a synthetic force history with known answers:
C_D = 1.5 + 0.01 sin(2 w t), C_L = 0.3 sin(w t + 0.4) + 0.03 (-1)^k, w = 2 pi St, St = 0.145, sampled
every 0.04 as diagnostics.csv rows (forces F = C U^2 D / 2 with U = D = 1). Expected:
St = 0.145 to 0.2%, mean C_D 1.5 and rms C_L 0.3/sqrt(2) to 0.5% over a whole number of
periods; --check passes, and fails for a signal at St = 0.16."""
import math
import os
import subprocess
import sys
import tempfile

tool = os.path.join(os.path.dirname(__file__), "..", "tools", "cylinder_analysis.py")


def write(d, st):
    w = 2 * math.pi * st
    with open(os.path.join(d, "diagnostics.csv"), "w") as f:
        f.write("step,time,dt,iterations_u,iterations_v,iterations_p,converged,kinetic_energy,max_div_u,cfl,"
                "fx_cylinder,fy_cylinder\n")
        for k in range(1, 3251):
            t = 0.04 * k
            # plus the step-to-step oscillation the pressure force shows in real runs
            cd, cl = 1.5 + 0.01 * math.sin(2 * w * t), 0.3 * math.sin(w * t + 0.4) + 0.03 * (-1) ** k
            f.write(f"{k},{t},0.04,1,1,1,1,1,0,0,{cd / 2:.12e},{cl / 2:.12e}\n")


def run(d, *extra):
    return subprocess.run([sys.executable, tool, d, *extra], capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory() as d:
        write(d, 0.145)
        r = run(d, "--from", str(60), "--to", str(60 + 10 / 0.145), "--markdown", os.path.join(d, "t.md"), "--check")
        print(r.stdout, r.stderr)
        line = [l for l in r.stdout.splitlines() if l.startswith("| insdg")][0].split("|")
        st, cd, clrms = float(line[2]), float(line[3]), float(line[4])
        ok = r.returncode == 0 and abs(st / 0.145 - 1) < 2e-3 and abs(cd / 1.5 - 1) < 5e-3 \
            and abs(clrms / math.sqrt(0.3 ** 2 / 2 + 0.03 ** 2) - 1) < 5e-3
        write(d, 0.16)
        r2 = run(d, "--check")
        ok = ok and r2.returncode == 1 and "FAIL" in r2.stdout
        print("test_cylinder_analysis:", "ok" if ok else "FAIL")
        sys.exit(0 if ok else 1)


main()
