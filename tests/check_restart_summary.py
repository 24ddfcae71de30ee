#!/usr/bin/python3
"""check_restart_summary.py FULL CONT STEP -- summary.json of a run restarted at STEP (in
CONT) against the uninterrupted run (FULL): steps_this_run and restarted_from_step say what
the restarted process did; its mean_iterations are those of its own rows of
diagnostics.csv (steps > STEP), its mean_iterations_since_start the uninterrupted run's."""
import csv
import json
import sys


def main():
    full_dir, cont_dir, step = sys.argv[1], sys.argv[2], int(sys.argv[3])
    full = json.load(open(f"{full_dir}/summary.json"))
    cont = json.load(open(f"{cont_dir}/summary.json"))
    rows = [r for r in csv.DictReader(open(f"{cont_dir}/diagnostics.csv")) if int(r["step"]) > step]
    errors = []

    def expect(what, got, want):
        if got != want and not (isinstance(want, float) and abs(got - want) <= 1e-12 * abs(want)):
            errors.append(f"{what}: {got!r}, expected {want!r}")

    expect("steps", cont["steps"], full["steps"])
    expect("steps_this_run", cont["steps_this_run"], full["steps"] - step)
    expect("restarted_from_step", cont["restarted_from_step"], step)
    expect("full run's restarted_from_step", full["restarted_from_step"], None)
    for k in "uvp":
        mine = sum(int(r[f"iterations_{k}"]) for r in rows) / len(rows)
        expect(f"mean_iterations.{k}", float(cont["mean_iterations"][k]), mine)
        expect(f"mean_iterations_since_start.{k}", float(cont["mean_iterations_since_start"][k]),
               float(full["mean_iterations"][k]))
    if not cont.get("insdg_version", "").startswith("insdg "):
        errors.append(f"insdg_version: {cont.get('insdg_version')!r}")
    if errors:
        sys.exit("check_restart_summary: " + "; ".join(errors))
    print(f"check_restart_summary: restarted at step {step}: this run {cont['steps_this_run']} steps, "
          f"mean iterations {cont['mean_iterations']}, since t = 0 {cont['mean_iterations_since_start']}")


main()
