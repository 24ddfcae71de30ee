#!/usr/bin/python3
"""run_corpus.py -- run cases of the bad-input corpus (tests/bad_inputs/README.md).

  run_corpus.py --insdg PATH [options] NAME...      run the named cases
  run_corpus.py --insdg PATH [options] --all        run every case, print a summary
  run_corpus.py --list                              print "NAME LABEL CKPT" per case
                                                    (for tests/bad_inputs.cmake)
  run_corpus.py --insdg PATH [options] --known      run the disabled "#!" entries and
                                                    show what insdg does with them

Options:
  --corpus FILE    the manifest (default: corpus.txt next to this script)
  --out-root DIR   @OUT@ of case NAME is DIR/NAME, removed before the run (default:
                   ./bad_inputs_out)
  --ckpt DIR       @CKPT@: the fixture's directory, checkpoint_000002.nc and the
                   damaged_*.nc of damage_checkpoint.py (default: OUT-ROOT/ckpt)
  --make-ckpt      first write @CKPT@ (insdg run tests/cases/run_taylor_ckpt.ini, one
                   rank, then damage_checkpoint.py): for --all outside ctest
  --timeout S      seconds per command (default 50)

A case passes when insdg
  1. exits with the expected status;
  2. writes on stderr exactly one line that is not part of a usage text (lines starting
     with "usage:" or with a blank), the line starts with "insdg: error:" (status 2) or
     "insdg:" (other statuses), and it contains the fragment (a plain substring, in
     which @BI@, @CASES@, @MESHES@, @OUT@, @CKPT@ are replaced as in the command);
  3. for status 2 (bad input: nothing written): leaves no file under @OUT@ when the
     command has --output @OUT@ (empty directories are fine), and says nothing on
     stdout about a file written (wrote, written, a .nc/.csv/.json name).
Prints "run_corpus: ok" when every case run passed; exit status 1 otherwise.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
NAME_RE = re.compile(r'^[a-z0-9_]+$')
WROTE_RE = re.compile(r'\b(wrote|written)\b|\S\.(nc|csv|json)\b')
MPI_DEFAULTS = {'STARPU_SILENT': '1', 'STARPU_WORKERS_NOBIND': '1', 'OMPI_ALLOW_RUN_AS_ROOT': '1',
                'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1', 'OMPI_MCA_rmaps_base_oversubscribe': '1',
                'OMPI_MCA_hwloc_base_binding_policy': 'none'}


class Case:
    def __init__(self, name, status, fragment, command, line, known=False):
        self.name, self.status, self.fragment, self.command = name, status, fragment, command
        self.line, self.known = line, known
        self.words = shlex.split(command)
        self.label = 'mpi' if len(self.words) > 1 and self.words[1] in ('run', 'demo') else 'unit'
        self.needs_ckpt = '@CKPT@' in command


def read_corpus(path):
    """the cases of the manifest, in order; '#!' lines are the disabled (known) cases"""
    cases, seen, errors = [], set(), []
    with open(path, encoding='utf-8') as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            known = line.startswith('#!')
            if known:
                line = line[2:].strip()
            elif not line or line.startswith('#'):
                continue
            parts = [p.strip() for p in line.split('|', 3)]
            where = '%s:%d' % (path, n)
            if len(parts) != 4:
                errors.append('%s: expected "name | status | fragment | command"' % where)
                continue
            name, status, fragment, command = parts
            if not NAME_RE.match(name):
                errors.append('%s: name %r: use lower-case letters, digits and _' % (where, name))
            elif name in seen:
                errors.append('%s: name %r used twice' % (where, name))
            if not status.isdigit():
                errors.append('%s: status %r is not a number' % (where, status))
            if not fragment:
                errors.append('%s: empty message fragment' % where)
            try:
                c = Case(name, int(status) if status.isdigit() else -1, fragment, command, n, known)
            except ValueError as e:
                errors.append('%s: command: %s' % (where, e))
                continue
            if not c.words or c.words[0] != 'insdg':
                errors.append('%s: the command must start with "insdg"' % where)
            seen.add(name)
            cases.append(c)
    if errors:
        sys.exit('run_corpus: bad manifest\n' + '\n'.join(errors))
    return cases


def substitute(word, subs):
    for k, v in subs.items():
        word = word.replace(k, v)
    return word


def files_under(d):
    found = []
    for root, _, files in os.walk(d):
        found += [os.path.join(root, f) for f in files]
    return sorted(found)


def run_case(c, args):
    """None when the case passes, else a report"""
    out = os.path.join(args.out_root, c.name)
    shutil.rmtree(out, ignore_errors=True)
    if os.path.lexists(out):
        os.remove(out)
    if c.needs_ckpt and not os.path.isfile(os.path.join(args.ckpt, 'checkpoint_000002.nc')):
        return ('no checkpoint in %s: run the fixture bad_input_fixture_ckpt (ctest) or --make-ckpt first'
                % args.ckpt)
    subs = {'@BI@': HERE, '@CASES@': os.path.join(TESTS, 'cases'), '@MESHES@': os.path.join(TESTS, 'meshes'),
            '@OUT@': out, '@CKPT@': args.ckpt}
    cmd = [args.insdg] + [substitute(w, subs) for w in c.words[1:]]
    shown = ' '.join(shlex.quote(w) for w in cmd)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=args.timeout,
                           cwd=args.out_root)
    except subprocess.TimeoutExpired:
        return 'command: %s\ntimed out after %g s' % (shown, args.timeout)
    stdout = p.stdout.decode('utf-8', 'replace')
    stderr = p.stderr.decode('utf-8', 'replace')
    report = 'command: %s\nexit status: %d\nstdout: [%s]\nstderr: [%s]' % (shown, p.returncode, stdout, stderr)
    problems = []
    if p.returncode != c.status:
        problems.append('exit status %d, expected %d' % (p.returncode, c.status))
    lines = [l for l in stderr.split('\n') if l and not l.startswith('usage:') and not l[0].isspace()]
    prefix = 'insdg: error:' if c.status == 2 else 'insdg:'
    if len(lines) != 1:
        problems.append('%d message lines on stderr, expected exactly one' % len(lines))
    elif not lines[0].startswith(prefix):
        problems.append('the message does not start with "%s"' % prefix)
    elif substitute(c.fragment, subs) not in lines[0]:
        problems.append('the message does not contain "%s"' % substitute(c.fragment, subs))
    if c.status == 2:
        if '--output' in c.words and os.path.isdir(out):
            left = files_under(out)
            if left:
                problems.append('files left in the output directory: %s' % ', '.join(left))
        m = WROTE_RE.search(stdout.replace(out, '@OUT@'))
        if m:
            problems.append('stdout claims a file was written: "%s"' % m.group(0))
    if problems:
        return '\n'.join(problems) + '\n' + report
    return None


def make_ckpt(args):
    shutil.rmtree(args.ckpt, ignore_errors=True)
    case = os.path.join(TESTS, 'cases', 'run_taylor_ckpt.ini')
    p = subprocess.run([args.insdg, 'run', case, '--output', args.ckpt], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, cwd=args.out_root)
    if p.returncode != 0:
        sys.exit('run_corpus: the checkpoint run failed (status %d):\n%s' % (p.returncode, p.stdout.decode()))
    subprocess.run([sys.executable, os.path.join(HERE, 'damage_checkpoint.py'), args.ckpt], check=True)


def main():
    ap = argparse.ArgumentParser(description='run cases of the bad-input corpus')
    ap.add_argument('names', nargs='*')
    ap.add_argument('--insdg')
    ap.add_argument('--corpus', default=os.path.join(HERE, 'corpus.txt'))
    ap.add_argument('--out-root', default=os.path.abspath('bad_inputs_out'))
    ap.add_argument('--ckpt')
    ap.add_argument('--make-ckpt', action='store_true')
    ap.add_argument('--timeout', type=float, default=50)
    ap.add_argument('--all', action='store_true')
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--known', action='store_true')
    args = ap.parse_args()
    cases = read_corpus(args.corpus)
    if args.list:
        for c in cases:
            if not c.known:
                print(c.name, c.label, 'ckpt' if c.needs_ckpt else '-')
        return
    if not args.insdg:
        sys.exit('run_corpus: --insdg PATH is required')
    args.insdg = os.path.abspath(args.insdg)
    args.out_root = os.path.abspath(args.out_root)
    args.ckpt = os.path.abspath(args.ckpt or os.path.join(args.out_root, 'ckpt'))
    os.makedirs(args.out_root, exist_ok=True)
    for k, v in MPI_DEFAULTS.items():
        os.environ.setdefault(k, v)
    os.environ.setdefault('STARPU_HOME', args.out_root)
    if args.make_ckpt:
        make_ckpt(args)
    by_name = {c.name: c for c in cases}
    if args.known:
        for c in (c for c in cases if c.known):
            print('== %s (expected: status %d, "%s")\n%s\n' % (c.name, c.status, c.fragment,
                                                              run_case(c, args) or 'passes now: enable it'))
        return
    if args.all:
        todo = [c for c in cases if not c.known]
    else:
        unknown = [n for n in args.names if n not in by_name]
        if unknown or not args.names:
            sys.exit('run_corpus: %s' % ('unknown case(s): ' + ' '.join(unknown) if unknown else 'name a case, or --all'))
        todo = [by_name[n] for n in args.names]
    failed = []
    for c in todo:
        problem = run_case(c, args)
        if problem:
            failed.append(c.name)
            print('FAIL %s (%s:%d)\n%s\n' % (c.name, os.path.basename(args.corpus), c.line, problem))
        else:
            print('ok   %s' % c.name)
    if failed:
        print('run_corpus: %d of %d failed: %s' % (len(failed), len(todo), ' '.join(failed)))
        sys.exit(1)
    print('run_corpus: ok (%d case%s)' % (len(todo), '' if len(todo) == 1 else 's'))


if __name__ == '__main__':
    main()
