#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a bench row's instructions go in retire's own code: the row runs
# once in a stock guest under -icount, with QEMU logging every translation
# block of the module area it translates and runs; scripts/profile.py
# sums them per function.
#
#   profile.sh [-k KERNEL] [-f FUNCTION] [-o OUTDIR] ROW [RETIRE_BENCH_ARGS...]
#
#   -k  the stock kernel (default 6.12)
#   -f  per run of which function's first block (default
#       retire_submit_inline_locked: per fast-lane request)
#   -o  keep the log here (default build/results/profile-KERNEL); it is
#       some hundreds of MB for the default 1,024 requests
#   ROW the bench row(s) to run, as retire_bench -R takes it
#
# Only retire's modules are traced: the kernel functions they call (locks,
# the clock, copies from user space) and the syscall around them are not
# counted. Measures the build it makes, like bench.sh; a tool for reading
# the hot path, not a benchmark (the log slows the guest down, not its
# instruction count).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=6.12
fn=retire_submit_inline_locked
out=
while getopts "k:f:o:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	f) fn=$OPTARG ;;
	o) out=$OPTARG ;;
	*) die "usage: profile.sh [-k KERNEL] [-f FUNCTION] [-o OUTDIR] ROW [ARGS...]" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || die "no row"
row=$1
shift
out=${out:-$RETIRE_BUILD/results/profile-$kernel}

make -s -C "$RETIRE_TOP/userspace" bench >/dev/null
moddir=$("$RETIRE_TOP/scripts/build-module.sh" "$kernel")
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# the module area of x86-64 with KASLR (MODULES_VADDR to MODULES_END)
RETIRE_ICOUNT=1 \
RETIRE_VM_QEMU_ARGS="-d nochain,exec,in_asm -dfilter 0xffffffffc0000000..0xfffffffffeffffff -D $out/exec.log" \
	"$RETIRE_TOP/scripts/vm-run.sh" -k "$kernel" -m "$moddir" -t 900 \
	-o "$out" -- bash -c "$(printf '%q ' \
		"$RETIRE_TOP/scripts/bench-guest.sh" "$moddir" -n 1024 -r 1 \
		-R "$row" "$@"); grep -E '\\[retire' /proc/kallsyms >/tmp/out/ksyms"
cat "$out/output"
python3 "$RETIRE_TOP/scripts/profile.py" "$out" "$fn"
