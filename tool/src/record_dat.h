/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record_dat - read the per-CPU ring buffers of the top trace instance into a trace.dat.
 * Uses the tracing directory libtracefs is set to. Never prints; returns 0 or a negative errno.
 */
#ifndef RECORD_DAT_H
#define RECORD_DAT_H

#include <stddef.h>
#include <stdint.h>

struct rdat {
	uint32_t page_size; /* ring-buffer sub-buffer size */
	int ncpus; /* per_cpu/cpu0 .. cpuN-1 */
	int *raw; /* per CPU: trace_pipe_raw, O_NONBLOCK */
	int *tmp; /* per CPU: unlinked temporary file with the pages read so far */
	uint64_t *sizes; /* bytes in each temporary file */
	uint64_t *pages; /* pages read per CPU */
	char *buf;
	/* rdat_measure_date(): CLOCK_REALTIME - trace clock, stored as trace.dat option DATE */
	int have_date;
	int64_t date_offset_ns;
	int64_t date_err_ns; /* half the read window; an approximated clock can be further off */
	int date_exact; /* the trace clock is a POSIX clock (mono, mono_raw, boot, tai) */
};

struct rdat_event {
	const char *system;
	const char *event; /* NULL: the whole system */
};

/* Per-CPU counters of per_cpu/cpuN/stats. */
struct rdat_stats {
	uint64_t entries, overrun, commit_overrun, dropped, read;
};

/* rdat_open() - open every CPU's trace_pipe_raw; temporary files go to @outdir. */
int rdat_open(struct rdat *rd, const char *outdir);

/*
 * rdat_drain() - move the pages the kernel has ready (at most @max_pages per CPU, -1: all) to
 * the temporary files. Reading consumes them from the ring buffer.
 * Return: pages moved, or a negative errno.
 */
long rdat_drain(struct rdat *rd, long max_pages);

/*
 * rdat_wait() - wait until some CPU has data for a reader (poll(2) on trace_pipe_raw: the
 * kernel wakes it when the buffer is buffer_percent full) or @timeout_ms pass.
 * Return: the number of ready CPUs, 0 on timeout, or a negative errno (-EINTR on a signal).
 */
int rdat_wait(struct rdat *rd, int timeout_ms);

/*
 * rdat_finish() - write @outdir/trace.dat (via a temporary name) with the formats of ftrace's
 * own events and of @events, @ksyms_path as kallsyms and the pages read so far; also writes
 * *@bytes: trace.dat size.
 */
int rdat_finish(struct rdat *rd, const char *outdir, const char *ksyms_path,
		const struct rdat_event *events, size_t nevents, uint64_t *bytes);

/*
 * rdat_measure_date() - the wall-clock reference of the recording: read CLOCK_REALTIME, the
 * POSIX clock matching tracefs' trace_clock, and CLOCK_REALTIME again (the tightest of 16
 * tries), and keep realtime - trace time in @rd for rdat_finish(). mono, mono_raw, boot and tai
 * are the kernel's CLOCK_MONOTONIC, _RAW, _BOOTTIME and _TAI: exact up to the read window.
 * local, global and perf (the default "local") are sched_clock, which POSIX cannot read; they are
 * taken as CLOCK_MONOTONIC_RAW: both count from about boot without NTP steering, so the offset
 * is off by the difference of their zero points (usually far below a second, more in some VMs)
 * plus their calibration drift since boot. Other clocks (counter, uptime, x86-tsc) have no
 * wall-clock mapping. Return: 0, -EOPNOTSUPP for those, or a negative errno.
 */
int rdat_measure_date(struct rdat *rd);

/* rdat_save_stats() - write the per_cpu/cpuN/stats texts of this moment to @outdir/cpu_stats. */
int rdat_save_stats(struct rdat *rd, const char *outdir);

/* rdat_cpu_stats() - parse per_cpu/cpu@cpu/stats. */
int rdat_cpu_stats(int cpu, struct rdat_stats *s);

void rdat_close(struct rdat *rd);

#endif /* RECORD_DAT_H */
