#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host half of the recording test: check what tests/recording/guest.sh recorded in the VM.

check.py SHARE STACKMAP PLUGIN_DIR [KSHARK_CHECK]
Prints "ok NAME" / "FAIL NAME: why" per check and ends with "N passed, N failed".
"""
import os
import re
import subprocess
import sys

SHARE, SM, PLUGIN_DIR = [os.path.abspath(a) for a in sys.argv[1:4]]
KSHARK = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else ""
EMPTY_PLUGIN_DIR = os.path.join(SHARE, "no-plugins")
os.makedirs(EMPTY_PLUGIN_DIR, exist_ok=True)
passed = failed = 0


def ok(name):
    global passed
    passed += 1
    print("ok    " + name)


def bad(name, why):
    global failed
    failed += 1
    print("FAIL  %s: %s" % (name, why))


def check(name, cond, why=""):
    if cond:
        ok(name)
    else:
        bad(name, why)
    return cond


def run(args, plugins=None):
    env = dict(os.environ)
    env["TRACEEVENT_PLUGIN_DIR"] = plugins or EMPTY_PLUGIN_DIR
    env.pop("STACKMAP_MAP", None)
    p = subprocess.run(args, capture_output=True, text=True, env=env, cwd=SHARE)
    return p.returncode, p.stdout, p.stderr


def path(case, name):
    return os.path.join(SHARE, case, name)


def report_counts(out):
    """events, stack references and per-event lines of `stackmap report --top 0` (not the time
    span, lost events and map fill: a trace text shows neither nanoseconds nor the pages that
    followed a loss, and only a recording directory has the map's stack_map_stat)"""
    res = []
    for l in out.splitlines():
        m = re.match(r"^# (\d+) events", l)
        if m:
            res.append("events " + m.group(1))
        elif l.startswith("#") and "stack references" in l:
            res.append(l.split("; map:")[0])
        elif re.match(r"^\S.*: \d+ events", l):
            res.append(l)
    return res


def event_stacks(out):
    """{event: stack references} from `stackmap report` output"""
    res = {}
    for l in out.splitlines():
        m = re.match(r"^(\S.*): (\d+) events, (\d+) stacks", l)
        if m:
            res[m.group(1)] = int(m.group(3))
    return res


_tc_texts = {}


def tc_text(case, plugins=None, opts=()):
    """trace-cmd report of a case's trace.dat, read once per case, plugins and options."""
    key = (case, plugins, tuple(opts))
    if key not in _tc_texts:
        _tc_texts[key] = run(["trace-cmd", "report"] + list(opts) +
                             ["-i", path(case, "trace.dat")], plugins)
    return _tc_texts[key]


def dump_frames(case):
    """{id: [(function, addr)]} from `stackmap dump --json` of the trace.dat's map"""
    import json
    rc, out, err = run([SM, "dump", "--json", path(case, "trace.dat")])
    if rc:
        return None
    res = {}
    for s in json.loads(out):
        frames = []
        for ip, sym in zip(s["ips"], s.get("symbols", [None] * len(s["ips"]))):
            addr = int(ip, 16)
            if addr == 0x7FFFFFFF:
                frames.append(("[FTRACE TRAMPOLINE]", None))
            else:
                frames.append((sym.split("+")[0] if sym else None, addr))
        res[s["id"]] = frames
    return res


def plugin_frames(text):
    """[(id, [(function, addr)])] for every kernel_stack_id event of trace-cmd report text"""
    res, cur = [], None
    for l in text.splitlines():
        m = re.search(r"kernel_stack_id:\s+<stack_id (-?\d+)>", l)
        if m:
            cur = (int(m.group(1)), [])
            res.append(cur)
            continue
        if l.startswith("=> ") and cur is not None:
            f = l[3:]
            m = re.match(r"^(.*) \(([0-9a-f]+)\)$", f)
            if m:
                cur[1].append((m.group(1), int(m.group(2), 16)))
            elif f == "[FTRACE TRAMPOLINE]":
                cur[1].append((f, None))
            else:
                cur[1].append((None, int(f, 16)))
            continue
        cur = None
    return res


def kallsyms_aliases(case):
    """name -> set of names at the same address, from the recording's kallsyms"""
    by_addr, res = {}, {}
    kpath = path(case, "kallsyms")
    if not os.path.isfile(kpath):
        kpath = path("flight", "kallsyms")  # trace-cmd's recording: same boot
    with open(kpath) as f:
        for l in f:
            p = l.split()
            if len(p) >= 3:
                by_addr.setdefault(p[0], set()).add(p[2])
    for names in by_addr.values():
        for n in names:
            res.setdefault(n, set()).update(names)
    return res


def same_frames(a, b, aliases):
    """equal addresses, and names equal or aliases (two symbols at one address)"""
    if a is None or b is None or len(a) != len(b):
        return False
    for (na, xa), (nb, xb) in zip(a, b):
        if xa != xb or (na != nb and nb not in aliases.get(na, ())):
            return False
    return True


def cpu_stats(case):
    stats, cur = [], None
    with open(path(case, "cpu_stats")) as f:
        for l in f:
            if l.startswith("CPU:"):
                cur = {}
                stats.append(cur)
            else:
                k, _, v = l.partition(":")
                if v.strip().isdigit():
                    cur[k.strip()] = int(v)
    return stats


guest_log = open(os.path.join(SHARE, "guest.log")).read()

# 1. every recording is there
rcs = re.findall(r"^rc=(\d+)$", guest_log, re.M)
check("the eight recordings exit 0 in the guest", rcs == ["0"] * 8, "exit codes %s" % rcs)
for case in ("flight", "wrap", "stream", "tcrec"):
    check("recording %s has trace.dat and stack_map_bin" % case,
          os.path.isfile(path(case, "trace.dat")) and os.path.isfile(path(case, "stack_map_bin")),
          "missing files in " + path(case, ""))

# 2. trace-cmd report with the plugin: every id event symbolized, the same frames as dump
for case in ("flight", "tcrec", "wrap"):
    rc, text, err = tc_text(case, PLUGIN_DIR)
    if not check("trace-cmd report %s with plugin_stackmap runs" % case, rc == 0, err[-300:]):
        continue
    ev = plugin_frames(text)
    ref = dump_frames(case) or {}
    unresolved = [i for i, fr in ev if not fr]
    check("%s: all %d kernel_stack_id events print symbolized frames" % (case, len(ev)),
          ev and not unresolved, "%d events without frames, e.g. id %s" %
          (len(unresolved), unresolved[:3]))
    aliases = kallsyms_aliases(case)
    diff = [i for i, fr in ev if not same_frames(fr, ref.get(i), aliases)]
    check("%s: plugin frames == stackmap dump frames for every id event" % case,
          ev and not diff, "%d events differ, e.g. id %s: %s vs %s" %
          (len(diff), diff[:1], [f for i, f in ev if diff and i == diff[0]][:1],
           ref.get(diff[0]) if diff else None))
    named = sum(1 for _, fr in ev for f in fr if f[0])
    check("%s: frames carry function names from the trace.dat's kallsyms" % case,
          named > 0, "no frame has a name")

# 3. stackmap report: trace.dat == text of the same run
for case in ("flight", "wrap"):
    rc1, dat, e1 = run([SM, "report", "--top", "0", path(case, "trace.dat")])
    rc2, txt, e2 = run([SM, "report", "--top", "0", "--trace", path(case, "trace"), "--map",
                        path(case, "stack_map_bin"), "--kallsyms", path(case, "kallsyms")])
    check("%s: report on trace.dat == report on the trace text (per-event counts)" % case,
          rc1 == 0 and rc2 == 0 and report_counts(dat) == report_counts(txt) and dat.strip(),
          "dat: %s / text: %s %s" % (report_counts(dat), report_counts(txt), e1 + e2))
rc, text, err = tc_text("tcrec")
with open(path("tcrec", "report.txt"), "w") as f:
    f.write(text)
rc1, dat, e1 = run([SM, "report", "--top", "0", path("tcrec", "trace.dat")])
rc2, txt, e2 = run([SM, "report", "--top", "0", "--trace", path("tcrec", "report.txt"), "--map",
                    path("tcrec", "stack_map_bin"), "--no-kallsyms"])
check("tcrec: report on trace-cmd's trace.dat == report on trace-cmd report text",
      rc == 0 and rc1 == 0 and rc2 == 0 and report_counts(dat) == report_counts(txt),
      "dat: %s / text: %s %s" % (report_counts(dat), report_counts(txt), e1 + e2))

# 3b. stackmap export on a trace.dat == on the text of the same run (record directories with
# one of the two); off-CPU weights only to the microsecond the text shows
def export(case, args, which):
    d = os.path.join(SHARE, "export-" + which, case)
    os.makedirs(d, exist_ok=True)
    for n in ("stack_map_bin", "kallsyms", which):
        if not os.path.exists(os.path.join(d, n)):
            os.symlink(path(case, n), os.path.join(d, n))
    rc, out, err = run([SM, "export"] + args + [d])
    return rc, out, err


for case in ("flight", "wrap"):
    for args in (["--format", "folded"], ["--format", "folded", "--by", "comm"],
                 ["--format", "folded", "--by", "pid"]):
        r1 = export(case, args, "trace.dat")
        r2 = export(case, args, "trace")
        check("%s: export %s from trace.dat == from the text" % (case, " ".join(args[1:])),
              r1[0] == 0 and r2[0] == 0 and r1[1] == r2[1] and r1[1],
              "rc %d/%d %s %s" % (r1[0], r2[0], r1[2][-200:], r2[2][-200:]))
    r1 = export(case, ["--format", "folded", "--weight", "offcpu"], "trace.dat")
    r2 = export(case, ["--format", "folded", "--weight", "offcpu"], "trace")
    a = dict(l.rsplit(" ", 1) for l in r1[1].splitlines())
    b = dict(l.rsplit(" ", 1) for l in r2[1].splitlines())
    close = a.keys() == b.keys() and all(abs(int(a[k]) - int(b[k])) <= 1000 * 64 for k in a)
    check("%s: export --weight offcpu from trace.dat == from the text (to the microsecond)" % case,
          r1[0] == 0 and r2[0] == 0 and a and close, "%d vs %d paths" % (len(a), len(b)))

# 4. wrapped buffer: it did wrap, and every stack goes to an event of its own CPU
st = cpu_stats("wrap")
check("wrap: the ring buffer wrapped (overrun > 0)", sum(s.get("overrun", 0) for s in st) > 0,
      "overrun 0: make the workload bigger")
rc, text, err = tc_text("wrap")
last, expect = {}, {}
for l in text.splitlines():
    m = re.match(r"^\s*\S.*?\[(\d+)\]\s+[\d.]+:\s+(\S+):", l)
    if not m:
        continue
    cpu, name = int(m.group(1)), m.group(2)
    if name in ("kernel_stack_id", "kernel_stack"):
        owner = last.get(cpu, "(no event)")
        expect[owner] = expect.get(owner, 0) + 1
    elif name != "user_stack":
        last[cpu] = name
rc1, dat, e1 = run([SM, "report", "--top", "0", path("wrap", "trace.dat")])
got = event_stacks(dat)
check("wrap: stacks per event == own-CPU attribution computed from trace-cmd report",
      rc1 == 0 and got == expect and got, "stackmap %s, trace-cmd per CPU %s" % (got, expect))

# 5. streaming conservation: on disk + lost reported == written by the kernel
st = cpu_stats("stream")
rc, dat, err = run([SM, "report", "--top", "0", path("stream", "trace.dat")])
m = re.search(r"^# (\d+) events.*\n# (\d+) stack references", dat, re.M)
disk = int(m.group(1)) + int(m.group(2)) if m else -1
m = re.search(r"^== streaming.*?kernel counters \(per_cpu/\*/stats\): (\d+) events read, (\d+) lost",
              guest_log, re.S | re.M)
reported_read, reported_lost = (int(m.group(1)), int(m.group(2))) if m else (-1, -1)
written = sum(s.get("read events", 0) + s.get("overrun", 0) + s.get("entries", 0) +
              s.get("dropped events", 0) + s.get("commit overrun", 0) for s in st)
m = re.search(r"^== streaming.*?trace\.dat \(\d+ bytes, (\d+) pages", guest_log, re.S | re.M)
pages = int(m.group(1)) if m else 0
buf_pages = 2 * 32 * 1024 // 4096
print("      stream: %d events on disk + %d lost reported = %d; kernel wrote %d "
      "(read %d, overrun+dropped %d, left %d); %d pages on disk, buffer %d pages" %
      (disk, reported_lost, disk + reported_lost, written,
       sum(s.get("read events", 0) for s in st),
       sum(s.get("overrun", 0) + s.get("dropped events", 0) + s.get("commit overrun", 0)
           for s in st), sum(s.get("entries", 0) for s in st), pages, buf_pages))
check("stream: the workload wrote several times the buffer (%d pages vs %d)" % (pages, buf_pages),
      pages >= 3 * buf_pages, "too few pages")
check("stream: events on disk + lost reported == events the kernel wrote",
      disk >= 0 and disk + reported_lost == written and disk == reported_read,
      "disk %d + lost %d != written %d (read reported %d)" %
      (disk, reported_lost, written, reported_read))

# 7. As a user records with definitions: small buffers, the map switched every 50 ms while
# recording, no stack_map_bin beside the trace.dat (stackmap record's holds the map of its
# end, trace-cmd's none). stackmap report on the trace.dat alone resolves every id, or says
# how many it cannot and why; and every id event of trace-cmd's instance pa paired with the
# same event in instance pb has, through plugin_stackmap, the frames pb recorded in full (a
# wrong stack fails; an id whose definition was lost, or that the plugin, reading in time
# order, meets before its definition prints no frames and is only counted).
def report_alone(case, args=()):
    d = os.path.join(SHARE, "alone", case)
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, "trace.dat")
    if not os.path.exists(dst):
        os.symlink(path(case, "trace.dat"), dst)
    return run([SM, "report", "--top", "0"] + list(args) + [dst])


