#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check_perfetto.py DECODED [EVDUMP FOLDED]: read `protoc --decode=perfetto.protos.Trace
tests/perfetto_subset.proto` output of an exported trace and print one line per perf sample:
"TS cpu=C pid=P tid=T ROOT;...;LEAF" (frames from the interned callstacks, root first), then
the processes, threads and sched_switch events. With EVDUMP (tests/evdump output of the same
trace) and FOLDED (export --format folded --by event), also require the samples to be the
records that carry a stack, event by event (timestamp, cpu, tid in input order), and their
stacks to add up to the folded lines, and every sample to have its TrackEvent instant: same
timestamp and callstack_iid (never 0, interned), on the track of its thread, named by the
event type (the root label of export --by event). Exit 1 on a mismatch."""
import re
import sys
from collections import Counter


def parse(lines):
    """protoc text format -> nested dict of lists."""
    root, stack = {}, []
    cur = root
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            node = {}
            cur.setdefault(line[:-1].strip(), []).append(node)
            stack.append(cur)
            cur = node
        elif line == "}":
            cur = stack.pop()
        else:
            k, _, v = line.partition(": ")
            v = v.strip()
            if v.startswith('"'):
                v = bytes(v[1:-1], "utf-8").decode("unicode_escape")
            cur.setdefault(k, []).append(v)
    return root


t = parse(open(sys.argv[1]))
names, frames, stacks, out = {}, {}, {}, []
samples, threads, switches = [], [], []
tracks, instants = {}, []
for pkt in t.get("packet", []):
    for idata in pkt.get("interned_data", []):
        for s in idata.get("function_names", []):
            names[s["iid"][0]] = s["str"][0]
        for f in idata.get("frames", []):
            frames[f["iid"][0]] = f["function_name_id"][0]
        for c in idata.get("callstacks", []):
            stacks[c["iid"][0]] = c.get("frame_ids", [])
    for pt in pkt.get("process_tree", []):
        for p in pt.get("processes", []):
            out.append("process %s %s" % (p["pid"][0], p.get("cmdline", ["?"])[0]))
        for th in pt.get("threads", []):
            threads.append("thread %s tgid=%s %s" % (th["tid"][0], th["tgid"][0], th["name"][0]))
    for b in pkt.get("ftrace_events", []):
        for e in b.get("event", []):
            s = e["sched_switch"][0]
            switches.append("switch %s cpu=%s %s:%s state=%s -> %s:%s" % (
                e["timestamp"][0], b["cpu"][0], s["prev_comm"][0], s["prev_pid"][0],
                s["prev_state"][0], s["next_comm"][0], s["next_pid"][0]))
    for td in pkt.get("track_descriptor", []):
        th = td.get("thread", [{}])[0]
        tracks[td["uuid"][0]] = (th.get("tid", ["-"])[0], th.get("pid", ["-"])[0], td["name"][0])
    for te in pkt.get("track_event", []):
        instants.append((pkt["timestamp"][0], te["type"][0], te["track_uuid"][0],
                         te["name"][0], te["callstack_iid"][0]))
    for ps in pkt.get("perf_sample", []):
        cs = stacks[ps["callstack_iid"][0]]
        path = ";".join(names[frames[f]] for f in cs)
        samples.append((pkt["timestamp"][0], ps["cpu"][0], ps["pid"][0], ps["tid"][0], path))

for s in samples:
    print("%s cpu=%s pid=%s tid=%s %s" % s)
for line in out + threads + switches:
    print(line)
for uuid, (tid, pid, name) in tracks.items():
    print("track %s tid=%s pid=%s %s" % (uuid, tid, pid, name))
for ts, typ, uuid, name, iid in instants:
    path = ";".join(names[frames[f]] for f in stacks[iid]) if iid in stacks else "?"
    print("instant %s %s track=%s %s callstack=%s %s" % (ts, typ, uuid, name, iid, path))

if len(sys.argv) > 3:
    want = []
    for line in open(sys.argv[2]):
        m = re.match(r"^#\d+ cpu=(-?\d+) pid=(-?\d+) .* ts=(\d+) .*(stack_id=|full=)", line)
        if m:
            want.append((m.group(3), m.group(1), m.group(2)))
    got = [(s[0], s[1], s[3]) for s in samples]
    if got != want:
        print("MISMATCH: samples %r, trace records %r" % (got, want))
        sys.exit(1)
    folded = Counter()
    for line in open(sys.argv[3]):
        path, _, v = line.rstrip("\n").rpartition(" ")
        folded[path] += int(v)
    # perfetto frames carry the function name without the module suffix of folded lines
    strip = Counter()
    for k, v in folded.items():
        strip[";".join(re.sub(r" \[[^\]]*\]$", "", x) for x in k.split(";"))] += v
    if Counter(s[4] for s in samples) != strip:
        print("MISMATCH: sample stacks %r, folded %r" % (Counter(s[4] for s in samples), strip))
        sys.exit(1)
    perf = [(pkt["timestamp"][0], ps["callstack_iid"][0], ps["tid"][0])
            for pkt in t.get("packet", []) for ps in pkt.get("perf_sample", [])]
    inst = [(ts, iid, tracks.get(uuid, ("?",))[0]) for ts, typ, uuid, name, iid in instants]
    bad = [i for i in instants if i[1] != "TYPE_INSTANT" or i[4] == "0" or i[4] not in stacks
           or names[frames[stacks[i[4]][0]]] != i[3]]
    if inst != perf or bad:
        print("MISMATCH: instants %r, perf samples %r, bad %r" % (inst, perf, bad))
        sys.exit(1)
    print("perfetto matches the trace: %d samples event by event, stacks as folded, "
          "%d instants with their stacks" % (len(samples), len(instants)))
