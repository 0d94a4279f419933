#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that DKMS builds retire.ko from what make dkms gives it (make
# dkms-src: dkms.conf, Kbuild, kmod/, uapi/) for the stock Debian 6.1
# headers (bookworm's default kernel; that the sources build for 6.12 too
# is what make check's own build for it proves, and a second DKMS build
# would prove nothing more of dkms.conf; RETIRE_DKMS_KERNELS="6.1 6.12"
# asks for both): dkms add and dkms build, the real commands, into
# scratch trees (--sourcetree, --dkmstree, --installtree), with a scratch
# signing key (dkms would otherwise make /var/lib/dkms/mok.key). Nothing is
# installed and nothing loaded; the host's DKMS state, /usr/src and
# /lib/modules are compared before and after, and must not change.
#
# One line per check ("ok ..." or "FAIL ..."); exits 1 if any failed.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cd "$RETIRE_TOP" || exit 1

failed=0
ok() { echo "ok   $*"; }
fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

command -v dkms >/dev/null || die "no dkms (run scripts/deps.sh)"
tmp=$(mktemp -d /tmp/retire-dkms.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
uver=$(sed -n 's/^VERSION[[:space:]]*:= *//p' userspace/Makefile)
check "dkms.conf's PACKAGE_VERSION ($ver) is userspace/Makefile's VERSION ($uver)" \
	test -n "$ver" -a "$ver" = "$uver"

# what DKMS (or anything else) could leave on the host
host_state() {
	ls -laR /var/lib/dkms /etc/dkms 2>&1
	ls -la /usr/src 2>&1
	find /lib/modules -maxdepth 3 \( -name updates -o -name extra -o -name dkms \
		-o -name 'retire.ko*' \) 2>&1
}
before=$(host_state)

trees=(--sourcetree "$tmp/src" --dkmstree "$tmp/dkms" --installtree "$tmp/modules")
mkdir -p "$tmp/dkms" "$tmp/modules"
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
log=$tmp/dkms.log
if make -s dkms-src DKMS_SRC="$tmp/src/retire-$ver" >"$log" 2>&1 &&
	dkms add "retire/$ver" "${trees[@]}" >>"$log" 2>&1; then
	ok "make dkms-src, then dkms add retire/$ver (scratch trees)"
else
	sed 's/^/     /' "$log"
	fail "make dkms-src, then dkms add retire/$ver (scratch trees)"
fi
check "the DKMS source holds no more than dkms.conf, Kbuild, kmod/, include/ and uapi/" \
	test "$(cd "$tmp/src/retire-$ver" && find . -mindepth 1 -maxdepth 1 | sort | tr '\n' ' ')" \
	= "./Kbuild ./dkms.conf ./include ./kmod ./uapi "

for series in ${RETIRE_DKMS_KERNELS:-6.1}; do
	kver=$(stock_kver "$series") || {
		fail "dkms build for $series: no stock kernel with headers"
		continue
	}
	if dkms build "retire/$ver" -k "$kver" "${trees[@]}" >"$log" 2>&1; then
		ok "dkms build retire/$ver -k $kver"
	else
		sed 's/^/     /' "$log"
		tail -n 20 "$tmp/dkms/retire/$ver/build/make.log" 2>/dev/null
		fail "dkms build retire/$ver -k $kver"
		continue
	fi
	ko=$(find "$tmp/dkms/retire/$ver/$kver" -path '*/module/retire.ko*' | head -n1)
	check "  it built retire.ko for $kver (${ko#"$tmp/"})" \
		test -n "$ko" -a "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$kver"
	check "  with the autoload aliases" test "$(modinfo -F alias "$ko" 2>/dev/null |
		grep -cxE 'char-major-10-243|devname:retire|net-pf-16-proto-16-family-retire')" = 3
	check "  signed with the scratch key" \
		test "$(modinfo -F signer "$ko" 2>/dev/null)" = "DKMS module signing key"
	for m in retire_null retire_sim retire_edu; do
		eko=$(find "$tmp/dkms/retire/$ver/$kver" -path "*/module/$m.ko*" | head -n1)
		check "  and the engine $m.ko beside it, depending on retire" \
			test -n "$eko" -a "$(modinfo -F depends "$eko" 2>/dev/null)" = retire
	done
	check "  dkms status says built" \
		grep -q "^retire/$ver, $kver, [^:]*: built" \
		<<<"$(dkms status "retire/$ver" -k "$kver" "${trees[@]}" 2>/dev/null)"
done

after=$(host_state)
if [ "$before" = "$after" ]; then
	ok "the host's DKMS state, /usr/src and /lib/modules are as they were"
else
	diff <(echo "$before") <(echo "$after") | sed 's/^/     /'
	fail "the host's DKMS state, /usr/src and /lib/modules are as they were"
fi

echo
if [ "$failed" = 0 ]; then
	echo "dkms-test: all passed"
else
	echo "dkms-test: $failed failed"
fi
[ "$failed" = 0 ]
