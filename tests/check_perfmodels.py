#!/usr/bin/env python3
"""check_perfmodels.py STARPU_HOME CODELET[=MIN_ENTRIES] ... -- the history-based models an
`insdg run` with INSDG_PERFMODELS=1 STARPU_CALIBRATE=1 leaves in StarPU's sampling
directory (tasks/runtime.c): for each named codelet a model file
STARPU_HOME/.starpu/sampling/codelets/<version>/<codelet>.<host> whose history has at
least MIN_ENTRIES (default 1) entries with samples (one per task name and data size),
each with a mean time > 0 and finite. --absent: no codelet models at all
(a run without INSDG_PERFMODELS). Prints "check_perfmodels: ok" on success, exit 1 else.
"""
import glob
import math
import os
import sys


def history(path):
    """The (hash, size, mean_us, n) rows of every history table in a model file."""
    rows, inside = [], False
    for line in open(path):
        if line.startswith("# hash"):
            inside = True
            continue
        if line.startswith("#"):
            inside = False
            continue
        f = line.split()
        if inside and len(f) == 8:
            rows.append((f[0], int(f[1]), float(f[3]), int(f[7])))
    return rows


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit("usage: check_perfmodels.py STARPU_HOME CODELET[=MIN_ENTRIES] ... | --absent")
    home = args[0]
    models = glob.glob(os.path.join(home, ".starpu", "sampling", "codelets", "*", "*"))
    if args[1] == "--absent":
        if models:
            sys.exit(f"check_perfmodels: models written without INSDG_PERFMODELS: {models}")
        print("check_perfmodels: ok (no codelet models)")
        return
    failed = False
    for spec in args[1:]:
        name, _, least = spec.partition("=")
        least = int(least or 1)
        files = [m for m in models if os.path.basename(m).split(".")[0] == name]
        if not files:
            print(f"check_perfmodels: no model for {name} (found: {sorted(os.path.basename(m) for m in models)})")
            failed = True
            continue
        # entries without samples (n = 0) are ones StarPU created without measuring (seen
        # in a run with a CUDA worker): not counted
        rows = [r for f in files for r in history(f) if r[3] > 0]
        bad = [r for r in rows if not (math.isfinite(r[2]) and r[2] > 0)]
        print(f"{name}: {len(rows)} entries, {sum(r[3] for r in rows)} samples")
        if len(rows) < least or bad:
            print(f"check_perfmodels: {name}: {len(rows)} entries (need {least}), bad entries {bad}")
            failed = True
    if failed:
        sys.exit(1)
    print("check_perfmodels: ok")


if __name__ == "__main__":
    main()
