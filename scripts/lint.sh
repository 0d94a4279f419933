#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make lint: the kernel's own static checkers, and shellcheck, over the
# project's own files (not what a build generated beside them). Every
# finding is printed, indented, above the result of the check that found
# it; any finding fails its check.
#
#  - checkpatch: scripts/checkpatch.pl --strict on kmod/, include/,
#    samples/ and uapi/ (uapi
#    headers cannot use BIT_ULL(), (1ULL << n) stands there: --ignore
#    BIT_MACRO for them; uapi/linux/retire_names.h's X-macro lists and
#    kmod/names.h's tables built from them are no expressions: --ignore
#    COMPLEX_MACRO and the checks that follow from it, for those two only)
#  - sparse: C=2 (sparse on every file) and W=1 over the copy of the tree
#    that scripts/build-module.sh builds for stock 6.1, stock 6.12 and the
#    debug kernel (whose KUnit brings in the *_kunit.c suites): the tests'
#    own build, checked without a second one. RETIRE_KERNELS picks the
#    kernels (default all three)
#  - kernel-doc: scripts/kernel-doc -none -Wall on kmod/, include/,
#    samples/ and uapi/linux/
#  - core: the core's sources name no engine (lint_core says what counts)
#  - shellcheck: scripts/, selftests/ and .ci/run, following what they
#    source
#
# The kernel's tools are linux-source-6.12's, unpacked outside the clone
# on first use; the debug kernel too is built on first use and cached
# (scripts/debug-kernel.sh).
#
#   lint.sh [checkpatch|sparse|kernel-doc|core|shellcheck]...   (default all)
#
# One line per check, "PASS lint: ..." or "FAIL lint: ...", after a line
# "time SECONDS lint: ..." with what it took; exits 1 if any failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RETIRE_TOP" || exit 1

# the project's own files only
src() {
	git ls-files --cached --others --exclude-standard "$@"
}

# checkpatch: judged by what it prints (its exit status also counts
# CHECKs, but says nothing a finding does not); its per-file totals are
# no findings of their own
lint_checkpatch() {
	local cp kmod uapi names=(uapi/linux/retire_names.h kmod/names.h)
	cp=("$tree/scripts/checkpatch.pl" --no-tree --strict --terse --show-types)
	mapfile -t kmod < <(src 'kmod/*.[ch]' 'include/*.h' 'samples/*.c' |
		grep -vx "${names[1]}")
	mapfile -t uapi < <(src 'uapi/*.h' | grep -vx "${names[0]}")
	{
		"${cp[@]}" -f "${kmod[@]}" kmod/Kbuild Kbuild samples/Kbuild
		"${cp[@]}" --ignore BIT_MACRO -f "${uapi[@]}"
		# X-macro lists and the tables built from them: a list is a
		# bare run of calls of its argument and a row's macro a piece
		# of an initializer or a declaration, no expression to
		# parenthesise; "return" is the name of an event, not a return
		"${cp[@]}" --ignore COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_UNUSED,MACRO_WITH_FLOW_CONTROL,TRAILING_SEMICOLON \
			-f "${names[@]}"
	} 2>&1 | grep -vE '^total: [0-9]+ errors, [0-9]+ warnings, [0-9]+ checks, '
	return 0
}

# sparse KERNEL: the module's copy for that kernel is built as the tests
# load it (scripts/build-module.sh); C=2 then runs sparse over every file
# and compiles nothing more, so whatever that make prints besides its
# progress is sparse's finding. A header's warning is shown once, with
# the first include chain that led to it.
lint_sparse() {
	local k=$1 kdir moddir dst log
	case $k in
	debug) kdir=$(scripts/debug-kernel.sh) ;;
	*) kdir=/usr/src/linux-headers-$(stock_kver "$k") ;;
	esac || { echo "no build tree for kernel $k"; return 1; }
	moddir=$(scripts/build-module.sh "$k" 2>&1) ||
		{ echo "$moddir"; echo "the build for $k failed"; return 1; }
	dst=${moddir%/kmod}
	log=$RETIRE_BUILD/$k/sparse.log
	if ! make -C "$kdir" M="$dst" C=2 W=1 -j"$(nproc)" modules >"$log" 2>&1; then
		grep -E 'error|warning' "$log" | sed "s|$dst/||g"
		echo "sparse's make for $k failed (see $log)"
		return 1
	fi
	{ grep -vE '^  [A-Z]|^make(\[[0-9]+\])?: (Entering|Leaving) directory|^Skipping BTF generation' \
		"$log" || true; } | sed "s|$dst/||g" |
		awk '/: note: in included file/ { note = note $0 "\n"; next }
		     !seen[$0]++ { printf "%s", note; print }
		     { note = "" }'
}

