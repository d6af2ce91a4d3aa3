# SPDX-License-Identifier: GPL-2.0
# hold_tracepoints: keep the code of every tracepoint as it is for the rest of the boot.
#
# Under multi-threaded TCG a vCPU can execute the int3 of a code patch that another vCPU has
# already finished, and Oops there ("Oops: int3" at a tracepoint's static call, on the
# unpatched kernel too: tests/tcg/patching.sh; docs/RELIABILITY.md, "Concurrency under
# TCG"). Turning an event on or off rewrites its tracepoint's static key when the first probe
# comes or the last goes, and its static call when the count of probes changes between one
# and two. Two instances that do not record hold every event on, so every tracepoint keeps
# two probes or more, and the tests' own event switches patch nothing. The instances are set
# up with the other CPUs offline, so that this one patching runs on a single CPU. The lock:*
# events are left out: under lockdep they fire on every lock operation, and no test turns
# them on (fileops_test's all_events_on() skips them).
# Sourced by guest scripts (bash); returns non-zero with a message if it could not.
hold_tracepoints() {
	local t=/sys/kernel/tracing c i ok=1 offlined=()
	for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$c")" = 1 ] || continue
		echo 0 > "$c" || { echo "hold_tracepoints: cannot take ${c%/online} offline"; return 1; }
		offlined+=("$c")
	done
	for i in tp_hold0 tp_hold1; do
		mkdir "$t/instances/$i" &&
			echo 0 > "$t/instances/$i/tracing_on" &&
			echo 4 > "$t/instances/$i/buffer_size_kb" &&
			echo 1 > "$t/instances/$i/events/enable" &&
			{ [ ! -e "$t/instances/$i/events/lock/enable" ] ||
				echo 0 > "$t/instances/$i/events/lock/enable"; } ||
			{ echo "hold_tracepoints: cannot set up instances/$i"; ok=0; break; }
	done
	# The CPUs come back also after a failure, so that the tests after it still have them.
	for c in "${offlined[@]}"; do
		echo 1 > "$c" || { echo "hold_tracepoints: cannot bring ${c%/online} back"; return 1; }
	done
	[ $ok = 1 ]
}
