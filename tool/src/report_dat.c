// SPDX-License-Identifier: GPL-2.0
/*
 * report_dat: the records of a trace.dat as the event model of events.h, with the same
 * attribution rules as the text parser.
 *
 * Every record carries its CPU, and a CPU's records are in the order the kernel wrote them:
 * a stack record (kernel_stack_id or a full kernel_stack) is given to the last non-stack event
 * of its own CPU, to "(lost event)" when the kernel lost events on that CPU since that event (a
 * page flagged with missed events), or to "(no event)" when that CPU has none yet (its owner was
 * overwritten in the ring buffer). No stack is ever given to another CPU's event. A record
 * whose event id has no format in the file is an event of type "(unknown event)". A stack
 * definition (kernel_stack_def) is neither an event nor a stack reference: rd_scan_defs()
 * reads the definitions before the records are delivered, and the delivery skips them.
 */
#define _GNU_SOURCE
#include "report_dat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#define RD_NTYPES 65536

/* Records for the event model (events.h) ------------------------------------------------ */

/* What a common_type needs for an ev_record, found once per type. */
struct rd_type {
	int known; /* 0: not looked up yet */
	uint32_t dense; /* ev_record.type */
	const char *name;
	int pid_off, pid_size;
	int is_switch;
	const struct tep_format_field *prev_comm, *prev_pid, *prev_prio, *prev_state;
	const struct tep_format_field *next_comm, *next_pid, *next_prio;
};

struct rd_cpu {
	struct td_iter *it;
	struct td_rec head; /* next record of this CPU, valid when have */
	int have;
	struct ev_record pend; /* the last event of this CPU */
	int pend_valid, pend_emitted;
	int lost; /* events were lost on this CPU since pend */
	int seen; /* the CPU has had an event */
};

struct rd_ev {
	struct td_file *td;
	struct rd_type *types;
	uint32_t ntypes;
	uint64_t seq;
	int64_t unattr_type; /* dense index of "(no event)", -1 until needed */
	int64_t lost_type; /* of "(lost event)" */
	int64_t unknown_type; /* of "(unknown event)" */
	unsigned int flags; /* RD_F_* */
	const struct ev_resolver *resolver;
	ev_fn fn;
	void *arg;
	/* pid -> comm of saved_cmdlines, direct mapped: a binary search per record otherwise */
	struct rd_comm_slot {
		int32_t pid;
		const char *comm;
	} comm_cache[1024];
};

/* The dense index of one of the reader's own type names, given on first use. */
static uint32_t rd_special(struct rd_ev *e, int64_t *slot)
{
	if (*slot < 0)
		*slot = e->ntypes++;
	return (uint32_t)*slot;
}

static int64_t rd_num(const struct td_file *td, const struct td_rec *r,
		      const struct tep_format_field *f, int64_t dflt)
{
	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 || f->offset + f->size > r->size)
		return dflt;
	return (int64_t)tep_read_number(td->tep, (const uint8_t *)r->data + f->offset, f->size);
}

static void rd_str(const struct td_rec *r, const struct tep_format_field *f, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	if (!f || f->offset < 0 || f->size <= 0 || f->offset + f->size > r->size)
		return;
	while (n + 1 < size && n < (size_t)f->size && ((const char *)r->data)[f->offset + n])
		n++;
	memcpy(out, (const char *)r->data + f->offset, n);
	out[n] = '\0';
}

/* prev_state as the kernel's sched_switch prints it (6.x task state letters). */
static void rd_state(int64_t st, char *out, size_t size)
{
	static const char letters[] = "SDTtXZPI";
	size_t n = 0;
	int i;

	for (i = 0; i < 8 && n + 2 < size; i++) {
		if (!(st & (1 << i)))
			continue;
		if (n)
			out[n++] = '|';
		out[n++] = letters[i];
	}
	if (!n)
		out[n++] = 'R';
	if ((st & 0x100) && n + 1 < size)
		out[n++] = '+';
	out[n] = '\0';
}

static struct rd_type *rd_type_of(struct rd_ev *e, const struct td_rec *r)
{
	struct rd_type *t = &e->types[r->type & 0xffff];
	struct tep_event *ev = (struct tep_event *)r->event;
	struct tep_format_field *f;
	uint32_t i;

