#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs as root inside a test VM that scripts/install-vm.sh booted without
# loading retire.ko, in a copy of the tree built for this kernel
# (scripts/install-stage.sh): the real make install, then what a machine
# does at boot, then what its users do, then make uninstall.
#
#   1. The system directories make install writes are made writable:
#      overlays on the read-only host root (/etc, /usr/local,
#      /var/cache/ldconfig, the tree itself) and, on this kernel's
#      /lib/modules, one whose lower layer is MODROOT's pruned copy
#      (install-vm.sh says why).
#   2. make install, as root, with every default (PREFIX=/usr/local, KDIR
#      the running kernel's build link): the module, depmod, the library,
#      ldconfig, the udev rule, the group.
#   3. Boot, as systemd does it: kmod-static-nodes.service (kmod
#      static-nodes: /dev/retire from modules.devname, before any module
#      is loaded), systemd-tmpfiles-setup-dev.service (systemd-tmpfiles
#      makes the node), systemd-udevd.service (the rule's static_node=
#      gives it to the group). The kernel runs /sbin/modprobe in its own
#      root, which here is the initramfs's, not the host root this script
#      runs in: a two-line /sbin/modprobe there execs the host's in this
#      root, as a real machine's kernel finds it in place.
#   4. Opening /dev/retire loads retire.ko and the default engine
#      (retire_sim.ko, by request_module); after rmmod, resolving the
#      genetlink family "retire" loads the core; the edu device's add
#      event loads retire_edu.ko by its PCI modalias.
#   5. A user in the group, without root: retirectl info loads the module
#      and answers, group_test runs a request to retirement and is
#      refused every CAP_SYS_ADMIN knob, the installed retirectl is
#      refused them too (EPERM); a user outside the group cannot open
#      the node (EACCES).
#   6. make uninstall: nothing of retire is left, no file and no
#      directory install made; depmod's index is as it was.
#
# One line per check ("ok ..." or "FAIL ..."), and the lines that show
# what happened ("# ..."); exits 1 if any check failed.
#
#   install-guest.sh STAGE MODROOT
set -uo pipefail
stage=${1:?usage: install-guest.sh STAGE MODROOT}
modroot=${2:?usage: install-guest.sh STAGE MODROOT}
kver=$(uname -r)
mods=/lib/modules/$kver
w=/tmp/install-guest
# the logs go where the host finds them after the run
logs=/tmp/out
[ -d "$logs" ] && [ -w "$logs" ] || logs=$w
user=retire-member
failed=0
# udevadm ignores control, settle and trigger in a chroot; this is one only
# to reach the host's root, so let it act as on the machine it stands for
export SYSTEMD_IGNORE_CHROOT=1

ok() { echo "ok   $*"; }
# rmmod each of MODULES in turn, giving a context's reaper (which holds
# the modules until it has freed the context) up to 5 s to let go
unload() {
	local m
	for m in "$@"; do
		for _ in $(seq 50); do
			rmmod "$m" 2>/dev/null && break
			sleep 0.1
		done
		[ ! -e "/sys/module/$m" ] || return 1
	done
}
fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}
show() { sed 's/^/#   /'; }
# a section's start, with the seconds since the script's
step() { echo "# [$SECONDS s] $*"; }
loaded() { [ -e /sys/module/retire ]; }
unloaded() { ! loaded; }
# the node, as stat sees it: type, major:minor in hex, owner, mode
node() { stat -c '%F %t:%T %U:%G %a' /dev/retire 2>&1; }
as_member() { setpriv --reuid="$user" --regid="$user" --init-groups -- "$@"; }
as_outsider() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
# run CMD as ARGS; ok when it exits RC and its stderr holds WANT
expect_err() {
	local what=$1 rc=$2 want=$3 got
	shift 3
	got=$("$@" 2>&1 >/dev/null)
	local st=$?
	if [ "$st" = "$rc" ] && grep -qF -- "$want" <<<"$got"; then
		ok "$what"
	else
		fail "$what (exit $st: $got)"
	fi
}

nothing_yet() { unloaded && [ ! -e /dev/retire ]; }
check "retire.ko is not loaded, and there is no /dev/retire" nothing_yet

# --- 1. writable system directories --------------------------------------
step "overlays on the system directories"
modprobe overlay || fail "modprobe overlay"
mkdir -p "$w"
# DIR NAME [LOWER]: an overlay on DIR with LOWER (default DIR) below, its
# upper layer in $w/NAME; the lower as it was stays readable in
# $w/NAME/lower
overlay() {
	local lower=${3:-$1}
	mkdir -p "$w/$2/upper" "$w/$2/work" "$w/$2/lower"
	if ! mount --bind "$lower" "$w/$2/lower" ||
		! mount -t overlay overlay \
			-o "lowerdir=$lower,upperdir=$w/$2/upper,workdir=$w/$2/work" "$1"; then
		fail "an overlay on $1"
	fi
}
overlay /etc etc
overlay /usr/local local
overlay /var/cache/ldconfig ldconfig
overlay "$stage" stage
overlay "$mods" modules "$modroot$mods"

