# SPDX-License-Identifier: GPL-2.0
# description: trace_options=stackmap,stacktrace on the command line: early events keep full stacks, later ones get ids, none is lost
# append: trace_options=stackmap,stacktrace trace_event=sched:sched_switch,sched:sched_process_fork trace_buf_size=4M
. /src/tests/boot/lib.sh
[ "$(cat $T/options/stackmap)" = 1 ] || fail "options/stackmap is not set"
[ "$(cat $T/options/stacktrace)" = 1 ] || fail "options/stacktrace is not set"
ls / > /dev/null; sleep 0.1; ls / > /dev/null
echo 0 > $T/tracing_on
cp $T/trace /tmp/trace
grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' /tmp/trace || fail "the buffer wrapped or dropped events; the crossover cannot be checked"
events=$(grep -c -E ': (sched_switch|sched_process_fork):' /tmp/trace)
ids=$(grep -c '<stack_id [0-9]*>' /tmp/trace)
full=$(grep -c '<stack trace>' /tmp/trace)
echo "events $events, stack ids $ids, full stacks $full"
[ "$ids" -gt 0 ] || fail "no stack ids after boot"
[ "$full" -gt 0 ] || fail "no early full stacks (events before tracefs init should keep them)"
[ $((ids + full)) -eq "$events" ] || fail "$events events but $((ids + full)) stacks: some event lost its stack"
# Per CPU, every event line is followed by its stack; full stacks come first, then only ids.
awk '{ if (!match($0, /\[[0-9]+\]/)) next; cpu = substr($0, RSTART, RLENGTH) }
     /: (sched_switch|sched_process_fork):/ { if (pending[cpu]) bad = 1; pending[cpu] = 1; next }
     /<stack_id [0-9]+>/ { if (!pending[cpu]) bad = 1; pending[cpu] = 0; seen_id[cpu] = 1; next }
     /<stack trace>/ { if (!pending[cpu] || seen_id[cpu]) bad = 1; pending[cpu] = 0; next }
     END { for (c in pending) if (pending[c]) bad = 1; exit bad }' /tmp/trace ||
	fail "events and stacks do not pair up per CPU, or a full stack follows an id"
[ "$(sed -n 's/^successes: *//p' $T/stack_map_stat)" -eq "$ids" ] || fail "successes differ from the ids in the trace"
pass
