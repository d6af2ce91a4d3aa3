#!/bin/sh
# Speed of `stackmap report` on a large trace.dat against `trace-cmd report` on the same file
# (both to /dev/null), in the same run: tests/bench-report.sh [BUILD_DIR] [EVENTS]
# The file repeats the pages of tests/fixtures/dat/trace.dat (a VM recording: 217 sched events,
# each with its kernel_stack_id record) until it holds EVENTS events (default 5000000), each copy
# shifted in time. A benchmark, not a test: it prints the times, the ratio and the load average.
B=${1:-build}
EVENTS=${2:-5000000}
SM=$B/stackmap
FIX=tests/fixtures/dat
W=${BENCH_DIR:-$B/bench-report}
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
echo "load average before: $(cat /proc/loadavg)"
if command -v hyperfine >/dev/null 2>&1; then
	hyperfine --runs "${RUNS:-3}" --export-json "$W/hyperfine.json" \
		-n "stackmap report" "$SM report $W/trace.dat > /dev/null" \
		-n "trace-cmd report" "trace-cmd report -i $W/trace.dat > /dev/null 2>&1"
	python3 - "$W/hyperfine.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
s, t = r["stackmap report"], r["trace-cmd report"]
print("stackmap report %.2f s, trace-cmd report %.2f s: stackmap is %.1fx faster" % (s, t, t / s))
PY
else
	s0=$(date +%s.%N); $SM report "$W/trace.dat" >/dev/null; s1=$(date +%s.%N)
	trace-cmd report -i "$W/trace.dat" >/dev/null 2>&1; s2=$(date +%s.%N)
	echo "$s0 $s1 $s2" | awk '{s = $2 - $1; t = $3 - $2; printf "stackmap report %.2f s, trace-cmd report %.2f s: stackmap is %.1fx faster\n", s, t, t / s}'
fi
echo "load average after: $(cat /proc/loadavg)"
