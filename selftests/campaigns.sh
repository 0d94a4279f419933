#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The reliability campaigns in their short form, as make check runs them on
# every kernel: the structure-aware fuzzer as root with the engine knobs,
# resets, limits changes and injections (30 s, 4 threads), the kill storm
# (100 kills) and the stress mix (20 s). Each ends with its own balance
# check and fails on a bad errno, a crash or a balance that did not hold;
# the VM runner fails the run on any kernel report. The seeds are fixed so
# that a failure here reproduces; `make fuzz` and `make stress` run the
# long forms with other seeds.
#
# Exit: 0 all passed, 1 one failed, 4 skipped (no /dev/retire).
cd "$(dirname "$0")" || exit 1
[ -c /dev/retire ] || { echo "# /dev/retire is absent: skipped"; exit 4; }

rc=0
for c in "./fuzz -s 1 -t 30 -n 4 --root-knobs --inject" \
	 "./killstorm -s 1 -k 100" \
	 "./fuzz --stress -s 1 -t 20"; do
	echo "# campaigns: $c"
	out=$($c 2>&1)
	st=$?
	echo "$out" | tail -n 40 | sed 's/^/# /'
	if [ "$st" != 0 ]; then
		echo "# campaigns: FAILED ($st): $c"
		rc=1
	fi
done
exit $rc
