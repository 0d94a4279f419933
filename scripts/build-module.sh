#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build retire.ko (and retire_kunit.ko where the kernel has KUnit) for one
# target kernel, with W=1, in build/<kernel>/ so builds for different
# kernels never share objects. Any compiler warning fails the build.
#
#   build-module.sh debug|6.1|6.12     prints the directory holding the .ko
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: build-module.sh debug|6.1|6.12}
case $kernel in
debug) kdir=$("$RETIRE_TOP/scripts/debug-kernel.sh") ;;
6.1 | 6.12) kdir=/usr/src/linux-headers-$(stock_kver "$kernel") ;;
*) die "unknown kernel '$kernel'" ;;
esac

dst=$RETIRE_BUILD/$kernel/src
mkdir -p "$dst"
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
	--exclude='*.mod*' --exclude=modules.order --exclude=Module.symvers \
	"$RETIRE_TOP/Kbuild" "$RETIRE_TOP/kmod" "$RETIRE_TOP/uapi" "$dst/" >/dev/null
# rsync keeps the sources' mtimes, so make rebuilds exactly what changed

log=$RETIRE_BUILD/$kernel/build.log
if ! make -C "$kdir" M="$dst" W=1 modules >"$log" 2>&1; then
	cat "$log" >&2
	die "retire.ko failed to build for $kernel"
fi
if grep -E 'warning:|error:' "$log" >&2; then
	die "retire.ko built for $kernel with warnings (W=1 must be clean)"
fi
[ -e "$dst/kmod/retire.ko" ] || die "no retire.ko after the build for $kernel"
echo "$dst/kmod"
