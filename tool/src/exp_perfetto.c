// SPDX-License-Identifier: GPL-2.0
/*
 * Perfetto exporter: a trace file (perfetto.protos.Trace, a sequence of TracePacket) that
 * ui.perfetto.dev and trace_processor open. Field numbers are Perfetto's (see
 * tests/perfetto_subset.proto for the subset written here). The events of the recording go on
 * sequence 1 (trusted_packet_sequence_id 1), the sched_switch bundles on one sequence per CPU:
 *
 *  1. first, on sequence 1 (flag SEQ_INCREMENTAL_STATE_CLEARED): TracePacketDefaults with
 *     timestamp_clock_id 64 and a ClockSnapshot that defines clock 64 (sequence-scoped) as
 *     incremental, 0 when BOOTTIME is 0, with BOOTTIME the primary trace clock. Every later
 *     packet of sequence 1 (flag SEQ_NEEDS_INCREMENTAL_STATE) without a timestamp_clock_id of
 *     its own thus carries the delta from the previous one: the first the absolute time, the
 *     others a few bytes (a backwards step is the delta modulo 2^64, as trace_processor adds
 *     it to an int64);
 *  2. FtraceEventBundles per CPU with its sched_switch events (the UI draws the CPU and thread
 *     scheduling tracks from them), at most PT_BUNDLE per packet, each bundle of one form:
 *     a switch that switches out the task the CPU's previous switch switched in (same pid,
 *     prio and comm) and is not earlier than it goes into a CompactSched (columns: timestamp
 *     as the delta from the previous one of the bundle, the first from 0; prev_state,
 *     next_pid, next_prio, next_comm as an index into the bundle's intern_table), from which
 *     trace_processor takes prev_pid, prev_prio and prev_comm from that previous switch; any
 *     other (the first of each CPU, which trace_processor would drop in compact form, and
 *     after a lost event, a rename or a priority change) is a full FtraceEvent
 *     (SchedSwitchFtraceEvent). A bundle is written when it is full or the form changes, so
 *     each CPU's switches stay in input order. Limits: trace_processor orders a CPU's
 *     switches by time, so in an input whose switches on one CPU go back in time (trace.dat's
 *     per-CPU buffers do not) the compact switch that then follows the earlier one takes its
 *     prev_* from it; and its prev_comm is the name trace_processor holds for that thread
 *     (the ProcessTree's, below, once read), the previous switch's next_comm for a task
 *     that kept its first name;
 *  3. per stack reference a PerfSample packet (timestamp, cpu, pid, tid, callstack_iid,
 *     MODE_KERNEL: the timeline of the recorded events, and the flame graph of any selected
 *     range) and then a TrackEvent TYPE_INSTANT at the same time (delta 0) on the track of its
 *     task, named by the event type (name_iid), with the same callstack_iid: clicking the
 *     event in ui.perfetto.dev shows its stack. The PerfSample packet of the first reference
 *     to a new callstack carries, in its interned_data, what that callstack adds: function
 *     names, mapping paths (one per kernel module, "[kernel.kallsyms]" for the core),
 *     mappings (one per module, without an address range: the addresses are not all known
 *     before the stream ends, and trace_processor interns a mapping without a range by its
 *     name, so rel_pc is the frame's address), frames (one per location), callstacks (root
 *     first, one frame_ids field per frame; the bottom frame is the --by label, the event
 *     type by default, so a range's flame graph splits by event type) and the event name;
 *  4. per task with a stack reference, between its first PerfSample and TrackEvent (delta
 *     0), a TrackDescriptor (uuid pid + 1: unique, never 0, and a short varint in every
 *     TrackEvent; its ThreadDescriptor pid/tid/name, so the UI puts the track in the thread's
 *     place; uuid 2^32, above any pid's, for references without a task);
 *  5. last, on sequence 1 with its own timestamp_clock_id (BOOTTIME, the start of the
 *     recording), a ProcessTree with every task seen (pid as thread; its tgid as process when
 *     the trace shows it, else the pid) and its name.
 * Interned ids (strings, frames, callstacks, mappings) start at 1: 0 means "none"; they are
 * written before the first packet that uses them (Perfetto's rule), so the input streams
 * through in one pass (ex_perfetto_start/sink/finish) and memory does not grow with it.
 * Events without a timestamp cannot be placed on a timeline and are left out.
 *
 * The packets of the stream are encoded straight into the output buffer: their bodies are
 * bounded (below 128 bytes, PT_SMALL), so each length is a 1-byte slot filled in afterwards
 * rather than a body built apart and copied (or moved) into its parent; a full sched_switch
 * event is built on the stack and copied once into its CPU's bundle, which is written as it is,
 * and a compact one appends a varint to each of its bundle's columns.
 */
