#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# One list per vocabulary: uapi/linux/retire_names.h names every history
# event, outcome, stale kind, handle kind and counter once, and everything
# that prints them builds its table from it. This checks that the list
# agrees with the constants of uapi/linux/retire.h (each NAME at the value
# its position gives), with struct retire_stats and with the netlink spec's
# stats attribute set, and that no source file spells a vocabulary out
# again. Prints one line per finding; exits 1 if any.
import os
import re
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES_H = "uapi/linux/retire_names.h"
findings = []


def read(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def vocabulary(text, macro):
    body = text.split("#define %s(X, X_LAST)" % macro, 1)[1]
    body = body.split("\n\n", 1)[0]
    return re.findall(r"X(?:_LAST)?\((\w+), (\w+)\)", body)


names_h = read(NAMES_H)
uapi = read("uapi/linux/retire.h")

# the constants: NAME at 1 + its position, and none of the prefix left out
# (record types have their own check below: RETIRE_REC_F_* are not types)
for macro, prefix in (("RETIRE_EVENT_NAMES", "RETIRE_EV_"),
                      ("RETIRE_OUTCOME_NAMES", "RETIRE_OUTCOME_"),
                      ("RETIRE_STALE_NAMES", "RETIRE_STALE_"),
                      ("RETIRE_KIND_NAMES", "RETIRE_KIND_")):
    voc = vocabulary(names_h, macro)
    defined = dict(re.findall(r"\b%s([A-Z_]+)\s*=?\s*(\d+)\b" %
                              re.escape(prefix), uapi))
    for i, (const, _) in enumerate(voc):
        if defined.get(const) != str(i + 1):
            findings.append("%s: %s%s is %s in retire.h, %d in the list" %
                            (macro, prefix, const, defined.get(const), i + 1))
    for const in sorted(set(defined) - {c for c, _ in voc}):
        findings.append("%s: %s%s has no name" % (macro, prefix, const))

voc = vocabulary(names_h, "RETIRE_REC_NAMES")
defined = dict(re.findall(r"#define RETIRE_REC_([A-Z_]+)\s+(\d+)\b", uapi))
if [c for c, _ in voc] != sorted(defined, key=lambda c: int(defined[c])) or \
   [defined.get(c) for c, _ in voc] != [str(i + 1) for i in range(len(voc))]:
    findings.append("RETIRE_REC_NAMES is not RETIRE_REC_* from 1: %s" %
                    defined)

# bit lists: NAME at bit its position, and no bit of the prefix left out
for macro, prefix in (("RETIRE_FEATURE_NAMES", "RETIRE_FEAT_"),
                      ("RETIRE_SIM_FLAG_NAMES", "RETIRE_SIM_F_"),
                      ("RETIRE_CQE_FLAG_NAMES", "RETIRE_CQE_F_")):
    voc = vocabulary(names_h, macro)
    bits = dict(re.findall(r"#define %s([A-Z_]+)\s+\(1U?L?L? << (\d+)\)" %
                           re.escape(prefix), uapi))
    want = {c: str(i) for i, (c, _) in enumerate(voc)}
    if bits != want:
        findings.append("%s is not %s* by bit: %s against %s" %
                        (macro, prefix, sorted(bits.items()),
                         sorted(want.items())))

# the netlink header's health events, from 0
nlh = read("uapi/linux/retire_netlink.h")
health = re.findall(r"^\tRETIRE_HEALTH_EVENT_([A-Z_]+),$",
                    nlh.split("enum retire_health_event {", 1)[1]
                    .split("};", 1)[0], re.M)
if health != [c for c, _ in vocabulary(names_h, "RETIRE_HEALTH_NAMES")]:
    findings.append("RETIRE_HEALTH_NAMES is not enum retire_health_event: %s"
                    % health)

stats = [n for _, n in vocabulary(names_h, "RETIRE_STAT_NAMES")]

# struct retire_stats: its leading scalar fields, in order
struct = uapi.split("struct retire_stats {", 1)[1].split("};", 1)[0]
fields = re.findall(r"__u64 (\w+);", struct)
if fields != stats:
    findings.append("RETIRE_STAT_NAMES is not struct retire_stats' scalars: %s"
                    % [f for f in fields if f not in stats] or
                    [s for s in stats if s not in fields])

# the netlink spec: the stats attribute set after its pad, ctx-id and pid
spec = yaml.safe_load(read("Documentation/netlink/specs/retire.yaml"))
attrs = next(s for s in spec["attribute-sets"] if s["name"] == "stats")
nl = [a["name"].replace("-", "_") for a in attrs["attributes"]
      if a["name"] not in ("pad", "ctx-id", "pid")]
if nl != stats:
    findings.append("the netlink stats attributes are not RETIRE_STAT_NAMES:"
                    " %s" % sorted(set(nl) ^ set(stats)))

# spelled out again: a source file quoting names of one list one after
# another, as a table does
MARKERS = {what: re.compile(r".{0,80}?".join('"%s"' % n for n in names),
                            re.S)
           for what, names in (
               ("events", ("submit", "activate", "terminal", "timeout")),
               ("outcomes", ("completed", "failed", "cancelled",
                             "timed_out")),
               ("stale kinds", ("engine", "cancel", "token", "user")),
               ("handle kinds", ("buf", "req", "token")),
               ("counters", ("admitted", "refused", "completed")),
               ("record types", ("timeout", "cancel_ack", "terminal")),
               ("feature bits", ("genl", "requests", "sim")),
               ("sim flags", ("blocked", "hang", "cancel_running")),
               ("health events", ("quarantine", "reset", "reaped")))}
# quoted together for another reason
ALLOWED = {
    # the counters retirectl top shows, not a table of outcomes
    ("selftests/retirectl_test.sh", "outcomes"),
    # the features info -j must at least list, not a table of them
    ("selftests/retirectl_test.sh", "feature bits"),
}
files = subprocess.run(["git", "-C", ROOT, "ls-files", "-co",
                        "--exclude-standard", "*.c", "*.h", "*.py", "*.sh"],
                       capture_output=True, text=True, check=True).stdout
for rel in files.split():
    if rel in (NAMES_H, "scripts/check-vocab.py") or \
       not os.path.isfile(os.path.join(ROOT, rel)):
        continue
    text = read(rel)
    for what, pattern in MARKERS.items():
        if (rel, what) not in ALLOWED and pattern.search(text):
            findings.append("%s spells the %s out again: name them from %s"
                            % (rel, what, NAMES_H))

for f in findings:
    print(f)
sys.exit(1 if findings else 0)
