#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: install what is missing, build everything, check the host
# side, then for each target kernel boot it in QEMU with retire.ko built
# for it, run the KUnit suites (debug kernel only) and every kselftest,
# unload the module, and count; on the stock kernels, install it as a
# user would in a second boot. Any kernel report in a run fails that run.
# Last, each planted fault of scripts/plants/ must be caught
# (scripts/plant.sh). Documentation/testing.rst tells the whole run.
#
# Groups, in order: host, kernel debug, kernel 6.1, kernel 6.12, bench,
# plants. What runs is picked by (make check VAR=... passes them):
#
#   KERNELS="debug 6.1 6.12"  the kernels (RETIRE_KERNELS too; default
#                             all three), for the kernel groups and plants
#   SUITE=ring_test,kunit     only these suites in each kernel group:
#                             kselftest programs, "kunit", "install";
#                             nothing else runs
#   PLANT=ring-trusts-the-tail,...  only these plants; nothing else runs
#   ONLY=host,kernels,bench,plants  only these groups
#
# Ends with a table of the groups (results and seconds), the ten slowest
# steps, and one line: "N passed, N failed, N skipped"; exits 1 on
# failure. Every step's time is kept in build/results/steps.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RETIRE_TOP" || exit 1

kernels=${KERNELS:-${RETIRE_KERNELS:-debug 6.1 6.12}}
suites=${SUITE:-}
suites=${suites//,/ }
plants=${PLANT:-}
plants=${plants//,/ }
only=${ONLY:-}
only=${only//,/ }
if [ -z "$only" ]; then
	[ -z "$suites" ] || only="kernels"
	[ -z "$plants" ] || only="$only plants"
fi
want() {
	[ -z "$only" ] || [[ " $only " == *" $1 "* ]]
}
# a suite of the kernel group: everything when no SUITE names one
want_suite() {
	[ -z "$suites" ] || [[ " $suites " == *" $1 "* ]]
}

total_pass=0 total_fail=0 total_skip=0
summary=()
run_start=$(date +%s)
mkdir -p "$RETIRE_BUILD/results"
steps=$RETIRE_BUILD/results/steps
: >"$steps"

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

# step SECONDS NAME: one timed step of the current group
step() {
	printf '%s\t%s\t%s\n' "$1" "$group" "$2" >>"$steps"
}

# timed NAME CMD...: run CMD and note the step; CMD's status
timed() {
	local name=$1 t0=$SECONDS rc=0
	shift
	"$@" || rc=$?
	step $((SECONDS - t0)) "$name"
	return $rc
}

start_group() {
	group=$1
	k_pass=0 k_fail=0 k_skip=0 k_start=$(date +%s)
	echo
	echo "=== $1"
}

close_group() {
	total_pass=$((total_pass + k_pass))
	total_fail=$((total_fail + k_fail))
	total_skip=$((total_skip + k_skip))
	summary+=("$(printf '%-14s %4d passed %3d failed %3d skipped %6d s' \
		"$group" $k_pass $k_fail $k_skip $(($(date +%s) - k_start)))")
}

# a script's "time SECONDS NAME" lines are steps; its PASS, FAIL and SKIP
# lines results (with PREFIX); the rest is shown
relay() {
	local prefix=$1 v rest
	while IFS= read -r line; do
		v=${line%% *}
		rest=${line#* }
		case $v in
		PASS | FAIL | SKIP) record "$v" "$prefix$rest" ;;
		time) step "${rest%% *}" "${rest#* }" ;;
		*) echo "$line" ;;
		esac
	done
}

group=deps
t0=$SECONDS
"$RETIRE_TOP/scripts/deps.sh" || die "installing dependencies failed"
step $((SECONDS - t0)) "scripts/deps.sh"

# --- the host: userspace, selftests, ABI and style checks ----------------
# one host result: WHAT, then the check's command; its output is shown,
# indented, only when it fails
host() {
	local what=$1 out rc
	shift
	out=$(timed "$what" "$@" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		record PASS "host: $what"
	else
		[ -z "$out" ] || tail -n 40 <<<"$out" | sed 's/^/    /'
		record FAIL "host: $what"
	fi
}

check_builds() {
	make -s -C userspace >/dev/null && make -s -C selftests >/dev/null
}

check_netlink_rst() {
	local gen rc=0
	gen=$(mktemp)
	/usr/bin/python3 "$(source_tree)/tools/net/ynl/ynl-gen-rst.py" \
		-i Documentation/netlink/specs/retire.yaml -o "$gen" &&
		diff -u Documentation/netlink/retire.rst "$gen" || rc=1
	rm -f "$gen"
	return $rc
}

check_netlink_schema() {
	/usr/bin/python3 - "$(source_tree)/Documentation/netlink/genetlink.yaml" \
		Documentation/netlink/specs/retire.yaml <<'PY'
import sys

import jsonschema
import yaml

schema = yaml.safe_load(open(sys.argv[1]))
jsonschema.validate(yaml.safe_load(open(sys.argv[2])), schema)
PY
}

check_man_pages() {
	local m bad="" t top=$PWD
	# a .so alias names man3/PAGE.3, as it does once installed
	t=$(mktemp -d)
	ln -s "$top/userspace/man" "$t/man3"
	for m in userspace/man/*.[378]; do
		if [ -n "$(cd "$t" && MANWIDTH=80 man --warnings -l "$top/$m" 2>&1 >/dev/null)" ]; then
			bad="$bad $m"
		fi
	done
	rm -rf "$t"
	[ -z "$bad" ] || { echo "man pages with warnings:$bad"; return 1; }
}

# the functions of the version script, each with its own page
check_man_functions() {
	local s missing=
	# the exported functions, and the static inline ones of the header:
	# each has a page of its own or a .so alias to the page describing it
	while read -r s; do
		[ -f "userspace/man/$s.3" ] || missing="$missing $s"
	done < <({
		sed -n '/global:/,/local:/s/^[[:space:]]*\([a-z_][a-z0-9_]*\);.*/\1/p' \
			userspace/lib/libretire.map
		sed -n 's/^static inline [^(]*[ *]\(retire_[a-z0-9_]*\)(.*/\1/p' \
			userspace/include/libretire.h
	})
	[ -z "$missing" ] || { echo "functions without a page:$missing"; return 1; }
}

