#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
The kernel's own YNL library (tools/net/ynl/lib of linux-source-6.12, what
its cli.py is a command line for) driven by
Documentation/netlink/specs/retire.yaml against the running module: the
spec is the contract, so a generic client that knows nothing but the spec
must be able to use the family.

One process loads the spec once and makes every request: under software
emulation, and KASAN on the debug kernel, each Python start and each parse
of the spec costs tens of seconds, which a cli.py process per request paid
again and again.

The tree is $KSFT_SRC, or the one KSFT_DIR is tools/testing/selftests of
(scripts/ksft-dir.sh takes tools/net/ynl along).

Exit: 0 every check passed (or some skipped), 1 one failed, 4 all skipped.
"""
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
ksft_dir = os.environ.get("KSFT_DIR") or subprocess.run(
    [os.path.join(top, "scripts", "ksft-dir.sh")], check=True,
    capture_output=True, text=True).stdout.strip()
sys.path.insert(0, os.path.join(ksft_dir, "kselftest"))
import ksft  # noqa: E402

CHECKS = ["info_get_reports_abi_version_1",
          "info_get_lists_the_sim_engine_first",
          "info_get_engines_carry_every_engine_info_attribute",
          "stats_get_do_has_admitted",
          "stats_get_dump_is_a_list_of_contexts",
          "engine_get_has_the_knobs",
          "subscribe_stale_receives_stale_ntf",
          "stale_ntf_names_the_poking_process"]
# what one request may take (a debug kernel under TCG is slow)
BOUND = int(os.environ.get("YNL_TIMEOUT", "150"))

ksft.print_header()
ksft.set_plan(len(CHECKS))


def finish():
    if ksft.ksft_cnt["skip"] == len(CHECKS):
        ksft.print_cnts()
        sys.exit(ksft.KSFT_SKIP)
    ksft.finished()


def skip_all(why):
    ksft.print_msg(why)
    for c in CHECKS:
        ksft.test_result_skip("ynl: " + c)
    finish()


src = os.environ.get("KSFT_SRC") or os.path.normpath(
    os.path.join(ksft_dir, "..", "..", ".."))
spec = os.path.join(top, "Documentation", "netlink", "specs", "retire.yaml")
poke = os.path.join(here, "stale_poke")
if not os.path.isfile(os.path.join(src, "tools", "net", "ynl", "lib", "ynl.py")):
    skip_all("no linux-source-6.12 tree with tools/net/ynl (set KSFT_SRC)")
if not os.path.isfile(spec):
    skip_all("no spec at " + spec)
try:
    import yaml  # noqa: F401
except ImportError:
    skip_all("python3-yaml is not installed")
if not os.path.exists("/dev/retire"):
    skip_all("/dev/retire is absent: is retire.ko loaded?")

sys.path.insert(0, os.path.join(src, "tools", "net", "ynl"))
from lib import YnlFamily  # noqa: E402


class Bound(Exception):
    pass


def on_alarm(signum, frame):
    raise Bound("no answer within %d s" % BOUND)


signal.signal(signal.SIGALRM, on_alarm)


def bounded(fn, *args):
    signal.alarm(BOUND)
    try:
        return fn(*args)
    finally:
        signal.alarm(0)


def result(name, ok, why):
    ksft.test_result(ok, "ynl: " + name)
    if not ok:
        for line in str(why).splitlines()[:15]:
            ksft.print_msg(line)


# the spec, parsed once; the schema is checked on the host (make check)
load_error, sub_error = "", ""
try:
    ynl = bounded(YnlFamily, spec, "")
except Exception as e:
    ynl = None
    load_error = "%s: %s" % (type(e).__name__, e)
# the socket joins the group before its first request (it binds then):
# notifications that come meanwhile wait in the family's queue
if ynl is not None:
    try:
        bounded(ynl.ntf_subscribe, "stale")
    except Exception as e:
        sub_error = "subscribe: %s: %s" % (type(e).__name__, e)


# check NAME PRED REQUEST: make the request, then PRED on its answer
def check(name, pred, op, method):
    if ynl is None:
        result(name, False, "the family did not load: " + load_error)
        return
    try:
        d = bounded(getattr(ynl, op), method, {})
        ok = bool(pred(d))
        result(name, ok, "%s %s answered %r" % (op, method, d))
    except Exception as e:
        result(name, False, "%s %s: %s: %s" % (op, method, type(e).__name__, e))


check("info_get_reports_abi_version_1",
      lambda d: isinstance(d, dict) and d.get("abi-version") == 1,
      "do", "info-get")
check("info_get_lists_the_sim_engine_first",
      lambda d: (isinstance(d, dict) and d["engine"][0].get("id") == 0 and
                 d["engine"][0].get("name") == "sim"),
      "do", "info-get")


# every attribute the spec gives engine-info (but pad), in every nest
def has_every_engine_attr(d):
    want = set(ynl.attr_sets["engine-info"].attrs) - {"pad"}
    missing = [sorted(want - set(e)) for e in d["engine"]]
    if any(missing):
        raise ValueError("missing from the engine nests: %r" % missing)
    return True


check("info_get_engines_carry_every_engine_info_attribute",
      has_every_engine_attr, "do", "info-get")
check("stats_get_do_has_admitted",
      lambda d: isinstance(d, dict) and "admitted" in d and "stale-cancel" in d,
      "do", "stats-get")
check("stats_get_dump_is_a_list_of_contexts",
      lambda d: isinstance(d, list) and all(
          "ctx-id" in m and "pid" in m and "admitted" in m for m in d),
      "dump", "stats-get")
check("engine_get_has_the_knobs",
      lambda d: isinstance(d, dict) and "latency-ns" in d and "flags" in d,
      "do", "engine-get")

# ---- the "stale" group ----------------------------------------------------

if not os.access(poke, os.X_OK):
    ksft.print_msg(poke + " is not built")
    ksft.test_result_skip("ynl: subscribe_stale_receives_stale_ntf")
    ksft.test_result_skip("ynl: stale_ntf_names_the_poking_process")
    finish()

msgs, why, poke_pid = [], "", None
if ynl is None:
    why = "the family did not load: " + load_error
else:
    # a stale cancel every 20 ms, from a process of its own, while this
    # one listens for 2 s
    pp = subprocess.Popen([poke, "180000", "20"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    why = sub_error
    try:
        time.sleep(2)
        bounded(ynl.check_ntf)
        msgs = list(ynl.async_msg_queue)
    except Exception as e:
        why = "%s: %s" % (type(e).__name__, e)
    pp.kill()
    poke_out = pp.communicate()[0]
    why += "\n%d notifications: %r\nstale_poke: %s" % (len(msgs), msgs[:3],
                                                        poke_out[-500:])
    poke_pid = pp.pid

stale = [m for m in msgs if m.get("name") == "stale-ntf"]
result("subscribe_stale_receives_stale_ntf",
       any("cancel" in m.get("msg", {}) for m in stale), why)
# the poker's context: its pid, and the cancels it made
result("stale_ntf_names_the_poking_process",
       any(m["msg"].get("pid") == poke_pid and m["msg"].get("cancel", 0) > 0 and
           m["msg"].get("ctx-id", 0) > 0 for m in stale), why)
finish()
