#!/bin/sh
# The reading commands on a large trace.dat against `trace-cmd report` on the same file (all to
# /dev/null), in the same run: tests/bench-report.sh [BUILD_DIR] [EVENTS]
# The file repeats the pages of tests/fixtures/dat/trace.dat (a VM recording: 217 sched events,
# each with its kernel_stack_id record) until it holds EVENTS events (default 5000000), each copy
# shifted in time. Timed with hyperfine (RUNS runs each, default 3): stackmap report, export
# --format pprof and export --format perfetto, report again with STACKMAP_THREADS=2 and perfetto
# with STACKMAP_THREADS=1 (the other choice of reader thread), then trace-cmd report; then the
# peak memory of each (/usr/bin/time, maximum resident set size). Targets, each printed PASS or MISS: every
# stackmap command at least 10x faster than trace-cmd report, and its peak memory below
# 2 x the size of the distinct stacks (the stack_map_bin) + 64 MB, whatever the number of
# events. A benchmark, not a test: it prints the figures and the load average; run it alone.
B=${1:-build}
EVENTS=${2:-5000000}
SM=$B/stackmap
FIX=tests/fixtures/dat
W=${BENCH_DIR:-$B/bench-report}
RUNS=${RUNS:-3}
mkdir -p "$W"
per=$($SM report --top 0 $FIX/trace.dat | sed -n 's/^# \([0-9]*\) events.*/\1/p')
copies=$(((EVENTS + per - 1) / per))
if [ ! -s "$W/trace.dat" ] || [ "$(cat "$W/copies" 2>/dev/null)" != "$copies" ]; then
	echo "generating $W/trace.dat: $copies copies of $per events"
	python3 tests/datfix.py replicate $FIX/trace.dat "$W/trace.dat" "$copies" || exit 1
	cp $FIX/stack_map_bin "$W/stack_map_bin"
	echo "$copies" >"$W/copies"
fi
$SM report --top 0 "$W/trace.dat" | head -1
ls -l "$W/trace.dat" | awk '{print "file:", $5, "bytes"}'
command -v hyperfine >/dev/null 2>&1 || { echo "hyperfine is not installed (scripts/setup)"; exit 2; }
echo "load average before: $(cat /proc/loadavg)"
hyperfine --runs "$RUNS" --export-json "$W/hyperfine.json" \
	-n "report" "$SM report $W/trace.dat > /dev/null" \
	-n "export pprof" "$SM export --format pprof -o $W/out.pb.gz $W/trace.dat" \
	-n "export perfetto" "$SM export --format perfetto -o $W/out.perfetto $W/trace.dat" \
	-n "report, two threads" "env STACKMAP_THREADS=2 $SM report $W/trace.dat > /dev/null" \
	-n "export perfetto, one thread" \
	"env STACKMAP_THREADS=1 $SM export --format perfetto -o $W/out.perfetto $W/trace.dat" \
	-n "trace-cmd report" "trace-cmd report -i $W/trace.dat > /dev/null 2>&1"
echo "load average after the timings: $(cat /proc/loadavg)"
for c in report pprof perfetto; do
	case $c in
	report) set -- report "$W/trace.dat" ;;
	*) set -- export --format $c -o "$W/out.$c" "$W/trace.dat" ;;
	esac
	/usr/bin/time -f "%M" -o "$W/peak.$c" "$SM" "$@" >/dev/null 2>"$W/err.$c" ||
		{ echo "$c failed:"; cat "$W/err.$c"; }
done
python3 - "$W" <<'PY'
import json, os, sys
w = sys.argv[1]
r = {x["command"]: x for x in json.load(open(os.path.join(w, "hyperfine.json")))["results"]}
t = r["trace-cmd report"]["median"]
limit = 2 * os.path.getsize(os.path.join(w, "stack_map_bin")) + 64 * 1024 * 1024
print("trace-cmd report: median %.2f s" % t)
print("memory bound: 2 x %d bytes of distinct stacks + 64 MB = %.1f MB" %
      (os.path.getsize(os.path.join(w, "stack_map_bin")), limit / 1048576))
for name, key in (("report", "report"), ("export pprof", "pprof"), ("export perfetto", "perfetto")):
    s = r[name]["median"]
    peak = int(open(os.path.join(w, "peak." + key)).read().split()[-1]) * 1024
    print("stackmap %-16s median %.2f s (CPU %.2f s): %5.1fx faster than trace-cmd report "
          "(target 10x: %s); peak %.1f MB (%s)" %
          (name, s, r[name]["user"] + r[name]["system"], t / s, "PASS" if t / s >= 10 else "MISS",
           peak / 1048576, "PASS" if peak < limit else "MISS"))
for name, env in (("report, two threads", 2), ("export perfetto, one thread", 1)):
    s = r[name]["median"]
    print("stackmap %s (STACKMAP_THREADS=%d): median %.2f s (CPU %.2f s), %.1fx" %
          (name, env, s, r[name]["user"] + r[name]["system"], t / s))
PY
echo "load average after: $(cat /proc/loadavg)"