# --- 2. make install -----------------------------------------------------
step "make install"
cd "$stage" || exit 1
if make install >"$logs/install.log" 2>&1; then
	ok "make install (PREFIX=/usr/local, KDIR=$mods/build)"
else
	fail "make install"
	tail -n 30 "$logs/install.log" | show
fi
grep '^install:' "$logs/install.log" | show

ko=$(find "$mods/updates" -name 'retire.ko*' 2>/dev/null)
check "retire.ko is in ${ko:-$mods/updates/ (nothing)}" test -n "$ko"
aliases=$(modinfo -F alias retire 2>/dev/null)
check "modinfo retire (from the index) lists the three autoload aliases" \
	test "$(grep -cxE 'char-major-10-243|devname:retire|net-pf-16-proto-16-family-retire' \
		<<<"$aliases")" = 3
check "modules.devname: retire retire c10:243" \
	grep -qx 'retire retire c10:243' "$mods/modules.devname"
check "the udev rule is in /usr/local/lib/udev/rules.d" \
	test -f /usr/local/lib/udev/rules.d/60-retire.rules
check "the group retire exists" getent group retire
no_runpath() { ! readelf -d "$1" | grep -qE 'RUNPATH|RPATH'; }
check "the installed retirectl has no RUNPATH" no_runpath /usr/local/bin/retirectl
lib=$(ldd /usr/local/bin/retirectl | awk '$1 == "libretire.so.1" { print $3 }')
check "ld.so finds its libretire.so.1 through ldconfig's cache (${lib:-not found})" \
	test "$lib" = "/usr/local/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libretire.so.1"
check "make install loaded nothing" unloaded

# --- 3. boot -------------------------------------------------------------
step "boot: static nodes, udevd"
mkdir -p /run/tmpfiles.d
kmod static-nodes --format=tmpfiles --output=/run/tmpfiles.d/static-nodes.conf ||
	fail "kmod static-nodes"
grep retire /run/tmpfiles.d/static-nodes.conf | show
# other nodes of the boot's list may fail in this chroot: judged by ours
systemd-tmpfiles --prefix=/dev --create --boot >/dev/null 2>&1
static_node() { [[ "$(node)" == "character special file a:f3 "* ]]; }
check "systemd-tmpfiles made /dev/retire, char 10:243" static_node
check "  with nothing loaded" unloaded
/lib/systemd/systemd-udevd --daemon 2>/dev/null || fail "starting systemd-udevd"
# the daemon answers once it has read its rules and applied static_node=
udevadm control --ping -t 30 || fail "udevd does not answer"
perms=$(node | cut -d' ' -f5-)
check "udevd gave the static node to the group: root:retire 0660 ($perms)" \
	test "$perms" = "root:retire 660"

mp=$(cat /proc/sys/kernel/modprobe)
if [ "$(stat -c %d:%i /)" = "$(stat -c %d:%i /proc/1/root/newroot 2>/dev/null)" ]; then
	mkdir -p "/proc/1/root$(dirname "$mp")"
	printf '#!/bin/busybox sh\nexec /bin/busybox chroot /newroot %s "$@"\n' "$mp" \
		>"/proc/1/root$mp"
	chmod 0755 "/proc/1/root$mp"
else
	fail "this root is not the initramfs's /newroot: the kernel cannot reach modprobe"
fi

# --- 4. autoload ---------------------------------------------------------
step "autoload"
if sh -c ': </dev/retire'; then ok "root opens /dev/retire"; else fail "root opens /dev/retire"; fi
check "  and that loaded retire.ko" loaded
check "  and the context's default engine, retire_sim.ko (request_module retire-engine-sim)" \
	test -e /sys/module/retire_sim
grep -w retire /proc/misc | show
udevadm settle -t 30
perms=$(node | cut -d' ' -f5-)
check "  the node keeps root:retire 0660 after udev's add event ($perms)" \
	test "$perms" = "root:retire 660"
# the opened context is freed by the reaper: then only retire_sim holds it
for _ in $(seq 50); do
	[ "$(cat /sys/module/retire/refcnt)" = 1 ] && break
	sleep 0.1
done
if rmmod retire 2>/dev/null; then
	fail "rmmod retire is refused while an engine module uses it"
else
	ok "rmmod retire is refused while an engine module uses it"
fi
unload retire_sim retire || fail "rmmod retire_sim retire"
check "rmmod: unloaded" unloaded
check "  and the static node stays" static_node
out=$(genl ctrl get name retire 2>&1)
check "genl ctrl get name retire resolves the family" test $? = 0
grep -E 'Name:|^[[:space:]]ID:' <<<"$out" | show
check "  and that loaded retire.ko" loaded
rmmod retire || fail "rmmod retire"
# the edu device's add event, as at boot: udev loads its driver by modalias
udevadm trigger --action=add --subsystem-match=pci --attr-match=vendor=0x1234 \
	--attr-match=device=0x11e8
