#!/usr/bin/env python3
"""tools/trace_gaps.py on a trace made by hand, its figures worked out below.

Worker 0: a [0, 10], reduce [10, 20], b [40, 50]; worker 1: c [20, 45]; the host waits
[-5, 28] (it comes back 8 us after reduce's end; b starts 12 us after that); one step
[0, 100]. Host-woken gap reduce -> b: 8.0 and 12.0. Worker 0 idle in (20, 40) while worker
1 is busy all of it: 20 us, 0.020 ms per step; worker 1 idle before c? it has one task: no
interval. --skip 0 keeps every task.
"""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
tool = os.path.join(here, "..", "tools", "trace_gaps.py")
rows = ["a 0 0 10", "reduce 0 10 20", "b 0 40 50", "c 1 20 45", "host_wait -1 -5 28", "step -2 0 100"]
with tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False) as f:
    f.write("\n".join(rows) + "\n")
out = subprocess.run([sys.executable, tool, f.name, "--skip", "0"], capture_output=True, text=True, check=True).stdout
os.unlink(f.name)
lines = out.splitlines()
woken = [l for l in lines if "reduce ->" in l and "woken" in l]
idle = [l for l in lines if "one worker idle" in l]
ok = (len(woken) == 1 and "woken n=    1" in woken[0] and "end->host back    8.0" in woken[0]
      and "host back->start   12.0" in woken[0] and len(idle) == 1 and "0.02 ms per step" in idle[0]
      and any("reduce ->" in l and "b" in l and "mean    20.0 us" in l for l in lines))
print(out)
print("test_trace_gaps: ok" if ok else "test_trace_gaps: FAILED")
sys.exit(0 if ok else 1)
