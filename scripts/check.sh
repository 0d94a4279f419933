#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: install what is missing, build everything, then for each
# target kernel build retire.ko for it, boot it in QEMU, run the KUnit
# suites (debug kernel only) and every kselftest, unload the module, and
# count. Any kernel report in a run fails that run. Last, each planted
# fault of scripts/plants/ must be caught (scripts/plant.sh).
#
# RETIRE_KERNELS="debug 6.1 6.12" picks the kernels (default all three).
# Ends with one line: "N passed, N failed, N skipped"; exits 1 on failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RETIRE_TOP" || exit 1

kernels=${RETIRE_KERNELS:-debug 6.1 6.12}
total_pass=0 total_fail=0 total_skip=0
summary=()

# one result line; $1 is PASS, FAIL or SKIP
record() {
	local v=$1
	shift
	echo "$v $*"
	case $v in
	PASS) k_pass=$((k_pass + 1)) ;;
	FAIL) k_fail=$((k_fail + 1)) ;;
	SKIP) k_skip=$((k_skip + 1)) ;;
	esac
}

close_group() {
	total_pass=$((total_pass + k_pass))
	total_fail=$((total_fail + k_fail))
	total_skip=$((total_skip + k_skip))
	summary+=("$(printf '%-28s %3d passed, %d failed, %d skipped (%ds)' \
		"$1" $k_pass $k_fail $k_skip $(($(date +%s) - k_start)))")
}

start_group() {
	k_pass=0 k_fail=0 k_skip=0 k_start=$(date +%s)
	echo
	echo "=== $1"
}

"$RETIRE_TOP/scripts/deps.sh" || die "installing dependencies failed"

# --- the host: userspace, selftests, ABI and style checks ----------------
start_group "host"
if make -s -C userspace >/dev/null && make -s -C selftests >/dev/null; then
	record PASS "host: libretire, retirectl and the kselftests build with -Werror"
else
	record FAIL "host: userspace or selftests failed to build"
fi
if scripts/ynl-uapi.sh; then
	record PASS "host: uapi/linux/retire_netlink.h is ynl-gen-c.py's output for the YAML spec"
else
	record FAIL "host: uapi/linux/retire_netlink.h differs from ynl-gen-c.py's output for the YAML spec"
fi
# make lint: checkpatch, sparse for each kernel, kernel-doc, shellcheck;
# a result each, with its findings above it
lint=$(scripts/lint.sh 2>&1)
lint_rc=$?
while IFS= read -r line; do
	case $line in
	"PASS lint: "* | "FAIL lint: "*) record "${line%% *}" "host: ${line#* }" ;;
	"make lint: "*) ;;
	*) echo "$line" ;;
	esac
done <<<"$lint"
[ $lint_rc = 0 ] || [[ $lint == *"FAIL lint: "* ]] ||
	record FAIL "host: scripts/lint.sh failed (exit $lint_rc)"
# the family's page is the kernel's own generator's output for the spec
gen=$(mktemp)
if /usr/bin/python3 "$(source_tree)/tools/net/ynl/ynl-gen-rst.py" \
	-i Documentation/netlink/specs/retire.yaml -o "$gen" &&
	diff -u Documentation/netlink/retire.rst "$gen"; then
	record PASS "host: Documentation/netlink/retire.rst is generated from the YAML spec"
else
	record FAIL "host: Documentation/netlink/retire.rst differs from ynl-gen-rst.py's output"
fi
rm -f "$gen"
if /usr/bin/python3 - "$(source_tree)/Documentation/netlink/genetlink.yaml" \
	Documentation/netlink/specs/retire.yaml <<'PY'
import sys

import jsonschema
import yaml

schema = yaml.safe_load(open(sys.argv[1]))
jsonschema.validate(yaml.safe_load(open(sys.argv[2])), schema)
PY
then
	record PASS "host: the netlink spec validates against the kernel's genetlink schema"
else
	record FAIL "host: the netlink spec does not validate against the kernel's genetlink schema"
