#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kselftest directory the selftests build and run with: a
# tools/testing/selftests holding kselftest_harness.h, lib.mk and the
# runner and KTAP helpers in kselftest/. The first of:
#
#   1. $KSFT_DIR, when set (it must have all of these, or this fails)
#   2. the one chosen last time, noted in $RETIRE_BUILD/ksft-dir, while it
#      still has them (the test VM, which cannot write, finds it there)
#   3. an unpacked kernel tree: $KSRC, /lib/modules/$(uname -r)/source,
#      /usr/src/linux, or the linux-source-6.12 that scripts/deps.sh
#      unpacks for the debug kernel
#   4. the few files needed, taken from the installed linux-source-6.12
#      tarball into a cache outside the clone, without root:
#      ${XDG_CACHE_HOME:-~/.cache}/retire, or $RETIRE_BUILD if that cannot
#      be written
#
# and when there is none, say how to get one and fail. The kernel's files
# are used from there, never copied into the repository.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# what the build and the runner use from the directory
NEEDED="kselftest_harness.h kselftest.h lib.mk kselftest/runner.sh
kselftest/prefix.pl kselftest/ktap_helpers.sh kselftest/ksft.py"
# what is taken from the tarball: those, and what ynl_test.py runs
MEMBERS=(tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest.h
	tools/testing/selftests/lib.mk
	tools/testing/selftests/kselftest
	tools/net/ynl
	Documentation/netlink/genetlink.yaml)
TARBALL=${RETIRE_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
NOTE=$RETIRE_BUILD/ksft-dir

# complete DIR: DIR has every needed file (the first missing one on stdout
# otherwise)
complete() {
	local f
	for f in $NEEDED; do
		[ -e "$1/$f" ] || { echo "$f"; return 1; }
	done
}

found() {
	mkdir -p "$RETIRE_BUILD" 2>/dev/null && echo "$1" >"$NOTE" 2>/dev/null
	echo "$1"
	exit 0
}

if [ -n "${KSFT_DIR:-}" ]; then
	miss=$(complete "$KSFT_DIR") ||
		die "KSFT_DIR=$KSFT_DIR has no $miss (it must be a kernel tree's tools/testing/selftests, 6.9 or later)"
	echo "$KSFT_DIR"
	exit 0
fi

if [ -r "$NOTE" ]; then
	d=$(cat "$NOTE")
	complete "$d" >/dev/null && { echo "$d"; exit 0; }
fi

for src in ${KSRC:-} "/lib/modules/$(uname -r)/source" /usr/src/linux \
	"$RETIRE_CACHE"/src/linux-source-6.12-*; do
	d=$src/tools/testing/selftests
	complete "$d" >/dev/null && found "$d"
done

if [ ! -r "$TARBALL" ]; then
	die "no kselftest directory: install linux-source-6.12 (apt install linux-source-6.12, or scripts/deps.sh), or point KSFT_DIR at an unpacked kernel tree's tools/testing/selftests (6.9 or later)"
fi

ver=$(source_version)
cache=${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/retire
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache=$RETIRE_BUILD
tree=$cache/ksft-linux-source-6.12-$ver
d=$tree/tools/testing/selftests
complete "$d" >/dev/null && found "$d"

mkdir -p "$cache"
# one unpacker at a time; the others wait and reuse its files
exec 8>"$cache/.ksft.lock"
flock 8
if ! complete "$d" >/dev/null; then
	echo "ksft-dir: taking the kselftest files from $TARBALL into $tree" >&2
	rm -rf "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -C "$tree.tmp" --strip-components=1 -xJf "$TARBALL" \
		"${MEMBERS[@]/#/linux-source-6.12/}"
	miss=$(complete "$tree.tmp/tools/testing/selftests") ||
		die "$TARBALL has no tools/testing/selftests/$miss"
	rm -rf "$tree"
	mv "$tree.tmp" "$tree"
fi
exec 8>&-
found "$d"
