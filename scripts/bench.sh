#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark: retire's request cycle, cancel and memory next to
# io_uring's on the same kernel, in one guest boot per stock kernel.
#
#   bench.sh [-k "6.1 6.12"] [-t] [-i] [-- RETIRE_BENCH_ARGS...]
#
#   -k  the kernels, in order (default: 6.1 6.12)
#   -t  tiny: a few hundred requests, one repetition, 1 K live requests;
#       proves the benchmark runs (make check uses it), measures nothing
#   -i  instructions: the guest's clock counts instructions (QEMU's
#       -icount shift=0), so every "ns" is one guest instruction and the
#       table is the same on every run, whatever else the host is doing
#       (stock 6.12 only: 6.1 does not bring its second CPU up so)
#
# In the guest, bench-guest.sh reloads the module with caps that hold the
# scale row's million unretired requests (each pinning one of 16 shared
# pages), and a watchdog of a day so the cancel row's blocking request is
# not quarantined. Exit status: non-zero only on an error, never on a ratio.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernels="6.1 6.12"
tiny=
while getopts "k:ti" opt; do
	case $opt in
	k) kernels=$OPTARG ;;
	t) tiny=1 ;;
	i) export RETIRE_ICOUNT=1 ;;
	*) die "usage: bench.sh [-k KERNELS] [-t] [-i] [-- ARGS...]" ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
record=
if [ $# -eq 0 ]; then
	# the measured run's tables are Documentation/performance.rst's
	[ -n "$tiny" ] || record=1
	if [ -n "$tiny" ]; then
		set -- -n 256 -r 1 -s 100 -l 1000 -m 1000 -F
	else
		set -- -n 16384 -r 5 -s 1000 -l 1000000 -m 16384
	fi
	# one CPU at a time under -icount: the two-CPU rows would mean nothing
	[ -n "${RETIRE_ICOUNT:-}" ] && set -- "$@" -S
fi

# Documentation/bench/KERNEL[-icount].txt: the table as printed, with the
# commit and kernel it was measured at; performance.rst includes it
bench_record() {
	local f
	f=$RETIRE_TOP/Documentation/bench/$1${RETIRE_ICOUNT:+-icount}.txt
	mkdir -p "$(dirname "$f")"
	{
		echo "make bench, commit $commit," \
			"$(date -u +%Y-%m-%d), $(stock_kver "$1")${RETIRE_ICOUNT:+, -icount shift=0}"
		grep -v '^\[' "$2" | sed -n '/^retire_bench: [0-9]* reps/,/ratio = median/p'
	} > "$f"
}

# what is measured, read before any table is written: the tables
# themselves are not part of it
commit=$(git -C "$RETIRE_TOP" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
git -C "$RETIRE_TOP" diff --quiet HEAD -- . ':(exclude)Documentation/bench' \
	2>/dev/null || commit=$commit-dirty

make -s -C "$RETIRE_TOP/userspace" bench >/dev/null
rc=0
for k in $kernels; do
	moddir=$("$RETIRE_TOP/scripts/build-module.sh" "$k")
	out=$RETIRE_BUILD/results/bench-$k${RETIRE_ICOUNT:+-icount}
	rm -rf "$out"
	mkdir -p "$out"
	echo "bench: $k: retire_bench $* (files in $out)" >&2
	bound=900
	[ -n "$tiny" ] && bound=300
	if "$RETIRE_TOP/scripts/vm-run.sh" -k "$k" \
		-m "$moddir" -t "$bound" -o "$out" -- \
		"$RETIRE_TOP/scripts/bench-guest.sh" "$moddir" "$@"; then
		echo "== $k ($(stock_kver "$k")): the table above"
		[ -z "$record" ] || bench_record "$k" "$out/output"
	else
		rc=1
		echo "bench: $k FAILED (files in $out):" >&2
		tail -n 20 "$out/output" >&2 || true
		sed 's/^/  /' "$out/problems" 2>/dev/null >&2 || true
	fi
done
exit $rc
