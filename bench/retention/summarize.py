#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize a retention benchmark run (bench/retention/run.sh).

    summarize.py OUTDIR

Reads OUTDIR/raw/<size_kb>/<mode>/ for mode none, full, ids and, when recorded (run.sh
--defs), defs (see guest-run.sh), writes
OUTDIR/results.csv (one row per run), OUTDIR/ratios.csv (one row per buffer size) and
OUTDIR/results.md (the tables of docs/RETENTION.md), and prints results.md.
"""
import csv
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analyze import ID_ENTRY_BYTES, analyze  # noqa: E402

MODES = ("none", "full", "ids")
# Recorded only with run.sh --defs; in the run tables and its own table, not in the plot.
ALL_MODES = MODES + ("defs",)


def main():
    out = Path(sys.argv[1])
    runs = {}
    for d in sorted((out / "raw").glob("*/*")):
        if d.name in ALL_MODES and (d / "trace").exists():
            runs[(int(d.parent.name), d.name)] = analyze(d)
    sizes = sorted({k[0] for k in runs})
    if not sizes:
        sys.exit("summarize: no runs under %s/raw" % out)

    cols = ["buffer_kb", "mode", "events_written", "events_retained", "entries", "overrun",
            "bytes", "bytes_per_event", "window_s", "span_s", "mean_depth_full",
            "stack_entry_bytes", "full_stacks", "id_entries", "drops", "no_buffer",
            "map_memory", "elapsed_s", "rounds_covered", "definitions", "definition_bytes"]
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for s in sizes:
            for m in ALL_MODES:
                r = runs.get((s, m))
                if r:
                    w.writerow([r.get(c, "") if r.get(c) is not None else "" for c in cols])

    md = []
    md.append("| buffer/CPU | mode | events written | retained | kept | bytes | B/event "
              "| window (s) | span (s) | rounds in window | full stacks | drops | map memory "
              "| workload (s) |")
    md.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in sizes:
        for m in ALL_MODES:
            r = runs.get((s, m))
            if not r:
                continue
            kept = 100.0 * r["events_retained"] / r["events_written"] if r["events_written"] else 0
            md.append(
                f"| {s} KiB | {m} | {r['events_written']} | {r['events_retained']} | {kept:.0f}% "
                f"| {r['bytes']} | {r['bytes_per_event']:.1f} | {r['window_s']:.3f} "
                f"| {r['span_s']:.3f} | {r['rounds_covered'] if r['rounds_covered'] is not None else '-'} "
                f"| {r['full_stacks'] if m != 'none' else '-'} "
                f"| {r.get('drops', '-') if m in ('ids', 'defs') else '-'} "
                f"| {r.get('map_memory', '-') if m in ('ids', 'defs') else '-'} "
                f"| {r['elapsed_s']:.2f} |")
    md.append("")

    md.append("| buffer/CPU | retained ids/full | window ids/full | rounds ids/full "
              "| B/event full | B/event ids | mean depth "
              "| full stack entry (B) | theory ids/full | stack bytes saved |")
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ratio_rows = []
    for s in sizes:
        a, b, c = (runs.get((s, m)) for m in MODES)
        if not (a and b and c):
            continue
        r_ev = c["events_retained"] / b["events_retained"]
        r_win = c["window_s"] / b["window_s"] if b["window_s"] else 0
        e = a["bytes_per_event"]  # an event without a stack, as measured (padding included)
        sf = b["full_stack_entry_bytes"]
        theory = (e + sf) / (e + ID_ENTRY_BYTES)
        saved = 1 - ID_ENTRY_BYTES / sf if sf else 0
        # Workload rounds inside the window: how much of the same workload the buffer still
        # holds, whatever the speed of the emulated guest in that stretch.
        r_rounds = (c["rounds_covered"] / b["rounds_covered"]
                    if c.get("rounds_covered") and b.get("rounds_covered") else 0)
        ratio_rows.append([s, round(r_ev, 3), round(r_win, 3), b["bytes_per_event"],
                           c["bytes_per_event"], b["mean_depth_full"], sf, round(theory, 3),
                           round(saved, 3), c["events_retained"], c["window_s"],
                           round(r_rounds, 3)])
        md.append(f"| {s} KiB | {r_ev:.2f}x | {r_win:.2f}x | {r_rounds:.2f}x "
                  f"| {b['bytes_per_event']:.1f} "
                  f"| {c['bytes_per_event']:.1f} | {b['mean_depth_full']:.2f} | {sf:.1f} "
                  f"| {theory:.2f}x | {100 * saved:.0f}% |")
    md.append("")
    defs_rows = [(s, runs[(s, "defs")], runs[(s, "ids")], runs[(s, "full")]) for s in sizes
                 if (s, "defs") in runs and (s, "ids") in runs and (s, "full") in runs]
    if defs_rows:
        # What stack_map_defs costs: a full stack per distinct stack (per definition period)
        # in the same buffer, against ids without definitions and against full stacks.
        md.append("| buffer/CPU | definitions kept | their bytes | share of the buffer "
                  "| retained defs/ids | retained defs/full | rounds defs/ids |")
        md.append("|---:|---:|---:|---:|---:|---:|---:|")
        for s, d, c, b in defs_rows:
            share = d["definition_bytes"] / d["bytes"] if d["bytes"] else 0
            r_rounds = (d["rounds_covered"] / c["rounds_covered"]
                        if d.get("rounds_covered") and c.get("rounds_covered") else 0)
            md.append(f"| {s} KiB | {d['definitions']} | {d['definition_bytes']} "
                      f"| {100 * share:.1f}% "
                      f"| {d['events_retained'] / c['events_retained']:.3f}x "
                      f"| {d['events_retained'] / b['events_retained']:.2f}x "
                      f"| {r_rounds:.3f}x |")
        md.append("")
    # Wide table for the plot: one row per size, one column per mode and measure.
    with open(out / "plot.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["buffer_kb"] + [f"{m}_retained" for m in MODES] +
                   [f"{m}_window_s" for m in MODES] + ["retained_ratio", "window_ratio"] +
                   [f"{m}_rounds" for m in MODES] + ["rounds_ratio"])
        for row in ratio_rows:
            s = row[0]
            w.writerow([s] + [runs[(s, m)]["events_retained"] for m in MODES] +
                       [runs[(s, m)]["window_s"] for m in MODES] + [row[1], row[2]] +
                       [runs[(s, m)]["rounds_covered"] or 0 for m in MODES] + [row[-1]])
    with open(out / "ratios.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["buffer_kb", "retained_ratio", "window_ratio", "bpe_full", "bpe_ids",
                    "mean_depth", "full_stack_entry_bytes", "theory_ratio", "stack_bytes_saved",
                    "ids_retained", "ids_window_s", "rounds_ratio"])
        w.writerows(ratio_rows)

    # CPU cost: the workload's wall time in each mode (median over the buffer sizes), the extra
    # time over no stacks divided by the events written.
    med = {m: statistics.median(runs[(s, m)]["elapsed_s"] for s in sizes if (s, m) in runs)
           for m in ALL_MODES if any((s, m) in runs for s in sizes)}
    ev = {m: statistics.median(runs[(s, m)]["events_written"] for s in sizes if (s, m) in runs)
          for m in med}
    md.append("| mode | workload wall time (median, s) | events written (median) "
              "| wall time per event (us) | extra per event over none (us) |")
    md.append("|---|---:|---:|---:|---:|")
    for m in ALL_MODES:
        if m not in med:
            continue
        extra = (med[m] - med["none"]) / ev[m] * 1e6 if "none" in med and m != "none" else 0
        md.append(f"| {m} | {med[m]:.2f} | {ev[m]:.0f} | {med[m] / ev[m] * 1e6:.2f} "
                  f"| {extra:+.2f} |" if m != "none" else
                  f"| {m} | {med[m]:.2f} | {ev[m]:.0f} | {med[m] / ev[m] * 1e6:.2f} | - |")
    md.append("")
    md.append("Wall times are measured inside QEMU under TCG (software emulation): they compare "
              "the modes in one run, not real hardware.")
    text = "\n".join(md) + "\n"
    (out / "results.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
