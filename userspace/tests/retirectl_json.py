#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# retirectl without the module: its JSON (retirectl_json, which feeds
# retirectl's printers known values: valid, strings escaped, exactly the
# spec's keys in order) and its command line (usage errors exit 2 naming
# the bad argument, library failures exit 1 naming the function). Run from
# anywhere after make -C userspace, which builds both; prints one line per
# failure, exits 1 if any.
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
US = os.path.dirname(HERE)
CTL = os.path.join(US, "retirectl", "retirectl")
JSON_EXE = os.path.join(HERE, "retirectl_json")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what)


# as in retirectl_json.c
STRINGS = [
    b"/dev/retire",
    b"",
    b"quote\" backslash\\ slash/",
    b"\b\f\n\r\t\x01\x1f\x7f",
    b"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
    b"bad \xff \xc0\xaf \xe2\x82 \xed\xa0\x80 \xf4\x90\x80\x80 end",
    b"cut at the end \xe2\x82",
    b"lone continuation \x80\xbf",
]

LIMITS = ["max_unretired", "max_active", "max_active_per_key", "max_waiting",
          "max_tokens", "max_buffers", "max_reserved_bytes",
          "max_pinned_bytes", "max_pool_bytes", "watchdog_ns"]
ENGINE = ["flags", "flag_names", "latency_ns", "tick_ns", "bytes_per_tick",
          "fail_every", "fail_submit_every", "seed", "rate_bps",
          "burst_bytes", "finish_ns"]
def vocabulary(macro):
    """The names one list of uapi/linux/retire_names.h gives, in order."""
    path = os.path.join(os.path.dirname(US), "uapi", "linux",
                        "retire_names.h")
    with open(path) as f:
        text = f.read()
    body = text.split("#define %s(X, X_LAST)" % macro, 1)[1]
    body = body.split("\n\n", 1)[0]
    return re.findall(r"X(?:_LAST)?\(\w+, (\w+)\)", body)


STATS = vocabulary("RETIRE_STAT_NAMES")
U64_MAX = 2**64 - 1


def load(line, what):
    # strict: no NaN, no duplicate key, nothing but JSON
    def no_dups(pairs):
        keys = [k for k, _ in pairs]
        check(len(keys) == len(set(keys)), what + ": duplicate keys")
        return dict(pairs)

    try:
        return json.loads(line, object_pairs_hook=no_dups,
                          parse_constant=lambda c: 1 / 0)
    except Exception as e:
        check(False, "%s: not JSON (%s): %r" % (what, e, line))
        return None