#define _POSIX_C_SOURCE 200809L
#include "export.h"
#include "pb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* TracePacket */
#define PT_FTRACE_EVENTS  1
#define PT_PROCESS_TREE	  2
#define PT_CLOCK_SNAPSHOT 6
#define PT_TIMESTAMP	  8
#define PT_SEQ_ID	  10
#define PT_TRACK_EVENT	  11
#define PT_INTERNED	  12
#define PT_SEQ_FLAGS	  13
#define PT_CLOCK_ID	  58 /* timestamp_clock_id */
#define PT_DEFAULTS	  59 /* trace_packet_defaults */
#define PT_TRACK_DESC	  60
#define PT_PERF_SAMPLE	  66
/* TrackEvent (track_event.proto): type 9, name_iid 10, track_uuid 11, callstack_iid 56 */
#define TE_TYPE		 9
#define TE_NAME_IID	 10
#define TE_TRACK_UUID	 11
#define TE_CALLSTACK_IID 56
#define TE_TYPE_INSTANT	 3
/* InternedData (interned_data.proto) */
#define IN_EVENT_NAMES	  2
#define IN_FUNCTION_NAMES 5
#define IN_FRAMES	  6
#define IN_CALLSTACKS	  7
#define IN_MAPPING_PATHS  17
#define IN_MAPPINGS	  19
/* Clocks (builtin_clock.proto, clock_snapshot.proto: ids 64..127 are sequence-scoped) */
#define PT_CLOCK_BOOTTIME 6
#define PT_CLOCK_DELTA	  64
/* TrackDescriptor: uuid 1, name 2, thread 4; ThreadDescriptor: pid 1, tid 2, thread_name 5 */
#define PT_TRACK_UUID	1 /* + pid: 1 to 2^31, short varints, never 0 */
#define PT_TRACK_NOTASK (1ull << 32) /* above every pid's */
#define PT_SEQ_CLEARED	1
#define PT_SEQ_NEEDS	2
#define PT_SEQ		1
#define PT_BUNDLE	4096 /* sched_switch events per FtraceEventBundle packet */
#define PT_SLOT_BITS	13 /* 2 * PT_BUNDLE slots per CPU intern table */
#define PT_SLOTS	(1u << PT_SLOT_BITS)
/* FtraceEventBundle.compact_sched 4; CompactSched (ftrace_event_bundle.proto) */
#define FB_COMPACT    4
#define CS_TIMESTAMP  1
#define CS_PREV_STATE 2
#define CS_NEXT_PID   3
#define CS_NEXT_PRIO  4
#define CS_INTERN     5
#define CS_NEXT_COMM  6
/*
 * A PerfSample or TrackEvent packet is at most 11 (the timestamp) + 2 + 2 + 3 (the field's tag
 * and length) + 36 (its body) bytes, and a SchedSwitchFtraceEvent at most 2 * (2 + EV_COMM_LEN)
 * + 5 * 11: all below PT_SMALL, so the lengths of the first two fit a 1-byte slot and the
 * third fits a buffer of PT_SMALL bytes on the stack. PT_ROOM is the room asked for per packet.
 */
#define PT_SMALL 128
#define PT_ROOM	 256
#define PT_FLUSH (1u << 20) /* write in pieces of about 1 MiB (4 MiB: sys time x2) */

/*
 * Append @pkt as one Trace.packet to @out (a struct pb used as an output buffer), writing
 * @out to @f whenever it holds more than PT_FLUSH bytes (and at the end with @flush).
 */
static int pt_emit(FILE *f, struct pb *pkt, struct pb *out, int flush)
{
	if (pkt) {
		pb_msg(out, 1, pkt); /* Trace.packet = 1 */
		if (out->err)
			return out->err;
	}
	if (out->len > PT_FLUSH || (flush && out->len)) {
		if (fwrite(out->buf, 1, out->len, f) != out->len)
			return -EIO;
		pb_reset(out);
	}
	return 0;
}

/* Kernel task state letters to the TASK_REPORT bits ftrace's prev_state carries. */
static int64_t pt_state(const char *s)
{
	static const char letters[] = "SDTtXZPI";
	int64_t v = 0;
	const char *c;

	for (; *s; s++) {
		if (*s == '+') {
			v |= 0x100; /* preempted */
			continue;
		}
		c = strchr(letters, *s);
		if (c)
			v |= (int64_t)1 << (c - letters);
	}
	return v;
}

struct pt_task {
	int32_t pid, tgid;
	uint32_t comm;
};

struct pt_tasks {
	struct pt_task *v; /* first-seen order */
	size_t n, cap;
	struct htab idx; /* hashed by pid; the packets list tasks in its slot order */
};

static uint64_t pt_task_hash(int32_t pid)
{
	return (uint32_t)pid * 2654435761u;
}

static int pt_task_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct pt_tasks *)ctx)->v[idx].pid == *(const int32_t *)key;
}

/* Add task @pid to @t once (pids below @min_pid are skipped). */
static int pt_task_add_min(struct pt_tasks *t, int32_t pid, int32_t tgid, uint32_t comm,
			   int32_t min_pid)
{
	uint64_t h = pt_task_hash(pid);
	uint32_t idx;
	size_t j;
	int ret;

	if (pid < min_pid)
		return 0;
	ret = htab_reserve(&t->idx);
	if (ret)
		return ret;
	idx = htab_find(&t->idx, h, pt_task_eq, t, &pid, &j);
	if (idx != HTAB_NONE) {
		if (tgid > 0)
			t->v[idx].tgid = tgid;
		if (!t->v[idx].comm)
			t->v[idx].comm = comm;
		return 0;
	}
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 128;
		struct pt_task *n = realloc(t->v, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->v = n;
		t->cap = ncap;
	}
	t->v[t->n] = (struct pt_task){.pid = pid, .tgid = tgid > 0 ? tgid : pid, .comm = comm};
	htab_insert_at(&t->idx, j, h, (uint32_t)t->n++);
	return 0;
}

static int pt_task_add(struct pt_tasks *t, int32_t pid, int32_t tgid, uint32_t comm)
{
	return pt_task_add_min(t, pid, tgid, comm, 1);
}

static uint64_t pt_track_uuid(int32_t pid)
{
	return pid < 0 ? PT_TRACK_NOTASK : PT_TRACK_UUID + (uint32_t)pid;
}

struct pt_cs {
	uint32_t root, stack;
};

static int pt_cs_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pt_cs *c = &((const struct pt_cs *)ctx)[idx], *k = key;

	return c->root == k->root && c->stack == k->stack;
}

/*
 * A slot of a CPU's intern table: strs index, its position in the table, and the bundle it
 * belongs to (free unless gen is the CPU's current one: a bundle is emptied by moving to the
 * next generation, not by clearing the table, which took 9% of an export whose bundles
 * change form every few switches).
 */