for case, args in (("tcpairs", ["--buffer", "pa"]), ("smdefs", [])):
    m = re.search(r"^== %s.*?\n(?:.*\n)*?.*?switches:\s+(\d+)" %
                  ("trace-cmd record, pa" if case == "tcpairs" else "stackmap record --defs"),
                  guest_log, re.M)
    switches = int(m.group(1)) if m else -1
    check("%s: the map switched while recording (%d switches)" % (case, switches),
          switches >= 5, "switches %d" % switches)
    rc, out, err = report_alone(case, args)
    m = re.search(r"^# stacks: (\d+) ids resolved from definitions, (\d+) from stack_map_bin, "
                  r"(\d+) unresolved", out, re.M)
    print("      %s alone: %s" % (case, m.group(0) if m else out[:200]))
    # every unresolved id counted, and why: no definition, lost events (when there were)
    named = m and (int(m.group(3)) == 0 or
                   (re.search(r"stack references to %s ids have no definition in the" %
                              m.group(3), err) and
                    ("lost at" not in out or "most likely among the events the kernel lost" in err)))
    check("%s: report on the trace.dat alone resolves every id, or names the unresolved" % case,
          rc == 0 and m and int(m.group(1)) > 0 and named and
          (case != "tcpairs" or int(m.group(2)) == 0),
          "rc %d %s %s" % (rc, out[:200], err[-300:]))


