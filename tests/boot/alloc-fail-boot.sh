# SPDX-License-Identifier: GPL-2.0
# description: trace_options=stackmap with the map's allocation failing at boot: option cleared, stat says why, full stacks, a later enable works
# append: trace_options=stackmap,stacktrace trace_event=sched:sched_switch fail_ftrace_stackmap=1,100,0,1
. /src/tests/boot/lib.sh
[ "$(cat $T/options/stackmap)" = 0 ] || fail "options/stackmap reads 1 although the allocation failed"
grep -q 'stackmap not initialized' $T/stack_map_stat || fail "a map exists"
grep -q '^last_error: *-12 ' $T/stack_map_stat || fail "stack_map_stat does not say why"
dmesg | grep -q 'stackmap: cannot allocate the map' || fail "no kernel message about the failure"
ls / > /dev/null; sleep 0.05
echo 0 > $T/tracing_on
grep -q '<stack trace>' $T/trace || fail "no full stacks at boot"
grep -q '<stack_id' $T/trace && fail "stack ids without a map"
echo > $T/trace
echo 1 > $T/options/stackmap || fail "enabling after the failed boot-time allocation failed"
echo 1 > $T/tracing_on; ls / > /dev/null; sleep 0.05; echo 0 > $T/tracing_on
grep -q '<stack_id' $T/trace || fail "no stack ids after the later enable"
pass
