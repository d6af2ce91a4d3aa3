#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Code patching against a running CPU, with nothing of the series involved: turn the
# sched_switch event of a fresh instance on and off as fast as the shell can, while busy
# loops on every CPU context-switch through __schedule(), where each turn rewrites the
# tracepoint's static call and static key. Runs in the VM (scripts/vm run -- bash
# /src/tests/tcg/patching.sh SECONDS [hold]); prints "patching: N toggles in S s" at the
# end. Under multi-threaded TCG a CPU that executes the int3 of a finished patch Oopses
# (docs/RELIABILITY.md, "Concurrency under TCG"); on real x86 or single-threaded TCG it
# cannot. With "hold", hold_tracepoints (tests/lib/hold-tracepoints.sh) runs first, as the
# multi-threaded test boots do, and the toggles patch nothing.
secs=${1:-60}
T=/sys/kernel/tracing
I=$T/instances/patching
if [ "${2:-}" = hold ]; then
	. /src/tests/lib/hold-tracepoints.sh
	hold_tracepoints || exit 1
fi
mkdir -p "$I"
ncpu=$(grep -c '^processor' /proc/cpuinfo)
rm -f /tmp/patching.stop
for _ in $(seq "$ncpu"); do
	# A pipe between two shells: every line is a wakeup and a context switch on each side.
	while [ ! -e /tmp/patching.stop ]; do echo x; done | while read -r _; do :; done &
done
n=0
end=$((SECONDS + secs))
while [ $SECONDS -lt "$end" ]; do
	echo 1 > "$I/events/sched/sched_switch/enable"
	echo 0 > "$I/events/sched/sched_switch/enable"
	n=$((n + 1))
done
touch /tmp/patching.stop
wait
rmdir "$I"
echo "patching: $n toggles in $secs s"
