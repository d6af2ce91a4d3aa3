#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-run.sh: one recording inside the test VM (run by bench/retention/run.sh and scripts/demo).
#
#   guest-run.sh MODE BUFFER_KB SEED ROUNDS OUTDIR [EVENT...]
#
# MODE: none (events only), full (options/stacktrace: full stacks), ids (options/stackmap +
# options/stacktrace: stack ids) or defs (ids with stack_map_defs: a definition before the
# first use of each stack). EVENT is SYSTEM/EVENT (default: sched/sched_switch,
# kmem/kmem_cache_alloc, syscalls/sys_enter_openat). Sets the per-CPU buffer to BUFFER_KB,
# clears it (and resets the map in ids mode), enables the events, runs the workload with SEED and
# ROUNDS, stops tracing, then saves into OUTDIR: stats.cpuN (per_cpu/cpuN/stats), trace,
# workload.log (the workload's summary line), rounds (the start time of every round), info
# (mode, buffer, tracing on/off times) and in ids and defs modes stack_map_stat and stack_map_bin. The trace
# clock is "mono" (CLOCK_MONOTONIC, the workload's clock) while recording. Every setting is put
# back (options off, clock "local") at the end.
set -eu
T=/sys/kernel/tracing
mode=$1 kb=$2 seed=$3 rounds=$4 out=$5
shift 5
events=("$@")
[ ${#events[@]} -gt 0 ] ||
	events=(sched/sched_switch kmem/kmem_cache_alloc syscalls/sys_enter_openat)
WORKLOAD=${WORKLOAD:-/src/build/bench/workload}
mkdir -p "$out"

echo 0 >$T/tracing_on
echo 0 >$T/options/stacktrace
echo 0 >$T/options/stackmap
echo "$kb" >$T/buffer_size_kb
echo mono >$T/trace_clock
case $mode in
none) ;;
full) echo 1 >$T/options/stacktrace ;;
ids | defs)
	echo 1 >$T/options/stackmap
	echo 0 >$T/stack_map
	echo 1 >$T/options/stacktrace
	[ "$mode" = ids ] || echo 1 >$T/stack_map_defs
	;;
*) echo "guest-run: unknown mode $mode" >&2; exit 2 ;;
esac
: >$T/trace
for e in "${events[@]}"; do
	echo 1 >"$T/events/$e/enable"
done
rm -rf /tmp/workload /tmp/rounds
t_on=$(cut -d' ' -f1 /proc/uptime)
echo 1 >$T/tracing_on
"$WORKLOAD" -s "$seed" -n "$rounds" -d /tmp/workload -t /tmp/rounds 2>"$out/workload.log"
echo 0 >$T/tracing_on
t_off=$(cut -d' ' -f1 /proc/uptime)
for e in "${events[@]}"; do
	echo 0 >"$T/events/$e/enable"
done
echo 0 >$T/options/stacktrace
for c in $T/per_cpu/cpu*; do
	cat "$c/stats" >"$out/stats.${c##*/}"
done
if [ "$mode" != none ] && [ "$mode" != full ]; then
	cat $T/stack_map_stat >"$out/stack_map_stat"
	cat $T/stack_map_bin >"$out/stack_map_bin"
fi
cat $T/trace >"$out/trace"
echo 0 >$T/options/stackmap
[ ! -f $T/stack_map_defs ] || echo 0 >$T/stack_map_defs
echo local >$T/trace_clock
[ ! -f /tmp/rounds ] || cp /tmp/rounds "$out/rounds"
printf 'mode %s\nbuffer_kb %s\nseed %s\nrounds %s\nuptime_on %s\nuptime_off %s\n' \
	"$mode" "$kb" "$seed" "$rounds" "$t_on" "$t_off" >"$out/info"
