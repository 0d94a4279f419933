#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In the guest (scripts/bench.sh): reload the modules from MODDIR with caps
# for the benchmark's scale row, then run it.
#
#   bench-guest.sh MODDIR [RETIRE_BENCH_ARGS...]
set -e
moddir=$1
shift
. "$(dirname "$0")/lib.sh"
retire_modules_unload
retire_modules_load "$moddir" max_unretired=1100000 max_buffers=1100000 \
	max_active=1100000 max_waiting=1100000 \
	max_pinned_bytes=$((8 << 30)) max_reserved_bytes=$((1 << 30)) \
	watchdog_ms=86400000
ulimit -l unlimited
# the memory rows read this process's cgroup's memory.stat: a cgroup of
# its own, so nothing else the guest does is counted
cg=/sys/fs/cgroup
[ -e $cg/cgroup.controllers ] || mount -t cgroup2 none $cg
echo +memory > $cg/cgroup.subtree_control
mkdir -p $cg/bench
echo $$ > $cg/bench/cgroup.procs
"$(dirname "$0")/../userspace/bench/retire_bench" "$@"
# the contexts' teardown (a million buffers to unpin) runs in work items
# that hold the module: let it finish before vm-run unloads it
i=0
holders=$(find /sys/module/retire/holders -mindepth 1 -maxdepth 1 | wc -l)
while [ "$(cat /sys/module/retire/refcnt)" != "$holders" ] && [ $i -lt 600 ]; do
	sleep 0.2
	i=$((i + 1))
done
echo "bench-guest: teardown took about $((i / 5)) s"