fi
if scripts/check-rst.py Documentation/*.rst; then
	record PASS "host: Documentation/*.rst parses without a warning"
else
	record FAIL "host: Documentation/*.rst has reStructuredText problems"
fi
bad=
for m in userspace/man/*.[378]; do
	if [ -n "$(MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)" ]; then
		bad="$bad $m"
	fi
done
if [ -z "$bad" ]; then
	record PASS "host: every man page renders without a warning"
else
	record FAIL "host: man pages with warnings:$bad"
fi
# the functions of the version script, each with its own page
missing=
while read -r s; do
	[ -f "userspace/man/$s.3" ] || missing="$missing $s"
done < <(sed -n '/global:/,/local:/s/^[[:space:]]*\([a-z_][a-z0-9_]*\);.*/\1/p' \
	userspace/lib/libretire.map)
if [ -z "$missing" ]; then
	record PASS "host: every function of libretire.map has a man page"
else
	record FAIL "host: functions of libretire.map without a man page:$missing"
fi
# the commands retirectl dispatches, from its table, each in its -h
missing=
cmds=$(sed -n 's/^\t{ "\([a-z][a-z-]*\)", cmd_[a-z_]* },$/\1/p' \
	userspace/retirectl/retirectl.c)
if help=$(userspace/retirectl/retirectl -h) && [ -n "$cmds" ]; then
	for c in $cmds; do
		grep -qE "^  $c( |\$)" <<<"$help" || missing="$missing $c"
	done
else
	missing=" (retirectl -h failed, or no command table)"
fi
if [ -z "$missing" ]; then
	record PASS "host: retirectl -h lists every command (${cmds//$'\n'/ })"
else
	record FAIL "host: retirectl -h does not list:$missing"
fi
# retirectl without the module: its JSON printers fed known values, and
# its command line's usage errors (2) and failed calls (1)
if out=$(userspace/tests/retirectl_json.py 2>&1); then
	record PASS "host: retirectl's JSON is valid, escaped, with the spec's keys; bad arguments exit 2"
else
	grep -E '^FAIL' <<<"$out" | sed 's/^/    /'
	record FAIL "host: userspace/tests/retirectl_json.py"
fi
# a DESTDIR install: the module and its index, the udev rule, the
# library's layout, SONAME, symbol versions, retirectl without RUNPATH, a
# program built with pkg-config's flags (shared and static) that runs the
# latency API; then an uninstall that leaves nothing it made
if out=$(scripts/install-test.sh 2>&1); then
	record PASS "host: make install (retire.ko indexed with its aliases, udev rule, SONAME, LIBRETIRE_1.0, 1.1, 1.2 and 1.3 symbols, retirectl without RUNPATH, a pkg-config program shared and static) and make uninstall (nothing left) pass scripts/install-test.sh"
else
	grep -E '^(FAIL|install-test:)' <<<"$out" | sed 's/^/    /'
	record FAIL "host: scripts/install-test.sh"
fi
# DKMS: dkms add and dkms build for stock 6.1 and 6.12, in scratch trees
if out=$(scripts/dkms-test.sh 2>&1); then
	record PASS "host: dkms build makes retire.ko for stock 6.1 and 6.12 from make dkms-src's tree, the host's DKMS state untouched (scripts/dkms-test.sh)"
else
	grep -E '^(FAIL|dkms-test:| )' <<<"$out" | sed 's/^/    /'
	record FAIL "host: scripts/dkms-test.sh"
fi
# every planted fault still applies to today's code: a stale plant is found
# here in a second, not after the kernels' hour (scripts/build-module.sh
# applies them the same way)
stale=""
nplants=0
for p in scripts/plants/*.patch; do
	nplants=$((nplants + 1))
	patch -s -p1 --dry-run -f <"$p" >/dev/null 2>&1 || stale="$stale ${p##*/}"
done
if [ -z "$stale" ]; then
	record PASS "host: all $nplants planted faults apply to the module's code"
else
	record FAIL "host: planted faults that no longer apply (refresh them):$stale"
fi
# the protocol model: every interleaving of Documentation/model/retire.pml
if out=$(scripts/model-check.sh -q 2>&1); then
	record PASS "host: spin exhausts the protocol model, no claim violated (${out//$'\n'/; })"
else
	echo "    ${out//$'\n'/$'\n'    }"
	record FAIL "host: scripts/model-check.sh"
fi
close_group "host"

