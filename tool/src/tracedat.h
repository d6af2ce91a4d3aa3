/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracedat - read and write trace-cmd's trace.dat (trace-cmd.dat(5), versions 6 and 7).
 *
 * The reader takes a whole file image in memory (td_open_mem(), or td_open_file() which maps
 * it), parses the event formats into a libtraceevent handle, keeps the kallsyms text and the
 * table of the file's buffers (one per ftrace instance: the top level and every trace-cmd
 * record -B NAME), reads the per-CPU ring-buffer pages of the buffer td_select() chose, and
 * walks the records of one CPU with libtraceevent's kbuffer (td_cpu_iterate()). Version 7
 * sections and CPU data may be compressed with zstd or zlib. The writer produces version 6 without compression: the simplest layout that every
 * trace-cmd since 2.x and KernelShark read. Neither part prints: functions return 0 or a
 * negative errno and fill struct td_err with the byte offset of a format problem. The byte
 * layout as used here is described in doc/TRACEDAT.md.
 */
#ifndef TRACEDAT_H
#define TRACEDAT_H

#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;

#define TD_MAGIC     "\x17\x08\x44tracing"
#define TD_MAGIC_LEN 10
/*
 * Option id of the stack map stored in a trace.dat we write (stack_map_bin as read at the end
 * of the recording). trace-cmd skips option ids it does not know.
 */
#define TD_OPT_STACKMAP 0x534d

struct td_err {
	uint64_t offset; /* byte offset in the file (in the decompressed section for v7) */
	char msg[160];
};

struct td_cpu {
	int cpu;
	const uint8_t *data; /* ring-buffer pages, page_size each (the last may be short) */
	uint64_t size;
	uint64_t file_offset; /* where the data starts in the file, for error offsets */
};

/*
 * One ftrace instance's ring buffer in the file (doc/TRACEDAT.md, "Buffers"): the top level,
 * named "", and one per trace-cmd record -B NAME. Its CPUs are as the file records them (the
 * compressed chunks of a compressed v7 buffer) until td_select() takes the buffer.
 */
struct td_buffer {
	const char *name; /* NUL-terminated, inside the file image or a decompressed section */
	uint32_t page_size;
	int ncpus;
	struct td_cpu *cpus;
	uint64_t data_size; /* bytes of CPU data recorded (trace-cmd dump --summary's) */
	uint64_t offset; /* where the file describes it, for messages */
	int compressed; /* v7: its CPU data is compressed chunks, inflated by td_select() */
	int inflated;
};

struct td_file {
	const uint8_t *buf;
	size_t len;
	void *map; /* mmap of td_open_file(), or NULL */
	int version; /* 6 or 7 */
	int big_endian;
	int long_size; /* 4 or 8 */
	uint32_t page_size;
	struct tep_handle *tep;
	const char *kallsyms; /* text, NUL-terminated copy; NULL if the file has none */
	size_t kallsyms_len;
	const char *cmdlines; /* saved_cmdlines text, NUL-terminated copy; NULL if absent */
	size_t cmdlines_len;
	const uint8_t *stackmap; /* option TD_OPT_STACKMAP, NULL if absent (the top level's map) */
	size_t stackmap_len;
	struct td_buffer *buffers; /* every buffer of the file, in file order (at least one) */
	int nbuffers;
	int sel; /* the index of the buffer td_select() chose, -1 before */
	int comp; /* the file's compression (v7) */
	/* the CPUs of the selected buffer (none before td_select()) and its page size */
	struct td_cpu *cpus;
	int ncpus;
	char **owned; /* decompressed blocks and copies */
	size_t nowned;
	/* event ids of the stack events, -1 when the file has no such format */
	int id_stack_id, id_kernel_stack, id_user_stack, id_stack_def;
	int stack_id_off, stack_id_size; /* field stack_id of kernel_stack_id */
	int kstack_size_off, kstack_caller_off; /* fields size and caller of kernel_stack */
	/*
	 * fields stack_id, generation, size and caller of kernel_stack_def; def_ok is 0 when its
	 * format lacks one of them (its records are then an error)
	 */
	int def_id_off, def_gen_off, def_size_off, def_caller_off, def_ok;
	int def_sw_off; /* its u32 switches, -1 when the format has none (kernels before it) */
	/*
	 * trace-cmd's DATE option: wall-clock time = trace timestamp + date_offset_ns. The file
	 * stores microseconds, so the offset is a multiple of 1000. The records' timestamps are
	 * not changed by the reader.
	 */
	int have_date;
	int64_t date_offset_ns;
	/*
	 * Events by id, looked up once: tep_find_event() bisects the event list on every call
	 * unless the id is the one it found last, and the records of a stackmap recording
	 * alternate between an event and its kernel_stack_id (perf record: 10% of an export).
	 * ev_cache[id % TD_EV_CACHE] holds id + 1 (0: empty) and its event.
	 */
#define TD_EV_CACHE 64
	struct {
		int id1;
		struct tep_event *ev;
	} ev_cache[TD_EV_CACHE];
};

