#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package retire needs to build, test and run.
# Idempotent: packages already present are not fetched again, and apt is
# not touched at all when nothing is missing. Runs through sudo when the
# caller is not root.
set -euo pipefail

PKGS=(
	# kernels the tests boot, their headers, and the debug kernel source
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	linux-source-6.12
	# kernel build tools; dkms (make dkms, and check proves dkms build)
	build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio dkms
	xz-utils zstd rsync patch sparse python3 python3-yaml python3-jsonschema python3-docutils
	# make lint (beside sparse above and the kernel source's own scripts)
	shellcheck
	# make model: the protocol model checker (gcc compiles its verifier)
	spin
	# the VM runner
	qemu-system-x86 busybox-static
	# userspace
	pkg-config libnl-3-dev libnl-genl-3-dev libjson-c-dev liburing-dev man-db
)

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[ "${st:0:2}" = "ii" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

echo "deps: installing ${missing[*]}" >&2
as_root apt-get update -q >&2
as_root env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
