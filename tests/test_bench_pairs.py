#!/usr/bin/env python3
"""test_bench_pairs.py -- bench/bench_step.py's paired mode (--against, --env, --against-env,
--pairs) on a stand-in for insdg: a script that reads the case file's final_time and dt and
writes a summary.json whose step stage takes 10 ms per step, or 12 ms where BENCH_TEST_SLOW=1
is in its environment. Checked: the per-pair and summary lines (new/old = 10/12 in every pair,
new faster in all 6, the sign test's p = 2/2^6), the same with the sides' environments
swapped (new faster in none), the sign test against the binomial sums written out, and
the refusal of an environment that is not KEY=VAL (exit 2). Prints "test_bench_pairs: ok";
exit 1 on the first failure."""
import os
import re
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "bench", "bench_step.py")

FAKE = r'''#!/usr/bin/env python3
import json, os, sys
case, out = sys.argv[2], sys.argv[sys.argv.index("--output") + 1]
vals = {}
for line in open(case):
    if "=" in line and not line.lstrip().startswith(";"):
        k, v = line.split(";")[0].split("=", 1)
        vals.setdefault(k.strip(), v.strip())
steps = round(float(vals["final_time"]) / float(vals["dt"]))
per = 0.012 if os.environ.get("BENCH_TEST_SLOW") == "1" else 0.010
os.makedirs(out, exist_ok=True)
json.dump({"stage_seconds": {"step": per * steps, "diagnostics": 0.0},
           "runtime_counters": {"tasks_per_step": 308.0}, "scheduler": "lws"},
          open(os.path.join(out, "summary.json"), "w"))
'''


def fail(msg):
    print(f"test_bench_pairs: FAIL: {msg}")
    sys.exit(1)


def run(tmp, *extra):
    return subprocess.run([sys.executable, BENCH, "--insdg", os.path.join(tmp, "insdg"), "--work", tmp,
                           "--settings", "1w", "--pairs", "6", "--warmup", "2", "--steps", "8", *extra],
                          capture_output=True, text=True)


def main():
    sys.path.insert(0, os.path.join(HERE, "..", "bench"))
    import bench_step
    for k, n, want in ((0, 5, 2 / 32), (14, 16, 2 * (1 + 16 + 120) / 65536), (8, 16, 1.0), (2, 16, 2 * 137 / 65536),
                       (3, 6, 1.0), (6, 6, 2 / 64)):
        got = bench_step.sign_test(k, n)
        if abs(got - want) > 1e-15:
            fail(f"sign_test({k}, {n}) = {got}, expected {want}")
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "insdg")
        open(fake, "w").write(FAKE)
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
        open(os.path.join(tmp, "square_h0.035.msh"), "w").write("")   # bench_step makes it with gmsh otherwise
        for extra, faster in ((["--against-env", "BENCH_TEST_SLOW=1"], 6),
                              (["--env", "BENCH_TEST_SLOW=1", "--against-env", "BENCH_TEST_SLOW=0"], 0)):
            r = run(tmp, *extra)
            if r.returncode != 0:
                fail(f"{extra}: exit {r.returncode}\n{r.stdout}{r.stderr}")
            pairs = re.findall(r"1w pair \d+: new ([\d.]+), old ([\d.]+) ms/step", r.stdout)
            if len(pairs) != 6:
                fail(f"{extra}: {len(pairs)} pair lines, expected 6:\n{r.stdout}")
            for a, b in pairs:
                want = 10 / 12 if faster else 12 / 10
                if abs(float(a) / float(b) - want) > 0.02:
                    fail(f"{extra}: pair new {a}, old {b}: ratio {float(a) / float(b):.3f}, expected {want:.3f}")
            last = r.stdout.strip().splitlines()[-1]
            m = re.fullmatch(r"bench_step pairs: 1w new/old=([\d.]+) new_faster=(\d+)/6 p=([\d.e-]+)", last)
            if not m or int(m.group(2)) != faster or abs(float(m.group(3)) - 2 / 64) > 1e-3:
                fail(f"{extra}: last line {last!r}, expected new_faster={faster}/6 p=0.031")
        r = run(tmp, "--against-env", "BENCH_TEST_SLOW")
        if r.returncode != 2 or "is not KEY=VAL" not in r.stderr:
            fail(f"a bad --against-env: exit {r.returncode}, {r.stderr!r}")
    print("test_bench_pairs: ok")


if __name__ == "__main__":
    main()
