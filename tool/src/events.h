/* SPDX-License-Identifier: GPL-2.0 */
/*
 * events.h - one recorded event, the way every trace input of the tool delivers it.
 *
 * Readers (trace_parse.c for tracefs `trace` text and `trace-cmd report` text; a trace.dat
 * reader may produce the same records) turn a recording into a sequence of struct ev_record
 * passed to an ev_fn callback. Order: per CPU, the order of that CPU's ring buffer; across
 * CPUs, the order of the input (for the kernel's merged `trace` file and for trace-cmd report,
 * timestamp order). Consumers that need strict timestamp order across CPUs (off-CPU time)
 * must not assume more than that.
 *
 * One record is one event plus at most one kernel stack reference:
 *  - an event followed on the same CPU by its `<stack_id N>` or `<stack trace>` gives one
 *    record whose stack is that reference;
 *  - an event with no stack reference gives a record with stack.kind == EV_STACK_NONE;
 *  - a further stack reference for the same event gives one more record with the same event
 *    fields and EV_F_EXTRA set, so counting records without EV_F_EXTRA counts events (a text
 *    reader that had to deliver an event before its reference arrived, see TP_WINDOW in
 *    trace_parse.h, also sends the reference as an EV_F_EXTRA record);
 *  - a stack reference with no earlier event on its own CPU gives a record of type
 *    EV_TYPE_UNATTRIBUTED with EV_F_UNATTRIBUTED set; its cpu, pid, comm and ts come from the
 *    stack line itself. A reference is never attributed to another CPU's event;
 *  - where the kernel lost events on a CPU (a `CPU:N [LOST M EVENTS]` line, trace-cmd's
 *    `[M EVENTS DROPPED]`, a trace.dat page flagged with missed events), one marker record with
 *    EV_F_LOST and the count in `lost` (0 when the kernel had no room for it); a stack reference
 *    on that CPU before its next event belongs to a lost event: type EV_TYPE_LOST with
 *    EV_F_UNATTRIBUTED, never the event before the loss (a loss before the CPU's first event is
 *    the start of its data, as in a wrapped buffer: its stacks stay EV_TYPE_UNATTRIBUTED);
 *  - a record whose event the reader does not know (an id without a format in a trace.dat,
 *    `[UNKNOWN EVENT]` or `Unknown type N` in text) is an event of type EV_TYPE_UNKNOWN, and the
 *    stack references after it are its own.
 * Counting records without EV_F_EXTRA, EV_F_UNATTRIBUTED and EV_F_LOST counts events.
 * User-space stacks (`<user stack trace>`) are not delivered, and neither are stack
 * definitions (`<stack_def N gen G switch S>` blocks, kernel_stack_def records): they are not uses of a
 * stack and belong to no event; a reader given an ev_resolver (below) resolves ids with them.
 *
 * A reader given an ev_resolver fills stack.gen and stack.res of every EV_STACK_ID reference
 * from it, with the timestamp of the reference itself (the `<stack_id N>` line or the
 * kernel_stack_id record, not its event); without one, gen is 0 and res NULL. The input layer
 * (input.h) always gives one, so its consumers read what an id stands for from stack.res.
 *
 * Every pointer in a record (type_name, stack.frames, stack.addrs) is valid only during the
 * callback (stack.res: as long as the resolver's table); copy what you keep. The callback returns 0, or a negative errno that stops the
 * reader and is returned by it.
 */
#ifndef EVENTS_H
#define EVENTS_H

#include <stdint.h>

#define EV_COMM_LEN	     32 /* the kernel's TASK_COMM_LEN is 16; longer names are cut */
#define EV_STATE_LEN	     8
#define EV_TS_NONE	     UINT64_MAX
#define EV_PID_NONE	     (-1)
#define EV_TYPE_UNATTRIBUTED "(no event)"
#define EV_TYPE_LOST	     "(lost event)"
#define EV_TYPE_UNKNOWN	     "(unknown event)"

enum ev_stack_kind {
	EV_STACK_NONE, /* the event carries no kernel stack */
	EV_STACK_ID, /* a <stack_id N>: see gen and res */
	EV_STACK_FULL, /* a full stack the kernel wrote instead (fallback, or no stackmap) */
};

