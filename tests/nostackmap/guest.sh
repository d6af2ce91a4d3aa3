# SPDX-License-Identifier: GPL-2.0
# tests/nostackmap/guest.sh: run by bash in the guest (in /host) by tests/nostackmap/run.sh.
# Writes what ftrace shows of itself, in files the host compares between kernels:
#   listing.txt    every path under /sys/kernel/tracing with its mode and owner
#   options.txt    every trace option and its value, then trace_options
#   contents.txt   the files whose contents do not change from boot to boot (README, the
#                  tracers, clocks, buffer sizes, every event's format/enable/filter/trigger...)
#   functions.txt  available_filter_functions, sorted
#   trace.txt      the trace of a fixed workload (raw; the host strips timestamps, CPUs and pids)
#   pid.txt        the workload's pid
# Nothing here reads a file that blocks (trace_pipe*) or that changes from boot to boot
# (per_cpu stats, saved_cmdlines, printk_formats and other addresses, stack_trace).
set -eu
T=/sys/kernel/tracing
cd $T

find . -exec stat -c '%A %U:%G %n' {} + | LC_ALL=C sort -k 3 >/host/listing.txt

for o in options/*; do
	echo "${o#options/} $(cat "$o")"
done >/host/options.txt
cat trace_options >>/host/options.txt

# One line per line of each file, "path:line" (grep -H: one process for all of them).
for f in README available_tracers current_tracer trace_clock tracing_on tracing_cpumask \
		tracing_thresh tracing_max_latency buffer_size_kb buffer_total_size_kb \
		buffer_subbuf_size_kb buffer_percent saved_cmdlines_size max_graph_depth \
		timestamp_mode available_events set_event set_event_pid set_event_notrace_pid \
		set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_ftrace_notrace_pid \
		set_graph_function set_graph_notrace synthetic_events error_log \
		dyn_ftrace_total_info stack_trace_filter events/header_page events/header_event \
		events/enable; do
	[ -e "$f" ] && echo "$f"
done | {
	cat
	find events -mindepth 2 -maxdepth 3 -type f \
		\( -name format -o -name enable -o -name filter -o -name trigger \) | LC_ALL=C sort
} | xargs grep -H '' >/host/contents.txt || true

LC_ALL=C sort available_filter_functions >/host/functions.txt

# The workload: one busybox md5sum of a fixed file, traced from its own shell (which sets
# the pid filters, then turns tracing on and execs it), with a few syscall and process
# events, the stack trace of every event, and the function tracer on four functions.
# Without address randomization its syscall arguments are the same on every boot.
echo 0 >/proc/sys/kernel/randomize_va_space
mkdir -p /tmp/wl
seq 1 2000 >/tmp/wl/in
echo 0 >tracing_on
echo nop >current_tracer
echo >trace
echo 'ksys_read ksys_write vfs_read vfs_write' >set_ftrace_filter
echo function >current_tracer
for e in sched/sched_process_exec sched/sched_process_exit syscalls/sys_enter_openat \
	syscalls/sys_exit_openat syscalls/sys_enter_read syscalls/sys_exit_read \
	syscalls/sys_enter_write syscalls/sys_exit_write syscalls/sys_enter_close \
	syscalls/sys_exit_close syscalls/sys_enter_execve syscalls/sys_exit_exit_group \
	syscalls/sys_enter_exit_group; do
	[ -e "events/$e/enable" ] && echo 1 >"events/$e/enable"
done
echo 1 >options/stacktrace
/bin/busybox sh -c 'echo $$ >/host/pid.txt; echo $$ >set_event_pid; echo $$ >set_ftrace_pid
	echo 1 >tracing_on; exec /bin/busybox md5sum /tmp/wl/in' >/tmp/wl/out
echo 0 >tracing_on
cat trace >/host/trace.txt
echo 0 >options/stacktrace
echo 0 >events/enable
echo nop >current_tracer
echo >set_ftrace_filter
echo >set_event_pid
echo >set_ftrace_pid
echo >trace
