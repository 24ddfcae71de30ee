#!/usr/bin/python3
"""check_slurm.py INSDG REPO WORKDIR -- jobs/insdg-cpu.sbatch on a real one-node Slurm.

Starts its own Slurm (slurmctld and slurmd with a slurm.conf in WORKDIR, SLURM_CONF; munged
when none runs), and stops every daemon it started by its PID at the end, whatever happens.
Exit 77 (skipped) when Slurm is not installed (tools/install-deps.sh installs it). Checks:

1. the CPU script on a short case, 2 ranks: exit 0, the fields bitwise those of a direct
   `mpirun -np 2` run of the same case;
2. the continuation chain: the script on a 3000-step case, sent USR1 through Slurm
   (`scancel --batch --signal=USR1`, what `--signal=B:USR1@LEAD` does before a time limit)
   after a few steps: the job checkpoints, stops, resubmits itself; the chain ends at the
   final time with the fields bitwise those of an uninterrupted run and diagnostics.csv
   byte for byte the same;
3. the script on the finished case: no step ("already complete"), exit 0, nothing resubmitted;
4. a failing case (a solve that does not converge, exit 4): nothing resubmitted;
5. tools/scaling.py: a strong-scaling study R = 1, 2 through Slurm writes its CSV and plot.
"""
import csv
import glob
import os
import re
import shutil
import socket
import subprocess
import sys
import time

import netCDF4
import numpy

started = []   # (name, pid file) of the daemons this test started


