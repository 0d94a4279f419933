#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Count test results of one VM run of scripts/guest-check.sh.

    results.py OUTDIR

Reads OUTDIR/kunit-*.ktap (KTAP from /sys/kernel/debug/kunit/<suite>/results:
test cases are the results one level below the suite) and
OUTDIR/selftests.tap (the TAP of kselftest's runner, lib.mk's run_tests:
one result per program, each program's own TAP nested beneath it behind
"# "). Prints one line per test case,
"PASS|FAIL|SKIP <name>", and last "counts <pass> <fail> <skip>". A failed
kselftest case is followed by the last lines it logged, each beginning
"  | ", so a run's log says why without the VM's output directory.

A suite or program that reports no cases, or ends "not ok" without a failed
case of its own (a crash, a timeout), counts as one failure: a test that
did not run never passes. So does a selftests.tap with no program's
result at all (the runner did not start), or fewer than its plan says (it
was stopped).

Then one line per timed step of the run, "time <seconds> <name>": what
OUTDIR/times holds (the KUnit suites' load) and each kselftest program,
from the second its runner announced it to the second of its result
(OUTDIR/selftests.times: each TAP line after the second it was printed).
"""
import glob
import os
import re
import sys

RESULT = re.compile(r'^(not ok|ok) (\d+) ([^#]*?)\s*(#\s*(.*))?$')
PLAN = re.compile(r'^1\.\.(\d+)')
# the harness's own lines around a case: "#  RUN", "#  OK", "#  FAIL"
HARNESS = re.compile(r'^\s+(RUN|OK|FAIL|SKIP)\s')


def verdict(ok, directive):
    d = (directive or '').strip().upper()
    if d.startswith('SKIP'):
        return 'SKIP'
    if ok == 'ok':
        return 'PASS'
    return 'FAIL'


def why(v, directive):
    """A skip says why: its directive's reason, after the name."""
    reason = (directive or '').strip()[len('SKIP'):].strip()
    return ' (skipped: %s)' % reason if v == 'SKIP' and reason else ''


def kunit(path, out):
    suite = os.path.basename(path)[len('kunit-'):-len('.ktap')]
    cases = 0
    top = None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        indent = len(line) - len(line.lstrip(' '))
        m = RESULT.match(line.strip())
        if not m:
            continue
        if indent == 4:
            cases += 1
            v = verdict(m.group(1), m.group(5))
            out.append((v, 'kunit %s.%s%s' % (suite, m.group(3),
                                              why(v, m.group(5)))))
        elif indent == 0:
            top = m.group(1)
    if cases == 0 or (top == 'not ok' and
                      not any(v == 'FAIL' and n.startswith('kunit %s.' % suite)
                              for v, n in out)):
        out.append(('FAIL', 'kunit %s (no cases ran or the suite failed)' % suite))


DETAIL_LINES = 12


def kselftests(path, out):
    logged = []             # what the current case logged since its start
    prog_cases = 0
    prog_fail = False
    progs = 0
    plan = None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if line.startswith('# '):
            m = RESULT.match(line[2:])
            if m:
                prog_cases += 1
                v = verdict(m.group(1), m.group(5))
                prog_fail |= v == 'FAIL'
                out.append((v, 'kselftest %s%s' % (m.group(3), why(v, m.group(5)))))
                if v == 'FAIL':
                    out.extend(('  |', d) for d in logged[-DETAIL_LINES:])
                logged = []
            elif line.startswith('# # '):
                h = HARNESS.match(line[4:])
                if not h:
                    logged.append(line[4:])
                elif h.group(1) == 'RUN':
                    logged = []
            continue
        m = PLAN.match(line)
        if m and plan is None:
            plan = int(m.group(1))
        m = RESULT.match(line)
        if m:
            progs += 1
            name = m.group(3)
            v = verdict(m.group(1), m.group(5))
            if prog_cases == 0:
                out.append((v if v != 'PASS' else 'FAIL',
                            '%s (reported no test cases)' % name))
            elif v == 'FAIL' and not prog_fail:
                out.append(('FAIL', '%s (%s)' % (name, m.group(5) or 'failed')))
            prog_cases = 0
            prog_fail = False
    if progs == 0:
        out.append(('FAIL', 'kselftests (the runner reported no program)'))
    elif plan is not None and progs < plan:
        out.append(('FAIL', 'kselftests (%d of the %d programs planned '
                    'reported)' % (progs, plan)))


PROG_START = re.compile(r'^# selftests: [^:]*: (\S+)$')
PROG_END = re.compile(r'^(?:not ok|ok) \d+ selftests: [^:]*: (\S+)')


def times(outdir):
    out = []
    path = os.path.join(outdir, 'times')
    if os.path.exists(path):
        for line in open(path, errors='replace'):
            secs, _, name = line.strip().partition(' ')
            if secs.isdigit() and name:
                out.append((int(secs), name))
    path = os.path.join(outdir, 'selftests.times')
    if os.path.exists(path):
        start = {}
        for line in open(path, errors='replace'):
            stamp, _, text = line.rstrip('\n').partition(' ')
            if not stamp.isdigit():
                continue
            m = PROG_START.match(text)
            if m:
                start[m.group(1)] = int(stamp)
                continue
            m = PROG_END.match(text)
            if m and m.group(1) in start:
                out.append((int(stamp) - start.pop(m.group(1)),
                            'kselftest: ' + m.group(1)))
    return out


def main(outdir):
    out = []
    for path in sorted(glob.glob(os.path.join(outdir, 'kunit-*.ktap'))):
        kunit(path, out)
    tap = os.path.join(outdir, 'selftests.tap')
    if os.path.exists(tap):
        kselftests(tap, out)
    elif os.path.exists(os.path.join(outdir, 'selftests.none')):
        pass        # no kselftest was asked for (make check SUITE=kunit)
    else:
        out.append(('FAIL', 'kselftests (no output: the VM run did not reach them)'))
    for v, name in out:
        print('%s %s' % (v, name))
    print('counts %d %d %d' % (sum(v == 'PASS' for v, _ in out),
                               sum(v == 'FAIL' for v, _ in out),
                               sum(v == 'SKIP' for v, _ in out)))
    for secs, name in times(outdir):
        print('time %d %s' % (secs, name))


if __name__ == '__main__':
    main(sys.argv[1])