def buffer_events(text):
    """{buffer: [{key, ts, frames, id}]}: each event of trace-cmd report text with the stack
    event that follows it on its CPU (frames: the addresses, None when it has no stack event).
    A line is "BUFFER: event", but the line after "BUFFER: CPU:N [K EVENTS DROPPED]" has no
    buffer name: it is that buffer's."""
    evs, last, cur, buf = {}, {}, None, None
    for l in text.splitlines():
        m = re.match(r"^(?:(\w+):)?\s+(.*?)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$", l)
        f = l.strip()
        if not m:
            md = re.match(r"^(\w+): CPU:(\d+) \[", l)
            if md:
                # events lost before the next one: the last event may have lost its stack
                buf = md.group(1)
                last.pop((buf, "%03d" % int(md.group(2))), None)
            if f.startswith("=> ") and cur is not None:
                ma = re.search(r"\(([0-9a-f]+)\)$", f)
                cur.append(ma.group(1) if ma else f[3:])
            else:
                cur = None
            continue
        if m.group(1):
            buf = m.group(1)
        task, cpu, ts, name, rest = m.groups()[1:]
        cur = None
        if name in ("kernel_stack", "kernel_stack_id"):
            owner = last.pop((buf, cpu), None)
            if owner is not None:
                owner["frames"] = cur = []
                mi = re.match(r"<stack_id (\d+)>", rest)
                owner["id"] = int(mi.group(1)) if mi else None
        elif name != "kernel_stack_def":
            e = {"key": "%s %s: %s" % (task, name, rest), "ts": float(ts), "frames": None,
                 "id": None}
            evs.setdefault(buf, []).append(e)
            last[(buf, cpu)] = e
    return evs


