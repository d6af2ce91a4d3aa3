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
event type (the root label of export --by event). Timestamps are read as trace_processor
reads them: a packet's clock is its timestamp_clock_id, else its sequence's
TracePacketDefaults one, else BOOTTIME (the trace clock); a sequence-scoped clock (64..127) is
defined by a ClockSnapshot on that sequence against BOOTTIME and, if incremental, each packet's
timestamp is the delta from the last one on that clock (modulo 2^64). Every id is resolved
when its packet comes (interned data must come first, in that packet or an earlier one of the
sequence), event names from name_iid; packets that use a sequence's defaults or interned data
must carry SEQ_NEEDS_INCREMENTAL_STATE. With RAW (the exported file itself) as a fourth
argument, also require Callstack.frame_ids and Mapping.path_string_ids to be unpacked, as
Perfetto's proto declares them (trace_processor reads a packed list as one bad id).
Exit 1 on a mismatch."""
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


def wire(b):
    """The fields of protobuf message @b: (field, wire type, value or bytes)."""
    def varint(i):
        v = shift = 0
        while True:
            c = b[i]
            v |= (c & 0x7F) << shift
            shift += 7
            i += 1
            if c < 0x80:
                return v, i
    i = 0
    while i < len(b):
        k, i = varint(i)
        if k & 7 == 0:
            v, i = varint(i)
        elif k & 7 == 2:
            n, i = varint(i)
            v, i = b[i:i + n], i + n
        elif k & 7 in (1, 5):
            n = 8 if k & 7 == 1 else 4
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % (k & 7))
        yield k >> 3, k & 7, v


def unpacked_ids(raw):
    """The packed (length-delimited) frame_ids and path_string_ids found in the trace @raw."""
    bad = []
    for f, _, pkt in wire(raw):
        for pf, pw, idata in wire(pkt) if f == 1 else ():
            for kind, w, m in wire(idata) if pf == 12 and pw == 2 else ():
                ids = {7: 2, 19: 7}.get(kind)  # callstacks: frame_ids, mappings: path_string_ids
                bad += [(kind, x) for x, xw, _ in wire(m) if ids and x == ids and xw != 0]
    return bad


def task_state(letters):
    """The prev_state value of a record's state letters (the exporter's TASK_REPORT bits)."""
    v = 0
    for c in letters:
        v |= 0x100 if c == "+" else 1 << "SDTtXZPI".index(c) if c in "SDTtXZPI" else 0
    return v


def fail(msg):
    print("MISMATCH: " + msg)
    sys.exit(1)


def need(table, key, what):
    if key not in table:
        fail("%s %s used before it is interned" % (what, key))
    return table[key]


BOOTTIME = 6
t = parse(open(sys.argv[1]))
names, frames, stacks, out = {}, {}, {}, []
evnames, mappings, mpaths = {}, {}, {}
samples, threads, switches = [], [], []
tracks, instants = {}, []
defaults, seqclocks, needs_state = {}, {}, set()
cpu_sched, switch_recs = {}, []


def packet_ts(pkt, seq):
    """The packet's timestamp on the trace clock (BOOTTIME), as trace_processor computes it."""
    if "timestamp" not in pkt:
        return None
    ts = int(pkt["timestamp"][0])
    clock = int(pkt.get("timestamp_clock_id", [defaults.get(seq, BOOTTIME)])[0])
    if clock == BOOTTIME:
        return ts
    c = seqclocks.get((seq, clock))
    if c is None:
        fail("packet on sequence %s uses clock %d, not defined on it" % (seq, clock))
    if c["incremental"]:
        c["last"] = (c["last"] + ts) % 2**64
        ts = c["last"]
    return (ts - c["snap"] + c["boot"]) % 2**64


