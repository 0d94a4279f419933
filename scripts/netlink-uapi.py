#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Generate the uapi header of a generic netlink family from its YAML spec.

Documentation/netlink/specs/retire.yaml is the contract; the uapi header is
derived from it with the kernel's YNL naming rules (family, attribute-set and
operation names upper-cased, '-' to '_', RETIRE_A_<SET>_<ATTR> and
RETIRE_CMD_<OP>), so the two cannot drift apart.

    netlink-uapi.py SPEC HEADER          check: exit 1 and show a diff if
                                         HEADER is not what SPEC generates
    netlink-uapi.py --write SPEC HEADER  regenerate HEADER
"""
import difflib
import sys

import yaml


def c_upper(name):
    return name.upper().replace('-', '_')


def generate(spec, spec_path):
    fam = c_upper(spec['name'])
    guard = '_UAPI_' + c_upper(spec['uapi-header']).replace('/', '_').replace('.', '_')
    out = [
        '/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */',
        '/* Do not edit directly, auto-generated from: */',
        '/*\t%s */' % spec_path,
        '/* YNL-GEN uapi header */',
        '',
        '#ifndef ' + guard,
        '#define ' + guard,
        '',
        '#define %s_FAMILY_NAME\t"%s"' % (fam, spec['name']),
        '#define %s_FAMILY_VERSION\t%d' % (fam, spec.get('version', 1)),
        '',
    ]
    for d in spec.get('definitions', []):
        if d['type'] not in ('enum', 'flags'):
            raise SystemExit('unsupported definition type ' + d['type'])
        pfx = '%s_%s_' % (fam, c_upper(d['name']))
        out.append('enum %s_%s {' % (spec['name'].replace('-', '_'), d['name'].replace('-', '_')))
        for i, e in enumerate(d['entries']):
            name = e if isinstance(e, str) else e['name']
            val = (1 << i) if d['type'] == 'flags' else i
            out.append('\t%s%s = %d,' % (pfx, c_upper(name), val))
        out += ['};', '']
    for aset in spec['attribute-sets']:
        pfx = '%s_A_%s_' % (fam, c_upper(aset['name']))
        out.append('enum {')
        for i, attr in enumerate(aset['attributes']):
            name = pfx + c_upper(attr['name'])
            out.append('\t%s = 1,' % name if i == 0 else '\t%s,' % name)
        out += ['', '\t__%sMAX,' % pfx,
                '\t%sMAX = (__%sMAX - 1)' % (pfx, pfx), '};', '']
    out.append('enum {')
    for i, op in enumerate(spec['operations']['list']):
        name = '%s_CMD_%s' % (fam, c_upper(op['name']))
        out.append('\t%s = 1,' % name if i == 0 else '\t%s,' % name)
    out += ['', '\t__%s_CMD_MAX,' % fam,
            '\t%s_CMD_MAX = (__%s_CMD_MAX - 1)' % (fam, fam), '};', '']
    mc = spec.get('mcast-groups', {}).get('list', [])
    for g in mc:
        out.append('#define %s_MCGRP_%s\t"%s"' % (fam, c_upper(g['name']), g['name']))
    if mc:
        out.append('')
    out.append('#endif /* %s */' % guard)
    return '\n'.join(out) + '\n'


def main(argv):
    write = '--write' in argv
    args = [a for a in argv if a != '--write']
    if len(args) != 2:
        raise SystemExit(__doc__)
    spec_path, header = args
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    rel = spec_path[spec_path.find('Documentation/'):] if 'Documentation/' in spec_path else spec_path
    want = generate(spec, rel)
    if write:
        with open(header, 'w') as f:
            f.write(want)
        return 0
    with open(header) as f:
        have = f.read()
    if have != want:
        sys.stdout.writelines(difflib.unified_diff(
            have.splitlines(True), want.splitlines(True), header, 'generated from ' + rel))
        print('%s is out of date: run scripts/netlink-uapi.py --write %s %s'
              % (header, spec_path, header))
        return 1
    print('%s matches %s' % (header, rel))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
