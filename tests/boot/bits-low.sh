# SPDX-License-Identifier: GPL-2.0
# description: ftrace_stackmap.bits below the range is clamped to 10
# append: ftrace_stackmap.bits=5
. /src/tests/boot/lib.sh
[ "$(cat /sys/module/ftrace_stackmap/parameters/bits)" = 10 ] || fail "bits parameter reads $(cat /sys/module/ftrace_stackmap/parameters/bits)"
echo 1 > $T/options/stackmap
grep -q '^entries: *0 / 1024$' $T/stack_map_stat || fail "capacity is not 1024: $(head -1 $T/stack_map_stat)"
grep -q '^table_size: *2048$' $T/stack_map_stat || fail "table_size is not 2048"
check_memory 10
pass