	if (t->known)
		return t;
	t->known = 1;
	t->name = ev->name;
	t->dense = e->ntypes;
	/* one dense index per event name (two systems may share a name: they share it here) */
	for (i = 0; i < RD_NTYPES; i++) {
		if (e->types[i].known && &e->types[i] != t && e->types[i].name &&
		    !strcmp(e->types[i].name, t->name)) {
			t->dense = e->types[i].dense;
			break;
		}
	}
	if (t->dense == e->ntypes)
		e->ntypes++;
	f = tep_find_common_field(ev, "common_pid");
	t->pid_off = f ? f->offset : -1;
	t->pid_size = f ? f->size : 0;
	if (!strcmp(ev->name, "sched_switch") && ev->system && !strcmp(ev->system, "sched")) {
		t->is_switch = 1;
		t->prev_comm = tep_find_field(ev, "prev_comm");
		t->prev_pid = tep_find_field(ev, "prev_pid");
		t->prev_prio = tep_find_field(ev, "prev_prio");
		t->prev_state = tep_find_field(ev, "prev_state");
		t->next_comm = tep_find_field(ev, "next_comm");
		t->next_pid = tep_find_field(ev, "next_pid");
		t->next_prio = tep_find_field(ev, "next_prio");
	}
	return t;
}

static int32_t rd_pid(const struct td_file *td, const struct td_rec *r, const struct rd_type *t)
{
	if (t->pid_off < 0 || t->pid_size != 4 || t->pid_off + 4 > r->size)
		return EV_PID_NONE;
	return (int32_t)tep_read_number(td->tep, (const uint8_t *)r->data + t->pid_off, 4);
}

static void rd_comm(struct rd_ev *e, int32_t pid, char *out)
{
	struct rd_comm_slot *slot = &e->comm_cache[(uint32_t)pid % 1024];
	const char *c;
	size_t n = 0;

	if (pid == EV_PID_NONE) {
		c = "";
	} else if (slot->comm && slot->pid == pid) {
		c = slot->comm;
	} else {
		c = tep_data_comm_from_pid(e->td->tep, pid);
		slot->pid = pid;
		slot->comm = c;
	}

	/* per record: a copy, not snprintf (which was 2.5% of an export, perf record) */
	while (c && n + 1 < EV_COMM_LEN && c[n]) {
		out[n] = c[n];
		n++;
	}
	out[n] = '\0';
}

static void rd_fill_event(struct rd_ev *e, const struct td_rec *r, struct ev_record *out)
{
	struct rd_type *t;

	/* the fixed part only: comm and sw are filled below when they are wanted */
	memset(out, 0, offsetof(struct ev_record, sw));
	out->stack.kind = EV_STACK_NONE;
	out->lost = 0;
	if (!r->event) {
		/* an id without a format (or a record too short for one): no fields to read */
		out->seq = e->seq++;
		out->ts_ns = r->ts;
		out->cpu = r->cpu;
		out->pid = EV_PID_NONE;
		out->tgid = EV_PID_NONE;
		out->type = rd_special(e, &e->unknown_type);
		out->type_name = EV_TYPE_UNKNOWN;
		return;
	}
	t = rd_type_of(e, r);
	out->seq = e->seq++;
	out->ts_ns = r->ts;
	out->cpu = r->cpu;
	out->pid = rd_pid(e->td, r, t);
	out->tgid = EV_PID_NONE;
	out->type = t->dense;
	out->type_name = t->name;
	if (e->flags & RD_F_NO_TASK_FIELDS)
		return; /* (cheaper by a quarter on report, perf record) */
	rd_comm(e, out->pid, out->comm);
	if (t->is_switch && !(e->flags & RD_F_NO_SWITCH_FIELDS)) {
		out->flags |= EV_F_SWITCH;
		rd_str(r, t->prev_comm, out->sw.prev_comm, sizeof(out->sw.prev_comm));
		rd_str(r, t->next_comm, out->sw.next_comm, sizeof(out->sw.next_comm));
		out->sw.prev_pid = (int32_t)rd_num(e->td, r, t->prev_pid, EV_PID_NONE);
		out->sw.next_pid = (int32_t)rd_num(e->td, r, t->next_pid, EV_PID_NONE);
		out->sw.prev_prio = (int32_t)rd_num(e->td, r, t->prev_prio, -1);
		out->sw.next_prio = (int32_t)rd_num(e->td, r, t->next_prio, -1);
		rd_state(rd_num(e->td, r, t->prev_state, 0), out->sw.prev_state,
			 sizeof(out->sw.prev_state));
	}
}

static int rd_flush(struct rd_ev *e, struct rd_cpu *c)
{
	int ret = 0;

	if (c->pend_valid && !c->pend_emitted)
		ret = e->fn(e->arg, &c->pend);
	c->pend_valid = 0;
	return ret;
}

