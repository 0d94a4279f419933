# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Sourced by the shell kselftests: where they are, and kselftest's own
# KTAP helpers (ktap_print_header, ktap_test_pass, ktap_finished, ...)
# from KSFT_DIR/kselftest/ktap_helpers.sh. make run_tests exports
# KSFT_DIR; a test run by hand asks scripts/ksft-dir.sh.

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
if [ -z "${KSFT_DIR:-}" ]; then
	KSFT_DIR=$("$top/scripts/ksft-dir.sh") || exit 1
fi
export KSFT_DIR
# shellcheck source=/dev/null # the kernel's, found at run time
. "$KSFT_DIR/kselftest/ktap_helpers.sh"
