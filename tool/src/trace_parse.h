/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_parse - parse ftrace `trace` text (and trace-cmd report text) and attribute stack
 * references to the events that produced them.
 *
 * A stack reference is either a `<stack_id N>` entry or a full-stack `<stack trace>` block
 * (lines ` => frame`) that the kernel writes when it falls back to full stacks. Each reference
 * is attributed to the nearest preceding non-stack event line on the same CPU, or to the
 * previous event line overall when that CPU has none. This library never prints; functions
 * return 0 or a negative errno.
 */
#ifndef TRACE_PARSE_H
#define TRACE_PARSE_H

#include <stddef.h>
#include <stdint.h>

enum tp_kind {
	TP_BLANK, /* empty or white space only */
	TP_COMMENT, /* starts with '#' */
	TP_EVENT, /* an event line; name is the event type */
	TP_STACK_ID, /* <stack_id N>; stack_id is set */
	TP_BAD_STACK_ID, /* <stack_id ...> whose number does not parse */
	TP_STACK_START, /* <stack trace>: frame lines follow */
	TP_USER_STACK_START, /* <user stack trace>: frame lines follow, ignored */
	TP_FRAME, /* " => frame"; name is the frame text */
	TP_OTHER, /* anything else (headers, lost-event notes) */
};

#define TP_MAX_CPU 65535

struct tp_line {
	enum tp_kind kind;
	int cpu; /* -1 when the line has no [CPU] field */
	const char *name; /* event type or frame text (not NUL-terminated) */
	size_t name_len;
	uint32_t stack_id;
};

/* tp_parse_line() - classify one line (without its newline). Never fails. */
void tp_parse_line(const char *line, size_t len, struct tp_line *out);

/* String interning table: maps byte strings to dense indexes 0, 1, 2, ... */
struct tp_strtab {
	char **strs; /* NUL-terminated copies, by index */
	size_t *lens;
	size_t n, cap;
	uint32_t *slots; /* open addressing: index + 1, 0 = empty */
	size_t mask;
};

void tp_strtab_init(struct tp_strtab *t);
/* Return the index of @s (adding it if new), or a negative errno. */
long tp_strtab_intern(struct tp_strtab *t, const char *s, size_t len);
void tp_strtab_free(struct tp_strtab *t);

struct tp_stackref {
	int full; /* 0: by id; 1: full stack block */
	uint32_t id; /* for !full */
	size_t nr; /* for full: number of frames */
	const char *const *frames; /* for full: frame texts, leaf first */
};

/*
 * Called once per stack reference with the index of the event type (see tp_event_name()).
 * A negative return aborts the feed and is passed back to the caller.
 */
typedef int (*tp_stack_fn)(void *arg, uint32_t event, const struct tp_stackref *ref);

struct tp_ctx {
	struct tp_strtab events; /* event type names */
	uint64_t *event_lines; /* event lines per event type */
	size_t event_lines_cap;
	long *cpu_event; /* per CPU: last event type index or -1 */
	size_t ncpu;
	long last_event; /* last event type overall, -1 if none */
	int in_block; /* 0 none, 1 kernel stack, 2 user stack */
	uint32_t block_event; /* event the open kernel block belongs to */
	char **frames; /* frames of the open kernel block */
	size_t nframes, frames_cap;
	uint64_t lines; /* lines fed */
	uint64_t bad_stack_ids; /* TP_BAD_STACK_ID lines */
	uint64_t stray_frames; /* frame lines outside a block */
	uint64_t unattributed; /* references seen before any event line */
};

int tp_ctx_init(struct tp_ctx *ctx);
void tp_ctx_free(struct tp_ctx *ctx);

/* Feed one line (without newline). Return 0 or a negative errno (-ENOMEM, or from @fn). */
int tp_feed_line(struct tp_ctx *ctx, const char *line, size_t len, tp_stack_fn fn, void *arg);

/* Feed a buffer of lines; a last line without newline is fed too. Ends with tp_finish(). */
int tp_feed_buf(struct tp_ctx *ctx, const char *buf, size_t len, tp_stack_fn fn, void *arg);

/* Flush an open <stack trace> block at end of input. */
int tp_finish(struct tp_ctx *ctx, tp_stack_fn fn, void *arg);

/* Name of event type @idx ("(no event)" is used for references before any event line). */
const char *tp_event_name(const struct tp_ctx *ctx, uint32_t idx);
size_t tp_nr_events(const struct tp_ctx *ctx);

/*
 * tp_frame_func() - the function part of a frame text for collapsed stacks: "sym+0x1/0x2
 * [mod]" gives "sym [mod]", "sym (ffffffff81000000)" (trace-cmd) gives "sym". Writes at most
 * @size bytes including the NUL; returns the length written.
 */
size_t tp_frame_func(const char *frame, char *buf, size_t size);

#endif /* TRACE_PARSE_H */
