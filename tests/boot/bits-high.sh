# SPDX-License-Identifier: GPL-2.0
# description: ftrace_stackmap.bits above the range is clamped to 18
# append: ftrace_stackmap.bits=30
. /src/tests/boot/lib.sh
[ "$(cat /sys/module/ftrace_stackmap/parameters/bits)" = 18 ] || fail "bits parameter reads $(cat /sys/module/ftrace_stackmap/parameters/bits)"
echo 1 > $T/options/stackmap
grep -q '^entries: *0 / 262144$' $T/stack_map_stat || fail "capacity is not 262144: $(head -1 $T/stack_map_stat)"
grep -q '^table_size: *524288$' $T/stack_map_stat || fail "table_size is not 524288"
check_memory 18
pass
