#!/usr/bin/env python3
"""check_shipped_cases.py -- every case file under cases/ parses and runs: a copy of each
with its mesh path made absolute, final_time = 2 dt and a [statistics] window from 0 runs
two steps with `insdg run` (exit status 0, "status: completed"); so a shipped case whose
keys, probes or mesh went stale fails here and not in a user's hands.

Usage: check_shipped_cases.py INSDG CASES_DIR OUT_DIR   (prints "shipped cases: ok")
"""
import os
import re
import subprocess
import sys


def shortened(path, out):
    text = open(path).read()
    dt = float(re.search(r"^dt\s*=\s*([0-9.eE+-]+)", text, re.M).group(1))
    mesh = re.search(r"^mesh\s*=\s*(\S+)", text, re.M).group(1)
    text = re.sub(r"^mesh\s*=.*$", "mesh = " + os.path.join(os.path.dirname(os.path.abspath(path)), mesh), text,
                  count=1, flags=re.M)
    text = re.sub(r"^final_time\s*=.*$", "final_time = %r" % (2 * dt), text, count=1, flags=re.M)
    text = re.sub(r"^start\s*=.*$", "start = 0", text, flags=re.M)   # [statistics] and [time] start
    with open(out, "w") as f:
        f.write(text)


def main():
    insdg, cases, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    inis = sorted(os.path.join(d, f) for d, _, fs in os.walk(cases) for f in fs if f.endswith(".ini"))
    bad = []
    for ini in inis:
        name = os.path.splitext(os.path.basename(ini))[0]
        copy = os.path.join(out, name + ".ini")
        shortened(ini, copy)
        r = subprocess.run([insdg, "run", copy, "--output", os.path.join(out, name), "--progress", "log"],
                           capture_output=True, text=True)
        ok = r.returncode == 0 and "status: completed" in r.stdout + r.stderr
        print("%-24s %s" % (name, "ran 2 steps" if ok else "FAILED (status %d)" % r.returncode))
        if not ok:
            print((r.stdout + r.stderr)[-2000:])
            bad.append(name)
    if not inis or bad:
        print("shipped cases: FAIL: %s" % (", ".join(bad) if bad else "no case file found"))
        return 1
    print("shipped cases: ok (%d case files)" % len(inis))
    return 0


if __name__ == "__main__":
    sys.exit(main())
