#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build retire.ko (and retire_kunit.ko where the kernel has KUnit) for one
# target kernel, with W=1, in build/<kernel>/ so builds for different
# kernels never share objects. Any compiler warning fails the build.
#
#   build-module.sh debug|6.1|6.12 [PLANT]
#
# prints the directory holding the .ko. With PLANT, the module is built
# from a copy with the deliberate fault scripts/plants/PLANT.patch applied,
# in build/<kernel>/plant-PLANT/ (scripts/plant.sh uses it): never loaded
# by anything but a plant's own run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: build-module.sh debug|6.1|6.12 [PLANT]}
plant=${2:-}
case $kernel in
debug) kdir=$("$RETIRE_TOP/scripts/debug-kernel.sh") ;;
6.1 | 6.12) kdir=/usr/src/linux-headers-$(stock_kver "$kernel") ;;
*) die "unknown kernel '$kernel'" ;;
esac

dst=$RETIRE_BUILD/$kernel/src
[ -z "$plant" ] || dst=$RETIRE_BUILD/$kernel/plant-$plant
mkdir -p "$dst"
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
	--exclude='*.mod*' --exclude=modules.order --exclude=Module.symvers \
	"$RETIRE_TOP/Kbuild" "$RETIRE_TOP/kmod" "$RETIRE_TOP/uapi" "$dst/" >/dev/null
# rsync keeps the sources' mtimes, so make rebuilds exactly what changed
if [ -n "$plant" ]; then
	patch=$RETIRE_TOP/scripts/plants/$plant.patch
	[ -r "$patch" ] || die "no plant $patch"
	# rsync put the originals back; the patch makes them new again, so
	# make rebuilds what the plant touches
	patch -s -d "$dst" -p1 --no-backup-if-mismatch <"$patch" ||
		die "plant $plant no longer applies: refresh $patch"
fi

log=$dst/../build${plant:+-$plant}.log
if ! make -C "$kdir" M="$dst" W=1 modules >"$log" 2>&1; then
	cat "$log" >&2
	die "retire.ko failed to build for $kernel"
fi
if grep -E 'warning:|error:' "$log" >&2; then
	die "retire.ko built for $kernel with warnings (W=1 must be clean)"
fi
[ -e "$dst/kmod/retire.ko" ] || die "no retire.ko after the build for $kernel"
echo "$dst/kmod"