struct pt_slot {
	uint32_t key, idx, gen;
};

/*
 * The sched_switch events of one CPU not yet written (one bundle, full FtraceEvents or
 * CompactSched columns), and the last switch written on it (what trace_processor derives the
 * prev_* fields of the next compact one from).
 */
struct pt_cpu {
	struct pb full; /* FtraceEventBundle.event fields */
	struct pb names, ts, state, pid, prio, comm; /* CompactSched intern_table, columns */
	struct pt_slot *slot; /* PT_SLOTS: strs index -> intern_table index */
	uint32_t gen; /* the generation of the slots in use, never 0 */
	uint32_t nnames;
	size_t n; /* events in the bundle */
	int compact; /* the bundle's form */
	uint64_t bundle_ts; /* the last timestamp in the compact bundle, 0 at its start */
	int have_last;
	uint64_t last_ts;
	int32_t last_pid, last_prio;
	uint32_t last_comm;
};

static void pt_cpu_free(struct pt_cpu *c)
{
	pb_free(&c->full);
	pb_free(&c->names);
	pb_free(&c->ts);
	pb_free(&c->state);
	pb_free(&c->pid);
	pb_free(&c->prio);
	pb_free(&c->comm);
	free(c->slot);
}

/* What sequence 1 holds of a string (p->strs index): interned ids given and names sent. */
struct pt_str {
	uint32_t root_frame; /* frame iid of the string as a root label, 0: not yet */
	uint32_t mapping; /* mapping iid of the module of this name, 0: not yet */
	uint8_t sent; /* PT_SENT_* */
};

#define PT_SENT_FUNC  1 /* in function_names (iid = strs index + 1) */
#define PT_SENT_EVENT 2 /* in event_names (iid = strs index + 1) */
#define PT_SENT_PATH  4 /* in mapping_paths (iid = strs index + 1) */

/* The state of one Perfetto trace being written (ex_perfetto_start() ... _finish()). */
struct pt_stream {
	struct pf *p;
	enum ex_by by;
	FILE *f;
	struct pb out; /* the output, written to f in pieces of PT_FLUSH */
	struct pb pkt, in, msg, sub; /* a packet with interned data, and its parts */
	uint32_t *cs_of_sample; /* sample -> callstack iid, 0 = not yet interned */
	size_t cs_of_sample_cap;
	struct pt_cs *cs; /* callstack iid - 1 -> (root label, stack) */
	size_t ncs, cs_cap;
	struct htab cs_idx;
	uint32_t *frame_of_loc; /* location -> frame iid, 0 = not yet interned */
	size_t frame_of_loc_cap;
	struct pt_str *str;
	size_t str_cap;
	uint32_t nframes, nmaps; /* frame and mapping iids given */
	uint64_t last_ts; /* clock 64: the time of the last packet of sequence 1 */
	struct pt_tasks tasks;
	struct pt_tasks tracks; /* tasks whose TrackDescriptor is written */
	int notask; /* the TrackDescriptor of references without a task is written */
	struct pt_cpu *cpu; /* per CPU: its sched_switch events not yet written */
	size_t ncpus;
	int64_t *state_of; /* prev_state string -> its value + 1, 0 = not yet computed */
	size_t state_of_cap;
	int ret; /* the first error */
};

static void pt_stream_free(struct pt_stream *s)
{
	size_t i;

	pb_free(&s->out);
	pb_free(&s->pkt);
	pb_free(&s->in);
	pb_free(&s->msg);
	pb_free(&s->sub);
	free(s->cs_of_sample);
	free(s->cs);
	htab_free(&s->cs_idx);
	free(s->frame_of_loc);
	free(s->str);
	free(s->tasks.v);
	htab_free(&s->tasks.idx);
	free(s->tracks.v);
	htab_free(&s->tracks.idx);
	for (i = 0; i < s->ncpus; i++)
		pt_cpu_free(&s->cpu[i]);
	free(s->cpu);
	free(s->state_of);
	free(s);
}

/* The state of string @i (the table grows as the stream interns new strings). */
static struct pt_str *pt_str(struct pt_stream *s, uint32_t i)
{
	struct pt_str *n = sm_grow(s->str, &s->str_cap, (size_t)i + 1, sizeof(*n));

	if (!n)
		return NULL;
	s->str = n;
	return &n[i];
}

/* An InternedString {iid, str} of string @i into field @field of the interned data. */
static void pt_intern_str(struct pt_stream *s, uint32_t field, uint32_t i, const char *str,
			  size_t len)
{
	pb_reset(&s->msg);
	pb_uint(&s->msg, 1, (uint64_t)i + 1);
	pb_bytes(&s->msg, 2, str, len);
	pb_msg(&s->in, field, &s->msg);
}

static int pt_func_name(struct pt_stream *s, uint32_t i)
{
	struct pt_str *st = pt_str(s, i);

	if (!st)
		return -ENOMEM;
	if (!(st->sent & PT_SENT_FUNC)) {
		pt_intern_str(s, IN_FUNCTION_NAMES, i, s->p->strs.strs[i], s->p->strs.lens[i]);
		st->sent |= PT_SENT_FUNC;
	}
	return 0;
}

/* The mapping iid of module @mod (strs index, "" for the core kernel), interned on first use. */
static long pt_mapping(struct pt_stream *s, uint32_t mod)
{
	struct pt_str *st = pt_str(s, mod);
	const char *path = mod ? pf_str(s->p, mod) : "[kernel.kallsyms]";

	if (!st)
		return -ENOMEM;
	if (st->mapping)
		return st->mapping;
	pt_intern_str(s, IN_MAPPING_PATHS, mod, path, strlen(path));
	st->sent |= PT_SENT_PATH;
	st->mapping = ++s->nmaps;
	pb_reset(&s->msg);
	pb_uint(&s->msg, 1, st->mapping);
	pb_uint(&s->msg, 7, (uint64_t)mod + 1); /* path_string_ids */
	pb_msg(&s->in, IN_MAPPINGS, &s->msg);
	return st->mapping;
}