def nearest(e, cands):
    return min(cands, key=lambda c: abs(c["ts"] - e["ts"])) if cands else None


_tc_events = {}


def pairs_check(case, ba, bb, min_ids, opts=()):
    """Every id event of buffer ba paired with the same event in buffer bb has, through
    plugin_stackmap (trace-cmd report options opts), the frames bb recorded in full."""
    rc, text, err = tc_text(case, PLUGIN_DIR, opts)
    key = (case, tuple(opts))
    if key not in _tc_events:
        _tc_events[key] = buffer_events(text) if rc == 0 else {}
    evs = _tc_events[key]
    # Both instances' probes of one event run one after the other: the same text, time
    # stamps microseconds apart. An address allocated again by the same task at the same
    # call site gives the same text later, and either instance may have lost either event
    # (small buffers), so an event pairs with the nearest event of the same text in the
    # other instance only when each is the other's nearest and they are less than 0.5 ms
    # apart.
    by_key = {}
    for b in (ba, bb):
        for e in evs.get(b, []):
            by_key.setdefault(e["key"], ([], []))[b == bb].append(e)
    pairs = []
    for k, (la, lb) in by_key.items():
        for a in la:
            b = nearest(a, lb)
            if b is not None and nearest(b, la) is a and abs(a["ts"] - b["ts"]) < 0.0005:
                pairs.append((k, a, b))
    paired = ids = unresolved = 0
    wrong = []
    for k, a, b in pairs:
        if a["frames"] is None or b["frames"] is None:
            continue
        paired += 1
        if a["id"] is not None:
            ids += 1
            if not a["frames"]:
                unresolved += 1
                continue
        if a["frames"] != b["frames"]:
            wrong.append(k)
    print("      %s: %d events in %s, %d in %s; %d paired, %d of them ids, %d printed without "
          "frames (definition lost, or not met yet in time order)" %
          (case, len(evs.get(ba, [])), ba, len(evs.get(bb, [])), bb, paired, ids, unresolved))
    check("%s: %s's ids paired with %s's full stacks, no wrong stack (%d ids)" %
          (case, ba, bb, ids),
          rc == 0 and ids - unresolved >= min_ids and not wrong,
          "rc %d, %d ids, %d without frames, %d wrong, e.g. %s" %
          (rc, ids, unresolved, len(wrong), wrong[:2]))


