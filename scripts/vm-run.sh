#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel in QEMU (software emulation: KVM hangs on these machines),
# optionally load retire.ko built for it, run a command as root in the
# guest, and fail if the guest's kernel reported anything.
#
#   vm-run.sh [-k KERNEL] [-m MODDIR] [-t SECONDS] [-o OUTDIR] [-e] [-L] -- CMD...
#
#   -k  debug | 6.1 | 6.12 (default 6.12)
#   -m  a directory holding retire.ko and its engine modules for that
#       kernel: loaded before CMD, unloaded after it; an unload failure
#       fails the run
#   -t  wall-clock bound for the whole VM (default 600 s)
#   -o  keep the run's files here (default: a temporary directory): output,
#       rc, console.log (every kernel message), dmesg, kmemleak
#   -e  give the guest QEMU's edu PCI device (docs/specs/edu.rst), and
#       only 256 MiB of its RAM below 4 GiB: the rest lies beyond edu's
#       28-bit DMA mask, so the DMA API must bounce through swiotlb, which
#       x86 places below 4 GiB (here: within the mask) and enables itself
#       when RAM reaches past 4 GiB
#   -L  no leak check: kmemleak's scans before and after CMD (about 30 s
#       of a debug kernel's run) are skipped, for runs whose proof is a
#       failure (the planted faults)
#
# The guest sees the host's root file system read-only over 9p (cached in
# the guest: below) and chroots into it, so CMD runs the binaries and
# libraries built on the host, at the same paths. It writes only to tmpfs
# and to the output directory.
#
# Exit status: CMD's, or 1 if the guest's kernel logged a BUG, WARNING,
# KASAN, UBSAN, lockdep, DMA-API or kmemleak report, a lockup, an RCU
# stall or a hung task (each panics the guest, with every CPU's stack on
# the console), or was tainted by one, or brought up fewer CPUs than it
# was given, or the VM did not finish within the bound.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=6.12
kargs=
moddir=
bound=600
outdir=
edu=()
leakcheck=1
while getopts "k:m:t:o:eL" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	m) moddir=$(cd "$OPTARG" && pwd) ;;
	t) bound=$OPTARG ;;
	o) outdir=$OPTARG ;;
	e) edu=(-machine "pc,max-ram-below-4g=256M" -device edu) ;;
	L) leakcheck= ;;
	*) die "usage: vm-run.sh [-k KERNEL] [-m MODDIR] [-t SECONDS] [-o OUTDIR] [-e] [-L] -- CMD..." ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || die "no command"

# one guest at a time on this machine: two under software emulation on
# two cores starve each other's timers into false lockups and timeouts
mkdir -p "$RETIRE_CACHE"
exec 7>"$RETIRE_CACHE/.vm.lock"
flock 7

# --- the kernel: image, release, the modules the initramfs must load ----
mods=()
case $kernel in
debug)
	kbuild=$("$RETIRE_TOP/scripts/debug-kernel.sh")
	image=$kbuild/arch/x86/boot/bzImage
	kver=$(cat "$kbuild/include/config/kernel.release")
	mem=3G
	# ACPI finds the second CPU; routing PCI interrupts through it runs
	# AML that KASAN under TCG slows past its 30 s loop timeout, leaving
	# a virtio device without an IRQ (9p then hangs): route them by the
	# BIOS's table as before
	kargs="pci=noacpi"
	;;
6.1 | 6.12)
	kver=$(stock_kver "$kernel")
	image=/boot/vmlinuz-$kver
	mem=2G
	while read -r verb path _; do
		[ "$verb" = insmod ] && mods+=("$path")
	done < <(for m in virtio_pci 9pnet_virtio 9p; do
		modprobe -S "$kver" --show-depends "$m"
	done)
	;;
*)
	die "unknown kernel '$kernel' (debug, 6.1 or 6.12)"
	;;
