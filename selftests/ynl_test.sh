#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own YNL client (tools/net/ynl/cli.py of linux-source-6.12)
# driven by Documentation/netlink/specs/retire.yaml against the running
# module: the spec is the contract, so a generic client that knows nothing
# but the spec must be able to use the family.
#
# The tree is $KSFT_SRC, or the one KSFT_DIR is tools/testing/selftests of
# (scripts/ksft-dir.sh takes tools/net/ynl along). cli.py looks for the
# schema at <spec dir>/../genetlink.yaml, so the spec is copied into a temporary
# directory next to a link to the tree's schema.
#
# Exit: 0 every check passed (or some skipped), 1 one failed, 4 all skipped.

set -u

. "$(dirname "$0")/ksft_lib.sh"

spec=$top/Documentation/netlink/specs/retire.yaml
py=/usr/bin/python3
poke=$here/stale_poke

CHECKS="info_get_reports_abi_version_1
info_get_lists_the_sim_engine_first
stats_get_do_has_admitted
stats_get_dump_is_a_list_of_contexts
engine_get_has_the_knobs
subscribe_stale_receives_stale_ntf
stale_ntf_names_the_poking_process"

ktap_print_header
ktap_set_plan "$(echo "$CHECKS" | wc -l)"

# the totals and the exit status: 4 when every check skipped
finish() {
	if [ "$KTAP_CNT_SKIP" -eq "$KSFT_NUM_TESTS" ]; then
		ktap_print_totals
		exit "$KSFT_SKIP"
	fi
	ktap_finished
}

skip_all() {
	ktap_print_msg "$1"
	for c in $CHECKS; do
		ktap_test_skip "ynl: $c"
	done
	finish
}

# the first lines of a file, as TAP comments
show() {
	[ -s "$1" ] && tail -n 15 "$1" | sed 's/^/# /'
	return 0
}

# ---- what the checks need ------------------------------------------------

src=${KSFT_SRC:-$(cd "$KSFT_DIR/../../.." && pwd)}
if [ -z "$src" ] || [ ! -f "$src/tools/net/ynl/cli.py" ]; then
	skip_all "no linux-source-6.12 tree with tools/net/ynl (set KSFT_SRC)"
fi
[ -f "$src/Documentation/netlink/genetlink.yaml" ] ||
	skip_all "$src has no Documentation/netlink/genetlink.yaml"
[ -f "$spec" ] || skip_all "no spec at $spec"
[ -x "$py" ] || skip_all "$py is absent"
"$py" -c 'import yaml, jsonschema' 2>/dev/null ||
	skip_all "python3-yaml or python3-jsonschema is not installed"
[ -e /dev/retire ] || skip_all "/dev/retire is absent: is retire.ko loaded?"

tmp=$(mktemp -d /tmp/retire-ynl.XXXXXX) || skip_all "no temporary directory"
pp=
# shellcheck disable=SC2317 # reached from the EXIT trap
cleanup() {
	[ -n "$pp" ] && kill "$pp" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$tmp/specs"
cp "$spec" "$tmp/specs/retire.yaml"
ln -s "$src/Documentation/netlink/genetlink.yaml" "$tmp/genetlink.yaml"

# the tree is read-only in the test VM: no bytecode next to it
export PYTHONDONTWRITEBYTECODE=1

# The spec is validated against the kernel's schema on the host (make
# check); here, under software emulation and KASAN, jsonschema alone can
# take longer than the calls themselves.
ynl() {
	timeout "${YNL_TIMEOUT:-150}" "$py" "$src/tools/net/ynl/cli.py" \
		--spec "$tmp/specs/retire.yaml" --no-schema --output-json "$@"
}

# jcheck FILE EXPR [ARG]: EXPR (python, over the last JSON line of FILE as
# d, and ARG as a) is true
jcheck() {
	"$py" - "$@" <<'EOF'
import json
import sys

lines = [l for l in open(sys.argv[1]) if l.strip()]
d = json.loads(lines[-1])
a = sys.argv[3] if len(sys.argv) > 3 else None
sys.exit(0 if eval(sys.argv[2], {'d': d, 'a': a}) else 1)
EOF
}

# check NAME EXPR [ARG] -- CLI-ARGS...: run cli.py, then EXPR on its output
check() {
	name=$1
	expr=$2
	shift 2
	arg=
	if [ "$1" != "--" ]; then
		arg=$1
		shift
	fi
	shift
	ynl "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && jcheck "$tmp/out" "$expr" "$arg" 2>>"$tmp/err"; then
		ktap_test_pass "ynl: $name"
	else
		ktap_print_msg "cli.py $* exited $rc"
		show "$tmp/out"
		show "$tmp/err"
		ktap_test_fail "ynl: $name"
	fi
}

# ---- requests ------------------------------------------------------------

check info_get_reports_abi_version_1 \
	"isinstance(d, dict) and d.get('abi-version') == 1" \
	-- --do info-get
check info_get_lists_the_sim_engine_first \
	"isinstance(d, dict) and d['engine'][0].get('id') == 0 and d['engine'][0].get('name') == 'sim'" \
	-- --do info-get
check stats_get_do_has_admitted \
	"isinstance(d, dict) and 'admitted' in d and 'stale-cancel' in d" \
	-- --do stats-get
check stats_get_dump_is_a_list_of_contexts \
	"isinstance(d, list) and all('ctx-id' in m and 'pid' in m and 'admitted' in m for m in d)" \
	-- --dump stats-get
check engine_get_has_the_knobs \
	"isinstance(d, dict) and 'latency-ns' in d and 'flags' in d" \
	-- --do engine-get

# ---- the "stale" group ---------------------------------------------------

if [ ! -x "$poke" ]; then
	ktap_print_msg "$poke is not built"
	ktap_test_skip "ynl: subscribe_stale_receives_stale_ntf"
	ktap_test_skip "ynl: stale_ntf_names_the_poking_process"
	finish
fi

# a stale cancel every 20 ms, for longer than cli.py can take to subscribe
"$poke" 180000 20 >"$tmp/poke.out" 2>&1 &
pp=$!
poke_pid=$pp
ynl --subscribe stale --sleep 2 >"$tmp/sub.out" 2>"$tmp/sub.err"
rc=$?
kill "$pp" 2>/dev/null
wait "$pp" 2>/dev/null
pp=

if [ $rc -eq 0 ] && jcheck "$tmp/sub.out" \
	"any(m.get('name') == 'stale-ntf' and 'cancel' in m.get('msg', {}) for m in d)" \
	2>>"$tmp/sub.err"; then
	ktap_test_pass "ynl: subscribe_stale_receives_stale_ntf"
else
	ktap_print_msg "cli.py --subscribe stale exited $rc"
	show "$tmp/sub.out"
	show "$tmp/sub.err"
	show "$tmp/poke.out"
	ktap_test_fail "ynl: subscribe_stale_receives_stale_ntf"
fi
# the poker's context: its pid, and the cancels it made
if [ $rc -eq 0 ] && jcheck "$tmp/sub.out" \
	"any(m.get('name') == 'stale-ntf' and m['msg'].get('pid') == int(a) and m['msg'].get('cancel', 0) > 0 and m['msg'].get('ctx-id', 0) > 0 for m in d)" \
	"$poke_pid" 2>>"$tmp/sub.err"; then
	ktap_test_pass "ynl: stale_ntf_names_the_poking_process"
else
	show "$tmp/poke.out"
	ktap_test_fail "ynl: stale_ntf_names_the_poking_process"
fi

finish