# README's recipe for a program against the uninstalled library, as
# written there: it builds, and the program runs (4, skipped, here: the
# host has no /dev/retire)
check_readme_uninstalled() {
	local t rc=0
	t=$(mktemp -d)
	sed -n '/^make -C userspace$/,/^```$/p' README.md | sed '/^```$/d' |
		sed "s|-o lifecycle|-o $t/lifecycle|; s|^\./lifecycle.*|$t/lifecycle|" \
		>"$t/recipe.sh"
	grep -q "^cc " "$t/recipe.sh" || { echo "no recipe in README.md"; rc=1; }
	[ $rc = 1 ] || bash -e "$t/recipe.sh" >/dev/null 2>"$t/err" || rc=$?
	[ $rc = 0 ] || [ $rc = 4 ] || cat "$t/err"
	rm -rf "$t"
	[ $rc = 0 ] || [ $rc = 4 ]
}

# the names 1.6 replaced: the same functions (names_test), deprecated
check_old_names() {
	userspace/tests/names_test || return 1
	if printf '#include <libretire.h>\nint f(struct retire *r) { return retire_retire_request(r, 0); }\n' |
		${CC:-cc} -Iuserspace/include -Iuapi -Werror=deprecated-declarations \
			-fsyntax-only -x c - 2>/dev/null; then
		echo "retire_retire_request() is not marked deprecated"
		return 1
	fi
}

# the commands retirectl dispatches, from its table, each in its -h
check_retirectl_help() {
	local c cmds help missing=
	cmds=$(sed -n 's/^\t{ "\([a-z][a-z-]*\)", cmd_[a-z_]* },$/\1/p' \
		userspace/retirectl/retirectl.c)
	if ! help=$(userspace/retirectl/retirectl -h) || [ -z "$cmds" ]; then
		echo "retirectl -h failed, or no command table"
		return 1
	fi
	for c in $cmds; do
		grep -qE "^  $c( |\$)" <<<"$help" || missing="$missing $c"
	done
	[ -z "$missing" ] || { echo "retirectl -h does not list:$missing"; return 1; }
}

# every planted fault still applies to today's code: a stale plant is found
# here in a second, not after the kernels' run
check_plants_apply() {
	local p stale=
	for p in scripts/plants/*.patch; do
		patch -s -p1 --dry-run -f <"$p" >/dev/null 2>&1 || stale="$stale ${p##*/}"
	done
	[ -z "$stale" ] || { echo "planted faults that no longer apply (refresh them):$stale"; return 1; }
}

