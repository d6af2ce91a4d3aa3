# SPDX-License-Identifier: GPL-2.0
# description: default capacity, map allocated on first use, memory at bits 14
# append:
. /src/tests/boot/lib.sh
grep -q 'stackmap not initialized' $T/stack_map_stat || fail "map exists before the option was ever set"
[ "$(cat $T/options/stackmap)" = 0 ] || fail "option on by default"
echo 1 > $T/options/stackmap
grep -q '^entries: *0 / 16384$' $T/stack_map_stat || fail "default capacity is not 16384"
grep -q '^table_size: *32768$' $T/stack_map_stat || fail "table_size is not 32768"
grep '^memory:' $T/stack_map_stat
pass