#define EV_FROM_DEF 1 /* ev_idstack.from: a definition in the recording */
#define EV_FROM_MAP 2 /* ... the stack map (stack_map_bin) */

/*
 * What a stack id stands for (stacks.h resolves it): a definition of the recording, or a record
 * of the map. Every pointer stays valid until the resolver's table is freed.
 */
struct ev_idstack {
	uint32_t id, gen;
	uint32_t nr; /* frames, innermost first (1 to 64) */
	uint32_t ref_count; /* EV_FROM_MAP: the map's count; 0 for a definition */
	const uint64_t *addrs; /* the addresses, NULL for a definition read from trace text */
	const char *const *frames; /* a text definition's frame texts as printed, else NULL */
	uint32_t index; /* dense over the table's stacks (definitions, then map records) */
	int from; /* EV_FROM_DEF or EV_FROM_MAP */
};

/*
 * A reader's resolver of stack ids: the stack that id @id of a reference at @ts_ns (EV_TS_NONE
 * when unknown) stands for, NULL when nothing resolves it; *@gen gets the generation the
 * reference belongs to. Called on the reader's thread; reads a table that does not change while
 * readers run.
 */
struct ev_resolver {
	const struct ev_idstack *(*resolve)(const void *ctx, uint64_t ts_ns, uint32_t id,
					    uint32_t *gen);
	const void *ctx;
};

struct ev_stack {
	enum ev_stack_kind kind;
	uint32_t id; /* EV_STACK_ID */
	uint32_t gen; /* EV_STACK_ID: its generation (with a resolver; else 0) */
	const struct ev_idstack *res; /* EV_STACK_ID: what the id stands for, NULL: unresolved */
	uint32_t nr; /* EV_STACK_FULL: number of frames, leaf first */
	/*
	 * EV_STACK_FULL: the frame texts as the input printed them ("sym+0x1/0x2 [mod]" from
	 * tracefs, "sym (ffffffff81000000)" from trace-cmd), or NULL when the input has only
	 * addresses.
	 */
	const char *const *frames;
	/* EV_STACK_FULL: the addresses when the input has them (binary inputs), else NULL. */
	const uint64_t *addrs;
};

/* sched_switch fields (flags & EV_F_SWITCH). */
struct ev_switch {
	int32_t prev_pid, next_pid;
	int32_t prev_prio, next_prio; /* -1 when not printed */
	char prev_comm[EV_COMM_LEN], next_comm[EV_COMM_LEN];
	char prev_state[EV_STATE_LEN]; /* as printed: "S", "R", "R+", "D", "I", "X", ... */
};

#define EV_F_EXTRA	  0x1 /* a second (third...) stack reference of the same event */
#define EV_F_UNATTRIBUTED 0x2 /* stack reference with no earlier event on its CPU */
#define EV_F_SWITCH	  0x4 /* sw is valid */
#define EV_F_LOST	  0x8 /* a marker: the kernel lost events here on this CPU (no stack) */

struct ev_record {
	uint64_t seq; /* 0-based index of the event in the input; equal for EV_F_EXTRA records */
	uint64_t ts_ns; /* nanoseconds of the trace clock, EV_TS_NONE when unknown (counter
			   clocks that print plain integers are passed through unscaled) */
	int32_t cpu; /* -1 when unknown */
	int32_t pid; /* EV_PID_NONE when unknown */
	int32_t tgid; /* EV_PID_NONE when the input does not show it (record-tgid option) */
	char comm[EV_COMM_LEN]; /* "" when unknown; "<idle>" for pid 0 as ftrace prints it */
	uint32_t type; /* dense index of the event type, stable for one reader */
	const char *type_name; /* "sched_switch", "kmem_cache_alloc", "function", ... */
	uint32_t flags; /* EV_F_* */
	struct ev_switch sw;
	struct ev_stack stack;
	uint64_t lost; /* EV_F_LOST: events lost, 0 when the count is unknown */
};

typedef int (*ev_fn)(void *arg, const struct ev_record *rec);

#endif /* EVENTS_H */
