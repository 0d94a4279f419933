#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make install's bookkeeping, so that make uninstall removes exactly what
# install put there and nothing else: every file, link and directory an
# install creates becomes one line of the manifest, in the order made, as
# its path on the target (without DESTDIR). A directory that was already
# there is not noted, so it stays. uninstall removes the noted paths last
# first: a directory only when it is empty.
#
#   MANIFEST=PATH [DESTDIR=DIR] manifest.sh dir DIR...
#       mkdir -p each DIR, noting every directory it had to create
#   ... manifest.sh file MODE SRC... DIR
#       install -m MODE each SRC into DIR (made as by dir), noting each
#   ... manifest.sh link TARGET NAME
#       ln -sfn TARGET NAME, noting NAME
#   ... manifest.sh new DIR -- CMD...
#       run CMD, noting what it created under DIR, each directory before
#       what it holds
#   ... manifest.sh has PATH
#       exit 0 if PATH is noted
#   ... manifest.sh remove
#       remove every noted path, last first, printing each
#
# MANIFEST is itself the first thing noted (after the directories made
# for it), and the last removed. Several installs append to it.
set -eu

: "${MANIFEST:?set MANIFEST to the manifest path on the target}"
DESTDIR=${DESTDIR:-}
m=$DESTDIR$MANIFEST

die() {
	echo "manifest.sh: $*" >&2
	exit 1
}

# noted paths go into $m; before $m exists they wait in $pending
pending=
note() {
	if [ -e "$m" ]; then
		printf '%s\n' "$1" >>"$m"
	else
		pending="$pending$1
"
	fi
}

# mkdir -p, noting each directory made; DESTDIR itself is the caller's
mkdirs() {
	p=
	rest=${1#/}
	[ -z "$DESTDIR" ] || mkdir -p "$DESTDIR"
	while [ -n "$rest" ]; do
		case $rest in
		*/*) c=${rest%%/*} rest=${rest#*/} ;;
		*) c=$rest rest= ;;
		esac
		[ -n "$c" ] || continue
		p=$p/$c
		[ -d "$DESTDIR$p" ] && continue
		# another install running beside this one may make it first
		if mkdir "$DESTDIR$p" 2>/dev/null; then
			note "$p"
		elif [ ! -d "$DESTDIR$p" ]; then
			die "cannot make $DESTDIR$p"
		fi
	done
}

# the manifest exists before anything else is noted, noted first itself
start() {
	[ -e "$m" ] && return
	mkdirs "$(dirname "$MANIFEST")"
	printf '%s' "$pending" >"$m"
	pending=
	note "$MANIFEST"
}

case ${1:-} in
dir)
	shift
	start
	for d in "$@"; do mkdirs "$d"; done
	;;
file)
	shift
	[ $# -ge 3 ] || die "file MODE SRC... DIR"
	mode=$1
	shift
	eval "dir=\${$#}"
	start
	mkdirs "$dir"
	while [ $# -gt 1 ]; do
		install -m "$mode" "$1" "$DESTDIR$dir/"
		note "$dir/${1##*/}"
		shift
	done
	;;
link)
	[ $# = 3 ] || die "link TARGET NAME"
	start
	mkdirs "$(dirname "$3")"
	ln -sfn "$2" "$DESTDIR$3"
	note "$3"
	;;
new)
	if [ $# -lt 4 ] || [ "$3" != -- ]; then die "new DIR -- CMD..."; fi
	dir=$2
	shift 3
	start
	mkdirs "$dir"
	names() { find "$DESTDIR$dir" -mindepth 1 -printf '%P\n'; }
	before=$(names)
	"$@"
	names | while IFS= read -r f; do
		printf '%s\n' "$before" | grep -qxF "$f" || note "$dir/$f"
	done
	;;
has)
	[ $# = 2 ] || die "has PATH"
	[ -e "$m" ] && grep -qxF "$2" "$m"
	;;
remove)
	[ -e "$m" ] || die "no $m: nothing was installed there (PREFIX, DESTDIR?)"
	# last first; a path noted twice (installed twice) goes once
	tac "$m" | awk '!seen[$0]++' | while IFS= read -r p; do
		t=$DESTDIR$p
		if [ -L "$t" ] || [ -f "$t" ]; then
			rm -f "$t"
			echo "removed $t"
		elif [ -d "$t" ]; then
			if rmdir "$t" 2>/dev/null; then
				echo "removed $t/"
			else
				echo "kept $t/: not empty"
			fi
		fi
	done
	;;
*)
	die "usage: manifest.sh dir|file|link|new|has|remove ..."
	;;
esac