esac
[ -r "$image" ] || die "no kernel image $image"
# pci=noacpi leaves the debug kernel no host bridge window to place BARs
# in, and the local APIC's page unclaimed while PCI assigns them: edu's
# 1 MiB BAR would land on it. Claim it first.
if [ ${#edu[@]} -gt 0 ] && [ "$kernel" = debug ]; then
	kargs="$kargs reserve=0xfee00000,0x100000"
fi

# --- the initramfs: busybox, /init, the 9p stack; cached per kernel -----
init=$RETIRE_TOP/scripts/initramfs-init
ikey=$( (cat "$init" /bin/busybox; echo "$kver"; printf '%s\n' "${mods[@]}") |
	sha256sum | cut -c1-16)
initrd=$RETIRE_CACHE/initramfs-$kver-$ikey.cpio.gz
if [ ! -e "$initrd" ]; then
	mkdir -p "$RETIRE_CACHE"
	stage=$(mktemp -d)
	mkdir -p "$stage"/{bin,dev,proc,sys,lib/modules}
	cp /bin/busybox "$stage/bin/busybox"
	cp "$init" "$stage/init"
	chmod 0755 "$stage/init"
	: >"$stage/modules.order"
	declare -A seen=()
	for m in "${mods[@]}"; do
		[ -z "${seen[$m]:-}" ] || continue
		seen[$m]=1
		base=$(basename "$m")
		case $m in
		*.xz) xz -dc "$m" >"$stage/lib/modules/${base%.xz}"; base=${base%.xz} ;;
		*.zst) zstd -qdc "$m" >"$stage/lib/modules/${base%.zst}"; base=${base%.zst} ;;
		*.gz) gzip -dc "$m" >"$stage/lib/modules/${base%.gz}"; base=${base%.gz} ;;
		*) cp "$m" "$stage/lib/modules/$base" ;;
		esac
		echo "$base" >>"$stage/modules.order"
	done
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	rm -rf "$stage"
fi

# --- the run -------------------------------------------------------------
if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	outdir=$(cd "$outdir" && pwd)
	rm -f "$outdir"/{output,rc,console.log,console-boot1.log,dmesg,kmemleak,unload,taint,cpus,guest.sh,cmd,problems,times} \
		"$outdir"/selftests.{tap,times,none} \
		"$outdir"/kunit-*.ktap
else
	outdir=$(mktemp -d /tmp/retire-vm.XXXXXX)
fi
printf '%q ' "$@" >"$outdir/cmd"

# runs as root inside the guest, in a chroot of the host's root
cat >"$outdir/guest.sh" <<GUEST
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8 RETIRE_IN_VM=1
# where the loaded modules came from: module_test reloads them
export RETIRE_MODDIR=$(printf %q "$moddir")
O=/tmp/out
kl=/sys/kernel/debug/kmemleak
[ -n "$leakcheck" ] || kl=/nonexistent
cat /proc/sys/kernel/tainted >\$O/taint
grep -c '^processor' /proc/cpuinfo >\$O/cpus
# forget what the kernel's own boot leaked: only what follows counts
if [ -w \$kl ]; then echo scan >\$kl; echo clear >\$kl; fi
cd $(printf %q "$RETIRE_TOP")
# this is sh (the chroot's /bin/sh): the helpers are bash's
mods() { bash -c '. scripts/lib.sh && "\$@"' mods "\$@"; }
loaded=
if [ -n $(printf %q "$moddir") ]; then
	if mods retire_modules_load $(printf %q "$moddir"); then loaded=1; else echo 'vm-run: loading the retire modules failed' >&2; fi
fi
if [ -z $(printf %q "$moddir") ] || [ -n "\$loaded" ]; then
	( . \$O/cmd ) >\$O/output 2>&1 </dev/null
	echo \$? >\$O/rc
else
	echo 'insmod failed' >\$O/output; echo 1 >\$O/rc
fi
if [ -n "\$loaded" ]; then
	if mods retire_modules_unload; then echo ok >\$O/unload; else echo failed >\$O/unload; fi
fi
if [ -w \$kl ]; then
	# kmemleak reports only objects older than 5 s; scan twice, as its
	# documentation advises, to settle objects in transit
	sleep 6; echo scan >\$kl; echo scan >\$kl
	cat \$kl >\$O/kmemleak
fi
cat /proc/sys/kernel/tainted >>\$O/taint
dmesg >\$O/dmesg
GUEST