for pkt in t.get("packet", []):
    seq = pkt.get("trusted_packet_sequence_id", ["0"])[0]
    flags = int(pkt.get("sequence_flags", ["0"])[0])
    if seq in needs_state and not flags & 1 and not flags & 2:
        fail("a packet of sequence %s without SEQ_NEEDS_INCREMENTAL_STATE" % seq)
    for cs in pkt.get("clock_snapshot", []):
        boot = [int(c["timestamp"][0]) for c in cs["clocks"] if c["clock_id"][0] == str(BOOTTIME)]
        if len(boot) != 1 or cs.get("primary_trace_clock") != ["BUILTIN_CLOCK_BOOTTIME"]:
            fail("clock snapshot without BOOTTIME as the primary clock: %r" % cs)
        for c in cs["clocks"]:
            cid = int(c["clock_id"][0])
            if cid == BOOTTIME:
                continue
            if not 64 <= cid <= 127 or seq == "0":
                fail("clock %d is not a sequence-scoped clock" % cid)
            v = int(c["timestamp"][0])
            seqclocks[(seq, cid)] = {"snap": v, "last": v, "boot": boot[0],
                                     "incremental": c.get("is_incremental") == ["true"]}
    for d in pkt.get("trace_packet_defaults", []):
        if not flags & 1:
            fail("TracePacketDefaults on sequence %s without SEQ_INCREMENTAL_STATE_CLEARED" % seq)
        defaults[seq] = int(d["timestamp_clock_id"][0])
        needs_state.add(seq)
    ts = packet_ts(pkt, seq)
    ts = None if ts is None else str(ts)
    for idata in pkt.get("interned_data", []):
        needs_state.add(seq)
        for s in idata.get("event_names", []):
            evnames[s["iid"][0]] = s["name"][0]
        for s in idata.get("function_names", []):
            names[s["iid"][0]] = s["str"][0]
        for s in idata.get("mapping_paths", []):
            mpaths[s["iid"][0]] = s["str"][0]
        for m in idata.get("mappings", []):
            mappings[m["iid"][0]] = [need(mpaths, i, "mapping path") for i in m["path_string_ids"]]
        for f in idata.get("frames", []):
            need(names, f["function_name_id"][0], "function name")
            frames[f["iid"][0]] = f["function_name_id"][0]
            for m in f.get("mapping_id", []):
                need(mappings, m, "mapping")
        for c in idata.get("callstacks", []):
            stacks[c["iid"][0]] = c.get("frame_ids", [])
    for pt in pkt.get("process_tree", []):
        for p in pt.get("processes", []):
            out.append("process %s %s" % (p["pid"][0], p.get("cmdline", ["?"])[0]))
        for th in pt.get("threads", []):
            threads.append("thread %s tgid=%s %s" % (th["tid"][0], th["tgid"][0], th["name"][0]))
    for b in pkt.get("ftrace_events", []):
        sched = cpu_sched.setdefault(b["cpu"][0], [])
        # the tokenizer takes a bundle's compact_sched before its events
        for c in b.get("compact_sched", []):
            table = c.get("intern_table", [])
            cols = [c.get("switch_" + k, []) for k in
                    ("timestamp", "prev_state", "next_pid", "next_prio", "next_comm_index")]
            if len(set(map(len, cols))) != 1:
                fail("compact_sched columns of different lengths: %r" % c)
            acc = 0
            for d, st, npid, nprio, ci in zip(*cols):
                acc = (acc + int(d)) % 2**64  # trace_processor sums the deltas from 0
                if int(ci) >= len(table):
                    fail("compact_sched comm index %s beyond its intern table" % ci)
                sched.append((acc, None, None, None, st, table[int(ci)], npid, nprio))
        for e in b.get("event", []):
            s = e["sched_switch"][0]
            sched.append((int(e["timestamp"][0]), s["prev_comm"][0], s["prev_pid"][0],
                          s["prev_prio"][0], s["prev_state"][0], s["next_comm"][0],
                          s["next_pid"][0], s["next_prio"][0]))
    for td in pkt.get("track_descriptor", []):
        th = td.get("thread", [{}])[0]
        if td["uuid"][0] == "0" or td["uuid"][0] in tracks:
            fail("track uuid %s: 0 or given twice" % td["uuid"][0])
        tracks[td["uuid"][0]] = (th.get("tid", ["-"])[0], th.get("pid", ["-"])[0], td["name"][0])
    for te in pkt.get("track_event", []):
        iid = te["callstack_iid"][0]
        path = ";".join(names[need(frames, f, "frame")] for f in need(stacks, iid, "callstack"))
        instants.append((ts, te["type"][0], te["track_uuid"][0],
                         need(evnames, te["name_iid"][0], "event name"), iid, path))
    for ps in pkt.get("perf_sample", []):
        cs = need(stacks, ps["callstack_iid"][0], "callstack")
        path = ";".join(names[need(frames, f, "frame")] for f in cs)
        samples.append((ts, ps["cpu"][0], ps["pid"][0], ps["tid"][0], path, ps["callstack_iid"][0]))

