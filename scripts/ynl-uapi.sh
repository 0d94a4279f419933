#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# uapi/linux/retire_netlink.h is generated from the family's spec,
# Documentation/netlink/specs/retire.yaml, by the kernel's own generator:
# tools/net/ynl/ynl-gen-c.py --mode uapi --header of linux-source-6.12, as
# the kernel's tools/net/ynl/ynl-regen.sh runs it for its own families.
#
#   ynl-uapi.sh           exit 1 and show a diff if the header is not what
#                         the spec generates
#   ynl-uapi.sh --write   regenerate the header
#
# The generator expects the spec inside a kernel tree: it validates it
# against ../genetlink.yaml and names it in the header by its path below
# the directory that holds MAINTAINERS. So it reads a copy in a scratch
# tree of that shape, with the kernel's schema beside it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RETIRE_TOP"

spec=Documentation/netlink/specs/retire.yaml
hdr=uapi/linux/retire_netlink.h
case ${1:-} in
--write) write=1 ;;
"") write= ;;
*) die "usage: ynl-uapi.sh [--write]" ;;
esac

src=$(unpack_source)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/Documentation/netlink/specs"
: >"$tmp/MAINTAINERS"
ln -s "$src/Documentation/netlink/genetlink.yaml" "$tmp/Documentation/netlink/"
cp "$spec" "$tmp/$spec"
/usr/bin/python3 "$src/tools/net/ynl/ynl-gen-c.py" --mode uapi --header \
	--spec "$tmp/$spec" -o "$tmp/gen.h" || die "ynl-gen-c.py failed on $spec"

if [ -n "$write" ]; then
	cp "$tmp/gen.h" "$hdr"
elif ! diff -u --label "$hdr" --label "ynl-gen-c.py $spec" "$hdr" "$tmp/gen.h"; then
	die "$hdr is not ynl-gen-c.py's output for $spec: run scripts/ynl-uapi.sh --write"
fi
