#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The install test on a real kernel: build a copy of the tree for a stock
# kernel (scripts/install-stage.sh), boot that kernel without loading
# anything (scripts/vm-run.sh), and run scripts/install-guest.sh in it:
# make install, the boot's static node and udev, autoload by open and by
# genetlink, a member of the group "retire" without root, make uninstall.
#
#   install-vm.sh [-k 6.1|6.12] [-o OUTDIR]
#
# Prints the guest's check lines ("ok ..." / "FAIL ...") and the lines
# showing what happened ("# ..."), then any problem vm-run found (a kernel
# report, a timeout). Exits 1 if a check failed or vm-run found a problem.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cd "$RETIRE_TOP" || exit 1

kernel=6.12
out=
while getopts "k:o:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	o) out=$OPTARG ;;
	*) die "usage: install-vm.sh [-k 6.1|6.12] [-o OUTDIR]" ;;
	esac
done
out=${out:-$RETIRE_BUILD/results/install-$kernel}
mkdir -p "$out"

stage=$(scripts/install-stage.sh "$kernel") || die "building the tree for $kernel failed"

# The guest's /lib/modules/<release>: a pruned copy of the stock one. depmod
# reads (and decompresses) every module it indexes: on the whole stock tree
# that takes seconds natively but well over ten minutes under QEMU's
# software emulation. The copy keeps a few modules (overlay, fuse, cuse,
# loop, tun, uinput: nodes kmod static-nodes makes, like retire's), the
# build and source links, the builtin lists, and its own index made by
# depmod here, so that it is a consistent module tree in which make
# install's depmod takes seconds.
kver=$(stock_kver "$kernel")
modroot=$RETIRE_BUILD/install-$kernel-modroot
src=/lib/modules/$kver
dst=$modroot/lib/modules/$kver
rm -rf "$modroot"
mkdir -p "$dst"
cp -P "$src/build" "$src/source" "$src/modules.builtin" "$src/modules.builtin.modinfo" "$dst/"
: >"$dst/modules.order"
while read -r verb path _; do
	[ "$verb" = insmod ] || continue
	rel=${path#"$src/"}
	mkdir -p "$dst/$(dirname "$rel")"
	cp "$path" "$dst/$rel"
	rel=${rel%.xz} rel=${rel%.gz} rel=${rel%.zst}
	echo "$rel" >>"$dst/modules.order"
done < <(for m in overlay fuse cuse loop tun uinput; do
	modprobe -S "$kver" --show-depends "$m"
done | sort -u)
depmod -b "$modroot" "$kver" || die "depmod -b $modroot $kver failed"

scripts/vm-run.sh -k "$kernel" -e -t 600 -o "$out" -- \
	scripts/install-guest.sh "$stage" "$modroot" >"$out/vm-run.log" 2>&1
rc=$?
grep -E '^(ok|FAIL|#|install-guest:)' "$out/output" 2>/dev/null
sed 's/^/problem: /' "$out/problems" 2>/dev/null
exit $((rc != 0))