lint_kernel_doc() {
	local files
	mapfile -t files < <(src 'kmod/*.[ch]' 'uapi/linux/*.h' 'include/*.h' 'samples/*.c')
	"$tree/scripts/kernel-doc" -none -Wall "${files[@]}" 2>&1
}

# the core's sources (kmod/ but the engines, their header and the KUnit
# suites) name no engine: no engine's name, command, feature or knob. An
# engine is a module that registers (include/linux/retire_engine.h); the
# core only knows what that header says.
lint_core() {
	local files
	mapfile -t files < <(src 'kmod/*.[ch]' |
		grep -vE '^kmod/(engine_(sim|edu|null)\.[ch]|.*_kunit\.c|kunit_fixture\.[ch])$')
	grep -nHiE '\b(sim|edu|null_blk)\b|_(sim|edu)_|\b(sim|edu)_|_(SIM|EDU)\b|"(sim|edu|null)"' \
		"${files[@]}" | grep -v 'RETIRE_DEFAULT_ENGINE'
	return 0
}

lint_shellcheck() {
	local files
	command -v shellcheck >/dev/null ||
		{ echo "shellcheck is not installed (run scripts/deps.sh)"; return 1; }
	mapfile -t files < <(src 'scripts/*.sh' 'selftests/*.sh')
	shellcheck -x -P SCRIPTDIR -f gcc "${files[@]}" scripts/initramfs-init .ci/run
}

nchecks=0 nfailed=0
# one check: $1 says what it checks, the rest runs it; anything it prints
# is a finding, and so is a failure that printed nothing
check() {
	local what=$1 out rc lines t0=$SECONDS
	shift
	out=$("$@")
	rc=$?
	echo "time $((SECONDS - t0)) lint: $what"
	nchecks=$((nchecks + 1))
	if [ -z "$out" ] && [ $rc = 0 ]; then
		echo "PASS lint: $what"
		return
	fi
	if [ -n "$out" ]; then
		mapfile -t lines <<<"$out"
		printf '    %s\n' "${lines[@]}"
	fi
	echo "FAIL lint: $what"
	nfailed=$((nfailed + 1))
}

tree=$(unpack_source) || die "no linux-source-6.12 tree (run scripts/deps.sh)"
checks=${*:-checkpatch sparse kernel-doc core shellcheck}
for c in $checks; do
	case $c in
	checkpatch)
		check "checkpatch.pl --strict on kmod/, include/, samples/ and uapi/" lint_checkpatch
		;;
	sparse)
		for k in ${RETIRE_KERNELS:-debug 6.1 6.12}; do
			what="sparse (C=2 W=1) on retire.ko for $k"
			[ "$k" = debug ] && what="$what, and on retire_kunit.ko"
			check "$what" lint_sparse "$k"
		done
		;;
	kernel-doc)
		check "kernel-doc -Wall on kmod/, include/, samples/ and uapi/linux/" lint_kernel_doc
		;;
	core)
		check "the core's sources name no engine" lint_core
		;;
	shellcheck)
		check "shellcheck on scripts/, selftests/ and .ci/run" lint_shellcheck
		;;
	*) die "unknown check '$c' (checkpatch, sparse, kernel-doc, core, shellcheck)" ;;
	esac
done
echo "make lint: $nfailed of $nchecks checks failed"
[ $nfailed = 0 ]
