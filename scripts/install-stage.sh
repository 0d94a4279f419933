#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A copy of the tree built the way its README says a user builds it,
# "make", with KDIR the headers of one stock kernel: what the install
# tests then run the real make install and make uninstall in (on the
# host into a DESTDIR, scripts/install-test.sh; in a guest booted on that
# kernel, scripts/install-guest.sh). The copy is kept in
# build/install-<kernel>/ (the project's own files, as .gitignore tells
# them from build products), so the next build is incremental.
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

dst=$RETIRE_BUILD/install-$kernel
mkdir -p "$dst"
# what .gitignore names is neither copied nor deleted: the copy's own
# build products stay, and the next make rebuilds only what changed
rsync -a --delete --exclude=/.git --filter=':- .gitignore' \
	"$RETIRE_TOP/" "$dst/" >/dev/null
log=$dst.log
if ! make -C "$dst" KDIR="$kdir" >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "make KDIR=$kdir failed in $dst (see $log)"
fi
echo "$dst"
