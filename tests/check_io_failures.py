#!/usr/bin/python3
"""check_io_failures.py INSDG CASE WORKDIR CHECK -- what `insdg run` does with its output
directory when things go wrong (issue 17, item 3). CHECK is one of

  full      a file system too small for the run's files (a 300 kB tmpfs; needs root and
            mount, else exit 77 = skipped): exit status 6, an error line saying the file was
            not written and why, no claim on stdout that summary.json was written when it
            was not, no *.tmp left behind
  leftovers a checkpoint_*.nc.tmp and a summary.json.tmp left by a killed run are removed
            at the start (and said so); a file of the user's named *.tmp is kept
  kept      [output] checkpoints_kept = 2 with a checkpoint every step: at the end the two
            newest checkpoints remain, summary.json counts the deleted ones; a checkpoint of
            a later step than the run's (left by an earlier, longer run) is kept
"""
import json
import os
import shutil
import subprocess
import sys


def run(insdg, case, outdir, extra_case=None):
    if extra_case:
        text = open(case).read()
        base = os.path.dirname(os.path.abspath(case))
        text = text.replace("../../cases/", os.path.join(base, "../../cases/"))
        text = "\n".join(l for l in text.splitlines() if not l.startswith("checkpoint_interval_steps"))
        text = text.replace("[output]\n", "[output]\n" + extra_case, 1)
        case = os.path.join(os.path.dirname(outdir), "case.ini")
        open(case, "w").write(text)
    return subprocess.run([insdg, "run", case, "--output", outdir, "--progress", "log"], capture_output=True, text=True)


def fail(msg, p=None):
    if p is not None:
        msg += f"\n--- stdout\n{p.stdout[-2000:]}\n--- stderr\n{p.stderr[-2000:]}"
    sys.exit("check_io_failures: " + msg)


def check_full(insdg, case, work):
    if os.geteuid() != 0:
        print("check_io_failures: skipped (mounting a tmpfs needs root)")
        sys.exit(77)
    mnt = os.path.join(work, "small_fs")
    os.makedirs(mnt, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", mnt], capture_output=True).returncode:
        print("check_io_failures: skipped (cannot mount a tmpfs here)")
        sys.exit(77)
    try:
        out = os.path.join(mnt, "out")
        p = run(insdg, case, out)
        files = sorted(os.listdir(out)) if os.path.isdir(out) else []
    finally:
        subprocess.run(["umount", mnt])
    if p.returncode != 6:
        fail(f"exit status {p.returncode}, expected 6 (output failed)", p)
    errors = [l for l in p.stderr.splitlines() if l.startswith("insdg: error:")]
    if not errors or not any("not written" in l or "is full" in l for l in errors):
        fail("no error line says which file was not written and that the file system is full", p)
    if "summary.json" not in files and "and summary.json in" in p.stdout:
        fail("stdout claims summary.json was written; it was not", p)
    if "summary.json" in files and "summary.json could NOT" in p.stdout:
        fail("stdout says summary.json was not written; it was", p)
    if any(f.endswith(".tmp") for f in files):
        fail(f"half-written files left: {files}", p)
    print(f"check_io_failures full: status 6, '{errors[0][:120]}...', files {files}")


def check_leftovers(insdg, case, work):
    out = os.path.join(work, "leftovers")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for name in ["checkpoint_000009.nc.tmp", "summary.json.tmp", "fields_000003.nc.tmp", "notes.tmp"]:
        open(os.path.join(out, name), "w").write("half")
    p = run(insdg, case, out)
    if p.returncode != 0:
        fail(f"exit status {p.returncode}", p)
    left = sorted(f for f in os.listdir(out) if f.endswith(".tmp"))
    if left != ["notes.tmp"]:
        fail(f".tmp files after the run: {left}, expected only the user's notes.tmp", p)
    if p.stdout.count("left half-written by an earlier run") != 3:
        fail("the removals are not reported, one line each", p)
    print("check_io_failures leftovers: 3 half-written files removed and reported, notes.tmp kept")


def check_kept(insdg, case, work):
    out = os.path.join(work, "kept")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    open(os.path.join(out, "checkpoint_000099.nc"), "w").write("a later run's")
    p = run(insdg, case, out, "checkpoint_interval_steps = 1\ncheckpoints_kept = 2\n")
    if p.returncode != 0:
        fail(f"exit status {p.returncode}", p)
    ck = sorted(f for f in os.listdir(out) if f.startswith("checkpoint_"))
    s = json.load(open(os.path.join(out, "summary.json")))
    steps = s["steps"]
    want = [f"checkpoint_{steps - 1:06d}.nc", f"checkpoint_{steps:06d}.nc", "checkpoint_000099.nc"]
    if ck != want:
        fail(f"checkpoints left: {ck}, expected {want}", p)
    if s["checkpoints"]["written"] != steps or s["checkpoints"]["deleted_older"] != steps - 2:
        fail(f"summary.json checkpoints: {s['checkpoints']}, expected {steps} written, {steps - 2} deleted", p)
    print(f"check_io_failures kept: {ck}, summary {s['checkpoints']}")


def main():
    insdg, case, work, what = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    {"full": check_full, "leftovers": check_leftovers, "kept": check_kept}[what](insdg, case, work)


main()
