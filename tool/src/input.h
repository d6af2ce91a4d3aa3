/* SPDX-License-Identifier: GPL-2.0 */
/*
 * input - the one way every reading command of the tool opens a recording.
 *
 * An input is named by a path: a trace.dat, a recording directory (DIR/trace.dat, else
 * DIR/trace), a tracefs `trace` or `trace-cmd report` text, or "-" (standard input); with no
 * path, ./trace.dat (trace-cmd's default), else the default record directory ./stackmap.data.
 * Its kind comes from its content (the trace.dat and stack_map_bin magic numbers, ELF, gzip, a
 * kallsyms listing), never from its name; a file that holds no event is an error that says what
 * the file is.
 *
 * A trace.dat holds one buffer per ftrace instance it recorded (the top level, and one per
 * trace-cmd record -B NAME); one is read: --buffer NAME ("" the top level), else the default
 * of td_buffer_default(), by the rule of the man page's INPUT, "Buffers". A trace text is read
 * as one instance's (--buffer is refused for it).
 *
 * The map and the symbols are found the same way for every command:
 *   map:     --map FILE, else the copy inside the trace.dat, else stack_map_bin beside the
 *            input (in DIR, or next to FILE); those two are the top level's, so for a named
 *            buffer only --map gives one;
 *   symbols: --kallsyms/--vmlinux (--no-kallsyms: none), else the kallsyms inside the
 *            trace.dat, else kallsyms beside the input;
 * and, only for a live capture (an input inside the tracefs directory), the live
 * stack_map_bin and /proc/kallsyms, said so on stderr.
 *
 * The stack definitions of the recording (kernel_stack_def records, `<stack_def N gen G switch S>`
 * blocks) are read by in_open() in a first pass over it; a recording whose definitions cover
 * its ids needs no map. Every stack id is then resolved once, by the readers through the table
 * of stacks.h (whose head comment has the rules: generations, definitions before the map), and
 * consumers read what it stands for from ev_stack.res.
 *
 * in_feed() delivers the records of events.h (attribution is decided there and nowhere else:
 * trace_parse.c for text, report_dat.c for trace.dat). Every message about the input (what
 * was lost, unattributed, missing from the map, a torn last line) is printed once, by
 * in_notes(). Functions return 0 or an exit code (SM_EXIT_*) after one message on stderr.
 */
#ifndef INPUT_H
#define INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "report_dat.h"
#include "stackmap.h"
#include "stacks.h"
#include "tracedat.h"

enum in_kind {
	IN_NONE, /* not known yet */
	IN_DAT, /* trace.dat */
	IN_TEXT, /* tracefs trace or trace-cmd report text */
	IN_MAP, /* a stack_map_bin on its own (IN_F_MAP_OK callers only: dump) */
};

/* in_open() flags */
#define IN_F_MAP_OK  0x1 /* a bare stack_map_bin is an input (dump) */
#define IN_F_NO_SYMS 0x2 /* the caller needs no symbols */

struct in_stats {
	uint64_t events; /* event records (EV_F_EXTRA/UNATTRIBUTED/LOST excluded) */
	uint64_t refs, refs_id, refs_full; /* stack references */
	uint64_t refs_missing; /* references to ids that nothing resolves */
	size_t ids_missing; /* distinct such (generation, id) pairs */
	size_t ids_def, ids_map; /* distinct ids referenced and resolved from definitions, map */
	uint64_t unattributed, after_loss; /* references to "(no event)" / "(lost event)" */
	uint64_t unknown_events; /* records whose event the reader does not know */
	uint64_t lost_markers, lost_events; /* where the kernel lost events; the counts given */
	uint64_t ts_first, ts_last; /* EV_TS_NONE / 0 when no timestamp */
	int ncpus; /* highest CPU seen + 1 */
};

struct in_src {
	const char *cmd; /* "report", "export", ... for messages */
	char *name; /* the input as named (or defaulted) */
	char *path; /* the file read */
	char *dir; /* where files beside it are looked for */
	enum in_kind kind;
	int live; /* inside the tracefs directory */
	int is_stdin;
	struct td_file td;
	const char *buffer; /* the named buffer read (inside td), NULL: the top level, or a text */
	char *map_not_used; /* the top level's map inside or beside it, not a named buffer's */
	char *others; /* buffers that hold data besides the top level read by default, or NULL */
	char *text; /* IN_TEXT / IN_MAP: the bytes */
	size_t text_len;
	struct smbin_map map;
	int have_map;
	char *map_from; /* where the map came from, NULL when none */
	struct syms syms;
	int have_syms;
	char *syms_from;
	/* from a stack_map_stat beside the input (or the live one): "entries: N / CAPACITY" */
	uint64_t map_entries, map_capacity;
	int map_gen_known; /* ... and its "generation: N" line (low 32 bits) */
	uint32_t map_gen;
	int defs_lost_known; /* ... and its "defs_lost: N" line (kernels with stack_map_defs) */
	uint64_t defs_lost;
	struct stk_set stk; /* the definitions and the map: what the ids stand for */
	struct in_stats st;
	uint64_t *missing; /* distinct unresolved (generation << 32 | id) (sorted after in_feed) */
	size_t nmissing, missing_cap;
	struct htab missing_idx;
	uint8_t *seen; /* bitmap over the stk indexes counted in ids_def/ids_map */
	uint64_t torn_line;
	int no_task_fields; /* set by a consumer that reads neither comm nor sched_switch fields */
	int no_switch_fields; /* ... that does not read the sched_switch fields */
	int pipeline; /* ... whose work gains from a reader on a thread of its own (evpipe.h) */
	/* the consumer's callback, wrapped by in_feed() */
	ev_fn fn;
	void *fn_arg;
};

/*
 * in_open() - name the input @arg (NULL: the defaults above), the map @map_opt (NULL: found as
 * above) and the buffer @buffer of a trace.dat (NULL: the default; refused for any other
 * input), load the map and the symbols, and check the kind. @cmd names the command in messages.
 */
int in_open(struct in_src *in, const char *cmd, const char *arg, const char *map_opt,
	    const char *buffer, unsigned int flags);

/*
 * in_open_mem() - the same on bytes in memory (@name in messages), with nothing beside them:
 * no map but @map_opt, symbols only from the trace.dat or the options, the default buffer.
 * For the fuzzer.
 */
int in_open_mem(struct in_src *in, const char *cmd, const char *name, const void *buf, size_t len,
		const char *map_opt);

/* in_feed() - deliver every record to @fn; fills in->st. A trace with no event is an error. */
int in_feed(struct in_src *in, ev_fn fn, void *arg);

/* in_notes() - the messages about what in_feed() saw, once, on stderr. */
void in_notes(const struct in_src *in);

void in_close(struct in_src *in);

/* How every output spells a stack id the map does not hold (one spelling for all). */
#define SM_UNKNOWN_STACK "[unknown stack_id %u]"

#endif /* INPUT_H */
