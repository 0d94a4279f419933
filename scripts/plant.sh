#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that the harness bites: build retire.ko with a deliberate fault
# (scripts/plants/NAME.patch) applied to a copy of the module, run the
# plant's command with it in a VM, and pass only if the run failed and
# said what the plant expects: the detector that must catch it and, for a
# freeze, the stuck function on the console's stacks.
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
#   Bound:   the VM's wall-clock bound in seconds
#   Expect:  an extended regex that the run's problems or output must hold
#   Stack:   (optional) an extended regex the console must hold (a stack)
# The planted module is built in build/<kernel>/plant-NAME/ and loaded by
# nothing but its own run. One line per plant: "PASS plant NAME: ..." when
# it was caught, "FAIL ..." when the harness let it through (or it could
# not be run), "SKIP ..." under -k. Exit 1 if any plant was not caught.
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
		printf '%-28s %s\n' "$(basename "$p" .patch)" "$(field Kernel "$p")"
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
for name in "${names[@]}"; do
	p=$dir/$name.patch
	if [ ! -r "$p" ]; then
		echo "FAIL plant $name: no $p"
		bad=1
		continue
	fi
	kernel=$(field Kernel "$p")
	if [ -n "$kernels" ] && [[ " $kernels " != *" $kernel "* ]]; then
		echo "SKIP plant $name: kernel $kernel is not under test"
		continue
	fi
	run=$(field Run "$p")
	bound=$(field Bound "$p")
	expect=$(field Expect "$p")
	stack=$(field Stack "$p")
	if [ -z "$kernel" ] || [ -z "$run" ] || [ -z "$bound" ] || [ -z "$expect" ]; then
		echo "FAIL plant $name: Kernel, Run, Bound and Expect are all needed"
		bad=1
		continue
	fi
	out=$RETIRE_BUILD/results/plant-$name
	rm -rf "$out"
	mkdir -p "$out"
	if ! moddir=$(scripts/build-module.sh "$kernel" "$name"); then
		echo "FAIL plant $name: the planted module did not build"
		bad=1
		continue
	fi
	t0=$(date +%s)
	rc=0
	# shellcheck disable=SC2086 # Run is a command line
	flock /tmp/retire-vm.lock scripts/vm-run.sh -k "$kernel" -e -m "$moddir" \
		-t "$bound" -o "$out" -- $run >"$out/vm-run.log" 2>&1 || rc=$?
	secs=$(($(date +%s) - t0))
	said=$(cat "$out/problems" "$out/output" 2>/dev/null | grep -E -m 1 -- "$expect")
	why=
	[ $rc != 0 ] || why="the run passed"
	[ -n "$why" ] || [ -n "$said" ] || why="nothing matched '$expect'"
	if [ -z "$why" ] && [ -n "$stack" ] &&
		! tr -d '\r' <"$out/console.log" | grep -qE -- "$stack"; then
		why="no stack on the console matched '$stack'"
	fi
	if [ -z "$why" ]; then
		echo "PASS plant $name ($kernel, ${secs} s): caught: $said"
	else
		echo "FAIL plant $name ($kernel, ${secs} s): $why (files in $out)"
		sed 's/^/    /' "$out/problems" 2>/dev/null | head -n 10
		bad=1
	fi
done
exit $bad
