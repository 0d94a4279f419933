#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# retirectl against the real module: every command's -j output is one JSON
# object with the documented keys, and agrees with what the module says
# through another path (the ioctl against netlink, a set against a get).
# Errors name the failing call and exit 1; bad usage exits 2.
#
# Exit: 0 every check passed, 1 one failed, 4 skipped (no retirectl).

. "$(dirname "$0")/retirectl_lib.sh"

# run NAME ARGS...: stdout, stderr and exit status into $tmp/NAME.*
run() {
	name=$1
	shift
	"$ctl" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

run info info -j
run stats stats -j
run limits limits -j
run limits_set limits -j max_active=8 max_active_per_key=4
run limits_bad limits max_active=0
run engine_get engine -j
run engine_set engine -j finish_ns=7000000 rate_bps=4096 burst_bytes=1024 \
	flags=cancel_running
run engine_after engine -j
run engine_reset engine -j reset
run engine_zero engine -j flags=none finish_ns=0 rate_bps=0 burst_bytes=0
run engine_bad engine no_such_knob=1
run info_text info

"$py" - "$here" "$tmp" <<'PY'
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv.pop(1))
from tap_checks import check, finish  # noqa: E402

tmp = sys.argv[1]


def out(name):
    return open(os.path.join(tmp, name + ".out")).read()


def err(name):
    return open(os.path.join(tmp, name + ".err")).read()


def rc(name):
    return int(open(os.path.join(tmp, name + ".rc")).read())


def obj(name):
    text = out(name)
    if rc(name) != 0 or text.count("\n") != 1:
        raise ValueError("exit %d, %r %r" % (rc(name), text[:300],
                                              err(name)[:300]))
    return json.loads(text)


CAPS = ["max_unretired", "max_active", "max_active_per_key", "max_waiting",
        "max_tokens", "max_buffers", "max_reserved_bytes",
        "max_pinned_bytes", "max_pool_bytes", "watchdog_ns"]
KNOBS = ["flags", "latency_ns", "tick_ns", "bytes_per_tick", "fail_every",
         "fail_submit_every", "seed", "rate_bps", "burst_bytes", "finish_ns"]


def info():
    i = obj("info")
    return (i["abi_version"] == 1 and
            i["netlink"]["abi_version"] == i["abi_version"] and
            i["netlink"]["features"] == i["features"] and
            i["netlink"]["family_id"] > 0 and
            sorted(i["caps"]) == sorted(CAPS) and
            set(i["feature_names"]) >= {"genl", "requests", "sim",
                                        "admission"}, i)


check("info_j_agrees_with_netlink_and_lists_every_cap", info)


def stats():
    s = obj("stats")
    m = s["module"]
    return ("device_outstanding" in m and "engine_bytes" in m and
            isinstance(s["contexts"], list) and m["contexts"] >= 0, s)


check("stats_j_has_every_counter", stats)


def limits():
    l = obj("limits")
    i = obj("info")
    return (l["caps"] == i["caps"] and l["limits"] == i["caps"], l)


check("limits_j_shows_caps_and_a_new_contexts_limits", limits)


def limits_set():
    l = obj("limits_set")
    return (l["limits"]["max_active"] == 8 and
            l["limits"]["max_active_per_key"] == 4 and
            l["limits"]["max_unretired"] == l["caps"]["max_unretired"], l)


check("limits_set_applies_to_a_fresh_context", limits_set)
check("limits_zero_is_refused_naming_the_call",
      lambda: (rc("limits_bad") == 1 and
               "retire_set_limits" in err("limits_bad") and
               "Invalid argument" in err("limits_bad"),
               (rc("limits_bad"), err("limits_bad"))))


def engine():
    g, s, a = obj("engine_get"), obj("engine_set"), obj("engine_after")
    want = dict(g)
    want.update(finish_ns=7000000, rate_bps=4096, burst_bytes=1024,
                flags=4, flag_names=["cancel_running"])
    return (all(k in g for k in KNOBS) and s == want and a == want,
            (g, s, a))


check("engine_set_is_read_modify_write_and_reads_back", engine)
check("engine_reset_j",
      lambda: (obj("engine_reset") == {"reset": True}, out("engine_reset")))
check("engine_back_to_neutral",
      lambda: (obj("engine_zero")["finish_ns"] == 0 and
               obj("engine_zero")["flags"] == 0, out("engine_zero")))
check("engine_unknown_knob_is_a_usage_error",
      lambda: (rc("engine_bad") == 2 and "no_such_knob" in err("engine_bad"),
               (rc("engine_bad"), err("engine_bad"))))
check("info_text_names_the_device_and_family",
      lambda: (rc("info_text") == 0 and "/dev/retire" in out("info_text") and
               "netlink family" in out("info_text"), out("info_text")))

finish("retirectl")
PY