# trace_processor sorts each CPU's switches by time (ties in the order they came) and gives a
# compact one the prev_* fields of the switch before it on that CPU, dropping the first
for cpu, sched in sorted(cpu_sched.items(), key=lambda c: int(c[0])):
    last = None
    for ts, pcomm, ppid, pprio, st, ncomm, npid, nprio in sorted(sched, key=lambda x: x[0]):
        if pcomm is None:
            if last is None:
                fail("cpu %s: a compact switch first (trace_processor drops it)" % cpu)
            pcomm, ppid, pprio = last
        switch_recs.append((ts, cpu, pcomm, ppid, pprio, st, ncomm, npid, nprio))
        switches.append("switch %s cpu=%s %s:%s state=%s -> %s:%s" % (
            ts, cpu, pcomm, ppid, st, ncomm, npid))
        last = (ncomm, npid, nprio)

for s in samples:
    print("%s cpu=%s pid=%s tid=%s %s" % s[:5])
for line in out + threads + switches:
    print(line)
for uuid, (tid, pid, name) in tracks.items():
    print("track %s tid=%s pid=%s %s" % (uuid, tid, pid, name))
for ts, typ, uuid, name, iid, path in instants:
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
    perf = [(s[0], s[5], s[3]) for s in samples]
    inst = [(ts, iid, tracks.get(uuid, ("?",))[0]) for ts, typ, uuid, name, iid, path in instants]
    bad = [i for i in instants if i[1] != "TYPE_INSTANT" or i[4] == "0" or i[4] not in stacks
           or names[frames[stacks[i[4]][0]]] != i[3]]
    if inst != perf or bad:
        print("MISMATCH: instants %r, perf samples %r, bad %r" % (inst, perf, bad))
        sys.exit(1)
    rec = []
    for line in open(sys.argv[2]):
        m = re.match(r"^#\d+ cpu=(\d+) .* ts=(\d+) type=.* switch=(.*?):(-?\d+)\[(-?\d+)\]:"
                     r"(\S*?)->(.*):(-?\d+)\[(-?\d+)\]", line)
        if m:
            g = m.groups()
            rec.append((int(g[1]), g[0], g[2], g[3], g[4], str(task_state(g[5])), g[6], g[7],
                        g[8]))
    # per CPU in trace_processor's order (by time, ties in input order), as decoded above
    rec.sort(key=lambda r: (int(r[1]), r[0]))
    got = sorted(switch_recs, key=lambda r: int(r[1]))
    if got != rec:
        bad = [(g, w) for g, w in zip(got, rec) if g != w][:3]
        fail("switches: %d decoded, %d in the trace; first differences %r" % (
            len(got), len(rec), bad))
    if len(sys.argv) > 4:
        packed = unpacked_ids(open(sys.argv[4], "rb").read())
        if packed:
            fail("packed id lists (Callstack.frame_ids, Mapping.path_string_ids): %r" % packed)
    print("perfetto matches the trace: %d samples event by event, stacks as folded, "
          "%d instants with their stacks, %d switches" % (len(samples), len(instants),
                                                          len(switch_recs)))
