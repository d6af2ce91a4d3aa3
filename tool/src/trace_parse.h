/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_parse - parse ftrace `trace` text (and trace-cmd report text) into per-event records
 * (struct ev_record, see events.h) and attribute stack references to the events that produced
 * them.
 *
 * A stack reference is either a `<stack_id N>` entry or a full-stack `<stack trace>` block
 * (lines ` => frame`) that the kernel writes when it falls back to full stacks. A stack
 * definition, `<stack_def N gen G switch S>` and its ` => frame` lines, is no reference and no event:
 * tp_scan_defs() collects the definitions (a first pass, the input layer's), the record parser
 * checks and skips them. Each reference
 * is attributed to the nearest preceding non-stack event line on the same CPU. A reference on
 * a CPU that has shown no event yet is never given to another CPU's event: it is counted in
 * tp_ctx.unattributed and delivered with the event type "(no event)". A lost-events line
 * (`CPU:N [LOST M EVENTS]`, trace-cmd's `CPU:N [M EVENTS DROPPED]`) becomes an EV_F_LOST
 * marker record, and a reference on that CPU before its next event goes to "(lost event)".
 * The rules are those of events.h; the input layer (input.h) is the only caller in the tool.
 *
 * tp_feed_records() delivers whole records (events with their stack, pid, comm, timestamp,
 * sched_switch fields). This library never prints; functions return 0 or a negative errno.
 */
#ifndef TRACE_PARSE_H
#define TRACE_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "htab.h"

enum tp_kind {
	TP_BLANK, /* empty or white space only */
	TP_COMMENT, /* starts with '#' */
	TP_EVENT, /* an event line; name is the event type */
	TP_STACK_ID, /* <stack_id N>; stack_id is set */
	TP_BAD_STACK_ID, /* <stack_id ...> whose number does not parse */
	/*
	 * <stack_def N gen G switch S> (the switch count since kernels have map switches):
	 * stack_id, gen and sw are set; frame lines follow, or (plugin_stackmap's
	 * one-line form) the frames are in fields, joined by " <- "
	 */
	TP_STACK_DEF,
	TP_BAD_STACK_DEF, /* <stack_def ...> that does not parse */
	TP_STACK_START, /* <stack trace>: frame lines follow */
	TP_USER_STACK_START, /* <user stack trace>: frame lines follow, ignored */
	TP_FRAME, /* " => frame"; name is the frame text */
	TP_LOST, /* CPU:N [LOST M EVENTS] or CPU:N [M EVENTS DROPPED]; cpu and lost are set */
	TP_OTHER, /* anything else (headers) */
};

#define TP_MAX_CPU	  65535
#define TP_MAX_DEF_FRAMES 64 /* a definition has 1 to 64 frames, as a stack_map_bin record */

struct tp_line {
	enum tp_kind kind;
	int cpu; /* -1 when the line has no [CPU] field */
	const char *name; /* event type or frame text (not NUL-terminated) */
	size_t name_len;
	uint32_t stack_id;
	uint32_t gen; /* TP_STACK_DEF */
	uint32_t sw; /* TP_STACK_DEF: the switch count, when sw_known */
	int sw_known;
	uint64_t lost; /* TP_LOST: the count, 0 when the line gives none */
	/* TP_EVENT and stack lines with a header: */
	const char *comm; /* task name before "-PID" (not NUL-terminated), NULL if none */
	size_t comm_len;
	int32_t pid, tgid; /* EV_PID_NONE when not shown */
	uint64_t ts_ns; /* EV_TS_NONE when the line has no timestamp */
	/* TP_EVENT: the text after "name:"; TP_STACK_DEF: after ">" (not NUL-terminated) */
	const char *fields;
	size_t fields_len;
};

/* tp_parse_line() - classify one line (without its newline). Never fails. */
void tp_parse_line(const char *line, size_t len, struct tp_line *out);

/* String interning table: maps byte strings to dense indexes 0, 1, 2, ... */
struct tp_strtab {
	char **strs; /* NUL-terminated copies, by index */
	size_t *lens;
	size_t n, cap;
	struct htab idx; /* hashed by tp_hash() of the bytes */
};

void tp_strtab_init(struct tp_strtab *t);
/* Return the index of @s (adding it if new), or a negative errno. */
long tp_strtab_intern(struct tp_strtab *t, const char *s, size_t len);
void tp_strtab_free(struct tp_strtab *t);

/* A record waiting for its stack references (internal to trace_parse.c). */
struct tp_slot {
	struct ev_record rec;
	int open; /* may still receive references: latest event of its CPU, or block open */
	char *text; /* frame texts of a full stack, each NUL-terminated */
	size_t tlen, tcap;
	size_t *offs; /* start of each frame in text */
	size_t noffs, offcap;
};

/* Per-CPU attribution state (internal). */
struct tp_cpu {
	uint64_t slot; /* absolute position of the CPU's latest event in the ring */
	int have_event; /* an event was seen on this CPU (and no loss since) */
	int lost; /* the kernel lost events on this CPU since its last event */
	int seen; /* the CPU has had an event (a loss before it is the start of its data) */
	struct ev_record last; /* that event once delivered early (window full), for late refs */
};

/*
 * Records are delivered in input order of their events. A record is held until the next
 * event on its CPU shows that no more references can follow, or until more than
 * TP_WINDOW records are waiting (an idle CPU must not hold back the others); a reference
 * that arrives after its event was delivered that way becomes an EV_F_EXTRA record.
 */
#define TP_WINDOW 4096

struct tp_ctx {
	struct tp_strtab events; /* event type names */
	struct tp_cpu *cpus;
	size_t ncpu;
	struct tp_slot *ring; /* waiting records, positions head..tail-1 (masked) */
	size_t ring_mask; /* capacity - 1 (capacity is a power of two), 0 before first use */
	uint64_t head, tail;
	int in_block; /* 0 none, 1 kernel stack, 2 user stack, 3 stack definition */
	uint64_t block_slot; /* ring position of the record the open kernel block fills */
	uint64_t seq; /* events seen */
	uint64_t lines; /* lines fed */
	uint64_t offset; /* bytes fed (each line plus its newline) */
	uint64_t bad_stack_ids; /* TP_BAD_STACK_ID lines */
	uint64_t def_line, def_offset; /* the open stack definition (in_block 3) */
	uint32_t def_frames; /* its frames so far */
	uint64_t defs; /* stack definitions skipped */
	/* resolves the ids (sets stack.gen and stack.res, events.h); NULL: gen 0, res NULL */
	const struct ev_resolver *resolver;
	uint64_t stray_frames; /* frame lines outside a block */
	uint64_t unattributed; /* references with no earlier event on their CPU */
	uint64_t after_loss; /* references of lost events (after a loss, before an event) */
	uint64_t lost_markers, lost_events; /* lost-events lines, and the counts they give */
	uint64_t extra; /* records with EV_F_EXTRA */
	/*
	 * First sign of a corrupt input, which every caller rejects: line number (1-based) and
	 * byte offset of the line and the reason; bad_reason is NULL when none. Reasons: a NUL
	 * byte, a malformed <stack_id> or <stack_def> entry, a <stack_def> without frames or
	 * with more than TP_MAX_DEF_FRAMES.
	 */
	uint64_t bad_line, bad_offset;
	const char *bad_reason;
	/*
	 * A last line without a newline (a torn copy of a live file): not parsed; its line
	 * number, 0 when the input ended with a newline.
	 */
	uint64_t torn_line;
	const char **fptr; /* frame pointers handed to the callback */
	size_t fptr_cap;
	struct ev_record tmp; /* scratch copy for EV_F_EXTRA records */
};

int tp_ctx_init(struct tp_ctx *ctx);
void tp_ctx_free(struct tp_ctx *ctx);

/*
 * tp_feed_line_ev() feeds one line (without its newline); tp_finish_ev() delivers every
 * record still waiting (call it once at the end); tp_feed_records() feeds a whole buffer (a
 * last line without newline is not parsed: see torn_line) and finishes. Parsing stops at the
 * first corrupt line (bad_reason set; the return is still 0). Return 0 or a negative errno
 * (-ENOMEM, or from @fn).
 */
int tp_feed_line_ev(struct tp_ctx *ctx, const char *line, size_t len, ev_fn fn, void *arg);
int tp_finish_ev(struct tp_ctx *ctx, ev_fn fn, void *arg);
int tp_feed_records(struct tp_ctx *ctx, const char *buf, size_t len, ev_fn fn, void *arg);

/* A stack definition as tp_scan_defs() found it. */
struct tp_def {
	uint32_t id, gen;
	uint32_t sw; /* when sw_known */
	int sw_known;
	int cpu;
	uint64_t ts_ns; /* of the <stack_def> line */
	uint32_t nr; /* 1 to TP_MAX_DEF_FRAMES */
	const char *frames[TP_MAX_DEF_FRAMES]; /* the frame texts (not NUL-terminated) */
	size_t lens[TP_MAX_DEF_FRAMES];
};

/*
 * tp_scan_defs() - call @fn for every well-formed stack definition of the complete lines of
 * @buf (a last line without newline is not read), in input order. Malformed ones are left to
 * the record parser, which rejects the input. Return 0 or @fn's nonzero return.
 */
int tp_scan_defs(const char *buf, size_t len, int (*fn)(void *arg, const struct tp_def *d),
		 void *arg);

/*
 * tp_frame_func() - the function part of a frame text for collapsed stacks: "sym+0x1/0x2
 * [mod]" gives "sym [mod]", "sym (ffffffff81000000)" (trace-cmd) gives "sym". Writes at most
 * @size bytes including the NUL; returns the length written.
 */
size_t tp_frame_func(const char *frame, char *buf, size_t size);

#endif /* TRACE_PARSE_H */