def json_checks():
    exe = JSON_EXE
    r = subprocess.run([exe], capture_output=True)
    check(r.returncode == 0, "retirectl_json exits %d" % r.returncode)
    try:
        lines = r.stdout.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        check(False, "the JSON output is not UTF-8: %s" % e)
        return
    check(len(lines) == len(STRINGS) + 9,
          "%d lines, want %d" % (len(lines), len(STRINGS) + 9))
    if len(lines) != len(STRINGS) + 9:
        return

    for raw, line in zip(STRINGS, lines):
        doc = load(line, "string %r" % raw)
        if doc is None:
            continue
        # one U+FFFD per maximal ill-formed subpart, as Python decodes
        want = raw.decode("utf-8", errors="replace")
        check(doc == {"s": want},
              "json_string(%r) = %r, want %r" % (raw, doc.get("s"), want))
    info, noacc, lim_def, lim_set, engine, stats, hist, hlist, top = (
        load(l, n) for l, n in zip(lines[len(STRINGS):],
                                   ["info", "info without the device",
                                    "limits", "limits set",
                                    "engine", "stats", "history",
                                    "history list", "top"]))

    caps = {k: i + 1 for i, k in enumerate(LIMITS)}
    if info is not None:
        check(list(info) == ["device", "abi_version", "features",
                             "feature_names", "caps", "netlink"],
              "info keys: %s" % list(info))
        check(info.get("device") == "/dev/\"odd\\path\n\ufffd",
              "info device: %r" % info.get("device"))
        check(info.get("feature_names") ==
              vocabulary("RETIRE_FEATURE_NAMES") + ["bit40"],
              "info feature_names: %s" % info.get("feature_names"))
        check(info.get("features") == 32767 | (1 << 40),
              "info features: %s" % info.get("features"))
        check(info.get("caps") == caps and list(info["caps"]) == LIMITS,
              "info caps: %s" % info.get("caps"))
        check(info.get("netlink") == {"family_id": 27, "abi_version": 1,
                                      "features": 32767 | (1 << 40)},
              "info netlink: %s" % info.get("netlink"))
    # no access to the device: netlink's abi and features, no caps
    if noacc is not None:
        check(list(noacc) == ["device", "device_error", "abi_version",
                              "features", "feature_names", "netlink"],
              "info without the device, keys: %s" % list(noacc))
        check(noacc.get("device_error") == "Permission denied" and
              noacc.get("features") == 32767 | (1 << 40),
              "info without the device: %s" % noacc)
    lim = {k: 100 + i for i, k in enumerate(LIMITS)}
    lim["watchdog_ns"] = U64_MAX
    for doc, what in ((lim_def, "limits"), (lim_set, "limits set")):
        if doc is None:
            continue
        check(list(doc) == ["caps", "limits"], "%s keys: %s" % (what, list(doc)))
        check(doc.get("caps") == caps, "%s caps: %s" % (what, doc.get("caps")))
        check(doc.get("limits") == lim and list(doc["limits"]) == LIMITS,
              "%s limits: %s" % (what, doc.get("limits")))
    if engine is not None:
        check(list(engine) == ENGINE, "engine keys: %s" % list(engine))
        check(engine.get("flags") == 1 | 2 | 8 | (1 << 31),
              "engine flags: %s" % engine.get("flags"))
        check(engine.get("flag_names") == ["blocked", "hang", "violate",
                                           "bit31"],
              "engine flag_names: %s" % engine.get("flag_names"))
        for i, k in enumerate(ENGINE[2:]):
            check(engine.get(k) == 1001 + i, "engine %s: %s" % (k, engine.get(k)))
    if stats is not None:
        check(list(stats) == ["module", "contexts"],
              "stats keys: %s" % list(stats))
        mod = stats.get("module", {})
        check(list(mod) == STATS, "stats module keys: %s" % list(mod))
        check(mod == {k: i + 1 for i, k in enumerate(STATS)},
              "stats module values")
        ctxs = stats.get("contexts", [])
        check(len(ctxs) == 2, "stats contexts: %d" % len(ctxs))
        for n, (c, cid, pid) in enumerate(zip(ctxs, [1, U64_MAX],
                                              [4242, 2**32 - 1])):
            check(list(c) == ["ctx_id", "pid", "stats"],
                  "stats context keys: %s" % list(c))
            check(c.get("ctx_id") == cid and c.get("pid") == pid,
                  "stats context %d id/pid: %s %s" % (n, c.get("ctx_id"),
                                                     c.get("pid")))
            check(c.get("stats") == {k: (n + 1) * 1000 + i
                                     for i, k in enumerate(STATS)},
                  "stats context %d values" % n)
    if hist is not None:
        history_checks(hist)
    if hlist is not None:
        check(hlist == {"contexts": [
            {"ctx_id": 7, "pid": 4242, "comm": "a \"comm\"", "recorded": 3,
             "dropped": 0},
            {"ctx_id": U64_MAX, "pid": 2**32 - 1, "comm": None,
             "recorded": U64_MAX, "dropped": U64_MAX - 256}]},
              "history list: %s" % hlist)
    if top is not None:
        top_checks(top)
    text_checks(exe)


def handle(kind, slot, gen):
    return kind << 56 | slot << 32 | gen


REQ, TOKEN, BUF = 2, 3, 1
# the keys every event has, then those of its type (retirectl.8)
EVENT_KEYS = ["time_ns", "type", "event", "kind", "handle", "handle_slot",
              "handle_generation", "value", "aux"]
