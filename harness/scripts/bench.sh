#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the benchmark (build/plain/bench), the instruction counts (callgrind.sh) and the
# ThreadSanitizer stress run, then every target of the three in one list. Writes
# build/bench/{results.csv,results.txt,callgrind.csv,callgrind.txt,tsan.txt}. Exit status 1
# if a target is missed. Run it on an idle machine: it prints the load average before and
# after, and timed figures from a loaded machine are not comparable.
set -u
dir=build/bench
mkdir -p "$dir"
echo "bench: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg) before"
# shellcheck disable=SC2086
build/plain/bench ${BENCH_ARGS:-} --csv "$dir/results.csv" | tee "$dir/results.txt"
sh scripts/callgrind.sh build/plain/bench "$dir/callgrind.csv" | tee "$dir/callgrind.txt"
if build/tsan/stress >"$dir/tsan.txt" 2>&1; then tsan=PASS; else tsan=MISS; fi
echo
echo "== All targets =="
grep -h '^PASS\|^MISS' "$dir/results.txt" "$dir/callgrind.txt"
# The stress program checks one id per stack and ref counts == successes in every phase.
failed=$(sed -n 's/^RESULT [0-9]* \([0-9]*\)$/\1/p' "$dir/tsan.txt")
printf '%-4s %-62s %8s  (need 0)\n' "$tsan" "failed stress tests under ThreadSanitizer (herd, signals)" \
	"${failed:-?}"
all=$( (grep -h '^PASS\|^MISS' "$dir/results.txt" "$dir/callgrind.txt"; echo "$tsan") | wc -l)
missed=$( (grep -h '^MISS' "$dir/results.txt" "$dir/callgrind.txt"; [ $tsan = MISS ] && echo MISS) | wc -l)
echo "$((all - missed)) of $all targets PASS; load average $(cut -d' ' -f1-3 /proc/loadavg) after"
[ "$missed" -eq 0 ]