# a freeze fails the run with the stuck CPUs' stacks, not with a timeout:
# lockups, RCU stalls, hung tasks and oopses panic (panic=-1 then ends the
# VM at once: an oops no longer leaves the run waiting out its bound). A CPU spinning with interrupts off is caught by the hard-lockup
# detector where the kernel has a buddy one (the debug kernel: QEMU's TCG
# has no PMU for the perf one), else by the other CPU's RCU stall warning.
watch="softlockup_panic=1 softlockup_all_cpu_backtrace=1"
watch="$watch nmi_watchdog=panic hardlockup_all_cpu_backtrace=1"
watch="$watch hung_task_panic=1 sysctl.kernel.panic_on_rcu_stall=1 oops=panic"
cpus=2
# RETIRE_ICOUNT=1: guest time counts instructions (-icount shift=0, one
# vCPU thread), so a timing in the guest is an instruction count: what
# make bench's icount form measures, unmoved by the host's load
# (stock 6.1 never brings its second CPU up so: use it on 6.12)
icount=()
[ -n "${RETIRE_ICOUNT:-}" ] && icount=(-icount shift=0)
# RETIRE_VM_QEMU_ARGS: more QEMU arguments, split on spaces (profile.sh's
# execution log)
read -r -a qemu_more <<<"${RETIRE_VM_QEMU_ARGS:-}"
# The host's root and the tree are read-only to the guest and nothing on
# the host changes them while it runs, so the guest caches what it reads
# of them (9p cache=loose): a Python start under TCG takes 1 s instead of
# 5, and every make, shell script and program start gains alike. The
# output directory, which the host reads back, is never cached.
# RETIRE_VM_9P_CACHE=none turns it off.
cache9p=${RETIRE_VM_9P_CACHE:-loose}
# A kernel that crashed while it booted, before guest.sh began (its first
# act writes $outdir/taint), ran nothing of ours: under TCG, stock 6.12 has
# been seen to die of an int3 in the idle task while patching its own text
# at boot. Such a boot is tried once more, and says so; its console is
# kept. RETIRE_VM_KARGS adds kernel arguments (a test of this retry
# boots with rdinit=/nonexistent).
for boot in 1 2; do
	rc=0
	timeout --kill-after=10 "$bound" qemu-system-x86_64 \
		-accel tcg "${icount[@]}" "${edu[@]}" "${qemu_more[@]}" -cpu max -smp "$cpus" -m "$mem" \
		-display none -monitor none -no-reboot \
		-serial "file:$outdir/console.log" \
		-kernel "$image" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $watch $kargs ${RETIRE_VM_KARGS:-} printk.devkmsg=on retire_top=$RETIRE_TOP retire_9p_cache=$cache9p" \
		-virtfs "local,path=$RETIRE_TOP,mount_tag=tree,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$outdir,mount_tag=out,security_model=none,multidevs=remap" \
		</dev/null || rc=$?
	if [ "$boot" = 1 ] && [ "$rc" != 124 ] && [ "$rc" != 137 ] &&
		[ ! -e "$outdir/taint" ] &&
		grep -qE 'Kernel panic|Oops' "$outdir/console.log" 2>/dev/null; then
		mv "$outdir/console.log" "$outdir/console-boot1.log"
		echo "vm-run: the kernel crashed while booting, before anything of ours ran (see $outdir/console-boot1.log): booting it again" >&2
		continue
	fi
	break
done

[ -e "$outdir/output" ] && cat "$outdir/output"

# every problem found is one line of $outdir/problems (check.sh reads it)
: >"$outdir/problems"
problem() {
	echo "vm-run: $*" >&2
	echo "$*" >>"$outdir/problems"
}

if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	problem "the VM did not finish within $bound s"
elif [ "$rc" != 0 ]; then
	problem "qemu exited with $rc"
fi

# anything the kernel reported fails the run, whatever the command said
while read -r line; do
	[ -n "$line" ] && problem "kernel: $line"
done < <(kernel_reports "$outdir/console.log" "$outdir/dmesg")
# a guest short of CPUs cannot show a race between two of them
if [ -s "$outdir/cpus" ] && [ "$(cat "$outdir/cpus")" -lt "$cpus" ]; then
	problem "the guest brought up $(cat "$outdir/cpus") of its $cpus CPUs"
fi
if [ -s "$outdir/kmemleak" ]; then
	problem "kmemleak: $(grep -c '^unreferenced object' "$outdir/kmemleak") leaked objects:"
	head -n 30 "$outdir/kmemleak" | sed 's/^/  /' >&2
fi
# taint that only a report sets: B bad page, D die, W warning, L soft lockup
if [ -s "$outdir/taint" ]; then
	t0=$(sed -n 1p "$outdir/taint")
	t1=$(sed -n 2p "$outdir/taint")
	bad=$(( (${t1:-0} & ~${t0:-0}) & ((1 << 5) | (1 << 7) | (1 << 9) | (1 << 14)) ))
	[ "$bad" = 0 ] || problem "the kernel was tainted by a report (taint $t0 -> $t1)"
fi
if [ -n "$moddir" ] && [ "$(cat "$outdir/unload" 2>/dev/null)" != ok ]; then
	problem "retire.ko did not unload"
fi
[ -e "$outdir/rc" ] || problem "the command never finished (see $outdir/console.log)"

echo "vm-run: kernel $kver, files in $outdir" >&2
[ -s "$outdir/problems" ] && exit 1
exit "$(cat "$outdir/rc")"
