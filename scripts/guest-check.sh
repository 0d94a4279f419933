#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM (scripts/vm-run.sh has loaded retire.ko), from the
# top of the tree: the KUnit suites where the kernel has KUnit, then every
# kselftest. Results land in /tmp/out for scripts/check.sh to count, with
# the times: $O/times ("SECONDS NAME" lines) and $O/selftests.times (each
# line of the runner's TAP after the second it was printed in).
#
#   guest-check.sh MODDIR [SUITE...]
#
# SUITEs pick what runs: kselftest programs (ring_test, campaigns.sh) and
# "kunit" for the KUnit suites; none: everything.
O=/tmp/out
moddir=$1
shift
want() {
	for s in $suites; do [ "$s" = "$1" ] && return 0; done
	return 1
}
suites=$*

if [ -e "$moddir/retire_kunit.ko" ] && { [ -z "$suites" ] || want kunit; }; then
	t0=$(date +%s)
	if [ ! -d /sys/kernel/debug/kunit ]; then
		echo "guest-check: KUnit has no debugfs directory" >&2
	fi
	# the suites run during insmod; their KTAP is kept in debugfs
	if insmod "$moddir/retire_kunit.ko"; then
		for d in /sys/kernel/debug/kunit/retire_*; do
			[ -e "$d/results" ] || continue
			cp "$d/results" "$O/kunit-$(basename "$d").ktap"
		done
		rmmod retire_kunit
	else
		echo "guest-check: insmod retire_kunit.ko failed" >&2
		echo "not ok 1 retire_kunit.ko did not load" >"$O/kunit-load.ktap"
	fi
	echo "$(($(date +%s) - t0)) kunit: retire_kunit.ko's suites" >>"$O/times"
fi

# the kselftest way, lib.mk's run_tests: the tree is read-only here and
# was built on the host; scripts/ksft-dir.sh finds the kselftest directory
# the host built with (noted in build/ksft-dir), at the same path here.
# The runner writes each program's output to /dev/stdout, which udev
# would make and this guest has not; and reopened, it must be a pipe to
# stay in order with the runner's own lines. The runner's exit status
# says nothing (0 whatever fails): results.py counts the TAP.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
progs=''
scripts=''
for s in $suites; do
	case $s in
	kunit) ;;
	*.sh) scripts="$scripts $s" ;;
	*) progs="$progs $s" ;;
	esac
done
# no SUITE: lib.mk's own lists; else only those named (kunit alone: none)
if [ -z "$suites" ]; then
	set --
else
	set -- TEST_GEN_PROGS="$progs" TEST_PROGS="$scripts"
fi
if [ -z "$suites" ] || [ -n "$progs$scripts" ]; then
	# each line as it comes, and the second it came in
	make -s -C selftests run_tests "$@" 2>&1 |
		while IFS= read -r line; do
			printf '%s\n' "$line"
			printf '%s %s\n' "$EPOCHSECONDS" "$line" >&3
		done >"$O/selftests.tap" 3>"$O/selftests.times"
else
	: >"$O/selftests.none"
fi
echo "guest-check: selftests done"
