# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Sourced by the kselftests that drive retirectl and check its output in
# Python (demo_test.sh, retirectl_test.sh): the paths, a temporary
# directory removed at exit, the TAP header, and the skip (exit 4) when
# retirectl has not been built or python3 is missing.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
ctl=$top/userspace/retirectl/retirectl
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
if [ ! -x "$ctl" ] || [ ! -x "$py" ]; then
	echo "1..0 # SKIP retirectl or python3 missing (make -C userspace)"
	exit 4
fi
