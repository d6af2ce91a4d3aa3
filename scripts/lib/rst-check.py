#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rst-check.py NAME < FILE.rst: docutils parses the reStructuredText on stdin with warnings
as errors, then every table row must have text in every cell. A simple table whose first
column wraps onto a second line makes docutils start a new row there, with empty cells: a
table that renders as fragments, which docutils itself accepts without a warning. Exit 1,
with NAME:LINE: reason, on either."""
import sys

import docutils.core
import docutils.nodes
import docutils.utils

name = sys.argv[1] if len(sys.argv) > 1 else '<stdin>'
text = sys.stdin.read()
try:
    tree = docutils.core.publish_doctree(
        text, source_path=name,
        settings_overrides={'halt_level': 2, 'report_level': 2, 'warning_stream': sys.stderr})
except docutils.utils.SystemMessage as e:
    sys.exit('%s: %s' % (name, e))
bad = 0
for table in tree.findall(docutils.nodes.table):
    for row in table.findall(docutils.nodes.row):
        cells = list(row.findall(docutils.nodes.entry))
        empty = [i + 1 for i, c in enumerate(cells) if not c.astext().strip()]
        if empty:
            first = cells[0].astext().strip().split('\n')[0] if cells else ''
            print('%s:%s: table row "%s" has empty cell(s) %s (a row split over lines?)' %
                  (name, row.line or table.line or '?', first[:40], empty), file=sys.stderr)
            bad += 1
sys.exit(1 if bad else 0)
