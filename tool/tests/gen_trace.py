#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gen_trace.py MAP N OUT [SEED]: write a tracefs `trace` text with N events that reference the
stack ids of stack_map_bin MAP, for the export benchmark. 4 CPUs, 200 tasks; 70%
kmem_cache_alloc, 20% sched_switch (prev is the task running on that CPU, next a random
task), 10% sys_enter_openat; every event is followed by its <stack_id N> line; ids are drawn
with a skewed distribution; timestamps advance 1-3 us per event."""
import random
import struct
import sys

mp, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
data = open(mp, "rb").read()
magic, ver, nr, _ = struct.unpack_from("<IIII", data, 0)
ids, off = [], 16
for _ in range(nr):
    sid, depth, _, _ = struct.unpack_from("<IIII", data, off)
    ids.append(sid)
    off += 16 + 8 * depth
weights = [1.0 / (i + 1) ** 1.1 for i in range(len(ids))]
pick = rng.choices(ids, weights, k=65536)
tasks = [("task%d" % i, 1000 + i) for i in range(200)]
cur = [tasks[i] for i in range(4)]
ts = 100_000_000  # microseconds
with open(out, "w", buffering=1 << 20) as f:
    f.write("# tracer: nop\n#\n")
    for i in range(n):
        cpu = rng.randrange(4)
        ts += rng.randrange(1, 4)
        comm, pid = cur[cpu]
        head = "%16s-%-7d [%03d] d..2. %5d.%06d: " % (comm, pid, cpu, ts // 1_000_000, ts % 1_000_000)
        r = rng.random()
        if r < 0.7:
            f.write(head + "kmem_cache_alloc: call_site=x ptr=0000000012345678 bytes_req=64 bytes_alloc=64\n")
        elif r < 0.9:
            nc, np_ = tasks[rng.randrange(len(tasks))]
            f.write(head + "sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=S ==> "
                    "next_comm=%s next_pid=%d next_prio=120\n" % (comm, pid, nc, np_))
            cur[cpu] = (nc, np_)
        else:
            f.write(head + "sys_openat(dfd: ffffff9c, filename: 7ffd1234, flags: 0, mode: 0)\n")
        f.write(head + "<stack_id %d>\n" % pick[i & 65535])
