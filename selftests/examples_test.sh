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

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
dir=$top/userspace/examples
EXAMPLES="lifecycle borrow monitor"	# 3 of them, and the README: the plan

n=0
pass=0
fail=0
skip=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "TAP version 13"
echo "1..4"
for e in $EXAMPLES; do
	n=$((n + 1))
	if [ ! -x "$dir/$e" ]; then
		skip=$((skip + 1))
		echo "ok $n examples: $e # SKIP not built (make -C userspace)"
		continue
	fi
	timeout 60 "$dir/$e" >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	case $rc in
	0)
		pass=$((pass + 1))
		echo "ok $n examples: $e"
		;;
	4)
		skip=$((skip + 1))
		echo "ok $n examples: $e # SKIP"
		;;
	*)
		fail=$((fail + 1))
		echo "not ok $n examples: $e # exit $rc"
		;;
	esac
done
# every non-blank line of the README's ```c block, in lifecycle.c in order
n=$((n + 1))
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
	pass=$((pass + 1))
	echo "ok $n examples: readme_excerpt_is_lifecycle_c"
else
	fail=$((fail + 1))
	echo "not ok $n examples: readme_excerpt_is_lifecycle_c"
fi

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
[ "$fail" -gt 0 ] && exit 1
[ "$pass" -eq 0 ] && exit 4
exit 0
