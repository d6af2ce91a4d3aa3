#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side summary of scripts/demo.

    demo-summary.py DEMODIR STACKMAP_BINARY

DEMODIR/rec is the `stackmap record` output (trace, stack_map_bin, stack_map_stat, kallsyms)
plus stats.cpuN and workload.log saved by the demo; DEMODIR/full is the same workload recorded
with full stacks (guest-run.sh full). Writes DEMODIR/stacks.folded and DEMODIR/events.folded,
prints the summary and exits 1 if a consistency check fails.
"""
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analyze import ID_ENTRY_BYTES, analyze, stack_entry_bytes  # noqa: E402

LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([0-9]+\.[0-9]+):\s+(.*)$")


def n(x):
    return f"{x:,}"


def run(tool, *args):
    return subprocess.run([tool, *args], check=True, capture_output=True, text=True).stdout


def parse_dump(text):
    """stackmap dump text -> list of (id, ref, depth, [frames])."""
    stacks = []
    for line in text.splitlines():
        m = re.match(r"stack_id (\d+) \[ref (\d+), depth (\d+)\]", line)
        if m:
            stacks.append((int(m.group(1)), int(m.group(2)), int(m.group(3)), []))
        elif line.startswith("  [") and stacks:
            stacks[-1][3].append(line.split("] ", 1)[1])
    return stacks


def events_per_id(trace):
    """Attribute each <stack_id N> line to the last event line on the same CPU."""
    last, hits = {}, {}
    with open(trace, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            cpu, rest = m.group(3), m.group(5)
            if rest.startswith("<stack_id "):
                sid = int(rest[10:].rstrip(">\n "))
                ev = last.get(cpu, "(no event)")
                hits.setdefault(sid, {})
                hits[sid][ev] = hits[sid].get(ev, 0) + 1
            elif not rest.startswith("<"):
                last[cpu] = re.match(r"[^:( ]*", rest).group(0)
    return hits


def main():
    demo, tool = Path(sys.argv[1]), sys.argv[2]
    try:  # show paths relative to the current directory when they are below it
        demo = demo.resolve().relative_to(Path.cwd())
        tool = str(Path(tool).resolve().relative_to(Path.cwd()))
    except ValueError:
        pass
    rec, full = demo / "rec", demo / "full"
    ids = analyze(rec)
    fs = analyze(full)
    ks = ["--kallsyms", str(rec / "kallsyms")]
    stacks = parse_dump(run(tool, "dump", *ks, str(rec / "stack_map_bin")))
    (demo / "stacks.folded").write_text(
        run(tool, "dump", "--folded", *ks, str(rec / "stack_map_bin")))
    (demo / "events.folded").write_text(run(tool, "report", "-i", str(rec), "--folded"))
    wl = (rec / "workload.log").read_text().strip() if (rec / "workload.log").exists() else ""
    m = re.search(r"seed (\d+) rounds (\d+) elapsed_ns (\d+) execs (\d+) files (\d+) "
                  r"procreads (\d+) pipes (\d+)", wl)
    ok = True

    print()
    print(f"== stackmap demo: summary (recording in {rec})")
    if m:
        print(f"workload     seed {m.group(1)}, {m.group(2)} rounds: {m.group(4)} fork+exec of "
              f"busybox applets, {m.group(5)} file write/read cycles, {m.group(6)} /proc reads, "
              f"{m.group(7)} pipes; {int(m.group(3)) / 1e9:.2f} s in the guest")
    by = ", ".join(f"{k} {n(v)}" for k, v in sorted(ids["by_event"].items(), key=lambda x: -x[1]))
    print(f"events       {n(ids['events_retained'])} recorded ({by}; sys_openat is "
          f"syscalls:sys_enter_openat)")
    print(f"stacks       {n(ids['id_entries'])} <stack_id> entries, {n(ids['full_stacks'])} "
          f"full-stack fallbacks; {len(stacks)} unique stacks")
    print(f"stack map    entries {ids['map_entries']}, successes {n(ids['successes'])}, "
          f"drops {ids['drops']}, success rate "
          f"{100 * ids['successes'] // max(1, ids['successes'] + ids['drops'])}%, "
          f"memory {n(ids['map_memory'])} bytes (stack_map_stat)")

    # Ring-buffer bytes: measured in two recordings of the same workload.
    print("ring buffer  bytes in the per-CPU buffers (per_cpu/cpu*/stats \"bytes:\", all CPUs):")
    print(f"  with stack ids    {n(ids['bytes']):>12} B for {n(ids['events_retained'])} events "
          f"= {ids['bytes_per_event']:.1f} B/event")
    print(f"  with full stacks  {n(fs['bytes']):>12} B for {n(fs['events_retained'])} events "
          f"= {fs['bytes_per_event']:.1f} B/event   (same workload recorded again, "
          f"options/stacktrace only; mean depth {fs['mean_depth_full']:.1f})")
    ratio = fs["bytes_per_event"] / ids["bytes_per_event"]
    print(f"  => per event, stack ids take {1 / ratio:.2f}x the bytes of full stacks: a fixed "
          f"buffer holds {ratio:.2f}x more events")
    # The same comparison computed from the id recording alone: each id entry (16 B) would have
    # been a full stack entry of its stack's depth.
    depth = {s[0]: s[2] for s in stacks}
    hits = events_per_id(rec / "trace")
    extra = sum(c * (stack_entry_bytes(depth[sid]) - ID_ENTRY_BYTES)
                for sid, evs in hits.items() if sid in depth for c in evs.values())
    est = ids["bytes"] + extra
    print(f"  computed: the id recording with each 16 B id entry replaced by its 16 + 8*depth "
          f"(+4/+8 header) B stack entry = {n(est)} B ({est / ids['events_retained']:.1f} B/event)")

    # Checks against stack_map_stat and the trace.
    print("checks")
    ref_sum = sum(s[1] for s in stacks)
    wrapped = ids["overrun"] > 0
    if wrapped:
        print(f"  --   the buffer wrapped (overrun {ids['overrun']}): ref counts include events "
              f"no longer in the trace, not compared")
    else:
        good = ref_sum == ids["id_entries"] == ids["successes"]
        ok &= good
        print(f"  {'ok' if good else 'FAIL'}   sum of ref counts ({n(ref_sum)}) == <stack_id> "
              f"lines in the trace ({n(ids['id_entries'])}) == stack_map_stat successes "
              f"({n(ids['successes'])}); the buffer did not wrap (overrun 0)")
    good = int(ids["map_entries"].split("/")[0]) == len(stacks)
    ok &= good
    print(f"  {'ok' if good else 'FAIL'}   stack_map_stat entries ({ids['map_entries'].split()[0]})"
          f" == records in stack_map_bin ({len(stacks)})")
    missing = sum(c for sid, evs in hits.items() if sid not in depth for c in evs.values())
    good = missing == 0
    ok &= good
    print(f"  {'ok' if good else 'FAIL'}   every <stack_id> in the trace is in stack_map_bin "
          f"({missing} missing)")
    good = ids["events_retained"] == ids["id_entries"] + ids["full_stacks"]
    ok &= good
    print(f"  {'ok' if good else 'FAIL'}   one stack entry per event ({n(ids['events_retained'])}"
          f" events, {n(ids['id_entries'] + ids['full_stacks'])} stack entries)")

    print("top 5 stacks (by ref count; frames leaf first, the two tracepoint frames left out)")
    total = max(1, ids["id_entries"])
    for sid, ref, dep, frames in sorted(stacks, key=lambda s: (-s[1], s[0]))[:5]:
        evs = ", ".join(f"{k} {n(v)}" for k, v in
                        sorted(hits.get(sid, {}).items(), key=lambda x: -x[1]))
        print(f"  stack_id {sid}: {n(ref)} events ({100 * ref / total:.1f}%), depth {dep}; "
              f"hit by {evs}")
        show = frames[2:] if frames and frames[0].startswith("trace_event_raw_event") else frames
        for fr in show[:7]:
            print(f"      {fr}")
        if len(show) > 7:
            print(f"      ... {len(show) - 7} more frames")
    print(f"files        {rec}/: trace, stack_map_bin, stack_map_stat, kallsyms, stats.cpu*; "
          f"{full}/: the full-stack recording")
    print(f"             {demo}/stacks.folded (stack_map_bin), {demo}/events.folded "
          f"(per event type)")
    print(f"view         flamegraph.pl {demo}/events.folded > flame.svg   (or open the folded "
          f"file in speedscope);")
    print(f"             {tool} report -i {rec} --top 3")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
