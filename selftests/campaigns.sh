#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The reliability campaigns in their short form, as make check runs them on
# every kernel: the structure-aware fuzzer as root with the engine knobs,
# resets, limits changes and injections (30 s, 4 threads), the kill storm
# (100 kills), the stress mix (20 s), and the fuzzer as nobody (20 s),
# whose exit must leave nothing held with no root action after it. Each
# ends with its own balance check and fails on a bad errno, a crash or a
# balance that did not hold; the VM runner fails the run on any kernel
# report. The seeds are fixed so that a failure here reproduces; `make
# fuzz` and `make stress` run the long forms with other seeds. One TAP
# line per campaign.
#
# Exit: 0 all passed, 1 one failed, 4 skipped (no /dev/retire).
cd "$(dirname "$0")" || exit 1
echo "TAP version 13"
if [ ! -c /dev/retire ]; then
	echo "1..0 # SKIP /dev/retire is absent"
	exit 4
fi
echo "1..4"

rc=0 n=0
# campaign NAME COMMAND...: run it, show its last lines, one TAP line
campaign() {
	name=$1
	shift
	n=$((n + 1))
	echo "# campaigns: $*"
	out=$("$@" 2>&1)
	st=$?
	echo "$out" | tail -n 40 | sed 's/^/# /'
	if [ "$st" = 0 ]; then
		echo "ok $n campaigns: $name"
	else
		echo "not ok $n campaigns: $name # exit=$st"
		rc=1
	fi
}

campaign fuzz_30s_as_root_with_knobs_and_injections \
	./fuzz -s 1 -t 30 -n 4 --root-knobs --inject
campaign killstorm_100_kills_balance_holds ./killstorm -s 1 -k 100
campaign stress_20s_balance_holds ./fuzz --stress -s 1 -t 20
campaign fuzz_20s_as_nobody_balances_without_root \
	./fuzz -s 1 -t 20 -n 4 --as-nobody
exit $rc