/* td_is_tracedat() - 1 when @buf starts with the trace.dat magic. */
int td_is_tracedat(const void *buf, size_t len);

/*
 * td_open_mem() - parse a trace.dat image: its headers, formats, kallsyms, options and the
 * description of every buffer (each checked: its CPU data inside the file). No buffer is
 * selected yet: td_select() reads one. @buf must stay valid until td_close().
 * Return: 0; -EBADMSG with @err set for malformed input; -EPROTONOSUPPORT for a version,
 * compression or buffer layout this reader does not know (also with @err); -ENOMEM.
 * @td must be released with td_close() in every case.
 */
int td_open_mem(struct td_file *td, const void *buf, size_t len, struct td_err *err);

/* td_buffer_find() - the index of the buffer named @name ("": the top level), or -1. */
int td_buffer_find(const struct td_file *td, const char *name);

/*
 * td_buffer_default() - the buffer a reader takes when none is named, by the rule of the man
 * page (stackmap.1, INPUT, "Buffers"; a buffer holds data when data_size is not 0), the first
 * buffer when no buffer holds data and the file has no top level. Return: its index, or -1
 * when the rule finds no single buffer (several named buffers hold data).
 */
int td_buffer_default(const struct td_file *td);

/*
 * td_select() - read buffer @idx: decompress its CPU data if needed and make it td->cpus,
 * td->ncpus and td->page_size (the buffer selected before, if any, stays decompressed).
 * Return: 0; -EBADMSG with @err for CPU data that does not decompress; -EINVAL for a bad
 * @idx; -ENOMEM.
 */
int td_select(struct td_file *td, int idx, struct td_err *err);

/*
 * td_open_raw() - no file header: one CPU of ring-buffer @pages (page_size each) whose records
 * follow the given event formats (NULL-terminated list, each entry "SYSTEM\nformat text"),
 * in the host's byte order and long size, as the top level's buffer, selected. For the fuzzer
 * and tests of the page walk.
 */
int td_open_raw(struct td_file *td, const void *pages, size_t len, uint32_t page_size,
		const char *const *formats);

/* td_open_file() - map @path and td_open_mem() it; -errno when it cannot be read. */
int td_open_file(struct td_file *td, const char *path, struct td_err *err);

void td_close(struct td_file *td);

enum td_kind {
	TD_EVENT, /* any event that is not a stack record */
	TD_STACK_ID, /* ftrace kernel_stack_id: stack_id set */
	TD_STACK, /* ftrace kernel_stack: nr frames in ips */
	TD_USER_STACK, /* ftrace user_stack (not decoded further) */
	TD_STACK_DEF, /* ftrace kernel_stack_def: stack_id, gen and nr frames in ips */
	TD_BAD, /* too short for its format, or an unknown event id */
};