static int rd_on_head(struct rd_ev *e, struct rd_cpu *c, const struct td_rec *r)
{
	struct ev_record x;
	int ret;

	if (r->missed) {
		/* events were lost before this record's page: a marker in their place */
		ret = rd_flush(e, c);
		if (ret)
			return ret;
		memset(&x, 0, sizeof(x));
		x.seq = e->seq;
		x.ts_ns = r->ts;
		x.cpu = r->cpu;
		x.pid = EV_PID_NONE;
		x.tgid = EV_PID_NONE;
		x.type = rd_special(e, &e->lost_type);
		x.type_name = EV_TYPE_LOST;
		x.flags = EV_F_LOST;
		x.lost = r->missed_events;
		/* before the CPU's first event, its stacks stay "(no event)": the start of its data */
		c->lost = c->seen;
		ret = e->fn(e->arg, &x);
		if (ret)
			return ret;
	}
	switch (r->kind) {
	case TD_EVENT:
	case TD_BAD:
		ret = rd_flush(e, c);
		if (ret)
			return ret;
		rd_fill_event(e, r, &c->pend);
		c->pend_valid = 1;
		c->pend_emitted = 0;
		c->lost = 0;
		c->seen = 1;
		return 0;
	case TD_STACK_ID:
	case TD_STACK:
		if (c->pend_valid) {
			x = c->pend;
			if (c->pend_emitted)
				x.flags |= EV_F_EXTRA;
			c->pend_emitted = 1;
		} else {
			/* its event was lost or overwritten: never given to another CPU's event */
			rd_fill_event(e, r, &x);
			x.flags = EV_F_UNATTRIBUTED;
			if (c->lost) {
				x.type_name = EV_TYPE_LOST;
				x.type = rd_special(e, &e->lost_type);
			} else {
				x.type_name = EV_TYPE_UNATTRIBUTED;
				x.type = rd_special(e, &e->unattr_type);
			}
		}
		x.stack.kind = r->kind == TD_STACK_ID ? EV_STACK_ID : EV_STACK_FULL;
		x.stack.id = r->stack_id;
		x.stack.nr = r->kind == TD_STACK ? r->nr : 0;
		x.stack.addrs = r->kind == TD_STACK ? r->ips : NULL;
		x.stack.frames = NULL;
		x.stack.gen = 0;
		x.stack.res = NULL;
		if (r->kind == TD_STACK_ID && e->resolver)
			x.stack.res = e->resolver->resolve(e->resolver->ctx, r->ts, r->stack_id,
							   &x.stack.gen);
		return e->fn(e->arg, &x);
	default: /* user stacks, stack definitions */
		return 0;
	}
}

int rd_scan_defs(struct td_file *td, int (*fn)(void *arg, const struct td_rec *r), void *arg,
		 struct td_err *err)
{
	struct td_iter *it = NULL;
	struct td_rec r;
	int i, ret = 0;

	if (td->id_stack_def < 0)
		return 0; /* a recording without the format has no definitions */
	for (i = 0; i < td->ncpus && !ret; i++) {
		ret = td_iter_open(td, i, &it);
		while (!ret && (ret = td_iter_next(it, &r, err)) == 1)
			ret = r.kind == TD_STACK_DEF ? fn(arg, &r) : 0;
		td_iter_close(it);
		it = NULL;
	}
	return ret;
}

int rd_feed_records(struct td_file *td, ev_fn fn, void *arg, unsigned int flags,
		    const struct ev_resolver *resolver, struct td_err *err)
{
	struct rd_ev e = {.td = td,
			  .fn = fn,
			  .arg = arg,
			  .unattr_type = -1,
			  .lost_type = -1,
			  .unknown_type = -1,
			  .flags = flags,
			  .resolver = resolver};
	struct rd_cpu *cpus = calloc((size_t)td->ncpus + 1, sizeof(*cpus));
	char *cl = NULL;
	int i, ret = 0;

	e.types = calloc(RD_NTYPES, sizeof(*e.types));
	if (!cpus || !e.types) {
		ret = -ENOMEM;
		goto out;
	}
	if (td->cmdlines) {
		cl = strdup(td->cmdlines);
		if (!cl) {
			ret = -ENOMEM;
			goto out;
		}
		tep_parse_saved_cmdlines(td->tep, cl);
	}
	for (i = 0; i < td->ncpus && !ret; i++) {
		ret = td_iter_open(td, i, &cpus[i].it);
		if (!ret) {
			ret = td_iter_next(cpus[i].it, &cpus[i].head, err);
			cpus[i].have = ret == 1;
			ret = ret < 0 ? ret : 0;
		}
	}
	/* merge the CPUs by timestamp; a CPU's own records stay in buffer order */
	while (!ret) {
		int best = -1;

		for (i = 0; i < td->ncpus; i++)
			if (cpus[i].have && (best < 0 || cpus[i].head.ts < cpus[best].head.ts))
				best = i;
		if (best < 0)
			break;
		ret = rd_on_head(&e, &cpus[best], &cpus[best].head);
		if (ret)
			break;
		ret = td_iter_next(cpus[best].it, &cpus[best].head, err);
		cpus[best].have = ret == 1;
		ret = ret < 0 ? ret : 0;
	}
	for (i = 0; i < td->ncpus && !ret; i++)
		ret = rd_flush(&e, &cpus[i]);
out:
	for (i = 0; cpus && i < td->ncpus; i++)
		td_iter_close(cpus[i].it);
	free(cpus);
	free(e.types);
	free(cl);
	return ret;
}
