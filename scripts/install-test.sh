#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The real make install, into a scratch DESTDIR, from a copy of the tree
# built for the stock 6.12 kernel (scripts/install-stage.sh), checked as
# a user of the installed files would meet them: retire.ko where depmod
# and modprobe find it, with the aliases that load it on first use; the
# udev rule; the library's layout in the multiarch LIBDIR, its SONAME and
# symbol versions, a man page for every exported function; retirectl
# without a RUNPATH; and a separate program (userspace/tests/
# latency_test.c) built with nothing but pkg-config's flags, against
# the shared library and against libretire.a, and run. Then make
# uninstall, which must leave exactly what was there before the install:
# here a directory and a file of someone else's. Loads nothing.
#
# One line per check ("ok ..." or "FAIL ..."); exits 1 if any failed.
# KEEP=1 keeps the DESTDIR and says where it is.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cd "$RETIRE_TOP" || exit 1

prefix=/usr/local
tmp=$(mktemp -d /tmp/retire-install.XXXXXX) || die "mktemp failed"
if [ -n "${KEEP:-}" ]; then
	echo "DESTDIR kept in $tmp/dest"
else
	trap 'rm -rf "$tmp"' EXIT
fi
dest=$tmp/dest
root=$dest$prefix
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || cc -print-multiarch)
lib=$root/lib${multiarch:+/$multiarch}
map=userspace/lib/libretire.map
failed=0

ok() { echo "ok   $*"; }
fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}
# check DESCRIPTION COMMAND...: ok if the command succeeds
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

# the exported functions, from the version script's global: list
exported() {
	sed -n '/global:/,/local:/{s/^[[:space:]]*\([a-z_][a-z0-9_]*\);.*/\1/p}' "$map"
}

kver=$(stock_kver 6.12)
kdir=/usr/src/linux-headers-$kver
stage=$(scripts/install-stage.sh 6.12) || die "building the tree for $kver failed"
moddir=$dest/lib/modules/$kver

# someone else's, there before: uninstall must leave them, empty or not
mkdir -p "$root/bin" "$root/share/man"
echo "not retire's" >"$root/bin/other-tool"
theirs=$(cd "$dest" && find . | sort)

# twice: a second install over the first must not confuse uninstall
log=$tmp/make.log
inst=(make -C "$stage" install DESTDIR="$dest" PREFIX="$prefix" KDIR="$kdir")
if ! "${inst[@]}" >"$log" 2>&1 || ! "${inst[@]}" >>"$log" 2>&1; then
	tail -n 40 "$log"
	fail "make install DESTDIR=... PREFIX=$prefix KDIR=<$kver headers>, twice"
	echo "1 failed: nothing installed to check"
	exit 1
fi
ok "make install DESTDIR=... PREFIX=$prefix KDIR=<$kver headers>, twice"
check "it made no group here, and said so" \
	grep -q "DESTDIR install: no group made here" "$log"

# --- the module ----------------------------------------------------------
ko=$(find "$moddir/updates" -name 'retire.ko*' 2>/dev/null)
check "retire.ko is in lib/modules/$kver/updates/ (${ko#"$dest"})" \
	test -n "$ko" -a "$(echo "$ko" | wc -l)" = 1
check "  built for $kver" \
	test "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$kver"
check "depmod -b indexed it: modprobe -d DESTDIR finds retire" \
	test "$(modprobe -d "$dest" -S "$kver" --show-depends retire 2>/dev/null)" \
	= "insmod $ko "
for a in char-major-10-243 devname:retire net-pf-16-proto-16-family-retire; do
	check "  the alias $a resolves to retire" \
		test "$(modprobe -d "$dest" -S "$kver" -R "$a" 2>/dev/null)" = retire
done
check "  modules.devname names the node kmod static-nodes makes: retire c10:243" \
	grep -qx 'retire retire c10:243' "$moddir/modules.devname"

