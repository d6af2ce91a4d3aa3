#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Export benchmark (not a timed test): a synthetic recording of N events (default 5,000,000;
# tests/gen_trace.py over a `mkbin random` map of 4096 stacks and a 50,000-symbol kallsyms)
# exported to every format, each timed against `stackmap report` on the same input.
#   tests/bench_export.sh [BUILD_DIR] [EVENTS]      (make -C tool bench-export)
# Prints the load average with every time; the target is <= 3x report's time.
B=${1:-build}
N=${2:-5000000}
W=$(mktemp -d /tmp/stackmap-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
"$B/mkbin" random "$W/map.bin" "$W/kallsyms" 4096 50000 1 || exit 1
python3 tests/gen_trace.py "$W/map.bin" "$N" "$W/trace" || exit 1
K="--kallsyms $W/kallsyms"
echo "input: $N events, $(wc -c <"$W/trace") bytes of trace, 4096 stacks"
# run NAME CMD...: best of 3 wall-clock times in seconds
run() {
	name=$1
	shift
	best=""
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || { echo "$name: failed"; return 1; }
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}
rep=$(run report "$B/stackmap" report $K --trace "$W/trace" --map "$W/map.bin")
printf '%-22s %7.2f s  1.00x  (load %s)\n' report "$rep" "$(cut -d' ' -f1-3 /proc/loadavg)"
for f in folded speedscope pprof perfetto svg; do
	t=$(run "$f" "$B/stackmap" export $K --format $f -o "$W/out.$f" --map "$W/map.bin" "$W/trace")
	printf '%-22s %7.2f s  %.2fx  (load %s)  %s bytes\n' "export $f" "$t" \
		"$(echo "$t / $rep" | bc -l)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(wc -c <"$W/out.$f")"
done
t=$(run offcpu "$B/stackmap" export $K --format folded --weight offcpu -o "$W/out.off" \
	--map "$W/map.bin" "$W/trace")
printf '%-22s %7.2f s  %.2fx  (load %s)\n' "export folded offcpu" "$t" "$(echo "$t / $rep" | bc -l)" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
