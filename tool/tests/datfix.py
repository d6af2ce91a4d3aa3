#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make the trace.dat test fixtures from a real recording (a one-off; the results are committed).

The commands read and write version 6 unless they say otherwise (trace-cmd convert
--file-version 6 turns a v7 file into one), with the buffers of ftrace instances (trace-cmd record -B NAME): the BUFFER option
(id 3: u64 offset of the instance's "flyrecord" table, then its NUL-terminated name) of each,
and at that offset the tag and one (offset, size) pair per CPU, as the top level's. Commands
that change records work on the top level's buffer unless they take a BUFFER argument.

datfix.py shrink IN.dat MAP OUT.dat PAGES [FIRST,FIRST...]
    Copy a version 6 trace.dat keeping PAGES pages of every CPU of every buffer (from page FIRST
    of that CPU, default 0) and only the kallsyms lines that cover the addresses of MAP (a
    stack_map_bin; "defs": the frames of the recording's kernel_stack_def records), so the
    fixture stays small.
datfix.py shrink7 IN.dat KALLSYMS.dat OUT.dat
    Copy a version 7 trace.dat as trace-cmd wrote it (its sections, compression and buffers
    unchanged) with its KALLSYMS section replaced by the kallsyms of KALLSYMS.dat (a file made
    by shrink from the same recording), uncompressed; the sections after it move back by a
    multiple of the page size and every offset that points past it is corrected.
datfix.py dupbuf IN.dat OUT.dat SRC DST
    Copy the pages of buffer SRC ("" is the top level) into buffer DST (a new instance, or ""
    to fill the top level), to make a recording where several buffers hold data.
datfix.py badbuf IN.dat OUT.dat NAME HOW
    Damage the description of buffer NAME: HOW is "tag" (its offset points one byte past its
    "flyrecord" tag) or "cpu" (its last CPU's data runs past the end of the file). Version 6
    or version 7 (v7: "tag" changes the id of its flyrecord section; options sections must be
    uncompressed, as trace-cmd writes them).
datfix.py replicate IN.dat OUT.dat COPIES
    Repeat every CPU's pages COPIES times, each copy shifted in time past the previous one (page
    timestamps), to make a large trace.dat for the report benchmark (tests/bench-report.sh).
datfix.py unknown IN.dat OUT.dat EVENT
    Give the format of EVENT an id that no record uses, so that its records become records of
    an unknown event (as when a recording lacks formats).
datfix.py missed IN.dat OUT.dat CPU PAGE
    Flag page PAGE of CPU with "events were lost before this page" (no count stored).
datfix.py badpage IN.dat OUT.dat CPU [BUFFER]
    Give the middle page of CPU (of the top level, or of BUFFER) a commit larger than a page,
    so that a reader fails there, after the records of the pages before it.
datfix.py dropdef IN.dat OUT.dat ID [BUFFER]
    Turn every kernel_stack_def record of stack_id ID (of the top level, or of BUFFER) into
    padding (a discarded event: readers
    skip it, the timestamps of the records after it stay), as if the buffer had lost it.
datfix.py defsize IN.dat OUT.dat ID SIZE
    Set the size field of the first kernel_stack_def record of stack_id ID to SIZE (signed),
    to make a definition that claims more frames than its record holds, or a bad count.
datfix.py kallsyms IN.dat MAP OUT
    Write the kallsyms lines of a version 6 trace.dat that cover the addresses of MAP (a
    stack_map_bin), as shrink keeps them: the kallsyms of another recording of the same boot.
datfix.py mapcut IN OUT MIN MAX
    Copy a little-endian stack_map_bin keeping only the records whose id is in MIN..MAX (as
    if the kernel had listed the map in use without the retired map, or the other way round).
datfix.py explode IN.dat DIR
    Write the parts of a version 6 trace.dat as the files of a tracefs tree: events/header_page,
    events/header_event, events/SYSTEM/EVENT/format, per_cpu/cpuN/trace_pipe_raw (the pages),
    per_cpu/cpuN/stats, printk_formats, saved_cmdlines (the fake tracefs of tests/run.sh).
"""
import os
import re
import struct
import sys


class Dat:
    def __init__(self, data):
        self.d, self.p = data, 0
        assert data[:10] == b"\x17\x08\x44tracing" and data[10:12] == b"6\0", "not a v6 file"
        self.p = 12
        self.endian, self.long_size = data[12], data[13]
        self.page_size = self.u(4, 14)
        self.p = 18
        self.parts = []  # (kind, meta, bytes)
        self.tag("header_page")
        self.parts.append(("header_page", None, self.block(8)))
        self.tag("header_event")
        self.parts.append(("header_event", None, self.block(8)))
        for _ in range(self.num(4)):
            self.parts.append(("format", "ftrace", self.block(8)))
        for _ in range(self.num(4)):
            sys_ = self.cstr()
            for _ in range(self.num(4)):
                self.parts.append(("format", sys_, self.block(8)))
        self.kallsyms = self.block(4)
        self.printk = self.block(4)
        self.cmdlines = self.block(8)
        self.ncpus = self.num(4)
        tag = self.d[self.p:self.p + 10]
        self.options = []  # (id, data) except BUFFER, in file order
        named = []  # (name, table offset) of the BUFFER options
        self.has_options = tag == b"options  \0"
        if self.has_options:
            self.p += 10
            while True:
                oid = self.num(2)
                if not oid:
                    break
                size = self.num(4)
                data = self.d[self.p:self.p + size]
                self.p += size
                if oid == 3:
                    named.append((data[8:data.index(b"\0", 8)].decode(),
                                  int.from_bytes(data[:8], "little")))
                else:
                    self.options.append((oid, data))
                if oid == 8:  # CPUCOUNT: trace-cmd reads every table with this count
                    self.ncpus = int.from_bytes(data[:4], "little")
            tag = self.d[self.p:self.p + 10]
        assert tag == b"flyrecord\0"
        self.p += 10
        self.cpus = self.table()
        # the buffers of the file: "" (the top level: self.cpus) first, then the instances
        self.buffers = [["", self.cpus]]
        for name, off in named:
            self.p = off
            assert self.d[off:off + 10] == b"flyrecord\0", "buffer %s: no flyrecord" % name
            self.p += 10
            self.buffers.append([name, self.table()])

    def table(self):
        cpus = []
        for _ in range(self.ncpus):
            off, size = self.num(8), self.num(8)
            cpus.append(self.d[off:off + size])
        return cpus

    def buffer(self, name):
        for b in self.buffers:
            if b[0] == name:
                return b
        sys.exit("no buffer %r" % name)

    def u(self, n, at):
        return int.from_bytes(self.d[at:at + n], "little")

    def num(self, n):
        v = self.u(n, self.p)
        self.p += n
        return v

    def block(self, n):
        size = self.num(n)
        b = self.d[self.p:self.p + size]
        self.p += size
        return b

    def cstr(self):
        e = self.d.index(b"\0", self.p)
        s = self.d[self.p:e].decode()
        self.p = e + 1
        return s

    def tag(self, name):
        assert self.cstr() == name


def write_v6(dat, out, cpus, kallsyms, named=None):
    """Write dat with the top level's pages cpus and the instances named [(name, cpus)]
    (default: those of dat), each instance's table and pages after the top level's."""
    def n(v, size):
        return v.to_bytes(size, "little")

    if named is None:
        named = dat.buffers[1:]
    b = bytearray(dat.d[:18])
    b += b"header_page\0" + n(len(dat.parts[0][2]), 8) + dat.parts[0][2]
    b += b"header_event\0" + n(len(dat.parts[1][2]), 8) + dat.parts[1][2]
    fmts = [p for p in dat.parts if p[0] == "format"]
    ft = [p for p in fmts if p[1] == "ftrace"]
    b += n(len(ft), 4) + b"".join(n(len(p[2]), 8) + p[2] for p in ft)
    systems = []
    for p in fmts:
        if p[1] != "ftrace" and p[1] not in systems:
            systems.append(p[1])
    b += n(len(systems), 4)
    for s in systems:
        evs = [p for p in fmts if p[1] == s]
        b += s.encode() + b"\0" + n(len(evs), 4) + b"".join(n(len(p[2]), 8) + p[2] for p in evs)
    b += n(len(kallsyms), 4) + kallsyms
    b += n(len(dat.printk), 4) + dat.printk
    b += n(len(dat.cmdlines), 8) + dat.cmdlines
    b += n(len(cpus), 4)
    bufopt = []  # where each BUFFER option's offset goes
    if dat.has_options or named:
        b += b"options  \0"
        for oid, data in dat.options:
            b += n(oid, 2) + n(len(data), 4) + data
        for name, _ in named:
            data = n(0, 8) + name.encode() + b"\0"
            b += n(3, 2) + n(len(data), 4)
            bufopt.append(len(b))
            b += data
        b += n(0, 2)
    ps = dat.page_size

    def flyrecord(pages):
        b.extend(b"flyrecord\0")
        off = (len(b) + 16 * len(pages) + ps - 1) // ps * ps
        for c in pages:
            b.extend(n(off, 8) + n(len(c), 8))
            off = (off + len(c) + ps - 1) // ps * ps
        for c in pages:
            b.extend(b"\0" * ((-len(b)) % ps) + c)

    flyrecord(cpus)
    for at, (name, pages) in zip(bufopt, named):
        b[at:at + 8] = n(len(b), 8)
        flyrecord(pages)
    open(out, "wb").write(b)


def map_addrs(path):
    d = open(path, "rb").read()
    nr = struct.unpack_from("<I", d, 8)[0]
    p, addrs = 16, set()
    for _ in range(nr):
        sid, depth, ref, res = struct.unpack_from("<IIII", d, p)
        addrs.update(struct.unpack_from("<%dQ" % depth, d, p + 16))
        p += 16 + 8 * depth
    return addrs


def def_addrs(dat):
    """The frames of every kernel_stack_def record of every buffer."""
    evid, off = def_format(dat)
    addrs, ps, ls = set(), dat.page_size, dat.long_size
    for _, cpus in dat.buffers:
        for c in cpus:
            for po in range(0, len(c), ps):
                page = c[po:po + ps]
                for h, d, n in records(page, ls):
                    if int.from_bytes(page[d:d + 2], "little") != evid:
                        continue
                    size = int.from_bytes(page[d + off["size"]:d + off["size"] + 4], "little",
                                          signed=True)
                    at = d + off["caller"]
                    for i in range(max(0, min(size, 64))):
                        addrs.add(int.from_bytes(page[at + i * ls:at + (i + 1) * ls], "little"))
    return addrs


def cover(kallsyms, addrs):
    """The lines of kallsyms (text symbols) that cover addrs, each with the symbol after it."""
    syms = []
    for l in kallsyms.decode().splitlines():
        f = l.split()
        if len(f) >= 3 and f[1] in "tTwW":
            syms.append((int(f[0], 16), l))
    syms.sort()
    keep = set()
    j = 0
    for a in sorted(addrs):
        while j + 1 < len(syms) and syms[j + 1][0] <= a:
            j += 1
        if syms and syms[j][0] <= a:
            keep.add(j)
            if j + 1 < len(syms):
                keep.add(j + 1)  # bounds the covering symbol's size
    return "".join(syms[i][1] + "\n" for i in sorted(keep)).encode()


def shrink(inp, mapf, out, pages, first=None):
    dat = Dat(open(inp, "rb").read())
    ks = cover(dat.kallsyms, def_addrs(dat) if mapf == "defs" else map_addrs(mapf))
    first = first or [0] * len(dat.cpus)
    ps = dat.page_size

    def cut(cpus):
        return [c[f * ps:(f + pages) * ps] for c, f in zip(cpus, first)]

    write_v6(dat, out, cut(dat.cpus), ks, [(nm, cut(c)) for nm, c in dat.buffers[1:]])


def kallsyms(inp, mapf, out):
    open(out, "wb").write(cover(Dat(open(inp, "rb").read()).kallsyms, map_addrs(mapf)))


def mapcut(inp, out, lo, hi):
    d = open(inp, "rb").read()
    magic, version, nr, res = struct.unpack_from("<IIII", d, 0)
    assert magic == 0x46534D42 and version == 1, "not a little-endian stack_map_bin"
    p, recs = 16, []
    for _ in range(nr):
        sid, depth = struct.unpack_from("<II", d, p)
        if lo <= sid <= hi:
            recs.append(d[p:p + 16 + 8 * depth])
        p += 16 + 8 * depth
    open(out, "wb").write(struct.pack("<IIII", magic, version, len(recs), res) + b"".join(recs))


def dupbuf(inp, out, src, dst):
    dat = Dat(open(inp, "rb").read())
    pages = list(dat.buffer(src)[1])
    if dst == "":
        write_v6(dat, out, pages, dat.kallsyms)
        return
    named = [(nm, c) for nm, c in dat.buffers[1:] if nm != dst] + [(dst, pages)]
    write_v6(dat, out, dat.cpus, dat.kallsyms, named)


class Dat7:
    """The options of a version 7 file (uncompressed options sections only)."""

    def __init__(self, data):
        self.d = data
        assert data[:10] == b"\x17\x08\x44tracing" and data[10:12] == b"7\0", "not a v7 file"
        p = data.index(b"\0", data.index(b"\0", 18) + 1) + 1  # compression name, version
        off = int.from_bytes(data[p:p + 8], "little")
        self.opts = []  # (id, data offset, size)
        while off:
            sid, flags = struct.unpack_from("<HH", data, off)
            assert sid == 0 and not flags & 1, "options section %d: id %d flags %d" % (
                off, sid, flags)
            p, off = off + 16, 0
            while True:
                oid, size = struct.unpack_from("<HI", data, p)
                self.opts.append((oid, p + 6, size))
                if oid == 0:
                    off = int.from_bytes(data[p + 6:p + 14], "little")
                    break
                p += 6 + size

    def buffer(self, name):
        """(option data offset, flyrecord offset, [(cpu entry offset, offset, size)])"""
        for oid, at, size in self.opts:
            if oid != 3:
                continue
            e = self.d.index(b"\0", at + 8)
            if self.d[at + 8:e].decode() != name:
                continue
            p = self.d.index(b"\0", e + 1) + 1 + 4  # clock, page size
            ncpu = int.from_bytes(self.d[p:p + 4], "little")
            cpus = [(p + 4 + 20 * i,) + struct.unpack_from("<QQ", self.d, p + 8 + 20 * i)
                    for i in range(ncpu)]
            return at, int.from_bytes(self.d[at:at + 8], "little"), cpus
        sys.exit("no buffer %r" % name)


def shrink7(inp, ksfile, out):
    d = bytearray(open(inp, "rb").read())
    dat = Dat7(bytes(d))
    ks = Dat(open(ksfile, "rb").read()).kallsyms
    ps = int.from_bytes(d[14:18], "little")
    at = [a for oid, a, size in dat.opts if oid == 19][0]
    k = int.from_bytes(d[at:at + 8], "little")
    sid, flags, strid, size = struct.unpack_from("<HHIQ", d, k)
    assert sid == 19
    end = k + 16 + size
    body = struct.pack("<I", len(ks)) + ks
    body += b"\0" * ((end - (k + 16 + len(body))) % ps)  # move back by whole pages
    delta = end - (k + 16 + len(body))
    assert delta > 0 and delta % ps == 0

    def fix(pos):  # an 8-byte file offset at pos
        v = int.from_bytes(d[pos:pos + 8], "little")
        if v >= end:
            struct.pack_into("<Q", d, pos, v - delta)

    p = d.index(b"\0", d.index(b"\0", 18) + 1) + 1
    fix(p)
    for oid, a, size in dat.opts:
        if oid == 0 or 16 <= oid <= 22:
            fix(a)
        elif oid == 3:
            fix(a)
            e = d.index(b"\0", d.index(b"\0", a + 8) + 1) + 1 + 4
            for i in range(int.from_bytes(d[e:e + 4], "little")):
                fix(e + 4 + 20 * i + 4)
    new = d[:k] + struct.pack("<HHIQ", 19, 0, strid, len(body)) + body + d[end:]
    open(out, "wb").write(new)


def badbuf(inp, out, name, how):
    d = bytearray(open(inp, "rb").read())
    if d[10:12] == b"7\0":
        at, fly, cpus = Dat7(bytes(d)).buffer(name)
        if how == "tag":
            struct.pack_into("<H", d, fly, 0x7777)
        else:
            struct.pack_into("<Q", d, cpus[-1][0] + 12, len(d))
        open(out, "wb").write(d)
        return
    dat = Dat(bytes(d))
    b = dat.buffer(name)
    at = d.index(b"\x03\x00" + struct.pack("<I", 8 + len(name) + 1)) + 6
    assert d[at + 8:at + 8 + len(name) + 1] == name.encode() + b"\0"
    off = int.from_bytes(d[at:at + 8], "little")
    if how == "tag":
        struct.pack_into("<Q", d, at, off + 1)
    else:
        struct.pack_into("<Q", d, off + 10 + 16 * (len(b[1]) - 1) + 8, len(d))
    open(out, "wb").write(d)


def explode(inp, out):
    dat = Dat(open(inp, "rb").read())

    def put(rel, data):
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "wb").write(data)

    put("events/header_page", dat.parts[0][2])
    put("events/header_event", dat.parts[1][2])
    for kind, sys_, text in dat.parts[2:]:
        name = re.search(rb"^name: (\S+)", text, re.M).group(1).decode()
        put("events/%s/%s/format" % (sys_, name), text)
    for i, c in enumerate(dat.cpus):
        put("per_cpu/cpu%d/trace_pipe_raw" % i, c)
        put("per_cpu/cpu%d/stats" % i,
            b"entries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
            b"dropped events: 0\nread events: %d\n" % (len(c) // dat.page_size))
    put("printk_formats", dat.printk)
    put("saved_cmdlines", dat.cmdlines)


def replicate(inp, out, copies):
    dat = Dat(open(inp, "rb").read())
    ps = dat.page_size
    stamps = [struct.unpack_from("<Q", c, o)[0] for c in dat.cpus for o in range(0, len(c), ps)]
    span = max(stamps) - min(stamps) + 1000000
    cpus = []
    for c in dat.cpus:
        big = bytearray(c * copies)
        for k in range(copies):
            for o in range(0, len(c), ps):
                at = k * len(c) + o
                ts = struct.unpack_from("<Q", big, at)[0]
                struct.pack_into("<Q", big, at, ts + k * span)
        cpus.append(bytes(big))
    write_v6(dat, out, cpus, dat.kallsyms)


def unknown(inp, out, event):
    dat = Dat(open(inp, "rb").read())
    for i, (kind, sys_, text) in enumerate(dat.parts):
        if kind == "format" and re.search(rb"^name: %s$" % event.encode(), text, re.M):
            text = re.sub(rb"^ID: \d+$", b"ID: 65000", text, flags=re.M)
            dat.parts[i] = (kind, sys_, text)
    write_v6(dat, out, dat.cpus, dat.kallsyms)


def missed(inp, out, cpu, page):
    dat = Dat(open(inp, "rb").read())
    ps = dat.page_size
    c = bytearray(dat.cpus[cpu])
    commit = struct.unpack_from("<Q", c, page * ps + 8)[0]
    struct.pack_into("<Q", c, page * ps + 8, commit | (1 << 31))
    dat.cpus[cpu] = bytes(c)
    write_v6(dat, out, dat.cpus, dat.kallsyms)


def badpage(inp, out, cpu, name=""):
    dat = Dat(open(inp, "rb").read())
    ps = dat.page_size
    cpus = dat.buffer(name)[1]
    c = bytearray(cpus[cpu])
    page = len(c) // ps // 2
    struct.pack_into("<Q", c, page * ps + 8, ps)
    cpus[cpu] = bytes(c)
    write_v6(dat, out, dat.cpus, dat.kallsyms)


def records(page, long_size):
    """The records of one ring-buffer page: (header offset, payload offset, payload length)."""
    commit = int.from_bytes(page[8:8 + long_size], "little") & ((1 << 27) - 1)
    p, end = 8 + long_size, 8 + long_size + commit
    while p < end:
        h = int.from_bytes(page[p:p + 4], "little")
        tl = h & 31
        if tl == 29:  # padding: array[0] bytes after the header
            p += 4 + int.from_bytes(page[p + 4:p + 8], "little")
        elif tl in (30, 31):  # time extend, time stamp
            p += 8
        elif tl == 0:
            n = (int.from_bytes(page[p + 4:p + 8], "little") - 4 + 3) & ~3
            yield p, p + 8, n
            p += 8 + n
        else:
            yield p, p + 4, tl * 4
            p += 4 + tl * 4


def def_format(dat):
    """ID and the field offsets of ftrace/kernel_stack_def."""
    for kind, sys_, text in dat.parts:
        if kind == "format" and re.search(rb"^name: kernel_stack_def$", text, re.M):
            off = {m.group(1).decode(): int(m.group(2)) for m in re.finditer(
                rb"field:[^;]*?(\w+)(?:\[\d*\])?;\toffset:(\d+);", text)}
            return int(re.search(rb"^ID: (\d+)$", text, re.M).group(1)), off
    sys.exit("no kernel_stack_def format")


def each_def(dat, sid, cpus=None):
    """(cpu, page offset, header, payload, length) of every definition of stack_id sid."""
    evid, off = def_format(dat)
    ps = dat.page_size
    for cpu, c in enumerate(dat.cpus if cpus is None else cpus):
        for po in range(0, len(c), ps):
            page = c[po:po + ps]
            for h, d, n in records(page, dat.long_size):
                if (int.from_bytes(page[d:d + 2], "little") == evid and
                        int.from_bytes(page[d + off["stack_id"]:d + off["stack_id"] + 4],
                                       "little", signed=True) == sid):
                    yield cpu, po, h, d, n, off


def dropdef(inp, out, sid, name=""):
    dat = Dat(open(inp, "rb").read())
    buf = dat.buffer(name)
    cpus = [bytearray(c) for c in buf[1]]
    found = 0
    for cpu, po, h, d, n, off in list(each_def(dat, sid, buf[1])):
        c = cpus[cpu]
        hdr = int.from_bytes(c[po + h:po + h + 4], "little")
        total = d - h + n
        struct.pack_into("<II", c, po + h, (hdr & ~31) | 29, total - 4)
        found += 1
    assert found, "no definition of stack_id %d" % sid
    buf[1][:] = [bytes(c) for c in cpus]
    write_v6(dat, out, dat.cpus, dat.kallsyms)


def defsize(inp, out, sid, size):
    dat = Dat(open(inp, "rb").read())
    cpus = [bytearray(c) for c in dat.cpus]
    cpu, po, h, d, n, off = next(each_def(dat, sid))
    struct.pack_into("<i", cpus[cpu], po + d + off["size"], size)
    write_v6(dat, out, [bytes(c) for c in cpus], dat.kallsyms)


if __name__ == "__main__":
    if sys.argv[1] == "shrink":
        shrink(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
               [int(x) for x in sys.argv[6].split(",")] if len(sys.argv) > 6 else None)
    elif sys.argv[1] == "replicate":
        replicate(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "unknown":
        unknown(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "missed":
        missed(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif sys.argv[1] == "badpage":
        badpage(sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:6])
    elif sys.argv[1] == "shrink7":
        shrink7(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "dupbuf":
        dupbuf(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif sys.argv[1] == "badbuf":
        badbuf(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif sys.argv[1] == "dropdef":
        dropdef(sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:6])
    elif sys.argv[1] == "defsize":
        defsize(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif sys.argv[1] == "kallsyms":
        kallsyms(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "mapcut":
        mapcut(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif sys.argv[1] == "explode":
        explode(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
