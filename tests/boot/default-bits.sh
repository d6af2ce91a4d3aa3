# SPDX-License-Identifier: GPL-2.0
# description: default capacity, map allocated on first use, reset before the map exists, memory at bits 14 is the documented formula
# append:
. /src/tests/boot/lib.sh
grep -q 'stackmap not initialized' $T/stack_map_stat || fail "map exists before the option was ever set"
[ "$(cat $T/options/stackmap)" = 0 ] || fail "option on by default"
# Before the map exists, a reset still refuses while tracing and clears the buffers.
echo 1 > $T/events/sched/sched_switch/enable
ls / > /dev/null
echo reset > $T/stack_map 2>/dev/null && fail "reset succeeded while tracing was on"
echo 0 > $T/tracing_on
grep -q 'sched_switch:' $T/trace || fail "nothing recorded"
echo reset > $T/stack_map || fail "reset failed with tracing off"
grep -q 'sched_switch:' $T/trace && fail "reset without a map did not clear the buffer"
grep -q 'stackmap not initialized' $T/stack_map_stat || fail "reset allocated the map"
echo 0 > $T/events/sched/sched_switch/enable
echo 1 > $T/tracing_on
echo 1 > $T/options/stackmap
grep -q '^entries: *0 / 16384$' $T/stack_map_stat || fail "default capacity is not 16384"
grep -q '^table_size: *32768$' $T/stack_map_stat || fail "table_size is not 32768"
check_memory 14
pass
