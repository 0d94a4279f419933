#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A copy of the tree built the way its README says a user builds it,
# "make", with KDIR the headers of one stock kernel: what the install
# tests then run the real make install and make uninstall in (on the
# host into a DESTDIR, scripts/install-test.sh; in a guest booted on that
# kernel, scripts/install-guest.sh). The copy is scripts/build-module.sh's
# for that kernel, build/<kernel>/src/, whose retire.ko the suites load:
# the module is built once, and make here builds the rest.
#
#   install-stage.sh 6.1|6.12
#
# prints the copy's directory.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: install-stage.sh 6.1|6.12}
case $kernel in
6.1 | 6.12) kdir=/usr/src/linux-headers-$(stock_kver "$kernel") ;;
*) die "unknown kernel '$kernel' (6.1 or 6.12)" ;;
esac

moddir=$("$RETIRE_TOP/scripts/build-module.sh" "$kernel") ||
	die "retire.ko failed to build for $kernel"
dst=${moddir%/kmod}
log=$RETIRE_BUILD/$kernel/install-stage.log
if ! make -C "$dst" KDIR="$kdir" >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "make KDIR=$kdir failed in $dst (see $log)"
fi
echo "$dst"
