#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Parse reStructuredText files; fail on any warning or error.

    check-rst.py FILE...
"""
import sys

import docutils.core
import docutils.utils


def main(paths):
    bad = 0
    for path in paths:
        with open(path) as f:
            text = f.read()
        try:
            docutils.core.publish_doctree(
                text, source_path=path,
                settings_overrides={'halt_level': 2, 'report_level': 2})
        except docutils.utils.SystemMessage as e:
            print('%s: %s' % (path, e))
            bad = 1
    return bad


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
