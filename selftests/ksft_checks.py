# SPDX-License-Identifier: GPL-2.0
"""
The kselftests that check a program's JSON in Python (demo_test.sh,
retirectl_test.sh): check() each property, then finish(), which reports
them through kselftest's own ksft.py (KSFT_DIR/kselftest). A check that
raises (a missing key, a value of the wrong type) fails with the exception
as its reason instead of stopping the others.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.environ["KSFT_DIR"], "kselftest"))
import ksft  # noqa: E402

_checks = []


def check(name, fn):
    """fn() returns (ok, why); why is printed when ok is false."""
    _checks.append((name, fn))


def finish(prefix):
    """The plan, one result per check and the totals; exit 1 on a fail."""
    ksft.set_plan(len(_checks))
    for name, fn in _checks:
        try:
            ok, why = fn()
        except Exception as e:
            ok, why = False, "%s: %s" % (type(e).__name__, e)
        ksft.test_result(ok, "%s: %s" % (prefix, name))
        if not ok:
            for line in str(why).splitlines()[:20]:
                ksft.print_msg(line)
    ksft.finished()