struct td_rec {
	enum td_kind kind;
	int cpu;
	int type; /* common_type */
	uint64_t ts;
	const struct tep_event *event; /* NULL for TD_BAD */
	const void *data; /* the record payload and its size */
	int size;
	uint32_t stack_id;
	uint32_t gen; /* TD_STACK_DEF */
	uint32_t sw; /* TD_STACK_DEF: the switch count, when sw_known */
	int sw_known;
	uint32_t nr;
	const uint64_t *ips; /* host order, valid during the callback */
	/*
	 * The first record of a page the kernel flagged "events were lost before this page":
	 * missed is 1 and missed_events the count it stored (0 when it had no room for it).
	 */
	int missed;
	uint64_t missed_events;
};

/* Called per record in buffer order; a non-zero return stops the walk and is returned. */
typedef int (*td_rec_fn)(void *arg, const struct td_rec *rec);

struct td_cpu_stats {
	uint64_t records; /* records passed to the callback (padding excluded) */
	uint64_t pages; /* pages walked */
	uint64_t missed_pages; /* pages flagged "events were lost before this page" */
	uint64_t missed_events; /* lost counts stored in those pages (when the kernel had room) */
};

/*
 * td_cpu_iterate() - walk every record of td->cpus[@idx].
 * Return: 0, the callback's non-zero value, -EBADMSG with @err for a malformed page or a
 * malformed kernel_stack_def record (one whose size is not 1 to 64 frames or runs past the
 * record, or whose stack_id is negative: doc/TRACEDAT.md), -ENOMEM.
 */
int td_cpu_iterate(struct td_file *td, int idx, td_rec_fn fn, void *arg, struct td_cpu_stats *st,
		   struct td_err *err);

/*
 * Pull interface over one CPU (what td_cpu_iterate() uses), for readers that merge CPUs:
 * td_iter_next() returns 1 with *@rec filled (rec->ips valid until the next call on @it),
 * 0 at the end, or -EBADMSG / -ENOMEM.
 */
struct td_iter;
int td_iter_open(struct td_file *td, int idx, struct td_iter **it);
int td_iter_next(struct td_iter *it, struct td_rec *rec, struct td_err *err);
const struct td_cpu_stats *td_iter_stats(const struct td_iter *it);
void td_iter_close(struct td_iter *it);

/* Writer -------------------------------------------------------------------------------- */

/* One event format file: the system ("ftrace" for ftrace's own events) and its text. */
struct td_format {
	const char *system;
	const char *text;
	size_t len;
};

struct td_write_info {
	uint32_t page_size;
	const char *header_page, *header_event; /* events/header_page and header_event */
	size_t header_page_len, header_event_len;
	const struct td_format *formats; /* grouped by system: equal systems adjacent */
	size_t nformats;
	const char *kallsyms, *printk, *cmdlines;
	size_t kallsyms_len, printk_len, cmdlines_len;
	const char *trace_clock; /* e.g. "local"; NULL: not written */
	const void *stackmap; /* stack_map_bin to store as option TD_OPT_STACKMAP, or NULL */
	size_t stackmap_len;
	const char *const *cpustats; /* per CPU, the text of per_cpu/cpuN/stats, or NULL */
	int ncpus;
	const int *cpu_fds; /* per CPU: a file holding the raw pages, read from offset 0 */
	const uint64_t *cpu_sizes; /* bytes in each of them */
	/* with have_date: option DATE, CLOCK_REALTIME - trace clock (written in microseconds) */
	int have_date;
	int64_t date_offset_ns;
};

/*
 * td_write_v6() - write a trace.dat version 6 (little-endian host only) to @fd, from offset 0.
 * Return: 0 or a negative errno.
 */
int td_write_v6(int fd, const struct td_write_info *wi);

#endif /* TRACEDAT_H */
