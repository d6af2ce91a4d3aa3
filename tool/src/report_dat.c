// SPDX-License-Identifier: GPL-2.0
/*
 * report_dat: feed the records of a trace.dat into the same attribution context the trace
 * text parser fills (struct tp_ctx), so `report` prints both inputs the same way.
 *
 * Every record carries its CPU, and a CPU's records are in the order the kernel wrote them, so
 * each CPU is walked on its own: a stack record (kernel_stack_id or a full kernel_stack) is
 * given to the last non-stack event of its own CPU, or to "(no event)" when that CPU has none
 * yet (its owner was overwritten in the ring buffer). No stack is ever given to another CPU's
 * event.
 */
#define _GNU_SOURCE
#include "report_dat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#define RD_NO_EVENT "(no event)"
#define RD_NTYPES   65536

struct rd_state {
	struct tp_ctx *ctx;
	struct sm_frames *fr;
	tp_stack_fn fn;
	void *arg;
	struct rd_stats *st;
	long *type_idx; /* common_type -> event index, -1 unknown yet */
	long last; /* event index of the last event of the current CPU, -1 none */
	const char **frames;
	size_t frames_cap;
};

static long rd_intern(struct tp_ctx *ctx, const char *name)
{
	long idx = tp_strtab_intern(&ctx->events, name, strlen(name));

	if (idx < 0)
		return idx;
	if ((size_t)idx >= ctx->event_lines_cap) {
		size_t ncap = ctx->event_lines_cap ? ctx->event_lines_cap * 2 : 16;
		uint64_t *n = realloc(ctx->event_lines, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + ctx->event_lines_cap, 0, (ncap - ctx->event_lines_cap) * sizeof(*n));
		ctx->event_lines = n;
		ctx->event_lines_cap = ncap;
	}
	return idx;
}

static long rd_owner(struct rd_state *s)
{
	if (s->last >= 0)
		return s->last;
	s->ctx->unattributed++;
	return rd_intern(s->ctx, RD_NO_EVENT);
}

static int rd_on_rec(void *arg, const struct td_rec *r)
{
	struct rd_state *s = arg;
	struct tp_stackref ref = {0};
	long ev;
	uint32_t i;

	switch (r->kind) {
	case TD_EVENT:
		ev = s->type_idx[r->type & 0xffff];
		if (ev < 0) {
			ev = rd_intern(s->ctx, r->event->name);
			if (ev < 0)
				return (int)ev;
			s->type_idx[r->type & 0xffff] = ev;
		}
		s->ctx->event_lines[ev]++;
		s->last = ev;
		s->st->events++;
		return 0;
	case TD_STACK_ID:
		ev = rd_owner(s);
		if (ev < 0)
			return (int)ev;
		ref.id = r->stack_id;
		s->st->stack_ids++;
		return s->fn(s->arg, (uint32_t)ev, &ref);
	case TD_STACK:
		ev = rd_owner(s);
		if (ev < 0)
			return (int)ev;
		if (r->nr > s->frames_cap) {
			const char **n = realloc(s->frames, r->nr * sizeof(*n));

			if (!n)
				return -ENOMEM;
			s->frames = n;
			s->frames_cap = r->nr;
		}
		/* Full stacks are keyed by their frame texts, like the text path does. */
		for (i = 0; i < r->nr; i++)
			s->frames[i] = strdup(sm_frame(s->fr, r->ips[i], SM_FRAME_FULL, NULL));
		for (i = 0; i < r->nr; i++)
			if (!s->frames[i])
				break;
		ref.full = 1;
		ref.nr = r->nr;
		ref.frames = s->frames;
		s->st->full_stacks++;
		ev = i == r->nr ? s->fn(s->arg, (uint32_t)ev, &ref) : -ENOMEM;
		for (i = 0; i < r->nr; i++)
			free((char *)s->frames[i]);
		return (int)ev;
	case TD_USER_STACK:
		return 0;
	case TD_BAD:
	default:
		s->st->bad_records++;
		return 0;
	}
}

int rd_feed(struct td_file *td, struct tp_ctx *ctx, struct sm_frames *fr, tp_stack_fn fn, void *arg,
	    struct rd_stats *st, struct td_err *err)
{
	struct rd_state s = {.ctx = ctx, .fr = fr, .fn = fn, .arg = arg, .st = st};
	struct td_cpu_stats cs;
	int i, ret = 0;

	memset(st, 0, sizeof(*st));
	s.type_idx = malloc(RD_NTYPES * sizeof(*s.type_idx));
	if (!s.type_idx)
		return -ENOMEM;
	memset(s.type_idx, 0xff, RD_NTYPES * sizeof(*s.type_idx)); /* all -1 */
	for (i = 0; i < td->ncpus && !ret; i++) {
		s.last = -1;
		ret = td_cpu_iterate(td, i, rd_on_rec, &s, &cs, err);
		st->records += cs.records;
		st->missed_pages += cs.missed_pages;
		st->missed_events += cs.missed_events;
	}
	free(s.type_idx);
	free(s.frames);
	return ret;
}
