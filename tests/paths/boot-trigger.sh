# SPDX-License-Identifier: GPL-2.0
# description: trace_trigger=sched_switch.stacktrace with trace_options=stackmap on the command line: full stacks before the map exists, ids after, none lost
# append: trace_options=stackmap trace_trigger=sched_switch.stacktrace trace_buf_size=4M
. /src/tests/boot/lib.sh
[ "$(cat $T/options/stackmap)" = 1 ] || fail "options/stackmap is not set"
grep -q '^stacktrace' $T/events/sched/sched_switch/trigger || fail "no stacktrace trigger on sched_switch"
ls / > /dev/null; sleep 0.1; ls / > /dev/null
echo 0 > $T/tracing_on
cp $T/trace /tmp/trace
grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' /tmp/trace || fail "the buffer wrapped or dropped events"
ids=$(grep -c '<stack_id [0-9]*>' /tmp/trace)
full=$(grep -c '<stack trace>' /tmp/trace)
echo "stack ids $ids, full stacks $full"
[ "$ids" -gt 0 ] || fail "no stack ids after boot"
# The trigger alone (the event itself is off): the trace is stacks only. Per CPU, once the
# map exists every stack is an id: no full stack after the CPU's first id.
awk '{ if (!match($0, /\[[0-9]+\]/)) next; cpu = substr($0, RSTART, RLENGTH) }
     /<stack_id [0-9]+>/ { seen_id[cpu] = 1; next }
     /<stack trace>/ { if (seen_id[cpu]) bad = 1; next }
     END { exit bad }' /tmp/trace || fail "a full stack follows an id on the same CPU"
# Every id handed out is in the buffer, which lost nothing (see stackmap-lib.sh, sm_check_ids).
succ=$(sed -n 's/^successes: *//p' $T/stack_map_stat)
[ "$succ" -eq "$ids" ] || fail "successes $succ, $ids ids in the trace"
grep -o '<stack_id [0-9]*>' /tmp/trace | tr -d '<>' | awk '{ print $2 }' | sort -u > /tmp/trace_ids
awk '/^stack_id / { print $2 }' $T/stack_map | sort -u > /tmp/map_ids
cmp -s /tmp/trace_ids /tmp/map_ids || fail "the trace's ids and stack_map's differ"
pass
