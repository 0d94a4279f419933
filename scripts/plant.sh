#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that the harness bites: build retire.ko with a deliberate fault
# (scripts/plants/NAME.patch) applied, run the plant's command with it in
# a VM, and pass only if the run failed and said what the plant expects:
# the detector that must catch it and, for a freeze, the stuck function on
# the console's stacks.
#
#   plant.sh [-k KERNELS] NAME...   run those plants
#   plant.sh [-k KERNELS] -a        run every plant
#   plant.sh -l                     list them
#
# With -k (a list such as "debug 6.12"), a plant for another kernel is not
# run: it prints "SKIP plant NAME: ...".
#
# A plant file is a patch with a header of "Key: value" lines before it:
#   Kernel:  debug | 6.1 | 6.12 (the kernel whose detectors it proves)
#   Run:     the command run as root in the guest, from the tree's top
#   Bound:   its wall-clock bound in seconds
#   Expect:  an extended regex that the run's problems or output must hold
#   Stack:   (optional) an extended regex the console must hold (a stack)
#
# How it runs: scripts/build-module.sh builds the planted modules of a
# kernel one after the other in the tree it built for the tests, each
# rebuilding only the objects its patch touches. Then one boot per kernel
# runs them all (scripts/plant-guest.sh): each plant loads its module,
# runs, unloads, between two marker lines in the kernel log. The
# problems of a plant are the kernel's reports between its markers, a
# failed unload, and the VM's bound if it ran out during the plant. A
# plant that leaves the kernel unfit for the next (a report, a taint, a
# module that stays) ends its boot, and the plants after it get a new
# one; plants whose Expect names a kernel report, or that have a Stack,
# run after the others of their kernel, so that they end the boot last.
#
# One line per plant: "PASS plant NAME: ..." when it was caught, "FAIL
# ..." when the harness let it through (or it could not be run), "SKIP
# ..." under -k; and "time SECONDS WHAT" lines for the builds, each plant
# and each boot beside its plants. Exit 1 if any plant was not caught.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RETIRE_TOP" || exit 1

dir=$RETIRE_TOP/scripts/plants

field() {
	sed -n "/^--- /q; s/^$1: *//p" "$2" | head -n 1
}

kernels=
if [ "${1:-}" = -k ]; then
	kernels=${2:?usage: plant.sh [-k KERNELS] NAME... | -a | -l}
	shift 2
fi

