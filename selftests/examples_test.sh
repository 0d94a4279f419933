#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The programs of userspace/examples, which the README points a newcomer
# at, run against the loaded module: each must exit 0 (4 is a skip), so an
# example that no longer works, or a module that no longer behaves as an
# example says, fails here. Last, the C excerpt in the README must still be
# lines of lifecycle.c, in order, so that what a newcomer reads first is
# code that runs here.
#
# Exit: 0 every example passed (or some skipped), 1 one failed, 4 all
# skipped.

set -u

. "$(dirname "$0")/ksft_lib.sh"

dir=$top/userspace/examples
EXAMPLES="lifecycle borrow monitor cancel rings history"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

ktap_print_header
ktap_set_plan 7		# the 6 examples, and the README
for e in $EXAMPLES; do
	if [ ! -x "$dir/$e" ]; then
		ktap_test_skip "examples: $e (not built: make -C userspace)"
		continue
	fi
	timeout 60 "$dir/$e" >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	case $rc in
	0) ktap_test_pass "examples: $e" ;;
	4) ktap_test_skip "examples: $e" ;;
	*)
		ktap_print_msg "$e exited $rc"
		ktap_test_fail "examples: $e"
		;;
	esac
done
# every non-blank line of the README's ```c block, in lifecycle.c in order
if awk -v src="$dir/lifecycle.c" '
	BEGIN { while ((getline l < src) > 0) s[++m] = l; i = 1 }
	/^```c$/ { on = 1; next }
	/^```$/ { on = 0 }
	on && NF {
		while (i <= m && s[i] != $0)
			i++
		if (i > m) {
			print "# not in lifecycle.c (in order): " $0
			bad = 1
			exit
		}
		i++
	}
	END { exit bad }' "$top/README.md"; then
	ktap_test_pass "examples: readme_excerpt_is_lifecycle_c"
else
	ktap_test_fail "examples: readme_excerpt_is_lifecycle_c"
fi

if [ "$KTAP_CNT_FAIL" -eq 0 ] && [ "$KTAP_CNT_PASS" -eq 0 ]; then
	ktap_print_totals
	exit "$KSFT_SKIP"
fi
ktap_finished