if want host; then
	start_group host
	# the protocol model runs on one core beside the builds and checks
	model_out=$(mktemp)
	(
		t0=$SECONDS
		scripts/model-check.sh -q >"$model_out.out" 2>&1
		echo $? >"$model_out.rc"
		echo $((SECONDS - t0)) >"$model_out"
	) &
	model_pid=$!

	host "libretire, retirectl and the kselftests build with -Werror" check_builds
	host "uapi/linux/retire_netlink.h is ynl-gen-c.py's output for the YAML spec" \
		scripts/ynl-uapi.sh
	# make lint (checkpatch, sparse over each kernel's build, kernel-doc and
	# the shell checker): a result each, with its findings above it
	lint_out=$(mktemp)
	scripts/lint.sh >"$lint_out" 2>&1
	lint_rc=$?
	relay "host: " < <(sed -e 's/^\(PASS\|FAIL\) lint: /\1 /' -e '/^make lint: /d' \
		"$lint_out")
	[ $lint_rc = 0 ] || grep -q '^FAIL lint: ' "$lint_out" ||
		record FAIL "host: scripts/lint.sh failed (exit $lint_rc)"
	rm -f "$lint_out"
	host "Documentation/netlink/retire.rst is ynl-gen-rst.py's output for the YAML spec" \
		check_netlink_rst
	host "the netlink spec validates against the kernel's genetlink schema" \
		check_netlink_schema
	host "Documentation/*.rst parses without a warning" \
		scripts/check-rst.py Documentation/*.rst
	host "every man page renders without a warning" check_man_pages
	host "every function of libretire.map, and every static inline one of libretire.h, has a man page or a .so alias" \
		check_man_functions
	host "retirectl -h lists every command of its table" check_retirectl_help
	host "README's program against the uninstalled library builds and runs" \
		check_readme_uninstalled
	host "uapi/linux/retire_names.h names each vocabulary once: retire.h's constants, struct retire_stats and the netlink spec agree with it, and no source spells one out again" \
		scripts/check-vocab.py
	# retirectl without the module: its JSON printers fed known values, and
	# its command line's usage errors (2) and failed calls (1)
	host "retirectl's JSON is valid, escaped, with the spec's keys; bad arguments exit 2" \
		userspace/tests/retirectl_json.py
	host "the names libretire 1.6 replaced are the same functions as the new ones, and a use of one draws a deprecation warning" \
		check_old_names
	host "the latency API on its own, against the uninstalled library (nearest rank, unknown, merges, copies, full sets, bad arguments, threads)" \
		userspace/tests/latency_test
	# a DESTDIR install: the module and its index, the udev rule, the
	# library's layout, SONAME, symbol versions, retirectl without RUNPATH,
	# a program built with pkg-config's flags (shared and static) that runs
	# the latency API; then an uninstall that leaves nothing it made
	host "make install (retire.ko indexed with its aliases, udev rule, SONAME, LIBRETIRE_1.0 to 1.7 symbols, retirectl without RUNPATH, a pkg-config program shared and static) and make uninstall (nothing left) pass scripts/install-test.sh" \
		scripts/install-test.sh
	host "dkms build makes retire.ko for stock 6.1 from make dkms-src's tree, the host's DKMS state untouched (scripts/dkms-test.sh)" \
		scripts/dkms-test.sh
	host "all $(find scripts/plants -name '*.patch' | wc -l) planted faults apply to the module's code" \
		check_plants_apply

	wait $model_pid
	step "$(cat "$model_out")" "spin exhausts the protocol model (beside the above)"
	if [ "$(cat "$model_out.rc")" = 0 ]; then
		record PASS "host: spin exhausts the protocol model, no claim violated ($(paste -sd';' "$model_out.out"))"
	else
		sed 's/^/    /' "$model_out.out"
		record FAIL "host: scripts/model-check.sh"
	fi
	rm -f "$model_out" "$model_out".*
	close_group
fi

# --- each kernel ---------------------------------------------------------
# what the guests run is built here (the host group built it already,
# unless only a part of the run was asked for): the guest cannot write
if want kernels || want bench || want plants; then
	group=build
	timed "build libretire, retirectl and the kselftests" check_builds ||
		die "userspace or the selftests failed to build"
fi
for k in $kernels; do
	want kernels || break
	start_group "kernel $k"
	res=$RETIRE_BUILD/results/$k
	mkdir -p "$res"
	if ! moddir=$(timed "build retire.ko for $k" scripts/build-module.sh "$k"); then
		record FAIL "$k: retire.ko builds with W=1 and no warnings"
		close_group
		continue
	fi
	record PASS "$k: retire.ko builds with W=1 and no warnings"

	sel=
	for s in $suites; do [ "$s" = install ] || sel="$sel $s"; done
	if [ -z "$suites" ] || [ -n "$sel" ]; then
		bound=600
		[ "$k" = debug ] && bound=2700
		t0=$SECONDS
		# shellcheck disable=SC2086 # the suites are words
		scripts/vm-run.sh -k "$k" -e -m "$moddir" -t "$bound" -o "$res" -- \
			scripts/guest-check.sh "$moddir" $sel >"$res/vm-run.log" 2>&1
		vm_secs=$((SECONDS - t0))
		sed 's/^/  | /' "$res/vm-run.log" | grep -v '^  | # ' | tail -n 40
		suite_secs=0
		while IFS= read -r line; do
			case $line in
			"PASS "* | "FAIL "* | "SKIP "*)
				record "${line%% *}" "$k: ${line#* }" ;;
			"time "*)
				line=${line#time }
				suite_secs=$((suite_secs + ${line%% *}))
				step "${line%% *}" "$k: ${line#* }" ;;
			"  | "*) echo "  $line" ;;	# what a failed case logged
			esac
		done < <(scripts/results.py "$res")
		step $((vm_secs - suite_secs)) "$k: the suites' boot, module load, unload and leak scan"

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
	fi

	# a second boot, nothing loaded: the real make install, autoload by
	# open and by genetlink, a member of the group without root, make
	# uninstall (stock kernels: the debug one has no /lib/modules tree)
	if [ "$k" != debug ] && want_suite install; then
		ilog=$RETIRE_BUILD/results/install-$k.log
		timed "$k: make install in a second boot (scripts/install-vm.sh)" \
			scripts/install-vm.sh -k "$k" >"$ilog" 2>&1
		irc=$?
		nok=$(grep -c '^ok ' "$ilog")
		bad=$(grep -E '^(FAIL|problem:) ' "$ilog")
		while read -r _ rest; do
			[ -n "$rest" ] && record FAIL "$k: install: $rest"
		done <<<"$bad"
		if [ "$irc" = 0 ] && [ -z "$bad" ] && [ "$nok" -gt 0 ]; then
			record PASS "$k: make install, /dev/retire (with its default engine), the genetlink family and the edu device's modalias load the modules, a member of group retire without root (EPERM for the knobs), make uninstall: $nok checks (scripts/install-vm.sh)"
		elif [ -z "$bad" ]; then
			record FAIL "$k: install: scripts/install-vm.sh failed (see $ilog)"
		fi
	fi
	close_group
done

# --- the benchmark runs (tiny: it proves nothing about speed) --------------
if want bench && [[ " $kernels " == *" 6.12 "* ]]; then
	start_group bench
	blog=$RETIRE_BUILD/results/bench-tiny.log
	if timed "6.12: make bench at a tiny size" scripts/bench.sh -k 6.12 -t >"$blog" 2>&1 &&
		grep -q '^lifecycle b32, 2 contexts on 2 CPUs' "$blog"; then
		record PASS "6.12: make bench's retire_bench runs every row at a tiny size"
	else
		record FAIL "6.12: retire_bench failed at a tiny size (see $blog)"
	fi
	close_group
fi

# --- the harness bites: each planted fault must fail its run ---------------
if want plants; then
	start_group plants
	# shellcheck disable=SC2086 # the plants are words
	if [ -n "$plants" ]; then set -- $plants; else set -- -a; fi
	nplants=$#
	[ "$1" != -a ] || nplants=$(find scripts/plants -name '*.patch' | wc -l)
	plog=$RETIRE_BUILD/results/plants.log
	scripts/plant.sh -k "$kernels" "$@" >"$plog" 2>&1
	seen=$(grep -cE '^(PASS|FAIL|SKIP) plant ' "$plog")
	relay "" <"$plog"
	# a plant that printed no verdict was not shown to be caught
	[ "$seen" -ge "$nplants" ] ||
		record FAIL "plants: $((nplants - seen)) of $nplants gave no verdict (see $plog)"
	close_group
fi

echo
echo "=== time"
printf '%-14s %4s %10s %10s %13s\n' group results "" "" seconds
printf '%s\n' "${summary[@]}"
printf '%-14s %4d passed %3d failed %3d skipped %6d s\n' all \
	$total_pass $total_fail $total_skip $(($(date +%s) - run_start))
echo
echo "the ten slowest steps (all of them: $steps)"
sort -t$'\t' -k1,1nr "$steps" | head -n 10 |
	awk -F'\t' '{ printf "%6d s  %-14s %s\n", $1, $2, $3 }'
echo
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