TOKEN_KEYS = ["token", "token_slot", "token_generation"]
# as retirectl_json.c's events[]: (event, handle, extra keys and values)
R31, R47 = handle(REQ, 3, 1), handle(REQ, 4, 7)
EVENTS = [
    ("submit", R31, {"dev_flags": ["read", "write"], "len": 4096}),
    ("activate", R31, {}),
    ("timeout", R31, {}),
    ("cancel", R31, {"result": "EALREADY"}),
    ("terminal", R31, {"outcome": "failed", "error": "EIO"}),
    ("borrow", R31, {"token": handle(TOKEN, 0, 1), "token_slot": 0,
                     "token_generation": 1}),
    ("handoff", R31, {"token": handle(TOKEN, 1, 1), "token_slot": 1,
                      "token_generation": 1}),
    ("return", R31, {"token": handle(TOKEN, 1, 1), "token_slot": 1,
                     "token_generation": 1, "error": "EPIPE"}),
    ("retire", R31, {}),
    ("stale", R31, {"counter": "cancel", "expected_generation": 1,
                    "found_generation": 2}),
    ("quarantine", R47, {}),
    ("reset", R47, {}),
    ("fence", R47, {"error": "ECANCELED"}),
    ("gate", R47, {"error": None}),
    ("export", handle(BUF, 2, 1), {"len": 8192, "exports": 1}),
    ("import", handle(BUF, 3, 1), {"len": 4096}),
    ("revoke", handle(BUF, 2, 1), {"len": 8192, "importers": 1}),
    ("terminal", R47, {"outcome": "completed", "error": None}),
    ("cancel", R47, {"result": None}),
    ("return", R47, {"token": handle(TOKEN, 9, 2), "token_slot": 9,
                     "token_generation": 2, "error": None}),
    ("stale", handle(BUF, 5, 3), {"counter": "counter99",
                                  "expected_generation": 3,
                                  "found_generation": 0}),
    ("type200", handle(77, 1, 1), {}),
]


def history_checks(h):
    check(list(h) == ["ctx_id", "recorded", "dropped", "events"],
          "history keys: %s" % list(h))
    check((h.get("ctx_id"), h.get("recorded"), h.get("dropped")) ==
          (U64_MAX, 300, 44), "history counts: %s" % h)
    evs = h.get("events", [])
    check(len(evs) == len(EVENTS), "history: %d events" % len(evs))
    for i, (e, (name, hd, extra)) in enumerate(zip(evs, EVENTS)):
        what = "history event %d (%s)" % (i, name)
        check(list(e) == EVENT_KEYS + list(extra),
              "%s keys: %s" % (what, list(e)))
        check(e.get("time_ns") == (i + 1) * 1000000001,
              "%s time_ns: %s" % (what, e.get("time_ns")))
        check(e.get("event") == name, "%s: %s" % (what, e.get("event")))
        check(e.get("handle") == hd and
              e.get("handle_slot") == (hd >> 32) & 0xffffff and
              e.get("handle_generation") == hd & 0xffffffff,
              "%s handle: %s" % (what, e))
        for k, v in extra.items():
            check(e.get(k) == v, "%s %s: %r, want %r" % (what, k, e.get(k), v))
    if len(evs) == len(EVENTS):
        check(evs[-1]["kind"] == "kind77" and evs[-1]["value"] == -2**31 and
              evs[-1]["aux"] == U64_MAX and evs[-1]["type"] == 200,
              "history: an unknown event's raw fields: %s" % evs[-1])
        check(evs[20]["kind"] == "buf" and evs[14]["kind"] == "buf" and
              evs[0]["kind"] == "req",
              "history kinds: %s %s" % (evs[20]["kind"], evs[0]["kind"]))


RATES = ["admitted_per_s", "retired_per_s", "stale_per_s"]