def fail(msg):
    print(f"check_slurm: FAILED: {msg}")
    sys.exit(1)


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def pid_of(pidfile):
    try:
        return int(open(pidfile).read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def stop_daemons():
    for name, pidfile in reversed(started):
        pid = pid_of(pidfile)
        if pid:
            try:
                os.kill(pid, 15)
            except ProcessLookupError:
                continue
            for _ in range(100):
                if not os.path.exists(f"/proc/{pid}"):
                    break
                time.sleep(0.05)
            else:
                os.kill(pid, 9)
            print(f"check_slurm: stopped {name} (pid {pid})")


def start_slurm(work):
    host = socket.gethostname().split(".")[0]
    cpus = os.cpu_count()
    mem = re.search(r"RealMemory=(\d+)", sh(["slurmd", "-C"]).stdout)
    mem = min(1000, int(mem.group(1))) if mem else 500
    spool = os.path.join(work, "spool")
    for d in ("ctld", "d", "log"):
        os.makedirs(os.path.join(spool, d), exist_ok=True)
    conf = os.path.join(work, "slurm.conf")
    open(conf, "w").write(f"""ClusterName=insdgtest
SlurmctldHost={host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation={spool}/ctld
SlurmdSpoolDir={spool}/d
SlurmctldPidFile={spool}/slurmctld.pid
SlurmdPidFile={spool}/slurmd.pid
SlurmctldLogFile={spool}/log/slurmctld.log
SlurmdLogFile={spool}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=pmix
ReturnToService=2
KillWait=30
NodeName={host} CPUs={cpus} RealMemory={mem} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
    os.environ["SLURM_CONF"] = conf
    if sh(["sh", "-c", "munge -n | unmunge"]).returncode != 0:   # no munged yet: start ours
        os.makedirs("/run/munge", exist_ok=True)
        shutil.chown("/run/munge", "munge", "munge")
        p = sh(["runuser", "-u", "munge", "--", "/usr/sbin/munged"])
        if p.returncode != 0:
            fail(f"munged did not start: {p.stdout}")
        started.append(("munged", "/run/munge/munged.pid"))
    for daemon, pidfile in (("slurmctld", "slurmctld.pid"), ("slurmd", "slurmd.pid")):
        p = sh([f"/usr/sbin/{daemon}"] + (["-c"] if daemon == "slurmctld" else []))
        started.append((daemon, os.path.join(spool, pidfile)))
        if p.returncode != 0:
            fail(f"{daemon} did not start: {p.stdout}")
    for _ in range(300):
        state = sh(["sinfo", "-h", "-N", "-o", "%T"]).stdout.strip()
        if state == "idle":
            return
        time.sleep(0.1)
    fail(f"the node is not idle after 30 s: {state!r}\n" + open(os.path.join(spool, "log/slurmd.log")).read()[-2000:])


def sbatch(work, script, args, wait=False):
    cmd = ["sbatch", "--parsable", f"--chdir={work}"] + (["--wait"] if wait else [])   # output: the script's insdg-%j.out
    p = sh(cmd + [script] + args)
    jobid = p.stdout.strip().splitlines()[0].split(";")[0] if p.stdout.strip() else "?"
    return p.returncode, jobid


def queue_empty(timeout):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if not sh(["squeue", "-h", "-o", "%i"]).stdout.strip():
            return True
        time.sleep(0.2)
    return False


def job_outputs(work):
    return "".join(open(f).read() for f in sorted(glob.glob(os.path.join(work, "insdg-*.out"))))


def last_fields(d):
    files = sorted(glob.glob(os.path.join(d, "fields_*.nc")))
    if not files:
        fail(f"no field file in {d}")
    return files[-1]


def same_fields(a, b):
    A, B = netCDF4.Dataset(last_fields(a)), netCDF4.Dataset(last_fields(b))
    return os.path.basename(last_fields(a)) == os.path.basename(last_fields(b)) and \
        all(numpy.array_equal(A[v][:], B[v][:]) for v in ("u", "v", "p"))


def rows(d):
    try:
        return sum(1 for line in open(os.path.join(d, "diagnostics.csv")) if line[:1].isdigit())
    except OSError:
        return 0


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: check_slurm.py INSDG REPO WORKDIR")
    insdg, repo, work = (os.path.abspath(a) for a in sys.argv[1:])
    if not shutil.which("slurmctld") and not os.path.exists("/usr/sbin/slurmctld"):
        print("check_slurm: Slurm is not installed (tools/install-deps.sh installs it): skipped")
        sys.exit(77)
    script = os.path.join(repo, "jobs/insdg-cpu.sbatch")
    cases = os.path.join(os.path.dirname(work), "cases")
    short, longer = os.path.join(repo, "tests/cases/run_taylor_ckpt.ini"), os.path.join(cases, "run_slurm_chain.ini")
    bad = os.path.join(repo, "tests/cases/run_not_converged.ini")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.environ.update(INSDG=insdg, STARPU_SILENT="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                      OMPI_MCA_rmaps_base_oversubscribe="1")
    try:
        start_slurm(work)

        # 1. one job, 2 ranks, against a direct mpirun
        direct = os.path.join(work, "direct")
        p = sh(["mpirun", "-np", "2", insdg, "run", short, "--output", direct])
        if p.returncode != 0:
            fail(f"direct mpirun run: {p.stdout[-1500:]}")
        rc, job = sbatch(work, script, [short, os.path.join(work, "job")], wait=True)
        if rc != 0 or not same_fields(direct, os.path.join(work, "job")):
            fail(f"job {job}: exit {rc}, or fields differ from the direct run\n{job_outputs(work)[-3000:]}")
        print(f"check_slurm: 1. job {job}: 2 ranks, exit 0, fields bitwise those of mpirun -np 2")

        # 2. the continuation chain
        ref, chain = os.path.join(work, "uninterrupted"), os.path.join(work, "chain")
        p = sh(["mpirun", "-np", "2", insdg, "run", longer, "--output", ref])
        if p.returncode != 0:
            fail(f"uninterrupted run: {p.stdout[-1500:]}")
        rc, job = sbatch(work, script, [longer, chain])
        t0 = time.time()
        while rows(chain) < 3 and time.time() - t0 < 120:
            time.sleep(0.01)
        at = rows(chain)
        sh(["scancel", "--batch", "--signal=USR1", job])
        if not queue_empty(300):
            fail("the chain did not end within 300 s")
        out = job_outputs(work)
        links = len(glob.glob(os.path.join(work, "insdg-*.out"))) - 1
        if "resubmitted to continue" not in out or links < 2:
            why = " (the run reached its final time before the signal arrived: the case is too short " \
                  "for this machine's signal path)" if "the case is complete" in out and links == 1 else ""
            fail(f"no resubmission seen ({links} jobs){why}\n{out[-3000:]}")
        if not same_fields(ref, chain):
            fail("the chain's last fields differ from the uninterrupted run's")
        if open(os.path.join(ref, "diagnostics.csv"), "rb").read() != open(os.path.join(chain, "diagnostics.csv"), "rb").read():
            fail("the chain's diagnostics.csv differs from the uninterrupted run's")
        print(f"check_slurm: 2. job {job} signalled after step {at}: stopped, resubmitted; the chain of "
              f"{links} jobs ends bitwise equal to the uninterrupted run")

        # 3. the finished case again
        n_before = len(glob.glob(os.path.join(work, "insdg-*.out")))
        rc, job = sbatch(work, script, [longer, chain], wait=True)
        queue_empty(30)
        out = open(os.path.join(work, f"insdg-{job}.out")).read()
        if rc != 0 or "already complete" not in out or len(glob.glob(os.path.join(work, "insdg-*.out"))) != n_before + 1:
            fail(f"the finished case: exit {rc}\n{out[-2000:]}")
        print(f"check_slurm: 3. job {job} on the finished case: already complete, exit 0, nothing resubmitted")

        # 4. a failure ends the chain
        rc, job = sbatch(work, script, [bad, os.path.join(work, "bad")], wait=True)
        queue_empty(30)
        out = open(os.path.join(work, f"insdg-{job}.out")).read()
        if rc != 4 or "the chain ends here" not in out or len(glob.glob(os.path.join(work, "insdg-*.out"))) != n_before + 2:
            fail(f"the failing case: exit {rc}\n{out[-2000:]}")
        print(f"check_slurm: 4. job {job}: a solve did not converge, exit 4, nothing resubmitted")

        # 5. a strong-scaling study through Slurm
        study = os.path.join(work, "study")
        p = sh(["/usr/bin/python3", os.path.join(repo, "tools/scaling.py"), "strong", short, "--ranks", "1", "2",
                "--steps", "10", "--launcher", "slurm", "--insdg", insdg, "--out", study])
        print(p.stdout[-1500:])
        table = list(csv.DictReader(open(os.path.join(study, "scaling.csv")))) if p.returncode == 0 else []
        if [int(r["ranks"]) for r in table] != [1, 2] or not os.path.exists(os.path.join(study, "scaling.png")) or \
                not all(float(r["ms_per_step"]) > 0 and float(r["max_rss_mib"]) > 0 for r in table):
            fail("tools/scaling.py through Slurm: no CSV with R = 1, 2 or no plot")
        print(f"check_slurm: 5. tools/scaling.py strong R = 1, 2 through Slurm: {study}/scaling.csv and scaling.png")
        print("check_slurm: ok")
    finally:
        stop_daemons()


if __name__ == "__main__":
    main()
