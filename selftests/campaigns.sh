#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The reliability campaigns in their short form, as make check runs them on
# every kernel: the structure-aware fuzzer as root with the engine knobs,
# resets, limits changes and injections (30 s, 4 threads), the kill storm
# (100 kills), the stress mix (20 s), the fuzzer as nobody (20 s), whose
# exit must leave nothing held with no root action after it, and 10 rounds
# of the edu device removed under contexts that cancel (where the guest
# has QEMU's edu device: vm-run.sh -e). Each
# ends with its own balance check and fails on a bad errno, a crash or a
# balance that did not hold; the VM runner fails the run on any kernel
# report. The seeds are fixed so that a failure here reproduces; `make
# fuzz` and `make stress` run the long forms with other seeds. One TAP
# line per campaign.
#
# Exit: 0 all passed, 1 one failed, 4 skipped (no /dev/retire). A campaign
# that exits 4 (removal without the edu device) is a skip, its reason
# printed above it.
cd "$(dirname "$0")" || exit 1
. ./ksft_lib.sh
ktap_print_header
if [ ! -c /dev/retire ]; then
	ktap_skip_all "/dev/retire is absent"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 5

# campaign NAME COMMAND...: run it, show its last lines, one TAP line
campaign() {
	name=$1
	shift
	ktap_print_msg "campaigns: $*"
	out=$("$@" 2>&1)
	st=$?
	# what failed first, then how it ended
	echo "$out" | grep -m 4 -A 1 'FAIL' | sed 's/^/# /'
	echo "$out" | tail -n 40 | sed 's/^/# /'
	if [ "$st" = 0 ]; then
		ktap_test_pass "campaigns: $name"
	elif [ "$st" = 4 ]; then
		ktap_test_skip "campaigns: $name"
	else
		ktap_print_msg "campaigns: $name exited $st"
		ktap_test_fail "campaigns: $name"
	fi
}

campaign fuzz_30s_as_root_with_knobs_and_injections \
	./fuzz -s 1 -t 30 -n 4 --root-knobs --inject
campaign killstorm_100_kills_balance_holds ./killstorm -s 1 -k 100
campaign stress_20s_balance_holds ./fuzz --stress -s 1 -t 20
campaign fuzz_20s_as_nobody_balances_without_root \
	./fuzz -s 1 -t 20 -n 4 --as-nobody
campaign removal_10_rounds_each_request_ends_once ./removal -s 1 -r 10
ktap_finished
