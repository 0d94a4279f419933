#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# retirectl against the real module: every command's -j output is one JSON
# object with the documented keys, and agrees with what the module says
# through another path (the ioctl against netlink, a set against a get).
# Errors name the failing call and exit 1; bad usage exits 2. history
# reads back what history_ctx did in a context it keeps open; top sees the
# load history_ctx makes meanwhile.
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
# a user who may not open /dev/retire (0600 here): netlink's view, exit 0
setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" info -j \
	>"$tmp/info_noaccess.out" 2>"$tmp/info_noaccess.err"
echo $? >"$tmp/info_noaccess.rc"

# wait (up to 20 s) until file $1 has a line $2, while process $3 lives
wait_line() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && kill -0 "$3" 2>/dev/null &&
		[ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# a context with a known history, open while retirectl reads it
"$here/history_ctx" seq 60 >"$tmp/seq.out" 2>"$tmp/seq.err" &
seq_pid=$!
wait_line "$tmp/seq.out" '^ready$' $seq_pid
id=$(sed -n 's/^ctx //p' "$tmp/seq.out")
run history_text history "${id:-1}"
run history_json history -j "${id:-1}"
run history_list history -j
kill $seq_pid 2>/dev/null
wait $seq_pid
echo $? >"$tmp/seq.rc"
# no context ever has this id: they count up from 1
run history_none history 18446744073709551615

# top while a load runs: two screens of text, then two of JSON; the load
# lasts until top is done (a debug kernel runs top slowly), then stops
"$here/history_ctx" load 120000 >"$tmp/load.out" 2>"$tmp/load.err" &
load_pid=$!
wait_line "$tmp/load.out" '^ctx ' $load_pid
run top_text top -n 2 -d 1
run top_json top -j -n 2 -d 1
kill -TERM $load_pid
wait $load_pid
echo $? >"$tmp/load.rc"

"$py" - "$here" "$tmp" <<'PY'
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv.pop(1))
from ksft_checks import check, finish  # noqa: E402

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


def info_noaccess():
    i, n = obj("info_noaccess"), obj("info")
    return (rc("info_noaccess") == 0 and
            i["device_error"] == "Permission denied" and "caps" not in i and
            i["features"] == n["features"] and
            i["abi_version"] == n["abi_version"], i)


check("info_without_access_to_the_device_reports_netlinks_view",
      info_noaccess)


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



def seq():
    """history_ctx seq's context: its id, expected tail, and count"""
    lines = out("seq").splitlines()
    ctx = int(next(l for l in lines if l.startswith("ctx ")).split()[1])
    exp = [l.split()[1:] for l in lines if l.startswith("expect ")]
    rec = int(next(l for l in lines if l.startswith("recorded ")).split()[1])
    return ctx, exp, rec


def history_text():
    ctx, exp, rec = seq()
    text = out("history_text").splitlines()
    ev = [l.split() for l in text[:-1]]
    times = [float(e[0]) for e in ev]
    tail = [e[1:] for e in ev[-len(exp):]]
    return (rc("history_text") == 0 and rec == 300 + len(exp) and
            len(ev) == 256 and times == sorted(times) and
            all(t[:len(e)] == e for t, e in zip(tail, exp)) and
            all(e[1] == "stale" and e[7:9] == ["counter", "cancel"]
                for e in ev[:-len(exp)]) and
            text[-1] == "recorded %d, dropped %d" % (rec, rec - 256),
            (exp, text[-len(exp) - 2:], err("history_text")))


check("history_prints_a_contexts_known_sequence_oldest_first_and_counts",
      history_text)


def history_json():
    ctx, exp, rec = seq()
    h = obj("history_json")
    ev = h["events"]
    tail = ev[-len(exp):]
    by = {e["event"]: e for e in tail}
    return (h["ctx_id"] == ctx and h["recorded"] == rec and
            h["dropped"] == rec - 256 and len(ev) == 256 and
            [e["event"] for e in tail] == [e[0] for e in exp] and
            by["submit"]["dev_flags"] == ["write"] and
            by["submit"]["len"] == 4096 and
            by["terminal"]["outcome"] == "completed" and
            by["terminal"]["error"] is None and
            by["cancel"]["result"] == "ENOENT" and
            by["return"]["error"] == "EPIPE" and
            by["return"]["token"] == by["handoff"]["token"] and
            [e["counter"] for e in tail[-2:]] == ["cancel", "token"] and
            tail[-2]["kind"] == "req" and tail[-1]["kind"] == "token" and
            tail[-2]["found_generation"] > tail[-2]["expected_generation"],
            tail)


check("history_j_decodes_each_event", history_json)


def history_list():
    ctx, exp, rec = seq()
    mine = [c for c in obj("history_list")["contexts"] if c["ctx_id"] == ctx]
    return (len(mine) == 1 and mine[0]["recorded"] == rec and
            mine[0]["dropped"] == rec - 256 and
            mine[0]["comm"] == "history_ctx", obj("history_list"))


check("history_without_id_lists_readable_contexts", history_list)
check("history_ctx_seq_exits_0",
      lambda: (int(open(os.path.join(tmp, "seq.rc")).read()) == 0,
               err("seq")))
check("history_of_no_context_fails_clearly",
      lambda: (rc("history_none") == 1 and not out("history_none") and
               "retirectl: retire_read_history: No such file or directory "
               "(ENOENT)\n" in err("history_none") and
               "no context has id 18446744073709551615" in
               err("history_none"), err("history_none")))


def top_text():
    text = out("top_text")
    rows = [l.split() for l in text.splitlines() if l.strip()]
    names = [r[0] for r in rows]
    adm = [r for r in rows if r[0] == "admitted"]
    return (rc("top_text") == 0 and text.count("module: ") == 2 and
            "\n\nmodule: " in text and "\x1b" not in text and
            all(names.count(n) == 2 for n in
                ("admitted", "retired", "stale", "completed", "failed",
                 "cancelled", "timed_out", "CTX-ID")) and
            len(adm) == 2 and all(r[2].endswith("/s") for r in adm) and
            all(float(r[2][:-2]) > 0 for r in adm),
            text + err("top_text"))


check("top_prints_module_counters_and_a_positive_admitted_rate", top_text)


def top_json():
    lines = out("top_json").splitlines()
    a, b = (json.loads(l) for l in lines)
    ctx = int(next(l for l in out("load").splitlines()
                   if l.startswith("ctx ")).split()[1])
    ma, mb = a["module"], b["module"]
    dt = b["interval_s"]
    delta = mb["stats"]["admitted"] - ma["stats"]["admitted"]
    rate = mb["rates"]["admitted_per_s"]
    load = [c for c in b["contexts"] if c["ctx_id"] == ctx]
    return (rc("top_json") == 0 and len(lines) == 2 and
            0.9 < dt < 10 and delta > 0 and
            abs(rate - delta / dt) <= 0.002 + rate * 1e-5 and
            ma["rates"]["admitted_per_s"] > 0 and
            len(load) == 1 and load[0]["rates"]["admitted_per_s"] > 0 and
            load[0]["comm"] == "history_ctx" and
            load[0]["engine"] == "0 sim",
            (lines, err("top_json")))


check("top_j_rates_are_deltas_over_the_measured_interval", top_json)
check("history_ctx_load_exits_0",
      lambda: (int(open(os.path.join(tmp, "load.rc")).read()) == 0,
               out("load") + err("load")))

finish("retirectl")
PY
