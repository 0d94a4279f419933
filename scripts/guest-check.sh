#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM (scripts/vm-run.sh has loaded retire.ko), from the
# top of the tree: the KUnit suites where the kernel has KUnit, then every
# kselftest. Results land in /tmp/out for scripts/check.sh to count.
#
#   guest-check.sh MODDIR
O=/tmp/out
moddir=$1

if [ -e "$moddir/retire_kunit.ko" ]; then
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
make -s -C selftests run_tests 2>&1 | cat >"$O/selftests.tap"
echo "guest-check: selftests done"
