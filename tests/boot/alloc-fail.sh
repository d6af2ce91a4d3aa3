# SPDX-License-Identifier: GPL-2.0
# description: the map's allocation fails at the first enable (fault injection): -ENOMEM, stat says why, full stacks, the next enable allocates
# append: fail_ftrace_stackmap=1,100,0,1
. /src/tests/boot/lib.sh
grep -q 'stackmap not initialized' $T/stack_map_stat || fail "map exists before the option was ever set"
err=$(echo 1 2>&1 > $T/options/stackmap) && fail "setting the option succeeded although the allocation failed"
echo "$err" | grep -q 'Cannot allocate memory' || fail "setting the option failed with '$err', not ENOMEM"
[ "$(cat $T/options/stackmap)" = 0 ] || fail "options/stackmap reads 1 without a map"
cat $T/stack_map_stat
grep -q '^last_error: *-12 ' $T/stack_map_stat || fail "stack_map_stat does not say why"
# Events keep their full stacks.
echo 0 > $T/tracing_on; echo > $T/trace
echo 1 > $T/options/stacktrace
echo 1 > $T/events/sched/sched_switch/enable
echo 1 > $T/tracing_on; ls / > /dev/null; sleep 0.05; echo 0 > $T/tracing_on
echo 0 > $T/events/sched/sched_switch/enable
grep -q '<stack trace>' $T/trace || fail "no full stacks while the map is missing"
grep -q '<stack_id' $T/trace && fail "stack ids without a map"
# The next attempt allocates (the fault was injected once).
echo 1 > $T/options/stackmap || fail "the second enable failed"
grep -q '^entries: *0 / ' $T/stack_map_stat || fail "no map after the second enable"
grep -q 'last_error' $T/stack_map_stat && fail "last_error still shown with a map"
echo > $T/trace; echo 1 > $T/events/sched/sched_switch/enable
echo 1 > $T/tracing_on; ls / > /dev/null; sleep 0.05; echo 0 > $T/tracing_on
echo 0 > $T/events/sched/sched_switch/enable
grep -q '<stack_id' $T/trace || fail "no stack ids after the map was allocated"
echo 0 > $T/options/stacktrace; echo 1 > $T/tracing_on
pass
