#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the directory holding kselftest_harness.h: tools/testing/selftests
# of the unpacked linux-source-6.12 (unpacked on first use, outside the
# clone). The harness is used from there, never copied into the repo.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
echo "$(unpack_source)/tools/testing/selftests"
