#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run one reliability campaign inside a VM: the fuzzer, the kill storm, or
# the stress mix (fuzz --stress). Builds libretire and the campaign
# programs, builds retire.ko for the kernel, and runs the program as root
# in a guest under scripts/vm-run.sh, which fails the run on any kernel
# report, leak, taint or failed unload (and runs one guest at a time on
# the machine).
#
#   campaign.sh [-k debug|6.1|6.12] fuzz|killstorm|stress [ARGS...]
#
#   fuzz      selftests/fuzz ARGS (default: -s 1 -t 60 --root-knobs)
#   killstorm selftests/killstorm ARGS (default: -s 1 -k 100)
#   stress    selftests/fuzz --stress ARGS (default: -s 1 -t 60)
#   removal   selftests/removal ARGS (default: -s 1 -r 100), with QEMU's
#             edu device
#
# The run's files stay in build/results/campaign-NAME/ (output,
# console.log, dmesg, problems, ...). Exit status: the VM run's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	die "usage: campaign.sh [-k debug|6.1|6.12] fuzz|killstorm|stress|removal [ARGS...]"
}

kernel=6.12
while getopts "k:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
name=$1
shift

case $name in
fuzz)
	prog=fuzz
	[ $# -gt 0 ] || set -- -s 1 -t 60 --root-knobs
	;;
stress)
	prog=fuzz
	[ $# -gt 0 ] || set -- -s 1 -t 60
	set -- --stress "$@"
	;;
killstorm)
	prog=killstorm
	[ $# -gt 0 ] || set -- -s 1 -k 100
	;;
removal)
	prog=removal
	[ $# -gt 0 ] || set -- -s 1 -r 100
	;;
*)
	usage
	;;
esac

# the VM's bound: the campaign's own time plus the boot, the drain (up to
# 30 s), the unload and kmemleak's scans; the debug kernel runs ~5x slower
# (a kill storm: about half a second a kill on stock kernels)
secs=60
kills=100
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	[ $((i + 1)) -lt ${#args[@]} ] || break
	case ${args[$i]} in
	-t) secs=${args[$((i + 1))]} ;;
	-k) kills=${args[$((i + 1))]} ;;
	-r) secs=${args[$((i + 1))]} ;;	# a removal round: under a second
	esac
done
[ "$prog" = killstorm ] && secs=$((kills / 2 + 60))
case $kernel in
debug) bound=$((secs * 2 + 600)) ;;
*) bound=$((secs + 240)) ;;
esac

make -s -C "$RETIRE_TOP/userspace" >/dev/null
make -s -C "$RETIRE_TOP/selftests" fuzz killstorm removal >/dev/null
moddir=$("$RETIRE_TOP/scripts/build-module.sh" "$kernel")
out=$RETIRE_BUILD/results/campaign-$name
mkdir -p "$out"

echo "campaign: $name on $kernel: selftests/$prog $* (bound ${bound} s)" >&2
rc=0
"$RETIRE_TOP/scripts/vm-run.sh" -k "$kernel" -e \
	-m "$moddir" -t "$bound" -o "$out" -- "selftests/$prog" "$@" || rc=$?

if [ $rc = 0 ]; then
	echo "campaign: $name on $kernel passed (files in $out)"
else
	echo "campaign: $name on $kernel FAILED, exit $rc (files in $out):"
	sed 's/^/  /' "$out/problems" 2>/dev/null || true
	grep -E '^(fuzz|killstorm|removal): (FAIL|balance)' "$out/output" 2>/dev/null |
		sed 's/^/  /' || true
fi
exit $rc
