#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Show each claim of the model bite: replay one-line mutations of
# Documentation/model/retire.pml, each the protocol bug a claim exists to
# catch, and require scripts/model-check.sh to report a violation for
# every one. Fails if a mutation survives, or if its tagged line is gone.
#
# usage: scripts/model-mutations.sh [NAME...]   (default: all)
# Prints, per mutation, the claim that fired and the counterexample's
# depth (the trail's length).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RETIRE_TOP" || exit 1

model=Documentation/model/retire.pml

# name | tag of the line | sed replacement on that line | what it breaks
MUTATIONS=(
	"return-retires|@return_retires|s/try_retire()/retire(1)/|C1: the last token's return retires, consumed or not"
	"try-stop-keeps-running|@try_stop|s/jgen = 0; jphase = J_IDLE/skip/|C2: a cancel's try_stop says stopped but the job runs on"
	"timeout-is-termination|@timeout|s/queue(P_TIMEOUT)/queue(P_TIMEOUT); d = 0; term_seen = 1; rstate = R_TERMINATED; bstate = B_HELD; queue(P_TERMINAL)/|C2: the deadline taken as the terminal event"
	"retire-on-timeout|@timeout|s/queue(P_TIMEOUT)/queue(P_TIMEOUT); consumed = 1; retire(0)/|C3: the deadline retires the request"
	"cancel-ack-releases-d|@cancel_already|s/jabort = 1/jabort = 1; d = 0/|C3: a cancel acknowledgement (-EALREADY) clears d"
	"stale-generation-accepted|@lookup|s/(live \&\& (h) == gen)/(live)/|C4: lookup ignores the generation"
	"retire-with-tokens-out|@may_retire|s/ \&\& tokens == 0//|C5: retirement does not wait for the last token"
	"late-terminal-keeps-quarantine|@unquarantine|s/unquarantine()/skip/|C6: a late terminal event does not end quarantine"
	"handoff-releases-first|@handoff|s/tokens + 1; assert(tokens > 0); tokens = tokens - 1/tokens - 1; assert(tokens > 0); tokens = tokens + 1/|C7: the handoff drops the old token before it takes the new"
	"full-ring-drops-a-record|@ring_full|s/ring_full = 1/ring_full = 1; pending = pending \& (pending - 1)/|C8: a full completion ring drops the oldest record"
	"reaper-leaves-early|@reap_done|s/ \&\& !live//|C9: the reaper frees the context with work unretired"
	"borrow-without-mutex|@borrow_mutex|s/ \&\& !mutex//|C1: a borrow between a record's fill and its commit"
)

want=("$@")
work=$(mktemp -d /tmp/retire-mut.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0 n=0

for m in "${MUTATIONS[@]}"; do
	IFS='|' read -r name tag expr why <<<"$m"
	if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $name "* ]]; then
		continue
	fi
	n=$((n + 1))
	lines=$(grep -c -- "$tag\b" "$model")
	if [ "$lines" != 1 ]; then
		echo "FAIL $name: $tag tags $lines lines of $model, not one"
		fail=1
		continue
	fi
	sed "/$tag\b/$expr" "$model" >"$work/$name.pml"
	if cmp -s "$model" "$work/$name.pml"; then
		echo "FAIL $name: the replacement changed nothing on the $tag line"
		fail=1
		continue
	fi
	t0=$(date +%s)
	# breadth first, for the shortest counterexample, unless only the
	# liveness run can see it (a full breadth-first search takes minutes)
	bfs=1
	[[ $why == C6* ]] && bfs=
	out=$(MODEL_BFS=$bfs scripts/model-check.sh -q "$work/$name.pml" 2>&1)
	verdict=$(grep -m1 'VIOLATION' <<<"$out")
	if [ -n "$verdict" ]; then
		verdict=${verdict#model: }
		# a long expression (C4's record signature) shortened
		verdict=$(sed -E 's/violated (.{48}).*( \(at depth)/violated \1...\2/' <<<"$verdict")
		echo "PASS $name ($why): $verdict ($(($(date +%s) - t0)) s)"
	else
		echo "FAIL $name ($why) survived: $(tail -n2 <<<"$out" | tr '\n' ' ')"
		fail=1
	fi
done
[ $n -gt 0 ] || die "no mutation named ${want[*]}"
exit $fail