def top_checks(t):
    check(list(t) == ["interval_s", "module", "contexts"],
          "top keys: %s" % list(t))
    check(t.get("interval_s") == 2.5, "top interval_s: %s" % t.get("interval_s"))
    m = t.get("module", {})
    check(list(m) == ["stats", "stale", "rates"], "top module keys: %s" % list(m))
    check(list(m.get("stats", {})) == STATS, "top module stats keys")
    check(m.get("stale") == 5, "top module stale: %s" % m.get("stale"))
    # (6000 - 5000) / 2.5, (4500 - 4000) / 2.5, (5 - 0) / 2.5
    check(m.get("rates") == dict(zip(RATES, [400, 200, 2])),
          "top module rates: %s" % m.get("rates"))
    ctxs = t.get("contexts", [])
    check([c.get("ctx_id") for c in ctxs] == [1, 3],
          "top contexts: %s" % [c.get("ctx_id") for c in ctxs])
    for c in ctxs:
        check(list(c) == ["ctx_id", "pid", "comm", "engine", "stats",
                          "stale", "rates"],
              "top context keys: %s" % list(c))
        check(c.get("comm") is None and c.get("engine") is None,
              "top context %s: comm and engine of no process" % c.get("ctx_id"))
    if len(ctxs) == 2:
        # 1: 10 -> 260 over 2.5 s; 3: opened in the interval, from 0
        check(ctxs[0]["rates"] == dict(zip(RATES, [100, 0, 0])),
              "top context 1 rates: %s" % ctxs[0]["rates"])
        check(ctxs[1]["rates"] == dict(zip(RATES, [20, 10, 2])) and
              ctxs[1]["stale"] == 5,
              "top context 3 rates: %s" % ctxs[1]["rates"])