names=()
case ${1:-} in
-l)
	for p in "$dir"/*.patch; do
		printf '%-32s %s\n' "$(basename "$p" .patch)" "$(field Kernel "$p")"
	done
	exit 0
	;;
-a)
	for p in "$dir"/*.patch; do names+=("$(basename "$p" .patch)"); done
	;;
'')
	die "usage: plant.sh [-k KERNELS] NAME... | -a | -l"
	;;
*)
	names=("$@")
	;;
esac

if ! make -s -C userspace >/dev/null || ! make -s -C selftests >/dev/null; then
	die "userspace or the selftests failed to build"
fi

bad=0
fail() {
	echo "FAIL plant $*"
	bad=1
}

# the plants of each kernel, the ones that end a boot last
declare -A todo=()
for name in "${names[@]}"; do
	p=$dir/$name.patch
	if [ ! -r "$p" ]; then
		fail "$name: no $p"
		continue
	fi
	kernel=$(field Kernel "$p")
	if [ -z "$kernel" ] || [ -z "$(field Run "$p")" ] ||
		[ -z "$(field Bound "$p")" ] || [ -z "$(field Expect "$p")" ]; then
		fail "$name: Kernel, Run, Bound and Expect are all needed"
		continue
	fi
	if [ -n "$kernels" ] && [[ " $kernels " != *" $kernel "* ]]; then
		echo "SKIP plant $name: kernel $kernel is not under test"
		continue
	fi
	last=0
	[ -z "$(field Stack "$p")" ] && ! grep -q 'kernel:' <<<"$(field Expect "$p")" || last=1
	todo[$kernel]+="$last $name"$'\n'
done

# judge NAME RESDIR CONSOLE VMPROBLEMS: one verdict from what the guest
# left in RESDIR and the plant's part of the console
judge() {
	local name=$1 res=$2 console=$3 vmprob=$4 p=$dir/$1.patch
	local expect stack seg problems said why rc secs
	expect=$(field Expect "$p")
	stack=$(field Stack "$p")
	seg=$res/console.log
	# from its begin line to its end line, or to the end of the log
	tr -d '\r' <"$console" | awk -v b="retire-plant: begin $name" \
		-v e="retire-plant: end $name" \
		'index($0, b) && substr($0, length($0) - length(b) + 1) == b { on = 1 }
		 on { print }
		 on && index($0, e) && substr($0, length($0) - length(e) + 1) == e { exit }' >"$seg"
	problems=$(kernel_reports "$seg" | sed 's/^/kernel: /')
	[ "$(cat "$res/unload" 2>/dev/null)" = failed ] &&
		problems+=$'\n'"retire.ko did not unload"
	# the boot ended inside this plant: what the VM runner saw is its
	if ! grep -q "retire-plant: end $name\$" "$seg"; then
		problems+=$'\n'"$vmprob"
		[ -e "$res/rc" ] || problems+=$'\n'"the plant's command never finished"
	fi
	printf '%s\n' "$problems" | sed '/^$/d' >"$res/problems"
	rc=$(cat "$res/rc" 2>/dev/null || echo none)
	secs=$(cat "$res/secs" 2>/dev/null || echo "?")
	said=$(cat "$res/problems" "$res/output" 2>/dev/null | grep -E -m 1 -- "$expect")
	why=
	[ "$rc" != 0 ] || [ -s "$res/problems" ] || why="the run passed"
	[ -n "$why" ] || [ -n "$said" ] || why="nothing matched '$expect'"
	if [ -z "$why" ] && [ -n "$stack" ] && ! grep -qE -- "$stack" "$seg"; then
		why="no stack on the console matched '$stack'"
	fi
	if [ -z "$why" ]; then
		echo "PASS plant $name ($kernel, ${secs} s): caught: $said"
	else
		fail "$name ($kernel, ${secs} s): $why (files in $res)"
		sed 's/^/    /' "$res/problems" | head -n 10
	fi
}

for kernel in debug 6.1 6.12; do
	[ -n "${todo[$kernel]:-}" ] || continue
	mapfile -t order < <(printf '%s' "${todo[$kernel]}" | sort -s -k1,1n | cut -d' ' -f2)
	# build every planted module of this kernel
	declare -A moddir=()
	t0=$SECONDS
	while read -r name d; do
		[ "$d" = - ] || moddir[$name]=$d
	done < <(scripts/build-module.sh "$kernel" "${order[@]}")
	echo "time $((SECONDS - t0)) plants: $kernel: build ${#order[@]} planted modules"
	pending=()
	for name in "${order[@]}"; do
		if [ -n "${moddir[$name]:-}" ]; then
			pending+=("$name")
		else
			fail "$name ($kernel): the planted module did not build"
		fi
	done
	boot=0
	while [ ${#pending[@]} -gt 0 ]; do
		boot=$((boot + 1))
		out=$RETIRE_BUILD/results/plants-$kernel-$boot
		rm -rf "$out"
		mkdir -p "$out"
		bound=120
		: >"$out/plants.list"
		for name in "${pending[@]}"; do
			p=$dir/$name.patch
			b=$(field Bound "$p")
			bound=$((bound + b + 15))
			echo "$name $b ${moddir[$name]} $(field Run "$p")" >>"$out/plants.list"
			rm -rf "${out:?}/$name"
		done
		t0=$SECONDS
		scripts/vm-run.sh -k "$kernel" -e -L -t "$bound" -o "$out" -- \
			scripts/plant-guest.sh /tmp/out/plants.list /tmp/out >"$out/vm-run.log" 2>&1
		secs=$((SECONDS - t0))
		echo "plants: $kernel boot $boot: ${#pending[@]} plants, $secs s (files in $out)" >&2
		# the VM runner's own findings not of the kernel's log (a timeout,
		# qemu's exit): the running plant's, if the boot ended in one
		vmprob=$(grep -v '^kernel: ' "$out/problems" 2>/dev/null | grep -v 'did not unload')
		rest=()
		began=0
		for name in "${pending[@]}"; do
			if grep -q "retire-plant: begin $name\$" <(tr -d '\r' <"$out/console.log"); then
				began=1
				judge "$name" "$out/$name" "$out/console.log" "$vmprob"
				s=$(cat "$out/$name/secs" 2>/dev/null || echo 0)
				secs=$((secs - s))
				echo "time $s plant $name ($kernel)"
			else
				rest+=("$name")
			fi
		done
		echo "time $secs plants: $kernel: boot $boot and shutdown, beside its plants"
		if [ $began = 0 ]; then
			for name in "${rest[@]}"; do
				fail "$name ($kernel): its boot ran no plant (files in $out)"
			done
			sed 's/^/    /' "$out/problems" 2>/dev/null | head -n 10
			rest=()
		fi
		pending=("${rest[@]}")
	done
	unset moddir
done
exit $bad
