# SPDX-License-Identifier: GPL-2.0
# description: a boot-mapped instance (kept for the next boot, its map is not) refuses the stackmap option with EINVAL, by either option file; an ordinary instance takes it
# append: reserve_mem=4M:4096:trace trace_instance=bm@trace
. /src/tests/boot/lib.sh
I=$T/instances/bm
[ -d $I ] || fail "no boot-mapped instance bm (reserve_mem or trace_instance not taken)"
err=$( (echo 1 > $I/options/stackmap) 2>&1) && fail "options/stackmap took 1 on the boot-mapped instance"
echo "options/stackmap: $err"
case $err in *"Invalid argument"*) ;; *) fail "options/stackmap: '$err', not EINVAL" ;; esac
err=$( (echo stackmap > $I/trace_options) 2>&1) && fail "trace_options took stackmap on the boot-mapped instance"
echo "trace_options: $err"
case $err in *"Invalid argument"*) ;; *) fail "trace_options: '$err', not EINVAL" ;; esac
[ "$(cat $I/options/stackmap)" = 0 ] || fail "options/stackmap reads $(cat $I/options/stackmap)"
grep -q '^nostackmap$' $I/trace_options || fail "trace_options does not list nostackmap"
[ "$(head -1 $I/stack_map_stat)" = "stackmap not initialized" ] ||
	fail "stack_map_stat: $(head -1 $I/stack_map_stat)"
dmesg | grep -q 'stackmap: bm: not on a boot-mapped instance' || fail "no warning in the kernel log"
mkdir $T/instances/plain
echo 1 > $T/instances/plain/options/stackmap || fail "an ordinary instance refused the option"
rmdir $T/instances/plain
pass