def text_checks(exe):
    r = subprocess.run([exe, "text"], capture_output=True, text=True)
    check(r.returncode == 0, "retirectl_json text exits %d" % r.returncode)
    lines = r.stdout.splitlines()
    want = [
        "1.000000001 submit     req slot 3 gen 1 read,write len 4096",
        "2.000000002 activate   req slot 3 gen 1",
        "3.000000003 timeout    req slot 3 gen 1",
        "4.000000004 cancel     req slot 3 gen 1 result EALREADY",
        "5.000000005 terminal   req slot 3 gen 1 failed error EIO",
        "6.000000006 borrow     req slot 3 gen 1 -> token slot 0 gen 1",
        "7.000000007 handoff    req slot 3 gen 1 new token slot 1 gen 1",
        "8.000000008 return     req slot 3 gen 1 <- token slot 1 gen 1 error EPIPE",
        "9.000000009 retire     req slot 3 gen 1",
        "10.000000010 stale      req slot 3 gen 1 counter cancel found gen 2",
        "11.000000011 quarantine req slot 4 gen 7",
        "12.000000012 reset      req slot 4 gen 7",
        "13.000000013 fence      req slot 4 gen 7 ECANCELED",
        "14.000000014 gate       req slot 4 gen 7 signalled",
        "15.000000015 export     buf slot 2 gen 1 len 8192 exports 1",
        "16.000000016 import     buf slot 3 gen 1 len 4096",
        "17.000000017 revoke     buf slot 2 gen 1 len 8192 importers 1",
        "18.000000018 terminal   req slot 4 gen 7 completed",
        "19.000000019 cancel     req slot 4 gen 7 result 0",
        "20.000000020 return     req slot 4 gen 7 <- token slot 9 gen 2",
        "21.000000021 stale      buf slot 5 gen 3 counter counter99 found gen 0",
        "22.000000022 type200    kind77 slot 1 gen 1 value -2147483648 aux 0xffffffffffffffff",
        "recorded 300, dropped 44",
    ]
    check(lines[:len(want)] == want,
          "history text:\n" + "\n".join(lines[:len(want)]))
    top = lines[len(want):]
    # two screens into a pipe: a blank line between, none before, no escape
    check("\x1b" not in r.stdout, "top text into a pipe has no escape")
    check(len(top) > 4 and top[0].startswith("module: 2 contexts") and
          top.count("") == 1 and top[len(top) // 2] == "",
          "top text screens: %r" % top)
    rows = {l.split()[0]: l.split() for l in top if l.split()}
    check(rows.get("admitted", [])[1:3] == ["6000", "400.0/s"],
          "top text admitted: %s" % rows.get("admitted"))
    check(rows.get("stale", [])[1:3] == ["5", "2.0/s"],
          "top text stale: %s" % rows.get("stale"))
    check(rows.get("3", [])[-3:] == ["20.0", "10.0", "2.0"] and
          rows.get("3", [])[1:4] == [str(4194304 + 33), "-", "-"],
          "top text context 3: %s" % rows.get("3"))


def run(*args):
    r = subprocess.run([CTL] + list(args), capture_output=True, text=True,
                       errors="replace")
    return r.returncode, r.stdout, r.stderr


def cli_checks():
    rc, out, err = run("-h")
    check(rc == 0 and out.startswith("usage:") and not err,
          "retirectl -h: exit %d" % rc)
    # usage errors: exit 2, before any library call, naming the argument
    for args, needle in [
            ([], "no command"),
            (["bogus"], "'bogus'"),
            (["-z", "info"], "'-z'"),
            (["-d"], "'-d'"),
            (["info", "extra"], "'extra'"),
            (["info", "-x"], "'-x'"),
            (["stats", "extra"], "'extra'"),
            (["limits", "max_active=-1"], "'max_active=-1'"),
            (["limits", "max_active=4294967296"], "'max_active=4294967296'"),
            (["limits", "max_active=1x"], "'max_active=1x'"),
            (["limits", "max_active="], "'max_active='"),
            (["limits", "max_active=+1"], "'max_active=+1'"),
            (["limits", "max_active= 1"], "'max_active= 1'"),
            (["limits", "max_active=0x"], "'max_active=0x'"),
            (["limits", "max_active=0x0x1"], "'max_active=0x0x1'"),
            (["limits", "watchdog_ns=18446744073709551616"],
             "'watchdog_ns=18446744073709551616'"),
            (["limits", "max_active"], "'max_active'"),
            (["limits", "nope=1"], "'nope'"),
            (["limits", "max_active=1", "max_active=2"], "'max_active'"),
            (["engine", "nope=1"], "'nope'"),
            (["engine", "flags=blocked,nope"], "'flags=blocked,nope'"),
            (["engine", "flags=blocked,"], "'flags=blocked,'"),
            (["engine", "flags=none,hang"], "'flags=none,hang'"),
            (["engine", "fail_every=4294967296"], "'fail_every=4294967296'"),
            (["engine", "seed=18446744073709551616"],
             "'seed=18446744073709551616'"),
            (["engine", "reset", "now"], "'now'"),
            (["monitor", "-c", "0"], "'0'"),
            (["monitor", "-c", "-1"], "'-1'"),
            (["monitor", "-t", "-1"], "'-1'"),
            (["monitor", "-t", "nan"], "'nan'"),
            (["monitor", "-c"], "'-c'"),
            (["history", "0"], "'0'"),
            (["history", "x"], "'x'"),
            (["history", "-1"], "'-1'"),
            (["history", "18446744073709551616"], "'18446744073709551616'"),
            (["history", "1", "2"], "'2'"),
            (["history", "-x"], "'-x'"),
            (["top", "-n", "0"], "'0'"),
            (["top", "-n"], "'-n'"),
            (["top", "-d", "0"], "'0'"),
            (["top", "-d", "0.05"], "'0.05'"),
            (["top", "-d", "inf"], "'inf'"),
            (["top", "now"], "'now'"),
    ]:
        rc, out, err = run("-d", "/nonexistent/retire", *args)
        first = err.splitlines()[0] if err else ""
        check(rc == 2 and needle in first and first.startswith("retirectl: ")
              and not out,
              "retirectl %s: exit %d, %r (want 2 and a line naming %s)" %
              (" ".join(args), rc, first, needle))
    # valid lines that reach the library: exit 1, naming the function
    for args, fn in [
            (["info"], "retire_open_device"),
            (["info", "-j"], "retire_open_device"),
            (["limits", "-j", "max_active=0x10", "watchdog_ns=0"],
             "retire_open_device"),
            (["engine", "reset"], "retire_open_device"),
            (["history", "1"], "retire_open_device"),
            (["history", "-j", "0x10"], "retire_open_device"),
    ]:
        rc, out, err = run("-d", "/nonexistent/retire", *args)
        check(rc == 1 and not out and
              err == "retirectl: %s: No such file or directory (ENOENT)\n" % fn,
              "retirectl %s: exit %d, %r (want 1 and %s)" %
              (" ".join(args), rc, err, fn))


if __name__ == "__main__":
    for exe in (CTL, JSON_EXE):
        if not os.access(exe, os.X_OK):
            print("FAIL %s is not built (make -C userspace)" % exe)
            sys.exit(1)
    json_checks()
    cli_checks()
    print("%s: retirectl JSON and command line, %d failed" %
          ("FAIL" if failures else "ok", len(failures)))
    sys.exit(1 if failures else 0)