/* The frame iid of location @loc, interned (with its function name and mapping) on first use. */
static long pt_frame(struct pt_stream *s, uint32_t loc)
{
	struct pf *p = s->p;
	const struct pf_loc *l = &p->locs[loc];
	const struct pf_func *fn = &p->funcs[l->func];
	uint32_t *n = sm_grow(s->frame_of_loc, &s->frame_of_loc_cap, (size_t)loc + 1, sizeof(*n));
	long map = 0;

	if (!n)
		return -ENOMEM;
	s->frame_of_loc = n;
	if (n[loc])
		return n[loc];
	if (pt_func_name(s, fn->name))
		return -ENOMEM;
	if (l->addr) {
		map = pt_mapping(s, fn->module);
		if (map < 0)
			return map;
	}
	n[loc] = ++s->nframes;
	pb_reset(&s->msg);
	pb_uint(&s->msg, 1, n[loc]);
	pb_uint(&s->msg, 2, (uint64_t)fn->name + 1);
	if (l->addr) {
		pb_uint(&s->msg, 3, (uint64_t)map);
		pb_uint(&s->msg, 4, l->addr); /* rel_pc: the mapping has no start of its own */
	}
	pb_msg(&s->in, IN_FRAMES, &s->msg);
	return n[loc];
}

/* The frame iid of string @i as a root label (a frame without a mapping). */
static long pt_root_frame(struct pt_stream *s, uint32_t i)
{
	struct pt_str *st;

	if (pt_func_name(s, i))
		return -ENOMEM;
	st = &s->str[i];
	if (st->root_frame)
		return st->root_frame;
	st->root_frame = ++s->nframes;
	pb_reset(&s->msg);
	pb_uint(&s->msg, 1, st->root_frame);
	pb_uint(&s->msg, 2, (uint64_t)i + 1);
	pb_msg(&s->in, IN_FRAMES, &s->msg);
	return st->root_frame;
}

