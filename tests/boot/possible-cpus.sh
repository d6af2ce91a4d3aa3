# SPDX-License-Identifier: GPL-2.0
# description: 64 possible CPUs: the memory line is the documented formula, and counts stay exact
# append:
# smp: 64
# (Not -smp 2,maxcpus=64: x86 counts QEMU's disabled MADT entries as hotpluggable CPUs only
# when it detects a hypervisor, acpi_is_processor_usable(), and under TCG it detects none, so
# the guest would have 2 possible CPUs. 64 online CPUs cost ~45 s more boot under TCG.)
. /src/tests/boot/lib.sh
possible=$(cat /sys/devices/system/cpu/possible)
[ "$possible" = 0-63 ] || fail "possible CPUs are $possible, not 0-63"
echo 1 > $T/options/stackmap
check_memory 14
# Events on the online CPUs are counted exactly with the larger per-CPU layout.
echo 0 > $T/tracing_on; echo > $T/trace
echo 1 > $T/options/stacktrace
echo 1 > $T/events/sched/sched_switch/enable
echo 1 > $T/tracing_on; ls / > /dev/null; sleep 0.1; echo 0 > $T/tracing_on
echo 0 > $T/events/sched/sched_switch/enable
echo 0 > $T/options/stacktrace
ids=$(grep -c '<stack_id' $T/trace)
[ "$ids" -gt 0 ] || fail "no stack ids recorded"
refs=$(awk '/^stack_id /{ sub(/\[ref /, ""); sub(/,/, ""); s += $3 } END { print s + 0 }' $T/stack_map)
echo "$ids id events, sum of ref counts $refs"
[ "$refs" = "$ids" ] || fail "sum of ref counts $refs is not the $ids id events"
echo 1 > $T/tracing_on
pass
