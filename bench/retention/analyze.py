#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Measure one recording made by guest-run.sh (or by `stackmap record` plus saved stats).

    analyze.py RUNDIR [--json]

RUNDIR holds: trace (tracefs text), stats.cpuN (per_cpu/cpuN/stats), optionally info,
workload.log, stack_map_stat. Prints key=value lines (or one JSON object with --json):

  events_retained   event lines in the trace (not counting <stack_id>/<stack trace> entries)
  entries, overrun, bytes   sums over CPUs of the per-CPU stats counters (ring-buffer entries:
                    an event and its stack are two entries)
  events_written    entries + overrun, halved when every event carries a stack entry
  bytes_per_event   bytes / events_retained
  id_entries, full_stacks   <stack_id N> lines and <stack trace> blocks in the trace
  definitions, definition_bytes   <stack_def N gen G switch S> blocks (stack_map_defs) and their
                    ring-buffer bytes (a full stack entry plus 8 bytes of id and generation)
  mean_depth_full   mean frames per <stack trace> block
  span_s            first to last timestamp of the whole trace
  window_s          last timestamp minus the latest per-CPU first timestamp: the time for
                    which the trace holds every CPU's events
  elapsed_s         the workload's own wall time
  rounds_covered    workload rounds that started inside the window (needs RUNDIR/rounds, written
                    with the trace clock "mono"): how much of the workload the buffer still holds,
                    independent of how fast the emulated guest ran
"""
import json
import re
import sys
from pathlib import Path

LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([0-9]+\.[0-9]+):\s+(.*)$")


def stack_entry_bytes(depth):
    """Ring-buffer bytes of a full stack entry (6.12 struct stack_entry): 8 bytes of trace_entry,
    int size plus 4 bytes of padding, 8 per frame; the ring buffer adds a 4-byte header, and 4
    more for the length word when the payload is over 112 bytes (more than 12 frames)."""
    payload = 16 + 8 * depth
    return payload + 4 + (4 if payload > 112 else 0)


# A stack id entry: trace_entry (8) + int stack_id (4) + 4-byte ring-buffer header.
ID_ENTRY_BYTES = 16


def parse_trace(path):
    r = {
        "events_retained": 0, "id_entries": 0, "full_stacks": 0, "frames_full": 0,
        "by_event": {}, "first": {}, "last": {}, "written_header": None, "stack_bytes": 0,
        "definitions": 0, "definition_bytes": 0,
    }
    in_stack = False
    in_def = False
    depth = 0

    def close_block():
        # Ring-buffer size of a full stack entry of this depth (see stack_entry_bytes()); a
        # definition holds 8 bytes more (its id and generation).
        if in_def:
            r["definition_bytes"] += stack_entry_bytes(depth) + 8
        else:
            r["stack_bytes"] += stack_entry_bytes(depth)

    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                m = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", line)
                if m:
                    r["written_header"] = (int(m.group(1)), int(m.group(2)))
                continue
            if line.startswith(" => "):
                if in_stack:
                    r["frames_full"] += 0 if in_def else 1
                    depth += 1
                continue
            m = LINE.match(line)
            if not m:
                continue
            cpu, ts, rest = int(m.group(3)), float(m.group(4)), m.group(5)
            r["first"].setdefault(cpu, ts)
            r["last"][cpu] = ts
            if in_stack:
                close_block()
            in_stack = in_def = False
            if rest.startswith("<stack_id "):
                r["id_entries"] += 1
            elif rest.startswith("<stack_def "):
                r["definitions"] += 1
                in_stack = in_def = True
                depth = 0
            elif rest.startswith("<stack trace>"):
                r["full_stacks"] += 1
                in_stack = True
                depth = 0
            elif rest.startswith("<user stack trace>"):
                pass
            else:
                r["events_retained"] += 1
                name = re.match(r"[^:( ]*", rest).group(0) or "?"
                r["by_event"][name] = r["by_event"].get(name, 0) + 1
    if in_stack:
        close_block()
    return r


def parse_kv(path):
    out = {}
    for line in Path(path).read_text().splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip()] = v.strip()
    return out


def analyze(d):
    d = Path(d)
    t = parse_trace(d / "trace")
    res = {"dir": str(d)}
    info = {}
    if (d / "info").exists():
        for line in (d / "info").read_text().splitlines():
            k, _, v = line.partition(" ")
            info[k] = v
    res["mode"] = info.get("mode", "ids")
    res["buffer_kb"] = int(info["buffer_kb"]) if "buffer_kb" in info else None
    entries = overrun = nbytes = 0
    for s in sorted(d.glob("stats.cpu*")):
        kv = parse_kv(s)
        entries += int(kv["entries"])
        overrun += int(kv["overrun"])
        nbytes += int(kv["bytes"])
    res.update(entries=entries, overrun=overrun, bytes=nbytes)
    stacked = t["id_entries"] + t["full_stacks"] > 0
    # Definitions are entries too (those overwritten are not known: counted as events).
    written = entries + overrun - t["definitions"]
    res["events_written"] = written // 2 if stacked else written
    res["definitions"] = t["definitions"]
    res["definition_bytes"] = t["definition_bytes"]
    res["events_retained"] = t["events_retained"]
    res["by_event"] = t["by_event"]
    res["bytes_per_event"] = round(nbytes / t["events_retained"], 2) if t["events_retained"] else 0
    res["id_entries"] = t["id_entries"]
    res["full_stacks"] = t["full_stacks"]
    res["mean_depth_full"] = round(t["frames_full"] / t["full_stacks"], 3) if t["full_stacks"] else 0
    # Mean computed size of the stack entries retained (full blocks at 16 + 8 * depth + header,
    # id entries at 16 bytes).
    nstk = t["full_stacks"] + t["id_entries"]
    res["stack_entry_bytes"] = (
        round((t["stack_bytes"] + ID_ENTRY_BYTES * t["id_entries"]) / nstk, 2) if nstk else 0)
    res["full_stack_entry_bytes"] = (
        round(t["stack_bytes"] / t["full_stacks"], 2) if t["full_stacks"] else 0)
    if t["first"]:
        first, last = min(t["first"].values()), max(t["last"].values())
        res["span_s"] = round(last - first, 6)
        res["window_s"] = round(last - max(t["first"].values()), 6)
    else:
        res["span_s"] = res["window_s"] = 0
    res["written_header"] = t["written_header"]
    res["rounds_covered"] = None
    if (d / "rounds").exists() and t["first"]:
        starts = [float(x.split()[0]) for x in (d / "rounds").read_text().split("\n")
                  if x and not x.endswith("end")]
        wstart = max(t["first"].values())
        res["rounds_covered"] = sum(1 for x in starts if x >= wstart)
    wl = (d / "workload.log")
    m = re.search(r"elapsed_ns (\d+)", wl.read_text()) if wl.exists() else None
    res["elapsed_s"] = int(m.group(1)) / 1e9 if m else None
    if (d / "stack_map_stat").exists():
        kv = parse_kv(d / "stack_map_stat")
        res["map_entries"] = kv.get("entries")
        res["successes"] = int(kv.get("successes", "0"))
        res["drops"] = int(kv.get("drops", "0"))
        res["no_buffer"] = int(kv.get("no_buffer", "0"))
        res["too_deep"] = int(kv.get("too_deep", "0"))
        res["map_memory"] = int(kv.get("memory", "0 bytes").split()[0])
    return res


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    res = analyze(sys.argv[1])
    if "--json" in sys.argv[2:]:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k}={v}")


if __name__ == "__main__":
    main()
