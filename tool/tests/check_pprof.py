#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check_pprof.py RAW FOLDED [TOTAL]: compare `go tool pprof -raw` output of an exported
profile with `stackmap export --format folded --by event` of the same recording.

Rebuilds folded lines (event;root;...;leaf value) from the raw samples and locations (module
from the mapping's file name, as " [mod]" unless it is [kernel.kallsyms]) and requires the
same lines and values (the root frame of every sample must be "[event TYPE]", TYPE its event
label, and is dropped before the comparison); with TOTAL, also that the values sum to it (report's stack
references). Prints one line and exits 1 on the first difference."""
import re
import sys
from collections import Counter

raw = open(sys.argv[1]).read().splitlines()
folded = Counter()
for line in open(sys.argv[2]):
    path, _, v = line.rstrip("\n").rpartition(" ")
    folded[path] += int(v)

section = None
samples = []  # (value, [loc ids leaf first], labels)
locs = {}  # id -> (func, mapping id)
maps = {}
for line in raw:
    if line in ("Samples:", "Locations", "Mappings"):
        section = line
        continue
    if section == "Samples:":
        m = re.match(r"^\s+(\d+): ([\d ]+)$", line)
        if m:
            samples.append([int(m.group(1)), [int(x) for x in m.group(2).split()], {}])
            continue
        for k, v in re.findall(r"(\w+):\[([^\]]*)\]", line):
            if samples:
                samples[-1][2][k] = v
    elif section == "Locations":
        m = re.match(r"^\s+(\d+): 0x[0-9a-f]+(?: M=(\d+))? (.*) :\d+( s=\d+)?$", line)
        if m:
            locs[int(m.group(1))] = (m.group(3), int(m.group(2) or 0))
    elif section == "Mappings":
        m = re.match(r"^(\d+): \S+ (\S+)", line)
        if m:
            maps[int(m.group(1))] = m.group(2)

got = Counter()
for value, ids, labels in samples:
    names = []
    for i in reversed(ids):
        func, mid = locs[i]
        mod = maps.get(mid, "[kernel.kallsyms]")
        names.append(func if mod == "[kernel.kallsyms]" else "%s [%s]" % (func, mod))
    # the root frame is the event type, without a mapping: event types never share a node
    want_root = "[event %s]" % labels.get("event", "?")
    if not names or names[0] != want_root or locs[ids[-1]][1] != 0:
        print("sample %s: root frame %r, want %r without a mapping" % (ids, names[:1], want_root))
        sys.exit(1)
    got[";".join([labels.get("event", "?")] + names[1:])] += value

if got != folded:
    for k in sorted(set(got) | set(folded)):
        if got[k] != folded[k]:
            print("pprof %d, folded %d: %s" % (got[k], folded[k], k))
    sys.exit(1)
total = sum(got.values())
if len(sys.argv) > 3 and total != int(sys.argv[3]):
    print("pprof total %d, report %s" % (total, sys.argv[3]))
    sys.exit(1)
print("pprof matches folded: %d samples, total %d" % (len(samples), total))
