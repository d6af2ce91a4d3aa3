# SPDX-License-Identifier: GPL-2.0
# description: ftrace=function ftrace_filter=vfs_read with trace_options=stackmap,func_stack_trace on the command line: one stack per function event, ids once the map exists (full stacks only before)
# append: ftrace=function ftrace_filter=vfs_read trace_options=stackmap,func_stack_trace trace_buf_size=4M
. /src/tests/boot/lib.sh
[ "$(cat $T/current_tracer)" = function ] || fail "current_tracer is $(cat $T/current_tracer)"
[ "$(cat $T/options/stackmap)" = 1 ] || fail "options/stackmap is not set"
[ "$(cat $T/options/func_stack_trace)" = 1 ] || fail "options/func_stack_trace is not set"
dd if=/proc/self/stat of=/dev/null bs=16 count=6 2> /dev/null
echo 0 > $T/tracing_on
cp $T/trace /tmp/trace
grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' /tmp/trace || fail "the buffer wrapped or dropped events"
events=$(grep -c ': vfs_read <-' /tmp/trace)
ids=$(grep -c '<stack_id [0-9]*>' /tmp/trace)
full=$(grep -c '<stack trace>' /tmp/trace)
echo "vfs_read events $events, stack ids $ids, full stacks $full"
[ "$ids" -gt 0 ] || fail "no stack ids"
[ $((ids + full)) -eq "$events" ] || fail "$events events but $((ids + full)) stacks"
# Per CPU, each event is followed by its stack; full stacks come first, then only ids.
awk '{ if (!match($0, /\[[0-9]+\]/)) next; cpu = substr($0, RSTART, RLENGTH) }
     /: vfs_read <-/ { if (pending[cpu]) bad = 1; pending[cpu] = 1; next }
     /<stack_id [0-9]+>/ { if (!pending[cpu]) bad = 1; pending[cpu] = 0; seen_id[cpu] = 1; next }
     /<stack trace>/ { if (!pending[cpu] || seen_id[cpu]) bad = 1; pending[cpu] = 0; next }
     END { for (c in pending) if (pending[c]) bad = 1; exit bad }' /tmp/trace ||
	fail "events and stacks do not pair up per CPU, or a full stack follows an id"
succ=$(sed -n 's/^successes: *//p' $T/stack_map_stat)
[ "$succ" -eq "$ids" ] || fail "successes $succ, $ids ids in the trace"
grep -q '^  \[[0-9]*\] vfs_read' $T/stack_map || fail "no stored stack holds vfs_read"
pass
