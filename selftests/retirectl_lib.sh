# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Sourced by the kselftests that drive retirectl and check its output in
# Python (demo_test.sh, retirectl_test.sh): the paths and KTAP helpers
# (ksft_lib.sh), a temporary directory removed at exit, the TAP header,
# and the skip (exit 4) when retirectl has not been built or python3 is
# missing. The Python side reports through ksft_checks.py.

set -u

. "$(dirname "$0")/ksft_lib.sh"

ctl=$top/userspace/retirectl/retirectl
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_print_header
if [ ! -x "$ctl" ] || [ ! -x "$py" ]; then
	ktap_skip_all "retirectl or python3 missing (make -C userspace)"
	exit "$KSFT_SKIP"
fi
