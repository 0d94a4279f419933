#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs as root inside a guest that scripts/plant.sh booted with nothing of
# retire loaded, from the top of the tree: the planted faults of one
# kernel, one after the other, in one boot. For each line of LIST,
# "NAME BOUND MODDIR RUN...":
#
#   - "retire-plant: begin NAME" goes to the kernel log (the serial console
#     keeps it even through a panic), so the host can tell which plant
#     the kernel's reports that follow belong to;
#   - MODDIR's retire.ko and engines (the planted build) are loaded, RUN
#     runs from the top of the tree under timeout BOUND, they are unloaded;
#   - "retire-plant: end NAME" goes to the kernel log; OUT/NAME/ holds
#     output, rc, unload (ok or failed) and secs.
#
# A plant that leaves the kernel unfit for the next one ends the boot:
# its module did not unload, the kernel logged a report after its begin
# line, or it gained a taint that only a report sets. The host boots
# again for the plants not yet begun. A plant that panics the kernel ends
# the boot by itself.
#
#   plant-guest.sh LIST OUT
set -u
. "$(dirname "$0")/lib.sh"
list=${1:?usage: plant-guest.sh LIST OUT}
out=${2:?usage: plant-guest.sh LIST OUT}
cd "$RETIRE_TOP" || exit 1

mark() {
	echo "retire-plant: $*" >/dev/kmsg
}

# taint bits that only a report sets: B bad page, D die, W warning,
# L soft lockup
bad_taint() {
	echo $(($(cat /proc/sys/kernel/tainted) & ((1 << 5) | (1 << 7) | (1 << 9) | (1 << 14))))
}

while read -r name bound moddir run; do
	[ -n "$name" ] || continue
	res=$out/$name
	mkdir -p "$res"
	taint0=$(bad_taint)
	t0=$(date +%s)
	mark "begin $name"
	if retire_modules_load "$moddir"; then
		# shellcheck disable=SC2086 # RUN is a command line
		timeout -k 10 "$bound" $run >"$res/output" 2>&1 </dev/null
		echo $? >"$res/rc"
		if retire_modules_unload; then
			echo ok >"$res/unload"
		else
			echo failed >"$res/unload"
		fi
	else
		echo "plant-guest: loading the modules of $moddir failed" >"$res/output"
		echo 1 >"$res/rc"
		echo ok >"$res/unload"
	fi
	mark "end $name"
	echo $(($(date +%s) - t0)) >"$res/secs"
	reports=$(dmesg | sed -n "/retire-plant: begin $name\$/,\$p" | kernel_reports -)
	if [ "$(cat "$res/unload")" != ok ] || [ -n "$reports" ] ||
		[ "$(bad_taint)" != "$taint0" ]; then
		echo "plant-guest: $name left the kernel unfit for another plant: ending this boot"
		exit 0
	fi
done <"$list"
exit 0