# the engines: each beside the core, depending on it alone, loaded by name
# (request_module's retire-engine-<name>) or, for edu, by PCI modalias
for m in retire_null:retire-engine-null retire_sim:retire-engine-sim \
	retire_edu:pci:v00001234d000011E8sv00001AF4sd00001100bc00scFFi00; do
	name=${m%%:*} alias=${m#*:}
	eko=$(find "$moddir/updates" -name "$name.ko*" 2>/dev/null)
	check "$name.ko is installed beside it (${eko#"$dest"})" \
		test -n "$eko" -a "$(echo "$eko" | wc -l)" = 1
	check "  it depends on retire alone (modinfo -F depends)" \
		test "$(modinfo -F depends "$eko" 2>/dev/null)" = retire
	check "  modprobe $name loads retire first" \
		test "$(modprobe -d "$dest" -S "$kver" --show-depends "$name" 2>/dev/null)" \
		= "insmod $ko "$'\n'"insmod $eko "
	check "  the alias $alias resolves to $name" \
		test "$(modprobe -d "$dest" -S "$kver" -R "$alias" 2>/dev/null)" = "$name"
done

# --- the udev rule -------------------------------------------------------
rule=$root/lib/udev/rules.d/60-retire.rules
check "lib/udev/rules.d/60-retire.rules, as in udev/" cmp -s udev/60-retire.rules "$rule"
check "  it gives /dev/retire to the group retire, 0660, static node too" \
	grep -q '^SUBSYSTEM=="misc", KERNEL=="retire", GROUP="retire", MODE="0660", OPTIONS+="static_node=retire"$' "$rule"

# --- the layout --------------------------------------------------------
check "LIBDIR is lib/$multiarch" test -d "$lib"
check "lib/libretire.so.1.7.0 is a file" test -f "$lib/libretire.so.1.7.0" -a ! -L "$lib/libretire.so.1.7.0"
check "lib/libretire.so.1 -> libretire.so.1.7.0" \
	test "$(readlink "$lib/libretire.so.1")" = libretire.so.1.7.0
check "lib/libretire.so -> libretire.so.1" \
	test "$(readlink "$lib/libretire.so")" = libretire.so.1
check "lib/libretire.a is a file" test -f "$lib/libretire.a" -a ! -L "$lib/libretire.a"
check "lib/pkgconfig/libretire.pc" test -f "$lib/pkgconfig/libretire.pc"
check "include/retire/libretire.h" test -f "$root/include/retire/libretire.h"
check "include/retire/linux/retire.h" test -f "$root/include/retire/linux/retire.h"
check "include/retire/linux/retire_netlink.h" \
	test -f "$root/include/retire/linux/retire_netlink.h"
check "include/retire/linux/retire_names.h" \
	test -f "$root/include/retire/linux/retire_names.h"
check "no header outside include/retire/" \
	test -z "$(find "$root/include" -type f ! -path "$root/include/retire/*")"
check "bin/retirectl is executable" test -x "$root/bin/retirectl"
check "share/man/man7/libretire.7" test -f "$root/share/man/man7/libretire.7"
check "share/man/man8/retirectl.8" test -f "$root/share/man/man8/retirectl.8"
check "libretire.pc names PREFIX, not DESTDIR" \
	grep -qx "prefix=$prefix" "$lib/pkgconfig/libretire.pc"
check "libretire.pc names the multiarch LIBDIR" \
	grep -qx "libdir=${lib#"$dest"}" "$lib/pkgconfig/libretire.pc"
check "share/retire/manifest lists what install made" \
	grep -qx "${lib#"$dest"}/libretire.so.1.7.0" "$root/share/retire/manifest"

nsyms=$(exported | wc -l)
[ "$nsyms" -gt 0 ] || fail "$map lists no function"
missing=
for s in $(exported); do
	[ -f "$root/share/man/man3/$s.3" ] || missing="$missing $s"
done
if [ -z "$missing" ]; then
	ok "share/man/man3 has a page for each of the $nsyms exported functions"
else
	fail "share/man/man3 has no page for:$missing"
fi
# a page that names no exported function (or inline helper of the
# header) is left over from a rename
extra=
for m in "$root"/share/man/man3/*.3; do
	[ -e "$m" ] || continue
	s=$(basename "$m" .3)
	exported | grep -qx "$s" ||
		grep -q "^static inline [a-z_ ]*\b$s(" userspace/include/libretire.h ||
		extra="$extra $s"
done
if [ -z "$extra" ]; then
	ok "every page in share/man/man3 is an exported function's or inline helper's"
else
	fail "pages in share/man/man3 for no exported function:$extra"
fi

# --- the shared library's ABI ------------------------------------------
so=$lib/libretire.so.1.7.0
soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
check "SONAME is libretire.so.1 (objdump -p: ${soname:-none})" \
	test "$soname" = libretire.so.1

# JSON is retirectl's business: the library does not link json-c
check "libretire.so.1 does not need json-c" \
	sh -c "! readelf -d '$so' | grep -q 'libjson-c'"

# every defined dynamic symbol: NAME@@VERSION (the default version)
dynsyms=$(readelf --dyn-syms -W "$so" |
	awk '$7 != "UND" && $4 == "FUNC" { print $8 }' | sort)
# each function at the version whose node in the map lists it
bad=
for s in $(exported); do
	v=$(awk -v s="$s;" '/^LIBRETIRE_[0-9.]+ \{/ { v = $1 } $1 == s { print v }' "$map")
	grep -qx "$s@@$v" <<<"$dynsyms" || bad="$bad $s"
done
if [ -z "$bad" ]; then
	ok "each of the $nsyms exported functions is NAME@@ the version its map node names"
else
	fail "not exported at its map node's version:$bad"
fi
extra=$(cut -d@ -f1 <<<"$dynsyms" | grep -vxF -f <(exported) || true)
if [ -z "$extra" ]; then
	ok "the library exports no function the version script does not list"
else
	fail "exported but not in $map: ${extra//$'\n'/ }"
fi
check "the versions defined are LIBRETIRE_1.0 to 1.7" \
	test "$(readelf -V -W "$so" | awk '/Version definition/,/Version needs/' |
		grep -o 'Name: [A-Za-z0-9_.]*' | grep -v 'Name: libretire.so.1$' |
		sort -u | tr '\n' ' ')" = "Name: LIBRETIRE_1.0 Name: LIBRETIRE_1.1 Name: LIBRETIRE_1.2 Name: LIBRETIRE_1.3 Name: LIBRETIRE_1.4 Name: LIBRETIRE_1.5 Name: LIBRETIRE_1.6 Name: LIBRETIRE_1.7 "

# --- a program built with pkg-config's flags ---------------------------
# the DESTDIR's .pc first, then the system's (for libnl-genl-3.0), but no
# /usr/local: an install there must not stand in for this one
syspc=$(pkg-config --variable pc_path pkg-config | tr ':' '\n' |
	grep -v '^/usr/local' | paste -sd:)
export PKG_CONFIG_SYSROOT_DIR=$dest
export PKG_CONFIG_LIBDIR=$lib/pkgconfig:$syspc
unset PKG_CONFIG_PATH

check "pkg-config finds libretire 1.7.0" \
	test "$(pkg-config --modversion libretire 2>&1)" = 1.7.0
cflags=$(pkg-config --cflags libretire) || fail "pkg-config --cflags libretire"
libs=$(pkg-config --libs libretire) || fail "pkg-config --libs libretire"
slibs=$(pkg-config --static --libs libretire) ||
	fail "pkg-config --static --libs libretire"
echo "     cflags: $cflags"
echo "     libs: $libs"
echo "     static libs: $slibs"
check "  none of them names json-c" \
	test -z "$(grep -o json <<<"$cflags $libs $slibs")"

prog=userspace/tests/latency_test.c
CC=${CC:-cc}
WARN=(-Wall -Wextra -Werror)
# the flags as a shell would split them: cc $(pkg-config ...)
read -ra cflags_a <<<"$cflags"
read -ra libs_a <<<"$libs"

# the headers it compiled are the DESTDIR's, not another copy
from_destdir() {
	local deps
	deps=$($CC "${cflags_a[@]}" -M "$prog") &&
		grep -q "$root/include/retire/libretire.h" <<<"$deps" &&
		grep -q "$root/include/retire/linux/retire.h" <<<"$deps" &&
		grep -q "$root/include/retire/linux/retire_netlink.h" <<<"$deps"
}
check "the program includes libretire.h and linux/retire*.h from the DESTDIR" \
	from_destdir

# shared: cc $(pkg-config --cflags) prog.c $(pkg-config --libs)
if $CC "${WARN[@]}" "${cflags_a[@]}" -o "$tmp/check-shared" "$prog" "${libs_a[@]}" \
	-pthread; then
	ok "the program builds against libretire.so"
	needed=$(readelf -d "$tmp/check-shared" | grep -o 'Shared library: \[[^]]*\]')
	check "it needs libretire.so.1" grep -q 'libretire.so.1\]' <<<"$needed"
	resolved=$(LD_LIBRARY_PATH=$lib ldd "$tmp/check-shared" | awk '$1 == "libretire.so.1" { print $3 }')
	check "libretire.so.1 resolves into the DESTDIR (${resolved:-not found})" \
		test "$resolved" = "$lib/libretire.so.1"
	check "it runs and passes (shared)" \
		env LD_LIBRARY_PATH="$lib" "$tmp/check-shared"
else
	fail "the program builds against libretire.so"
fi

# static: libretire.a, with what pkg-config --static adds for it (libnl)
slibs_a=()
for f in $slibs; do
	if [ "$f" = -lretire ]; then
		slibs_a+=("-Wl,-Bstatic" -lretire "-Wl,-Bdynamic")
	else
		slibs_a+=("$f")
	fi
done
if $CC "${WARN[@]}" "${cflags_a[@]}" -o "$tmp/check-static" "$prog" "${slibs_a[@]}" \
	-pthread; then
	ok "the program builds against libretire.a"
	check "it does not need libretire.so.1" \
		sh -c "! readelf -d '$tmp/check-static' | grep -q libretire"
	check "it runs and passes (static libretire)" \
		env -u LD_LIBRARY_PATH "$tmp/check-static"
else
	fail "the program builds against libretire.a"
fi

# the installed retirectl: no RUNPATH (the in-tree one's $ORIGIN/../lib
# would find a library beside a copy of it); it uses the libretire that
# ld.so finds, here the DESTDIR's through LD_LIBRARY_PATH
ctl=$root/bin/retirectl
dyn=$(readelf -d "$ctl" 2>/dev/null)
check "the installed retirectl has no RUNPATH or RPATH" \
	test -n "$dyn" -a -z "$(grep -E '\((RUNPATH|RPATH)\)' <<<"$dyn")"
check "  it needs json-c (its -j output)" \
	grep -qF 'Shared library: [libjson-c.so' <<<"$dyn"
check "  (the in-tree one keeps \$ORIGIN/../lib)" \
	grep -qF "runpath: [\$ORIGIN/../lib]" <<<"$(readelf -d "$stage/userspace/retirectl/retirectl")"
resolved=$(LD_LIBRARY_PATH=$lib ldd "$ctl" | awk '$1 == "libretire.so.1" { print $3 }')
check "  libretire.so.1 resolves into the DESTDIR (${resolved:-not found})" \
	test "$resolved" = "$lib/libretire.so.1"
out=$(LD_LIBRARY_PATH=$lib "$ctl" -h 2>&1)
rc=$?
check "the installed retirectl -h runs" test $rc = 0 -a -n "$out"
out=$(LD_LIBRARY_PATH=$lib "$ctl" -d /nonexistent/retire info 2>&1 >/dev/null)
rc=$?
check "retirectl info on a missing device: exit 1, 'retire_open_device: No such file or directory (ENOENT)'" \
	test $rc = 1 -a "$out" = "retirectl: retire_open_device: No such file or directory (ENOENT)"

# --- uninstall -----------------------------------------------------------
if make -C "$stage" uninstall DESTDIR="$dest" PREFIX="$prefix" KDIR="$kdir" \
	>"$log" 2>&1; then
	ok "make uninstall DESTDIR=... PREFIX=$prefix"
else
	tail -n 20 "$log"
	fail "make uninstall DESTDIR=... PREFIX=$prefix"
fi
left=$(cd "$dest" && find . | sort)
if [ "$left" = "$theirs" ]; then
	ok "it left what was there before and nothing else: no file, no directory install made"
else
	diff <(echo "$theirs") <(echo "$left") | sed 's/^/     /'
	fail "it left what was there before and nothing else"
fi

# --- make clean ------------------------------------------------------------
# in a copy of userspace/: it removes what make made, and no file of the
# tree (its lib/libretire.pc* once took the .pc.in template too)
copy=$tmp/clean
mkdir "$copy"
cp -a userspace uapi "$copy"/
make -s -C "$copy/userspace" clean >"$log" 2>&1 || fail "make -C userspace clean"
gone=$(git ls-files userspace | while read -r f; do
	[ -e "$copy/$f" ] || echo "$f"
done)
check "make -C userspace clean removes no file of the tree${gone:+ (removed: ${gone//$'\n'/ })}" \
	test -z "$gone"

echo
if [ "$failed" = 0 ]; then
	echo "install-test: all passed"
else
	echo "install-test: $failed failed"
fi
[ "$failed" = 0 ]
