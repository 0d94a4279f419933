# SPDX-License-Identifier: GPL-2.0
"""
TAP for the kselftests that check a program's JSON in Python
(demo_test.sh, retirectl_test.sh): check() each property, then finish().
A check that raises (a missing key, a value of the wrong type) fails with
the exception as its reason instead of stopping the others.
"""
import sys

_checks = []


def check(name, fn):
    """fn() returns (ok, why); why is printed when ok is false."""
    try:
        ok, why = fn()
    except Exception as e:
        ok, why = False, "%s: %s" % (type(e).__name__, e)
    _checks.append((name, bool(ok), why))


def finish(prefix):
    """Print the plan, one line per check and the totals; exit 1 on a fail."""
    print("1..%d" % len(_checks))
    fail = 0
    for i, (name, ok, why) in enumerate(_checks, 1):
        print("%s %d %s: %s" % ("ok" if ok else "not ok", i, prefix, name))
        if not ok:
            fail += 1
            for line in str(why).splitlines()[:20]:
                print("# " + line)
    print("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0" %
          (len(_checks) - fail, fail))
    sys.exit(1 if fail else 0)
