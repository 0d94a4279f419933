#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: install what is missing, build everything, boot a kernel in
# QEMU with retire.ko loaded and QEMU's edu PCI device present, and run the
# main job there: "retirectl demo", which drives the real module through
# libretire (about 15 s in the guest), the retirement trace on the sim
# engine and once more on the edu device, by DMA.
# RETIRE_DEMO_ARGS=-j prints the same as one JSON object.
#
# RETIRE_KERNEL=debug|6.1|6.12 picks the kernel (default 6.12: the fastest
# to boot).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RETIRE_TOP"

kernel=${RETIRE_KERNEL:-6.12}
scripts/deps.sh
make -s -C userspace >/dev/null
moddir=$(scripts/build-module.sh "$kernel")
# shellcheck disable=SC2086 # RETIRE_DEMO_ARGS is a list of arguments
exec scripts/vm-run.sh -k "$kernel" -e -m "$moddir" -t 600 \
	-o "$RETIRE_BUILD/run-$kernel" -- \
	userspace/retirectl/retirectl demo ${RETIRE_DEMO_ARGS:-}
