#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the debug kernel: linux-source-6.12 + tinyconfig +
# scripts/debug.config. The result is cached outside the clone under
# $RETIRE_CACHE/debug-<key>, where <key> hashes the fragment, this script
# and the source package version, so a changed fragment builds a new kernel
# and an unchanged one is reused by every clone on the machine.
#
# Prints the build directory (the O= tree: bzImage, .config, Module.symvers)
# on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frag=$RETIRE_TOP/scripts/debug.config
key=$( (cat "$frag" "$0"; source_version) | sha256sum | cut -c1-16)
out=$RETIRE_CACHE/debug-$key

mkdir -p "$RETIRE_CACHE"
exec 9>"$RETIRE_CACHE/.debug-kernel.lock"
flock 9

if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi

src=$(unpack_source)
# no stamp: a build that never finished; start again from scratch
rm -rf "$out"
mkdir -p "$out"
echo "building the debug kernel in $out (about 6 minutes on 2 cores)" >&2

make -s -C "$src" O="$out" ARCH=x86_64 tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null
make -s -C "$src" O="$out" ARCH=x86_64 olddefconfig >&2

# every option the fragment asks for must have survived Kconfig
bad=0
while read -r line; do
	case "$line" in
	CONFIG_*=*)
		if ! grep -qx -- "$line" "$out/.config"; then
			echo "debug kernel: $line was requested but the config has:" \
				"$(grep -E "(^|# )${line%%=*}[= ]" "$out/.config" || echo 'nothing')" >&2
			bad=1
		fi
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		if grep -q "^$opt=" "$out/.config"; then
			echo "debug kernel: $opt must be off but is on" >&2
			bad=1
		fi
		;;
	esac
done <"$frag"
[ $bad = 0 ] || die "the debug kernel config lost requested options"

nice make -s -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" bzImage modules >&2
touch "$out/.done"
echo "$out"
