#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the guest's instructions went in retire's modules (profile.sh).

    profile.py OUTDIR [PER_SYMBOL] [TOP]

OUTDIR holds exec.log (QEMU's "-d nochain,exec,in_asm" log of the module
area: each translation block's instructions as it is translated, and one
line per block run, with its guest address) and ksyms (the guest's
/proc/kallsyms lines of the retire modules). Prints each function's
instructions,
in total and per run of PER_SYMBOL's first block (default
retire_submit_inline_locked: per fast-lane request), the TOP (default 40)
first. Only retire's own instructions are counted: what it calls in the
kernel is not in the trace.
"""
import bisect
import collections
import os
import re
import sys

def main():
    outdir = sys.argv[1]
    anchor = sys.argv[2] if len(sys.argv) > 2 else \
        'retire_submit_inline_locked'
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    syms = []
    for line in open(os.path.join(outdir, 'ksyms')):
        p = line.split()
        if len(p) >= 4 and p[1] in 'tT':
            syms.append((int(p[0], 16), p[2]))
    syms.sort()
    addrs = [a for a, _ in syms]
    start = {name: a for a, name in syms}
    # a block's instructions, from its translation (the last one counts);
    # a line of bytes alone continues the instruction above it
    length, runs = {}, collections.Counter()
    insn = re.compile(r'^0x([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(\S)?')
    trace = re.compile(r'^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/')
    pc, n = None, 0
    with open(os.path.join(outdir, 'exec.log'), errors='replace') as log:
        for line in log:
            if line.startswith('IN:'):
                pc, n = None, 0
                continue
            m = insn.match(line)
            if m:
                if pc is None:
                    pc = int(m.group(1), 16)
                if m.group(2):
                    n += 1
                    length[pc] = n
                continue
            m = trace.match(line)
            if m:
                runs[int(m.group(1), 16)] += 1
    per = collections.Counter()
    unknown = 0
    for pc, k in runs.items():
        i = bisect.bisect_right(addrs, pc) - 1
        if i < 0 or pc not in length:
            unknown += k
            continue
        per[syms[i][1]] += k * length[pc]
    entry = runs.get(start.get(anchor), 0)
    total = sum(per.values())
    print(f'{total} instructions in retire\'s modules; {anchor} ran '
          f'{entry} times; {unknown} blocks run outside them')
    print(f'{"function":48} {"instructions":>14} {"per run":>9}')
    for name, k in per.most_common(top):
        print(f'{name:48} {k:14} {k / entry if entry else 0:9.1f}')


if __name__ == '__main__':
    main()
