# SPDX-License-Identifier: GPL-2.0
# Helpers for the stackmap test cases (sourced; runs in the tracefs directory).

sm_fail() { # message
	echo "$1"
	exit_fail
}

# Value of "key:" in stack_map_stat (the first number on the line).
sm_stat() { # key
	sed -n "s/^$1: *\([0-9][0-9]*\).*/\1/p" stack_map_stat
}

# Everything off, map empty, buffer empty, tracing on (ftracetest's initial state).
sm_reset_all() {
	echo 0 > tracing_on
	echo 0 > options/stacktrace
	[ -f options/func_stack_trace ] && echo 0 > options/func_stack_trace
	echo 0 > options/stackmap
	echo 0 > events/enable
	echo nop > current_tracer
	echo > set_ftrace_filter 2>/dev/null || true
	echo 0 > stack_map
	echo > trace
	echo 1 > tracing_on
}

# A little real kernel activity: fork/exec, file reads, sleeps.
sm_workload() {
	for i in 1 2 3 4 5; do
		ls / > /dev/null
		dd if=/proc/self/stat of=/dev/null bs=32 count=4 2> /dev/null
		cat /proc/meminfo > /dev/null
		sleep 0.01
	done
}

# Record sched_switch events with stack ids while the workload runs, then stop tracing.
sm_record_sched() {
	echo 0 > tracing_on
	echo > trace
	echo 1 > options/stackmap
	echo 1 > options/stacktrace
	echo 1 > events/sched/sched_switch/enable
	echo 1 > tracing_on
	sm_workload
	echo 0 > tracing_on
	echo 0 > events/sched/sched_switch/enable
}

# Number of id events and full-stack events in the trace.
sm_count_ids() {
	grep -c '<stack_id [0-9]*>' trace || true
}

sm_count_full() {
	grep -c '<stack trace>' trace || true
}

# True when the ring buffer lost nothing (entries-in-buffer equals entries-written).
sm_trace_complete() {
	grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' trace
}