/* The root label of sample @smp under --by: a strs index, or UINT32_MAX for none. */
static int pt_root(struct pt_stream *s, const struct pf_sample *smp, uint32_t *root)
{
	char buf[EV_COMM_LEN + 16];
	long l;
	int n;

	*root = UINT32_MAX;
	if (s->by == EX_BY_EVENT)
		*root = smp->type;
	else if (s->by == EX_BY_COMM)
		*root = smp->comm;
	else if (s->by == EX_BY_PID) {
		n = snprintf(buf, sizeof(buf), "%s-%d", pf_str(s->p, smp->comm), smp->pid);
		l = pf_intern(s->p, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
		if (l < 0)
			return (int)l;
		*root = (uint32_t)l;
	}
	return 0;
}

/*
 * The callstack iid of sample @i. On its first use, whatever it adds to what sequence 1 has
 * interned (its event name; if its (root label, stack) is new, the callstack, its frames,
 * their function names and mappings) is put into s->in, which the caller writes as the
 * interned_data of the packet that refers to it.
 */
static long pt_callstack(struct pt_stream *s, uint32_t i)
{
	struct pf *p = s->p;
	const struct pf_sample *smp = &p->samples[i];
	const struct pf_stack *st = &p->stacks[smp->stack];
	uint32_t *n = sm_grow(s->cs_of_sample, &s->cs_of_sample_cap, (size_t)i + 1, sizeof(*n));
	struct pt_cs key, *nc;
	struct pt_str *ty;
	uint32_t c, k;
	uint64_t h;
	size_t j;
	long f;
	int ret;

	if (!n)
		return -ENOMEM;
	s->cs_of_sample = n;
	if (n[i])
		return n[i];
	ty = pt_str(s, smp->type);
	if (!ty)
		return -ENOMEM;
	if (!(ty->sent & PT_SENT_EVENT)) {
		pt_intern_str(s, IN_EVENT_NAMES, smp->type, pf_str(p, smp->type),
			      p->strs.lens[smp->type]);
		ty->sent |= PT_SENT_EVENT;
	}
	ret = pt_root(s, smp, &key.root);
	if (ret)
		return ret;
	key.stack = smp->stack;
	h = ((uint64_t)key.root * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)key.stack * 0xC2B2AE3DULL);
	if (htab_reserve(&s->cs_idx))
		return -ENOMEM;
	c = htab_find(&s->cs_idx, h, pt_cs_eq, s->cs, &key, &j);
	if (c != HTAB_NONE) {
		n[i] = c + 1;
		return n[i];
	}
	/* a new callstack: its frames first (the ids it lists), root first */
	pb_reset(&s->sub);
	if (key.root != UINT32_MAX) {
		f = pt_root_frame(s, key.root);
		if (f < 0)
			return f;
		pb_uint(&s->sub, 2, (uint64_t)f);
	}
	for (k = st->nr; k > 0; k--) {
		f = pt_frame(s, p->frames[st->first + k - 1]);
		if (f < 0)
			return f;
		pb_uint(&s->sub, 2, (uint64_t)f); /* frame_ids: not packed in Perfetto's proto */
	}
	nc = sm_grow(s->cs, &s->cs_cap, s->ncs + 1, sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	s->cs = nc;
	c = (uint32_t)s->ncs++;
	s->cs[c] = key;
	htab_insert_at(&s->cs_idx, j, h, c);
	pb_reset(&s->msg);
	pb_uint(&s->msg, 1, (uint64_t)c + 1);
	pb_raw(&s->msg, s->sub.buf, s->sub.len);
	pb_msg(&s->in, IN_CALLSTACKS, &s->msg);
	if (s->msg.err || s->sub.err || s->in.err)
		return -ENOMEM;
	n[i] = c + 1;
	return n[i];
}

/* 1. the clock and defaults of sequence 1, before anything else */
static int pt_clock(struct pt_stream *s)
{
	pb_reset(&s->pkt);
	pb_uint(&s->pkt, PT_SEQ_ID, PT_SEQ);
	pb_uint(&s->pkt, PT_SEQ_FLAGS, PT_SEQ_CLEARED);
	pb_reset(&s->msg);
	pb_uint(&s->msg, PT_CLOCK_ID, PT_CLOCK_DELTA);
	pb_msg(&s->pkt, PT_DEFAULTS, &s->msg);
	pb_reset(&s->in);
	pb_reset(&s->msg);
	pb_uint(&s->msg, 1, PT_CLOCK_BOOTTIME); /* clock_id */
	pb_uint(&s->msg, 2, 0); /* timestamp */
	pb_msg(&s->in, 1, &s->msg); /* clocks */
	pb_reset(&s->msg);
	pb_uint(&s->msg, 1, PT_CLOCK_DELTA);
	pb_uint(&s->msg, 2, 0);
	pb_uint(&s->msg, 3, 1); /* is_incremental */
	pb_msg(&s->in, 1, &s->msg);
	pb_uint(&s->in, 2, PT_CLOCK_BOOTTIME); /* primary_trace_clock */
	pb_msg(&s->pkt, PT_CLOCK_SNAPSHOT, &s->in);
	pb_reset(&s->in);
	s->last_ts = 0;
	return pt_emit(s->f, &s->pkt, &s->out, 0);
}

int ex_perfetto_start(struct pf *p, const struct ex_opts *o, FILE *f, struct pt_stream **out)
{
	struct pt_stream *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->p = p;
	s->by = o->by;
	s->f = f;
	pb_init(&s->out);
	pb_init(&s->pkt);
	pb_init(&s->in);
	pb_init(&s->msg);
	pb_init(&s->sub);
	htab_init(&s->cs_idx, 0);
	htab_init(&s->tasks.idx, 256);
	htab_init(&s->tracks.idx, 256);
	ret = pt_clock(s);
	if (ret) {
		pt_stream_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

/* 2. sched_switch events: per CPU, in bundles of at most PT_BUNDLE events of one form */
/* A packed field @field holding @col's varints, at @w. */
static uint8_t *pt_put_col(uint8_t *w, uint32_t field, const struct pb *col)
{
	return pb_put_bytes(w, field, col->buf, col->len);
}

static size_t pt_col_size(const struct pb *col)
{
	return 1 + pb_varint_size(col->len) + col->len;
}

static int pt_flush_bundle(struct pt_stream *s, size_t cpu)
{
	struct pt_cpu *c = &s->cpu[cpu];
	size_t body, pkt, cs = 0;
	uint8_t *w;
	int ret;

	if (!c->n)
		return 0;
	if (c->compact) {
		/* CompactSched: the intern table, then the columns */
		cs = c->names.len + pt_col_size(&c->ts) + pt_col_size(&c->state) +
		     pt_col_size(&c->pid) + pt_col_size(&c->prio) + pt_col_size(&c->comm);
		body = 1 + pb_varint_size(cpu) + 1 + pb_varint_size(cs) + cs;
	} else {
		body = 1 + pb_varint_size(cpu) + c->full.len; /* FtraceEventBundle: cpu, events */
	}
	pkt = 1 + pb_varint_size(PT_SEQ + 1 + cpu) + 1 + pb_varint_size(body) + body;
	w = pb_room(&s->out, 40 + (c->compact ? cs : 0));
	if (!w)
		return -ENOMEM;
	*w++ = 1 << 3 | 2; /* Trace.packet */
	w = pb_put_varint(w, pkt);
	w = pb_put_uint(w, PT_SEQ_ID, PT_SEQ + 1 + cpu);
	*w++ = PT_FTRACE_EVENTS << 3 | 2;
	w = pb_put_varint(w, body);
	w = pb_put_uint(w, 1, cpu);
	if (c->compact) {
		*w++ = FB_COMPACT << 3 | 2;
		w = pb_put_varint(w, cs);
		memcpy(w, c->names.buf, c->names.len);
		w += c->names.len;
		w = pt_put_col(w, CS_TIMESTAMP, &c->ts);
		w = pt_put_col(w, CS_PREV_STATE, &c->state);
		w = pt_put_col(w, CS_NEXT_PID, &c->pid);
		w = pt_put_col(w, CS_NEXT_PRIO, &c->prio);
		w = pt_put_col(w, CS_NEXT_COMM, &c->comm);
		s->out.len = (size_t)(w - s->out.buf);
		ret = pt_emit(s->f, NULL, &s->out, 0);
		if (!++c->gen && c->slot) {
			memset(c->slot, 0, PT_SLOTS * sizeof(*c->slot));
			c->gen = 1;
		}
		pb_reset(&c->names);
		pb_reset(&c->ts);
		pb_reset(&c->state);
		pb_reset(&c->pid);
		pb_reset(&c->prio);
		pb_reset(&c->comm);
		c->nnames = 0;
		c->bundle_ts = 0;
	} else {
		/* the lengths are known: the head goes out first, the events straight to the file */
		s->out.len = (size_t)(w - s->out.buf);
		ret = pt_emit(s->f, NULL, &s->out, 1);
		if (!ret && fwrite(c->full.buf, 1, c->full.len, s->f) != c->full.len)
			ret = -EIO;
		pb_reset(&c->full);
	}
	c->n = 0;
	return ret;
}

/* The prev_state value of state string @i (cached per string: few distinct ones). */
static int64_t pt_state_of(struct pt_stream *s, uint32_t i)
{
	int64_t *n = sm_grow(s->state_of, &s->state_of_cap, (size_t)i + 1, sizeof(*n));

	if (!n)
		return -1;
	s->state_of = n;
	if (!n[i])
		n[i] = pt_state(pf_str(s->p, i)) + 1;
	return n[i] - 1;
}

/* The per-CPU state of @cpu, growing the table. */
static struct pt_cpu *pt_cpu(struct pt_stream *s, size_t cpu)
{
	struct pt_cpu *n;
	size_t i;

	if (cpu < s->ncpus)
		return &s->cpu[cpu];
	n = realloc(s->cpu, (cpu + 1) * sizeof(*n));
	if (!n)
		return NULL;
	s->cpu = n;
	for (i = s->ncpus; i <= cpu; i++) {
		memset(&n[i], 0, sizeof(n[i]));
		pb_init(&n[i].full);
		pb_init(&n[i].names);
		pb_init(&n[i].ts);
		pb_init(&n[i].state);
		pb_init(&n[i].pid);
		pb_init(&n[i].prio);
		pb_init(&n[i].comm);
	}
	s->ncpus = cpu + 1;
	return &n[cpu];
}

/* The index of @comm in @c's pending intern table, added on first use; -ENOMEM on failure. */
static long pt_comm_index(struct pt_stream *s, struct pt_cpu *c, uint32_t comm)
{
	struct pt_slot *e;
	const char *str;
	uint32_t h;
	size_t len;
	uint8_t *w;

	if (!c->slot) {
		c->slot = calloc(PT_SLOTS, sizeof(*c->slot));
		if (!c->slot)
			return -ENOMEM;
		c->gen = 1;
	}
	/* open addressing on the strs index: at most PT_BUNDLE names in PT_SLOTS slots */
	h = (comm * 2654435761u) >> (32 - PT_SLOT_BITS);
	for (e = &c->slot[h]; e->gen == c->gen; e = &c->slot[h]) {
		if (e->key == comm)
			return e->idx;
		h = (h + 1) & (PT_SLOTS - 1);
	}
	str = pf_str(s->p, comm);
	len = strnlen(str, EV_COMM_LEN);
	w = pb_room(&c->names, len + 4);
	if (!w)
		return -ENOMEM;
	c->names.len = (size_t)(pb_put_bytes(w, CS_INTERN, str, len) - c->names.buf);
	e->key = comm;
	e->gen = c->gen;
	e->idx = c->nnames;
	return c->nnames++;
}

/* A SchedSwitchFtraceEvent in a full FtraceEvent, into @c's pending bundle. */
static int pt_switch_full(struct pt_stream *s, struct pt_cpu *c, const struct pf_switch *w,
			  int64_t state)
{
	struct pf *p = s->p;
	uint8_t sw[PT_SMALL], *b, *e;
	const char *pc, *nc;
	size_t pl, nl, swl, evl;

	/* the names are task names, below EV_COMM_LEN: the SchedSwitchFtraceEvent fits sw[] */
	pc = pf_str(p, w->prev_comm);
	nc = pf_str(p, w->next_comm);
	pl = strnlen(pc, EV_COMM_LEN);
	nl = strnlen(nc, EV_COMM_LEN);
	e = pb_put_bytes(sw, 1, pc, pl);
	e = pb_put_uint(e, 2, (uint64_t)(int64_t)w->prev_pid);
	e = pb_put_uint(e, 3, (uint64_t)(int64_t)w->prev_prio);
	e = pb_put_uint(e, 4, (uint64_t)state);
	e = pb_put_bytes(e, 5, nc, nl);
	e = pb_put_uint(e, 6, (uint64_t)(int64_t)w->next_pid);
	e = pb_put_uint(e, 7, (uint64_t)(int64_t)w->next_prio);
	swl = (size_t)(e - sw);
	/* FtraceEvent: timestamp, pid, sched_switch */
	evl = 1 + pb_varint_size(w->ts_ns) + 1 + pb_varint_size((uint32_t)w->prev_pid) + 1 +
	      pb_varint_size(swl) + swl;
	b = pb_room(&c->full, evl + 4);
	if (!b)
		return -ENOMEM;
	b = pb_put_varint(b, 2 << 3 | 2); /* FtraceEventBundle.event */
	b = pb_put_varint(b, evl);
	b = pb_put_uint(b, 1, w->ts_ns);
	b = pb_put_uint(b, 2, (uint32_t)w->prev_pid);
	b = pb_put_varint(b, 4 << 3 | 2);
	b = pb_put_varint(b, swl);
	memcpy(b, sw, swl);
	c->full.len = (size_t)(b + swl - c->full.buf);
	return 0;
}

/* One CompactSched entry (its prev_* fields are those of the last switch's next task). */
static int pt_switch_compact(struct pt_stream *s, struct pt_cpu *c, const struct pf_switch *w,
			     int64_t state)
{
	long idx = pt_comm_index(s, c, w->next_comm);
	uint8_t *b;

	if (idx < 0)
		return (int)idx;
	b = pb_room(&c->ts, 10);
	if (b)
		c->ts.len = (size_t)(pb_put_varint(b, w->ts_ns - c->bundle_ts) - c->ts.buf);
	c->bundle_ts = w->ts_ns;
	b = pb_room(&c->state, 10);
	if (b)
		c->state.len = (size_t)(pb_put_varint(b, (uint64_t)state) - c->state.buf);
	b = pb_room(&c->pid, 10);
	if (b)
		c->pid.len =
			(size_t)(pb_put_varint(b, (uint64_t)(int64_t)w->next_pid) - c->pid.buf);
	b = pb_room(&c->prio, 10);
	if (b)
		c->prio.len =
			(size_t)(pb_put_varint(b, (uint64_t)(int64_t)w->next_prio) - c->prio.buf);
	b = pb_room(&c->comm, 10);
	if (b)
		c->comm.len = (size_t)(pb_put_varint(b, (uint64_t)idx) - c->comm.buf);
	return c->ts.err || c->state.err || c->pid.err || c->prio.err || c->comm.err ? -ENOMEM : 0;
}

static int pt_switch(struct pt_stream *s, const struct pf_switch *w)
{
	struct pt_cpu *c;
	int64_t state;
	int compact, ret;

	if (pt_task_add(&s->tasks, w->prev_pid, 0, w->prev_comm) ||
	    pt_task_add(&s->tasks, w->next_pid, 0, w->next_comm))
		return -ENOMEM;
	if (w->cpu < 0 || w->ts_ns == EV_TS_NONE)
		return 0;
	c = pt_cpu(s, (size_t)w->cpu);
	state = pt_state_of(s, w->prev_state);
	if (!c || state < 0)
		return -ENOMEM;
	/*
	 * Compact when trace_processor derives this switch's prev_* from the CPU's last one: it
	 * exists, is not later, and switched in the task this one switches out.
	 */
	compact = c->have_last && w->ts_ns >= c->last_ts && w->prev_pid == c->last_pid &&
		  w->prev_prio == c->last_prio && w->prev_comm == c->last_comm;
	if (c->n && c->compact != compact) {
		ret = pt_flush_bundle(s, (size_t)w->cpu);
		if (ret)
			return ret;
	}
	c->compact = compact;
	ret = compact ? pt_switch_compact(s, c, w, state) : pt_switch_full(s, c, w, state);
	if (ret)
		return ret;
	c->have_last = 1;
	c->last_ts = w->ts_ns;
	c->last_pid = w->next_pid;
	c->last_prio = w->next_prio;
	c->last_comm = w->next_comm;
	return ++c->n >= PT_BUNDLE ? pt_flush_bundle(s, (size_t)w->cpu) : 0;
}

/* 4. the TrackDescriptor of @e's task, before its first event (delta 0: at that event) */
static int pt_track(struct pt_stream *s, const struct pf_event *e)
{
	struct pf *p = s->p;
	const struct pt_task *t = NULL;
	size_t n = s->tracks.n;

	if (e->pid < 0) {
		if (s->notask)
			return 0;
		s->notask = 1;
	} else {
		if (pt_task_add_min(&s->tracks, e->pid, e->tgid, p->samples[e->sample].comm, 0))
			return -ENOMEM;
		if (s->tracks.n == n)
			return 0;
		t = &s->tracks.v[n];
	}
	pb_reset(&s->pkt);
	pb_uint(&s->pkt, PT_TIMESTAMP, 0);
	pb_uint(&s->pkt, PT_SEQ_ID, PT_SEQ);
	pb_uint(&s->pkt, PT_SEQ_FLAGS, PT_SEQ_NEEDS);
	pb_reset(&s->msg);
	pb_uint(&s->msg, 1, pt_track_uuid(t ? t->pid : -1));
	pb_str(&s->msg, 2, t ? pf_str(p, t->comm) : "(no task)");
	if (t) {
		pb_reset(&s->sub);
		pb_int(&s->sub, 1, t->tgid);
		pb_int(&s->sub, 2, t->pid);
		pb_str(&s->sub, 5, pf_str(p, t->comm));
		pb_msg(&s->msg, 4, &s->sub);
	}
	pb_msg(&s->pkt, PT_TRACK_DESC, &s->msg);
	return pt_emit(s->f, &s->pkt, &s->out, 0);
}

/*
 * The head of a packet of sequence 1 at @w: Trace.packet's tag and a 1-byte length slot (at
 * w[1]), the timestamp delta, the sequence and its flag.
 */
static uint8_t *pt_head(uint8_t *w, uint64_t delta)
{
	w[0] = 1 << 3 | 2;
	w = pb_put_uint(w + 2, PT_TIMESTAMP, delta);
	*w++ = PT_SEQ_ID << 3;
	*w++ = PT_SEQ;
	*w++ = PT_SEQ_FLAGS << 3;
	*w++ = PT_SEQ_NEEDS;
	return w;
}

/* The PerfSample body of @e (cpu, pid, tid, callstack, MODE_KERNEL) at @w. */
static uint8_t *pt_perf_body(uint8_t *w, const struct pf_event *e, uint64_t cs)
{
	w = pb_put_uint(w, 1, e->cpu < 0 ? 0 : (uint64_t)e->cpu);
	w = pb_put_uint(w, 2, (uint32_t)(e->tgid > 0 ? e->tgid : e->pid < 0 ? 0 : e->pid));
	w = pb_put_uint(w, 3, (uint32_t)(e->pid < 0 ? 0 : e->pid));
	w = pb_put_uint(w, 5, 1); /* MODE_KERNEL */
	return pb_put_uint(w, 4, cs);
}

/* 3. one perf sample and one TrackEvent instant per stack reference */
static int pt_sample(struct pt_stream *s, const struct pf_event *e)
{
	uint8_t body[PT_SMALL], *w, *start, *sub;
	uint64_t delta;
	long cs;
	int ret;

	if (pt_task_add(&s->tasks, e->pid, e->tgid, s->p->samples[e->sample].comm))
		return -ENOMEM;
	if (e->ts_ns == EV_TS_NONE)
		return 0;
	cs = pt_callstack(s, e->sample);
	if (cs < 0)
		return (int)cs;
	delta = e->ts_ns - s->last_ts; /* modulo 2^64 */
	s->last_ts = e->ts_ns;
	if (s->in.len) {
		/* the first reference to what s->in interns: a packet built apart (rare) */
		w = pt_perf_body(body, e, (uint64_t)cs);
		pb_reset(&s->pkt);
		pb_uint(&s->pkt, PT_TIMESTAMP, delta);
		pb_uint(&s->pkt, PT_SEQ_ID, PT_SEQ);
		pb_uint(&s->pkt, PT_SEQ_FLAGS, PT_SEQ_NEEDS);
		pb_msg(&s->pkt, PT_INTERNED, &s->in);
		pb_bytes(&s->pkt, PT_PERF_SAMPLE, body, (size_t)(w - body));
		pb_reset(&s->in);
		ret = pt_emit(s->f, &s->pkt, &s->out, 0);
	} else {
		start = pb_room(&s->out, PT_ROOM);
		if (!start)
			return -ENOMEM;
		w = pt_head(start, delta);
		w = pb_put_varint(w, PT_PERF_SAMPLE << 3 | 2);
		sub = w++;
		w = pt_perf_body(w, e, (uint64_t)cs);
		*sub = (uint8_t)(w - sub - 1);
		start[1] = (uint8_t)(w - start - 2);
		s->out.len += (size_t)(w - start);
		ret = pt_emit(s->f, NULL, &s->out, 0);
	}
	if (!ret)
		ret = pt_track(s, e);
	if (ret)
		return ret;
	/* the instant on the task's track, with the same callstack, at the same time */
	start = pb_room(&s->out, PT_ROOM);
	if (!start)
		return -ENOMEM;
	w = pt_head(start, 0);
	*w++ = PT_TRACK_EVENT << 3 | 2;
	sub = w++;
	w = pb_put_uint(w, TE_TYPE, TE_TYPE_INSTANT);
	w = pb_put_uint(w, TE_NAME_IID, (uint64_t)s->p->samples[e->sample].type + 1);
	w = pb_put_uint(w, TE_TRACK_UUID, pt_track_uuid(e->pid));
	w = pb_put_uint(w, TE_CALLSTACK_IID, (uint64_t)cs);
	*sub = (uint8_t)(w - sub - 1);
	start[1] = (uint8_t)(w - start - 2);
	s->out.len += (size_t)(w - start);
	return pt_emit(s->f, NULL, &s->out, 0);
}

int ex_perfetto_sink(void *arg, const struct pf_event *e, const struct pf_switch *w)
{
	struct pt_stream *s = arg;

	if (!s->ret)
		s->ret = e ? pt_sample(s, e) : pt_switch(s, w);
	return s->ret;
}

/* 5. the process tree: every task seen (written last, when all of them are known) */
static int pt_process_tree(struct pt_stream *s)
{
	struct pf *p = s->p;
	size_t i;

	pb_reset(&s->pkt);
	pb_uint(&s->pkt, PT_TIMESTAMP, p->ts_min == EV_TS_NONE ? 0 : p->ts_min);
	pb_uint(&s->pkt, PT_CLOCK_ID, PT_CLOCK_BOOTTIME); /* absolute, not a delta */
	pb_uint(&s->pkt, PT_SEQ_ID, PT_SEQ);
	pb_uint(&s->pkt, PT_SEQ_FLAGS, PT_SEQ_NEEDS);
	pb_reset(&s->in);
	for (i = 0; i < htab_cap(&s->tasks.idx); i++) {
		uint32_t ti = htab_slot(&s->tasks.idx, i);
		const struct pt_task *t;

		if (ti == HTAB_NONE)
			continue;
		t = &s->tasks.v[ti];
		if (t->tgid != t->pid)
			continue;
		pb_reset(&s->msg);
		pb_int(&s->msg, 1, t->pid);
		pb_int(&s->msg, 2, 0);
		pb_str(&s->msg, 3, pf_str(p, t->comm));
		pb_msg(&s->in, 1, &s->msg); /* processes */
	}
	for (i = 0; i < htab_cap(&s->tasks.idx); i++) {
		uint32_t ti = htab_slot(&s->tasks.idx, i);
		const struct pt_task *t;

		if (ti == HTAB_NONE)
			continue;
		t = &s->tasks.v[ti];
		/* a process for thread groups whose leader was not seen */
		if (t->tgid != t->pid) {
			if (htab_find(&s->tasks.idx, pt_task_hash(t->tgid), pt_task_eq, &s->tasks,
				      &t->tgid, NULL) == HTAB_NONE) {
				pb_reset(&s->msg);
				pb_int(&s->msg, 1, t->tgid);
				pb_msg(&s->in, 1, &s->msg);
			}
		}
		pb_reset(&s->msg);
		pb_int(&s->msg, 1, t->pid);
		pb_int(&s->msg, 3, t->tgid);
		pb_str(&s->msg, 2, pf_str(p, t->comm));
		pb_msg(&s->in, 2, &s->msg); /* threads */
	}
	pb_msg(&s->pkt, PT_PROCESS_TREE, &s->in);
	return pt_emit(s->f, &s->pkt, &s->out, 0);
}

int ex_perfetto_finish(struct pt_stream *s)
{
	size_t cpu;
	int ret = s->ret;

	for (cpu = 0; !ret && cpu < s->ncpus; cpu++)
		ret = pt_flush_bundle(s, cpu);
	if (!ret)
		ret = pt_process_tree(s);
	if (!ret)
		ret = pt_emit(s->f, NULL, &s->out, 1);
	if (!ret && ferror(s->f))
		ret = -EIO;
	pt_stream_free(s);
	return ret;
}

int ex_write_perfetto(struct pf *p, const struct ex_opts *o, FILE *f)
{
	struct pt_stream *s;
	size_t i;
	int ret;

	ret = ex_perfetto_start(p, o, f, &s);
	if (ret)
		return ret;
	for (i = 0; i < p->nswitches && !s->ret; i++)
		ex_perfetto_sink(s, NULL, &p->switches[i]);
	for (i = 0; i < p->nevents && !s->ret; i++)
		ex_perfetto_sink(s, &p->events[i], NULL);
	return ex_perfetto_finish(s);
}