udevadm settle -t 30
check "udev's add event for the edu device loads retire_edu.ko by its PCI modalias" \
	test -e /sys/module/retire_edu
check "  and retire.ko with it" loaded
unload retire_edu retire || fail "rmmod retire_edu retire"

# --- 5. a user in the group, and one outside it ----------------------------
step "a member of the group, and nobody"
useradd --system -l -M -d /nonexistent -s /usr/sbin/nologin -G retire "$user" ||
	fail "useradd $user"
id "$user" | show
check "the member has no capability" \
	test "$(as_member grep CapEff /proc/self/status | awk '{ print $2 }')" = 0000000000000000
out=$(as_member /usr/local/bin/retirectl info 2>&1)
check "the member's retirectl info answers (ioctl and netlink), without root" test $? = 0
show <<<"$out" | head -n 4
check "  and its open loaded retire.ko" loaded
check "the member's retirectl stats answers" as_member /usr/local/bin/retirectl stats -j
check "the member's retirectl limits answers" as_member /usr/local/bin/retirectl limits -j
out=$(as_member "$stage/selftests/group_test" 2>&1)
rc=$?
# its first two tests must have run (as a member, the third skips)
ran=$(grep -cE '^ok [12] group\.[a-z_]+$' <<<"$out")
check "group_test as the member: a request submitted, completed, retired; every knob EPERM" \
	test "$rc" = 0 -a "$ran" = 2
grep -E '^(ok|not ok) |^# +group_test|child:' <<<"$out" | show
ctl=/usr/local/bin/retirectl
expect_err "the member's retirectl engine latency_ns=1000: EPERM" 1 EPERM \
	as_member "$ctl" engine latency_ns=1000
expect_err "the member's retirectl engine reset: EPERM" 1 EPERM \
	as_member "$ctl" engine reset
expect_err "the member's retirectl limits watchdog_ns=1: EPERM" 1 EPERM \
	as_member "$ctl" limits watchdog_ns=1
expect_err "the member's retirectl monitor: EPERM" 1 EPERM \
	as_member "$ctl" monitor -c 1 -t 1
expect_err "nobody, outside the group, cannot open /dev/retire: EACCES" 1 EACCES \
	as_outsider "$ctl" limits
# info is the one command that answers without the device: netlink's view
out=$(as_outsider "$ctl" info 2>&1)
rc=$?
check "nobody's retirectl info says why it has no device and answers from netlink" \
	test "$rc" = 0 -a -n "$(grep 'Permission denied' <<<"$out")" \
	-a -n "$(grep '^abi version' <<<"$out")"
show <<<"$out" | head -n 3

# --- 6. make uninstall -----------------------------------------------------
step "make uninstall"
unload retire_sim retire || fail "rmmod retire_sim retire"
check "retire.ko unloads" unloaded
udevadm control --exit
if make uninstall >"$logs/uninstall.log" 2>&1; then
	ok "make uninstall"
else
	fail "make uninstall"
	tail -n 30 "$logs/uninstall.log" | show
fi
grep -E '^(uninstall:|depmod)' "$logs/uninstall.log" | show
gone() {
	local m
	for m in retire retire_null retire_sim retire_edu; do
		! modinfo "$m" >/dev/null 2>&1 || return 1
	done
}
check "modprobe no longer finds retire nor its engines" gone
for f in modules.dep modules.alias modules.devname modules.symbols; do
	check "$mods/$f is as it was before the install" \
		cmp -s "$w/modules/lower/$f" "$mods/$f"
done
# what install wrote stays in an overlay's upper layer unless uninstall
# removed it: files (or whiteouts, char 0:0) and directories that were not
# there before would show
residue() {
	local name=$1 keep=${2:-}
	(cd "$w/$name/upper" && find . -mindepth 1) | while read -r p; do
		if [ -d "$w/$name/upper/$p" ] && [ ! -L "$w/$name/upper/$p" ]; then
			[ -d "$w/$name/lower/$p" ] || echo "$p"
		elif [ -z "$keep" ] || ! grep -qxE "$keep" <<<"${p#./}"; then
			echo "$p"
		fi
	done
}
left=$(residue local)
check "nothing of the install is left in /usr/local${left:+: $left}" test -z "$left"
left=$(residue modules 'modules\..*')
check "nothing but depmod's rewritten index is left in $mods${left:+: $left}" test -z "$left"
check "the group retire stays (uninstall says so)" \
	grep -q 'the group retire stays' "$logs/uninstall.log"

step "done"
echo
if [ "$failed" = 0 ]; then
	echo "install-guest: all passed"
else
	echo "install-guest: $failed failed"
fi
[ "$failed" = 0 ]
