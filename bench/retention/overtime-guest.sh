#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of bench/retention/overtime.sh (runs in the test VM, booted with a small map):
# two instances trace the same events in overwrite buffers of the same size, "ids" with the
# stackmap option and "full" without; the seeded workload runs in steps, and after each step
# both instances stop, their buffers are counted and every id in the ids buffer is looked up
# in its stack_map, then both start again. One CSV line per step on stdout (and in
# /host/progress).
#   overtime-guest.sh SEED STEPS ROUNDS-PER-STEP KIB EVENTS...
set -eu
seed=$1 steps=$2 rounds=$3 kib=$4
shift 4
T=/sys/kernel/tracing
W=/src/build/bench/workload
for i in ids full; do
	d=$T/instances/$i
	mkdir $d
	echo 0 > $d/tracing_on
	echo "$kib" > $d/buffer_size_kb
	echo 1 > $d/options/overwrite
	echo 1 > $d/options/stacktrace
	for e in "$@"; do echo 1 > "$d/events/$e/enable"; done
done
echo 1 > $T/instances/ids/options/stackmap
: > /tmp/seen
st() { sed -n "s/^$1: *\([0-9][0-9]*\).*/\1/p" $T/instances/ids/stack_map_stat; }
entries() { # instance: events in its buffer, all CPUs
	cat $T/instances/$1/per_cpu/cpu*/stats | awk '/^entries:/ { n += $2 } END { print n + 0 }'
}
cap=$(sed -n 's/^entries: *[0-9]* \/ \([0-9]*\)/\1/p' $T/instances/ids/stack_map_stat)
echo "step,seconds,events_ids,events_full,ratio,ids_in_buffer,full_in_ids_buffer,unresolved,switches,recycled,inserts,drops,capacity,distinct_seen" |
	tee /host/overtime.csv
start=$(date +%s)
step=0
while [ $step -lt "$steps" ]; do
	step=$((step + 1))
	echo 1 > $T/instances/ids/tracing_on
	echo 1 > $T/instances/full/tracing_on
	$W -s $((seed + step)) -n "$rounds" -d /tmp/w 2> /dev/null
	echo 0 > $T/instances/ids/tracing_on
	echo 0 > $T/instances/full/tracing_on
	ei=$(entries ids)
	ef=$(entries full)
	cat $T/instances/ids/trace > /tmp/ids.trace
	awk '/^stack_id / { print $2 }' $T/instances/ids/stack_map | sort -u > /tmp/map
	grep -o '<stack_id [0-9]*>' /tmp/ids.trace | tr -d '<>' | awk '{ print $2 }' > /tmp/uses
	nid=$(wc -l < /tmp/uses)
	unres=$(sort -u /tmp/uses | grep -cvxFf /tmp/map || true)
	nfull=$(grep -c '<stack trace>' /tmp/ids.trace || true)
	# The distinct stacks the full instance's buffer held at any step so far (a lower bound
	# of the workload's distinct stacks): one line of frames per stack.
	awk '/<stack trace>/ { if (s != "") print s; s = "-"; next }
	     /^ => / { if (s != "") s = s $2; next }
	     { if (s != "") print s; s = "" } END { if (s != "") print s }' \
		$T/instances/full/trace >> /tmp/seen
	sort -u /tmp/seen > /tmp/seen.u && mv /tmp/seen.u /tmp/seen
	succ=$(st successes) hits=$(st hits) races=$(st races)
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' $step $(($(date +%s) - start)) "$ei" "$ef" \
		"$(awk -v a="$ei" -v b="$ef" 'BEGIN { printf "%.3f", b ? a / b : 0 }')" "$nid" "$nfull" \
		"$unres" "$(st switches)" "$(st recycled)" $((succ - hits - races)) "$(st drops)" "$cap" "$(wc -l < /tmp/seen)" |
		tee -a /host/overtime.csv
	cp /host/overtime.csv /host/progress
done
uname -r > /host/uname