# --- each kernel ---------------------------------------------------------
for k in $kernels; do
	start_group "kernel $k"
	res=$RETIRE_BUILD/results/$k
	mkdir -p "$res"
	if ! moddir=$(scripts/build-module.sh "$k"); then
		record FAIL "$k: retire.ko builds with W=1 and no warnings"
		close_group "kernel $k"
		continue
	fi
	record PASS "$k: retire.ko builds with W=1 and no warnings"

	bound=600
	[ "$k" = debug ] && bound=2700
	scripts/vm-run.sh -k "$k" -e -m "$moddir" -t "$bound" -o "$res" -- \
		scripts/guest-check.sh "$moddir" >"$res/vm-run.log" 2>&1
	sed 's/^/  | /' "$res/vm-run.log" | grep -v '^  | # ' | tail -n 40

	while IFS= read -r line; do
		case $line in
		"PASS "* | "FAIL "* | "SKIP "*)
			record "${line%% *}" "$k: ${line#* }" ;;
		"  | "*) echo "  $line" ;;	# what a failed case logged
		esac
	done < <(scripts/results.py "$res")

	if [ "$(cat "$res/unload" 2>/dev/null)" = ok ]; then
		record PASS "$k: retire.ko unloads after the tests"
	else
		record FAIL "$k: retire.ko unloads after the tests"
	fi
	if [ -e "$res/problems" ] && ! grep -qv 'retire.ko did not unload' "$res/problems"; then
		record PASS "$k: no kernel report, leak, taint or timeout"
	else
		record FAIL "$k: no kernel report, leak, taint or timeout"
		sed 's/^/    /' "$res/problems" 2>/dev/null
	fi

	# a second boot, nothing loaded: the real make install, autoload by
	# open and by genetlink, a member of the group without root, make
	# uninstall (stock kernels: the debug one has no /lib/modules tree)
	if [ "$k" != debug ]; then
		ilog=$RETIRE_BUILD/results/install-$k.log
		scripts/install-vm.sh -k "$k" >"$ilog" 2>&1
		irc=$?
		nok=$(grep -c '^ok ' "$ilog")
		bad=$(grep -E '^(FAIL|problem:) ' "$ilog")
		while read -r _ rest; do
			[ -n "$rest" ] && record FAIL "$k: install: $rest"
		done <<<"$bad"
		if [ "$irc" = 0 ] && [ -z "$bad" ] && [ "$nok" -gt 0 ]; then
			record PASS "$k: make install, /dev/retire and the genetlink family load retire.ko, a member of group retire without root (EPERM for the knobs), make uninstall: $nok checks (scripts/install-vm.sh)"
		elif [ -z "$bad" ]; then
			record FAIL "$k: install: scripts/install-vm.sh failed (see $ilog)"
		fi
	fi
	close_group "kernel $k"
done

# --- the benchmark runs (tiny: it proves nothing about speed) --------------
if [[ " $kernels " == *" 6.12 "* ]]; then
	start_group "bench"
	blog=$RETIRE_BUILD/results/bench-tiny.log
	mkdir -p "$(dirname "$blog")"
	if scripts/bench.sh -k 6.12 -t >"$blog" 2>&1 &&
		grep -q '^retire: kernel bytes per unretired request' "$blog"; then
		record PASS "6.12: make bench's retire_bench runs every row at a tiny size"
	else
		record FAIL "6.12: retire_bench failed at a tiny size (see $blog)"
	fi
	close_group "bench"
fi

# --- the harness bites: each planted fault must fail its run ---------------
start_group "plants"
nplants=$(scripts/plant.sh -l | wc -l)
plog=$RETIRE_BUILD/results/plants.log
mkdir -p "$(dirname "$plog")"
scripts/plant.sh -k "$kernels" -a >"$plog" 2>&1
seen=0
while read -r v rest; do
	case $v in
	PASS | FAIL | SKIP) record "$v" "$rest" && seen=$((seen + 1)) ;;
	*) echo "  $v $rest" ;;
	esac
done <"$plog"
# a plant that printed no verdict was not shown to be caught
[ "$seen" = "$nplants" ] ||
	record FAIL "plants: $((nplants - seen)) of $nplants gave no verdict (see $plog)"
close_group "plants"

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
echo
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