pairs_check("tcpairs", "pa", "pb", 500)
# pc's ids name other stacks than pa's (its map also holds scheduler stacks): the plugin keeps
# each buffer's definitions apart
pairs_check("tcpairs", "pc", "pb", 500)

# 8. As a flight recorder (trace-cmd start, stop, extract), overwrite on: the definitions of
# ids the buffer still holds can be overwritten, so the stack_map_bin saved after tracing
# stopped and before extract read the buffers resolves every id (the rst's table, "overwrite
# on"); without it, report names the ids it cannot resolve; the plugin gives no wrong stack.
rc, out, err = run([SM, "report", "--top", "0", "--buffer", "fr", "--map",
                    path("tcflight", "fr.stack_map_bin"), path("tcflight", "trace.dat")])
m = re.search(r"^# stacks: (\d+) ids resolved from definitions, (\d+) from stack_map_bin, "
              r"(\d+) unresolved", out, re.M)
print("      tcflight with its stack_map_bin: %s" % (m.group(0) if m else out[:200]))
check("tcflight: the stack_map_bin saved after stop resolves every id of the extracted buffer",
      rc == 0 and m and int(m.group(1)) > 0 and int(m.group(3)) == 0,
      "rc %d %s %s" % (rc, out[:200], err[-300:]))
rc, out, err = report_alone("tcflight", ["--buffer", "fr"])
m = re.search(r"^# stacks: (\d+) ids resolved from definitions, (\d+) from stack_map_bin, "
              r"(\d+) unresolved", out, re.M)
print("      tcflight alone: %s" % (m.group(0) if m else out[:200]))
check("tcflight: report on the trace.dat alone names the ids whose definitions were overwritten",
      rc == 0 and m and (int(m.group(3)) == 0 or
                         re.search(r"stack references to %s ids have no definition" %
                                   m.group(3), err)),
      "rc %d %s %s" % (rc, out[:200], err[-300:]))
# (the instance's map, passed as the plugin's option: the one beside a trace.dat is the top
# level's)
pairs_check("tcflight", "fr", "fb", 100,
            ["-O", "stackmap:file=" + path("tcflight", "fr.stack_map_bin")])

# 6. KernelShark's library opens the files and shows resolved stacks through the plugin
if KSHARK:
    for case in ("flight", "tcrec"):
        rc, out, err = run([KSHARK, path(case, "trace.dat")], PLUGIN_DIR)
        m = re.search(r"entries (\d+) id_events (\d+) resolved (\d+)", out)
        check("%s: KernelShark loads every record and shows frames for every id event" % case,
              rc == 0 and m and int(m.group(2)) > 0 and m.group(2) == m.group(3),
              out.strip() + err[-200:])

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
