#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build retire.ko (and retire_kunit.ko where the kernel has KUnit) for one
# target kernel, with W=1, in build/<kernel>/src/: a copy of the tree (its
# own files, as .gitignore tells them from build products) that is built
# the way the README says a user builds the module. Builds for different
# kernels never share objects, and each is incremental: rsync keeps the
# sources' mtimes, so make rebuilds exactly what changed. Any compiler
# warning fails the build. The stock kernels' copies are also what the
# install tests run make install in (scripts/install-stage.sh), and the
# copy is what make lint runs sparse over (scripts/lint.sh).
#
#   build-module.sh debug|6.1|6.12              prints the .ko's directory
#   build-module.sh debug|6.1|6.12 PLANT...     then the planted modules
#
# With PLANTs, each deliberate fault scripts/plants/PLANT.patch is applied
# to the same copy in turn, the copy rebuilt (only the objects the patch
# touched), its retire.ko kept in build/<kernel>/plant-PLANT/, and the
# patch reversed; the copy is rebuilt clean at the end. One line per
# plant: "PLANT DIR" when it built, "PLANT -" (and why, on stderr) when
# not. A planted module is never loaded by anything but a plant's own run
# (scripts/plant.sh).
#
# A copy whose sources carried a plant when a build stopped (the file
# .planted says which) cannot be trusted: rsync would put the clean
# sources back with mtimes older than the planted objects, and make would
# keep those. Such a copy is removed and built from scratch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: build-module.sh debug|6.1|6.12 [PLANT...]}
shift
case $kernel in
debug) kdir=$("$RETIRE_TOP/scripts/debug-kernel.sh") ;;
6.1 | 6.12) kdir=/usr/src/linux-headers-$(stock_kver "$kernel") ;;
*) die "unknown kernel '$kernel'" ;;
esac

dst=$RETIRE_BUILD/$kernel/src
log=$RETIRE_BUILD/$kernel/build.log
mkdir -p "$dst"
exec 6>"$RETIRE_BUILD/$kernel/.lock"
flock 6
if [ -e "$dst/.planted" ]; then
	echo "build-module: $dst still held plant $(cat "$dst/.planted"): building it from scratch" >&2
	rm -rf "$dst"
	mkdir -p "$dst"
fi
# what .gitignore names is neither copied nor deleted: the copy's own
# build products stay
rsync -a --delete --exclude=/.git --exclude=/.planted --filter=':- .gitignore' \
	"$RETIRE_TOP/" "$dst/" >/dev/null

# make: build the module in the copy, its output in $log; fail on an
# error or a warning
make_module() {
	if ! make -C "$kdir" M="$dst" W=1 -j"$(nproc)" modules >"$log" 2>&1; then
		cat "$log" >&2
		return 1
	fi
	if grep -E 'warning:|error:' "$log" >&2; then
		echo "build-module: retire.ko built for $kernel with warnings (W=1 must be clean)" >&2
		return 1
	fi
	[ -e "$dst/kmod/retire.ko" ] || { echo "build-module: no retire.ko" >&2; return 1; }
}

make_module || die "retire.ko failed to build for $kernel"
[ $# -gt 0 ] || { echo "$dst/kmod"; exit 0; }

for plant in "$@"; do
	patch=$RETIRE_TOP/scripts/plants/$plant.patch
	out=$RETIRE_BUILD/$kernel/plant-$plant
	rm -rf "$out"
	if [ ! -r "$patch" ] ||
		! patch -s -d "$dst" -p1 --dry-run -f <"$patch" >/dev/null 2>&1; then
		echo "build-module: plant $plant does not apply: refresh $patch" >&2
		echo "$plant -"
		continue
	fi
	echo "$plant" >"$dst/.planted"
	# the patch writes the files it changes now: make rebuilds them
	patch -s -d "$dst" -p1 --no-backup-if-mismatch <"$patch"
	if make_module; then
		mkdir -p "$out"
		cp "$dst"/kmod/retire*.ko "$dst"/samples/retire_sample.ko "$out/"
		rm -f "$out/retire_kunit.ko"
		cp "$log" "$out/build.log"
		echo "$plant $out"
	else
		echo "build-module: plant $plant did not build" >&2
		echo "$plant -"
	fi
	# reversed, the files are new again: the next build rebuilds them
	patch -s -d "$dst" -p1 -R --no-backup-if-mismatch <"$patch"
done
make_module || die "retire.ko failed to build for $kernel after the plants"
rm -f "$dst/.planted"
