/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile - the aggregate that every exporter writes: the stack references of a recording
 * (records of events.h, their stack ids resolved by the reader: ev_stack.res), with the
 * symbols, grouped into
 * samples of (stack, event type, task) with a count and, for off-CPU weighting, a time.
 *
 * Tables (all dense, 0-based):
 *  - strs: every string (function names, modules, event types, task names); index 0 is "";
 *  - funcs: (name, module) pairs; name without offset, module "" for the core kernel;
 *  - locs: (address, function); address 0 when the input had only a frame text;
 *  - stacks: location sequences, leaf first, deduplicated by their frames (two ids with the
 *    same frames are one stack; ids that nothing resolves become one "[unknown stack_id N]"
 *    frame each, SM_UNKNOWN_STACK);
 *  - samples: (stack, event type, pid, comm) with count (stack references) and weight_ns
 *    (off-CPU time, see pf_opts.offcpu);
 *  - events (only with pf_opts.keep_events): one entry per stack reference, in input order,
 *    for timelines.
 * This library never prints; functions return 0 or a negative errno.
 */
#ifndef PROFILE_H
#define PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "input.h"
#include "smbin.h"
#include "stackmap.h"
#include "trace_parse.h"

struct pf_func {
	uint32_t name, module; /* strs indexes */
};

struct pf_loc {
	uint64_t addr; /* 0: unknown */
	uint32_t func;
};

struct pf_stack {
	uint32_t first, nr; /* frames pf.frames[first .. first + nr - 1], leaf first */
};

struct pf_sample {
	uint32_t stack, type, comm; /* type and comm: strs indexes */
	int32_t pid;
	uint64_t count;
	uint64_t weight_ns; /* off-CPU nanoseconds attributed to this sample */
};

struct pf_event {
	uint64_t ts_ns;
	int32_t pid, tgid, cpu;
	uint32_t sample;
};

/* A sched_switch seen in the input (for the Perfetto timeline). */
struct pf_switch {
	uint64_t ts_ns;
	int32_t cpu;
	int32_t prev_pid, next_pid, prev_prio, next_prio;
	uint32_t prev_comm, next_comm, prev_state; /* strs indexes */
};

struct pf_opts {
	int offcpu; /* compute weight_ns from sched_switch times */
	int keep_events; /* fill pf.events and pf.switches */
	const char *unknown_tag; /* diff: "A"/"B" after an unknown stack's name, so never paired */
	int timeline; /* a writer that shows the sched_switch events (Perfetto) */
};

struct pf {
	struct pf_opts opts;
	struct sm_frames *fr;
	struct tp_strtab strs;
	struct pf_func *funcs;
	size_t nfuncs, funcs_cap;
	struct htab func_idx;
	struct pf_loc *locs;
	size_t nlocs, locs_cap;
	struct htab loc_idx;
	uint32_t *frames; /* location indexes of all stacks, back to back */
	size_t nframes, frames_cap;
	struct pf_stack *stacks;
	size_t nstacks, stacks_cap;
	struct htab stack_idx;
	uint32_t *id_stack; /* per ev_idstack.index: stack index + 1, 0 = not yet built */
	size_t id_stack_cap;
	struct tp_strtab full; /* full-stack frame texts joined by '\n' -> stack via full_stack */
	uint32_t *full_stack;
	size_t full_stack_cap;
	struct htab unknown_idx; /* unknown ids, hashed by id; values index unknown_ids */
	uint32_t *unknown_ids, *unknown_stack;
	size_t nunknown, unknown_cap;
	struct pf_sample *samples;
	size_t nsamples, samples_cap;
	struct htab sample_idx;
	struct pf_event *events;
	size_t nevents, events_cap;
	struct pf_switch *switches;
	size_t nswitches, switches_cap;
	/* off-CPU: pid -> (sample, switch-out time) of tasks currently off the CPU */
	struct pf_off {
		int32_t pid;
		uint32_t sample; /* UINT32_MAX: switched out without a stack */
		uint64_t ts_ns;
	} * off; /* dense, indexed by off_idx (hashed by pid) */
	size_t noff, off_cap;
	struct htab off_idx;
	/* totals */
	uint64_t nr_events; /* events (records without EV_F_EXTRA) */
	uint64_t nr_refs; /* stack references */
	uint64_t nr_refs_unknown; /* references to ids that nothing resolves */
	uint64_t nr_unattributed; /* references with no event on their CPU */
	uint64_t ts_min, ts_max; /* EV_TS_NONE / 0 when no timestamp */
	uint64_t off_total_ns; /* off-CPU time attributed */
	uint64_t off_open; /* tasks still off CPU at the end (not counted) */
	uint64_t off_nostack; /* switch-outs without a stack (their time is not counted) */
	uint64_t off_backwards; /* switch-ins earlier than the switch-out (clock skew, skipped) */
	char *joinbuf;
	size_t joincap;
	/*
	 * A writer that streams (Perfetto) feeds the input a second time with replay set: the
	 * samples, stacks and strings are found again (same input, same indexes), nothing is
	 * counted twice, and each event with a stack and each sched_switch goes to @sink (one of
	 * @e, @w is set) instead of into events/switches, so memory does not grow with the events.
	 */
	int replay;
	int (*sink)(void *arg, const struct pf_event *e, const struct pf_switch *w);
	void *sink_arg;
	/*
	 * caches of pf_intern() results: reader's event type -> strs + 1; pid -> task name, one
	 * for the event's task and one for sched_switch's fields (the two can name a task apart,
	 * a saved_cmdlines "<...>" against the switch's comm: in one cache they evict each other)
	 */
	uint32_t *type_str;
	size_t type_str_cap;
	struct pf_comm_cache {
		int32_t pid;
		uint32_t str; /* strs index + 1, 0 = empty */
	} comm_cache[2][1024];
	/* the last prev_state strings by their bytes: strs index + 1, 0 = empty */
	struct pf_state_cache {
		char s[EV_STATE_LEN];
		uint32_t str;
	} state_cache[16];
	/* with have_wall: wall-clock time (ns since the epoch) = trace timestamp + wall_offset_ns */
	int64_t wall_offset_ns;
	int have_wall;
};

/*
 * @fr must outlive @p; it formats the address frames of stacks by id (SM_FRAME_FOLDED). A
 * stack id is what its record's stack.res says (events.h: set by a reader given a resolver,
 * as the input layer's always are), "[unknown stack_id N]" when that is NULL.
 */
int pf_init(struct pf *p, struct sm_frames *fr, const struct pf_opts *opts);
void pf_free(struct pf *p);

/* Add one record (an ev_fn: pass pf_add_record and the pf to a reader). */
int pf_add_record(void *arg, const struct ev_record *rec);

/* Close the recording: tasks still off CPU are counted in off_open. */
void pf_finish(struct pf *p);

static inline const char *pf_str(const struct pf *p, uint32_t idx)
{
	return p->strs.strs[idx];
}

/*
 * Intern a string into p->strs (bytes that are not valid UTF-8 become '?'); returns its index
 * or a negative errno.
 */
long pf_intern(struct pf *p, const char *s, size_t len);

/* Length of the valid UTF-8 sequence at @s (1 to 4 bytes, at most @len), 0 if invalid. */
size_t pf_utf8_len(const unsigned char *s, size_t len);

/* The value of a sample under the chosen weight: count, or off-CPU nanoseconds. */
static inline uint64_t pf_value(const struct pf *p, const struct pf_sample *s)
{
	return p->opts.offcpu ? s->weight_ns : s->count;
}

#endif /* PROFILE_H */
