#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Model-check the retirement protocol (Documentation/model/retire.pml)
# with spin, exhaustively: a safety run (every assertion, invalid end
# states) with two incarnations of the slot and the stale-event injector,
# then a liveness run (the LTL claim "live", weak fairness, acceptance
# cycles) with one incarnation. Fails on any violation and on any search
# that did not complete.
#
# usage: scripts/model-check.sh [-q] [MODEL.pml]
#   -q  print only the one-line verdict of each run
# MODEL_BFS=1 makes the safety search breadth first, so a violation comes
# with its shortest counterexample (scripts/model-mutations.sh uses it).
# Prints one line per run: "model: <run>: <states> states, depth <n>,
# <s> s" or "model: <run>: VIOLATION <what> at depth <n>".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

quiet=0
[ "${1:-}" = -q ] && { quiet=1; shift; }
model=$(realpath "${1:-$RETIRE_TOP/Documentation/model/retire.pml}")
command -v spin >/dev/null || die "spin is missing (scripts/deps.sh installs it)"

work=$(mktemp -d /tmp/retire-model.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$model" "$work/retire.pml"
cd "$work" || exit 1

# the search bounds: the DFS stack (-m) is far above the depth reached,
# the hash table (-w) big enough that a full search takes seconds
PAN_ARGS=(-m1000000 -w24)

# $1 name, $2 spin -D flags, $3 gcc flags, $4... pan flags
run() {
	local name=$1 dflags=$2 cflags=$3 out t0 t1 states depth what
	shift 3
	rm -f pan pan.* ./*.trail
	# shellcheck disable=SC2086
	spin $dflags -a retire.pml >spin.log 2>&1 || {
		cat spin.log >&2
		echo "model: $name: spin -a failed"
		return 1
	}
	# shellcheck disable=SC2086
	gcc -O2 $cflags -o pan pan.c 2>gcc.log || {
		cat gcc.log >&2
		echo "model: $name: gcc pan.c failed"
		return 1
	}
	t0=$(date +%s.%N)
	./pan "${PAN_ARGS[@]}" "$@" >"pan-$name.out" 2>&1
	t1=$(date +%s.%N)
	out="pan-$name.out"
	[ $quiet = 1 ] || grep -vE '^\s*$|^Depth=' "$out" | sed -n '/^(Spin/,/^Stats/p' | sed 's/^/    /'
	states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$out")
	depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$out")
	if grep -qE 'errors: [1-9]' "$out"; then
		what=$(grep -m1 -E '^pan:[0-9]+: ' "$out" | sed 's/^pan:[0-9]*: //')
		# the line of the failing statement, and the claim it names
		if [ -e retire.pml.trail ]; then
			# shellcheck disable=SC2086
			spin $dflags -t -p retire.pml >trail.txt 2>&1
			# the assert whose expression pan names (spin -t runs on
			# past it, so not simply the last one)
			expr=$(sed 's/^assertion violated //; s/ (at depth.*//' <<<"$what" | tr -d ' ()')
			line=$(grep -F '[assert(' trail.txt | while read -r l; do
				e=${l##*\[assert}
				[ "$(tr -d ' ()' <<<"${e%]}")" = "$expr" ] && { echo "$l"; break; }
			done | grep -oE 'retire.pml:[0-9]+' | cut -d: -f2)
			claim=$(sed -n "${line:-0}p" retire.pml | grep -oE 'C[0-9]+' | head -n1)
			case $what in *acceptance*) claim="C6/C8 (ltl live)" ;; esac
			what="$what [${claim:-line $line}]"
		fi
		echo "model: $name: VIOLATION $what"
		return 1
	fi
	if grep -qiE 'search not completed|depth too small|out of memory|max search depth' "$out"; then
		echo "model: $name: search not completed ($(grep -m1 -iE 'not completed|too small|memory' "$out"))"
		return 1
	fi
	if ! grep -q 'errors: 0' "$out" || [ -z "$states" ]; then
		echo "model: $name: pan gave no verdict"
		tail -n 20 "$out" >&2
		return 1
	fi
	printf 'model: %s: %s states stored, depth %s, %.1f s\n' "$name" "$states" "$depth" \
		"$(echo "$t1 - $t0" | bc)"
}

rc=0
# safety: two incarnations of the slot, the stale injector, no claim
# MODEL_BFS=1 searches breadth first: the shortest counterexample
run safety "" "-DSAFETY -DNOCLAIM ${MODEL_BFS:+-DBFS}" || rc=1
# liveness: weak fairness over 7 processes, acceptance cycles of "live"
[ $rc = 0 ] && { run liveness "-DMAXSUB=1 -DNOSTALE" "-DNFAIR=3" -a -f -N live || rc=1; }
exit $rc
