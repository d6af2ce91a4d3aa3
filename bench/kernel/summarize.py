#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/kernel/summarize.py GUEST_LOG [--meta TEXT]: the table of bench/kernel/run.sh.

Reads the "RESULT path mode rep ns_per_event" lines of bench/kernel/guest.sh and prints, in
Markdown, the median ns per event of each path and mode, the cost of the stack alone (the
mode minus "none"), and the ratios of the stackmap modes to full stacks (the median of the per-round ratios:
each round runs every mode once, so a drift of the VM's speed cancels),
each against its goal (warm <= 1.0, miss and fallback <= 1.3), and the null run's ratio
("null": the full-stack run again, right after it): the spread of two runs of the same work,
against which a mode's difference from full stacks is read."""
import statistics
import sys

PATHS = ["event", "function", "kprobe"]
MODES = ["none", "full", "null", "warm", "miss", "fallback"]
GOALS = {"warm": 1.0, "miss": 1.3, "fallback": 1.3}


def main():
    args = sys.argv[1:]
    meta = ""
    if "--meta" in args:
        i = args.index("--meta")
        meta = args[i + 1]
        del args[i:i + 2]
    runs = {}
    by_round = {}
    with open(args[0]) as f:
        for line in f:
            w = line.split()
            # Round 0 is the warm-up.
            if len(w) == 5 and w[0] == "RESULT" and w[3] != "0":
                runs.setdefault((w[1], w[2]), []).append(int(w[4]))
                by_round.setdefault((w[1], w[3]), {})[w[2]] = int(w[4])
    if not runs:
        sys.exit("summarize: no RESULT lines in %s" % args[0])
    med = {k: statistics.median(v) for k, v in runs.items()}

    def ratios(p, m):
        """Mode m / full stacks, round by round."""
        return [d[m] / d["full"] for (q, _), d in by_round.items()
                if q == p and m in d and d.get("full")]

    def ratio(p, m):
        """Median over the rounds of mode m / full stacks in the same round."""
        rs = ratios(p, m)
        return statistics.median(rs) if rs else None
    out = []
    if meta:
        out.append(meta)
        out.append("")
    out.append("median ns per event over %d rounds (min-max), round 0 (warm-up) left out:"
               % max(len(v) for v in runs.values()))
    out.append("")
    out.append("| path | " + " | ".join(MODES) + " |")
    out.append("|---" * (len(MODES) + 1) + "|")
    for p in PATHS:
        cells = []
        for m in MODES:
            v = runs.get((p, m))
            cells.append("%d (%d-%d)" % (med[(p, m)], min(v), max(v)) if v else "-")
        out.append("| %s | %s |" % (p, " | ".join(cells)))
    out.append("")
    out.append("ratio to full stacks: median over the rounds of mode / full stacks of the same round "
               "(goal); the stack's own cost (median of mode - median of none) in ns:")
    out.append("")
    out.append("| path | warm/full | miss/full | fallback/full | full-none | warm-none | miss-none | fallback-none |")
    out.append("|---|---|---|---|---|---|---|---|")
    worst = True
    for p in PATHS:
        if (p, "full") not in med:
            continue
        full = med[(p, "full")]
        none = med.get((p, "none"), 0)
        cells = []
        for m in ["warm", "miss", "fallback"]:
            r = ratio(p, m)
            if r is None:
                cells.append("-")
                continue
            ok = r <= GOALS[m]
            worst = worst and ok
            cells.append("%.3f (<= %.1f %s)" % (r, GOALS[m], "PASS" if ok else "MISS"))
        for m in ["full", "warm", "miss", "fallback"]:
            cells.append("%d" % (med[(p, m)] - none) if (p, m) in med else "-")
        out.append("| %s | %s |" % (p, " | ".join(cells)))
    out.append("")
    out.append("all ratios within their goals: %s" % ("yes" if worst else "no"))
    # The noise floor: null / full is 1 but for the clock. A warm/full median over 1.0 that
    # the null run's own ratios reach is not a cost this clock can show.
    nulls = [p for p in PATHS if ratios(p, "null") and ratios(p, "warm")]
    if nulls:
        out.append("")
        out.append("the clock's noise floor: null/full (the same full-stack run twice) against "
                   "warm/full, median (min-max) over the rounds:")
        out.append("")
        out.append("| path | null/full | warm/full | warm/full median beyond the null run's range |")
        out.append("|---|---|---|---|")
        for p in nulls:
            n, w = ratios(p, "null"), ratios(p, "warm")
            wm = statistics.median(w)
            beyond = "above" if wm > max(n) else "below" if wm < min(n) else "no"
            out.append("| %s | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %s |"
                       % (p, statistics.median(n), min(n), max(n), wm, min(w), max(w), beyond))
    print("\n".join(out))


main()
