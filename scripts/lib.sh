# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by the scripts in this directory: where things are and which
# kernels the project targets. Source it; it defines no side effects.

RETIRE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RETIRE_CACHE=${RETIRE_CACHE:-/var/cache/retire}
RETIRE_BUILD=${RETIRE_BUILD:-$RETIRE_TOP/build}

# what the guest's kernel must never log: a line of its console or dmesg
# that matches fails the run (vm-run.sh) or is a plant's report (plant.sh)
RETIRE_REPORTS='BUG:|WARNING:|hard LOCKUP|detected stalls|\] ------------\[ cut here \]|Kernel panic|Oops|general protection fault|KASAN:|UBSAN:|ODEBUG:|DMA-API: .*(driver|device|disabling)|kmemleak: [0-9]+ new suspected|list_(add|del) corruption|refcount_t:|INFO: task .* blocked|self-detected stall|rcu_preempt detected stalls|Call Trace:'

# kernel_reports FILE...: the report lines of kernel logs ("-": stdin),
# each once, without its timestamp, at most 20
kernel_reports() {
	cat "$@" 2>/dev/null | grep -E "$RETIRE_REPORTS" | tr -d '\r' |
		sed 's/^\[ *[0-9.]*\] //' | sort -u | head -n 20
}

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# In a guest: load the core from DIR with PARAMS, then every engine module
# built beside it and the sample engine (the core names none of them, so
# nothing loads them for it: the default engine would be asked of
# modprobe, which the guests' initramfs cannot answer).
#   retire_modules_load DIR [PARAM=VALUE...]
retire_modules_load() {
	local dir=$1 m
	shift
	insmod "$dir/retire.ko" "$@" || return 1
	# the sample engine is built in samples/, beside kmod/ (a planted
	# build keeps it with the rest)
	for m in "$dir"/retire_{sim,null,edu}.ko "$dir/retire_sample.ko" \
		"$dir/../samples/retire_sample.ko"; do
		[ -e "$m" ] || continue
		[ ! -e "/sys/module/$(basename "$m" .ko)" ] || continue
		if ! insmod "$m"; then
			echo "insmod $m failed" >&2
			retire_modules_unload
			return 1
		fi
	done
}

# In a guest: rmmod MODULE, giving what holds it for a moment only (a
# closed context until its reaper frees it, a fence until a grace period
# after its last reference) up to 2 s to let go: milliseconds are enough,
# and a module a planted fault leaked waits the whole time
retire_rmmod() {
	local _
	for _ in $(seq 20); do
		rmmod "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	rmmod "$1"
}

# In a guest: unload every retire module, users before what they use;
# true only if none is left loaded
retire_modules_unload() {
	local m ok=0
	for m in retire_kunit retire_sample retire_edu retire_null retire_sim retire; do
		[ -e "/sys/module/$m" ] || continue
		retire_rmmod "$m" || ok=1
	done
	for m in retire_sample retire_edu retire_null retire_sim retire; do
		[ ! -e "/sys/module/$m" ] || ok=1
	done
	return $ok
}

# newest installed stock Debian kernel of a series: "6.1" or "6.12"
stock_kver() {
	local series=$1 v best=
	for v in /boot/vmlinuz-"$series".*-amd64; do
		[ -e "$v" ] || continue
		v=${v#/boot/vmlinuz-}
		case "$v" in *-rt-* | *-cloud-*) continue ;; esac
		[ -d "/usr/src/linux-headers-$v" ] || continue
		[ -d "/lib/modules/$v" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n1)
	done
	[ -n "$best" ] || die "no stock $series kernel with headers installed (run scripts/deps.sh)"
	echo "$best"
}

# the Debian version of the linux-source-6.12 package
source_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
		die "linux-source-6.12 is not installed (run scripts/deps.sh)"
}

# where linux-source-6.12 is unpacked (shared by the debug kernel and the
# kselftest harness header)
source_tree() {
	echo "$RETIRE_CACHE/src/linux-source-6.12-$(source_version)"
}

unpack_source() {
	local tree
	tree=$(source_tree)
	mkdir -p "$RETIRE_CACHE/src"
	# one unpacker at a time; the others wait and reuse its tree
	exec 8>"$RETIRE_CACHE/src/.lock"
	flock 8
	if [ ! -e "$tree/.unpacked" ]; then
		rm -rf "$tree.tmp"
		mkdir -p "$tree.tmp"
		echo "unpacking linux-source-6.12 into $tree" >&2
		tar -C "$tree.tmp" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
		touch "$tree.tmp/.unpacked"
		rm -rf "$tree"
		mv "$tree.tmp" "$tree"
	fi
	exec 8>&-
	echo "$tree"
}
