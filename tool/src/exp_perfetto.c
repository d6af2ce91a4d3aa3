// SPDX-License-Identifier: GPL-2.0
/*
 * Perfetto exporter: a trace file (perfetto.protos.Trace, a sequence of TracePacket) that
 * ui.perfetto.dev and trace_processor open. Field numbers are Perfetto's (see
 * tests/perfetto_subset.proto for the subset written here):
 *
 *  1. one packet with the interned data of the whole recording (sequence 1, flag
 *     SEQ_INCREMENTAL_STATE_CLEARED): function names, mapping paths (one per kernel module,
 *     "[kernel.kallsyms]" for the core), mappings spanning the addresses seen, frames (one
 *     per location, rel_pc from the mapping's start), callstacks (root first; the bottom
 *     frame is the --by label, the event type by default, so a range's flame graph splits by
 *     event type);
 *  2. a ProcessTree with every task seen (pid as thread; its tgid as process when the trace
 *     shows it, else the pid) and its name;
 *  3. one FtraceEventBundle per CPU with its sched_switch events (the UI draws the CPU and
 *     thread scheduling tracks from them);
 *  4. one PerfSample packet per stack reference (timestamp, cpu, pid, tid, callstack,
 *     MODE_KERNEL; flag SEQ_NEEDS_INCREMENTAL_STATE): the timeline of the recorded events,
 *     and the flame graph of any selected range;
 *  5. per task with a stack reference a TrackDescriptor (uuid PT_TRACK_UUID + pid, its
 *     ThreadDescriptor pid/tid/name, so the UI puts the track in the thread's place; uuid
 *     PT_TRACK_NOTASK for references without a task), written before the task's first
 *     event, and per stack reference a TrackEvent TYPE_INSTANT on it, named by the event
 *     type, with callstack_iid: clicking the event in ui.perfetto.dev shows its stack.
 *     Interned ids (strings, frames, callstacks, mappings) start at 1: 0 means "none".
 * The input is streamed: (1) after a first pass, (3), (4) and (5) as the second pass
 * delivers the records, (2) at the end (ex_perfetto_start/sink/finish).
 * Events without a timestamp cannot be placed on a timeline and are left out.
 */
#define _POSIX_C_SOURCE 200809L
#include "export.h"
#include "pb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* TracePacket */
#define PT_FTRACE_EVENTS 1
#define PT_PROCESS_TREE	 2
#define PT_TIMESTAMP	 8
#define PT_SEQ_ID	 10
#define PT_INTERNED	 12
#define PT_SEQ_FLAGS	 13
#define PT_PERF_SAMPLE	 66
#define PT_TRACK_EVENT	 11
#define PT_TRACK_DESC	 60
/* TrackEvent (track_event.proto): type 9, track_uuid 11, name 23, callstack_iid 56 */
#define TE_TYPE		 9
#define TE_TRACK_UUID	 11
#define TE_NAME		 23
#define TE_CALLSTACK_IID 56
#define TE_TYPE_INSTANT	 3
/* TrackDescriptor: uuid 1, name 2, thread 4; ThreadDescriptor: pid 1, tid 2, thread_name 5 */
#define PT_TRACK_UUID	0x53540000000000ull /* + pid */
#define PT_TRACK_NOTASK (PT_TRACK_UUID - 1)
#define PT_SEQ_CLEARED	1
#define PT_SEQ_NEEDS	2
#define PT_SEQ		1
#define PT_BUNDLE	4096 /* sched_switch events per FtraceEventBundle packet */

/*
 * Append @pkt as one Trace.packet to @out (a struct pb used as an output buffer), writing
 * @out to @f whenever it holds more than 1 MiB (and at the end with @flush).
 */
static int pt_emit(FILE *f, struct pb *pkt, struct pb *out, int flush)
{
	if (pkt) {
		pb_msg(out, 1, pkt); /* Trace.packet = 1 */
		if (out->err)
			return out->err;
	}
	if (out->len > (1u << 20) || (flush && out->len)) {
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

/* The state of one Perfetto trace being written (ex_perfetto_start() ... _finish()). */
struct pt_stream {
	struct pf *p;
	FILE *f;
	struct pb pkt, in, msg, sub, hdr;
	uint32_t *cs_of_sample; /* sample -> callstack id (interned, from 1) */
	struct pt_tasks tasks;
	struct pt_tasks tracks; /* tasks whose TrackDescriptor is written */
	int notask; /* the TrackDescriptor of references without a task is written */
	struct pb *bundle; /* per CPU: sched_switch events not yet written */
	size_t *nbundle, ncpus;
	int ret; /* the first error */
};

static void pt_stream_free(struct pt_stream *s)
{
	size_t i;

	pb_free(&s->pkt);
	pb_free(&s->in);
	pb_free(&s->msg);
	pb_free(&s->sub);
	pb_free(&s->hdr);
	free(s->cs_of_sample);
	free(s->tasks.v);
	htab_free(&s->tasks.idx);
	free(s->tracks.v);
	htab_free(&s->tracks.idx);
	for (i = 0; i < s->ncpus; i++)
		pb_free(&s->bundle[i]);
	free(s->bundle);
	free(s->nbundle);
	free(s);
}

/* 1. the interned data of the whole recording: what every later packet refers to */
static int pt_interned(struct pt_stream *ps, const struct ex_opts *o)
{
	struct pf *p = ps->p;
	uint32_t *map_of_mod = NULL;
	uint64_t *map_lo = NULL, *map_hi = NULL;
	uint8_t *str_used = NULL, *loc_used = NULL, *root_used = NULL;
	struct pt_cs *cs = NULL;
	struct htab cs_idx;
	size_t ncs = 0, nmaps = 0, i, k;
	long s_kernel;
	int ret = -ENOMEM;

	htab_init(&cs_idx, 0);
	s_kernel = pf_intern(p, "[kernel.kallsyms]", strlen("[kernel.kallsyms]"));
	if (s_kernel < 0)
		goto out;
	/* callstacks: one per (root label, stack) of the samples in use */
	ps->cs_of_sample = calloc(p->nsamples + 1, sizeof(*ps->cs_of_sample));
	cs = calloc(p->nsamples + 1, sizeof(*cs));
	loc_used = calloc(p->nlocs + 1, 1);
	if (!ps->cs_of_sample || !cs || !loc_used)
		goto out;
	for (i = 0; i < p->nsamples; i++) {
		const struct pf_sample *s = &p->samples[i];
		uint32_t root = UINT32_MAX;
		char buf[EV_COMM_LEN + 16];
		struct pt_cs key;
		uint32_t c;
		uint64_t h;
		size_t j;

		if (o->by == EX_BY_EVENT)
			root = s->type;
		else if (o->by == EX_BY_COMM)
			root = s->comm;
		else if (o->by == EX_BY_PID) {
			int n = snprintf(buf, sizeof(buf), "%s-%d", pf_str(p, s->comm), s->pid);
			long l = pf_intern(p, buf, (size_t)n);

			if (l < 0)
				goto out;
			root = (uint32_t)l;
		}
		key = (struct pt_cs){.root = root, .stack = s->stack};
		h = ((uint64_t)root * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)s->stack * 0xC2B2AE3DULL);
		if (htab_reserve(&cs_idx))
			goto out;
		c = htab_find(&cs_idx, h, pt_cs_eq, cs, &key, &j);
		if (c == HTAB_NONE) {
			c = (uint32_t)ncs++;
			cs[c] = key;
			htab_insert_at(&cs_idx, j, h, c);
		}
		ps->cs_of_sample[i] = c + 1;
	}
	/* the strings, frames and mappings the callstacks use (after the labels were interned) */
	str_used = calloc(p->strs.n + 1, 1);
	root_used = calloc(p->strs.n + 1, 1);
	map_of_mod = calloc(p->strs.n + 1, sizeof(*map_of_mod));
	map_lo = calloc(p->strs.n + 1, sizeof(*map_lo));
	map_hi = calloc(p->strs.n + 1, sizeof(*map_hi));
	if (!str_used || !root_used || !map_of_mod || !map_lo || !map_hi)
		goto out;
	for (i = 0; i < ncs; i++) {
		const struct pf_stack *st = &p->stacks[cs[i].stack];

		if (cs[i].root != UINT32_MAX) {
			str_used[cs[i].root] = 1;
			root_used[cs[i].root] = 1;
		}
		for (k = 0; k < st->nr; k++)
			loc_used[p->frames[st->first + k]] = 1;
	}
	for (i = 0; i < p->nlocs; i++) {
		const struct pf_loc *l = &p->locs[i];
		uint32_t mod = p->funcs[l->func].module;

		if (!loc_used[i])
			continue;
		str_used[p->funcs[l->func].name] = 1;
		if (!l->addr)
			continue;
		if (!map_of_mod[mod]) {
			map_of_mod[mod] = (uint32_t)++nmaps;
			map_lo[mod] = l->addr;
			map_hi[mod] = l->addr + 1;
		}
		if (l->addr < map_lo[mod])
			map_lo[mod] = l->addr;
		if (l->addr + 1 > map_hi[mod])
			map_hi[mod] = l->addr + 1;
	}

	/* 1. interned data */
	pb_reset(&ps->pkt);
	pb_uint(&ps->pkt, PT_TIMESTAMP, p->ts_min == EV_TS_NONE ? 0 : p->ts_min);
	pb_uint(&ps->pkt, PT_SEQ_ID, PT_SEQ);
	pb_uint(&ps->pkt, PT_SEQ_FLAGS, PT_SEQ_CLEARED);
	for (i = 0; i < p->strs.n; i++) {
		if (!str_used[i])
			continue;
		pb_reset(&ps->msg);
		pb_uint(&ps->msg, 1, i + 1);
		pb_bytes(&ps->msg, 2, p->strs.strs[i], p->strs.lens[i]);
		pb_msg(&ps->in, 5, &ps->msg); /* function_names */
	}
	for (i = 0; i < p->strs.n; i++) {
		if (!map_of_mod[i])
			continue;
		pb_reset(&ps->msg);
		pb_uint(&ps->msg, 1, i + 1);
		pb_str(&ps->msg, 2, i ? p->strs.strs[i] : "[kernel.kallsyms]");
		pb_msg(&ps->in, 17, &ps->msg); /* mapping_paths */
		pb_reset(&ps->msg);
		pb_uint(&ps->msg, 1, map_of_mod[i]);
		pb_uint(&ps->msg, 4, map_lo[i]);
		pb_uint(&ps->msg, 5, map_hi[i]);
		pb_reset(&ps->sub);
		pb_varint(&ps->sub, i + 1);
		pb_msg(&ps->msg, 7, &ps->sub); /* path_string_ids, packed */
		pb_msg(&ps->in, 19, &ps->msg); /* mappings */
	}
	for (i = 0; i < p->nlocs; i++) {
		const struct pf_loc *l = &p->locs[i];
		uint32_t mod = p->funcs[l->func].module;

		if (!loc_used[i])
			continue;
		pb_reset(&ps->msg);
		pb_uint(&ps->msg, 1, i + 1);
		pb_uint(&ps->msg, 2, (uint64_t)p->funcs[l->func].name + 1);
		if (l->addr) {
			pb_uint(&ps->msg, 3, map_of_mod[mod]);
			pb_uint(&ps->msg, 4, l->addr - map_lo[mod]);
		}
		pb_msg(&ps->in, 6, &ps->msg); /* frames */
	}
	for (i = 0; i < p->strs.n; i++) { /* root labels as frames without a mapping */
		if (!root_used[i])
			continue;
		pb_reset(&ps->msg);
		pb_uint(&ps->msg, 1, p->nlocs + 1 + i);
		pb_uint(&ps->msg, 2, i + 1);
		pb_msg(&ps->in, 6, &ps->msg);
	}
	for (i = 0; i < ncs; i++) {
		const struct pf_stack *st = &p->stacks[cs[i].stack];

		pb_reset(&ps->msg);
		pb_uint(&ps->msg, 1, i + 1);
		pb_reset(&ps->sub);
		if (cs[i].root != UINT32_MAX)
			pb_varint(&ps->sub, p->nlocs + 1 + cs[i].root);
		for (k = st->nr; k > 0; k--)
			pb_varint(&ps->sub, (uint64_t)p->frames[st->first + k - 1] + 1);
		pb_msg(&ps->msg, 2, &ps->sub); /* frame_ids, packed, root first */
		pb_msg(&ps->in, 7, &ps->msg); /* callstacks */
	}
	pb_msg(&ps->pkt, PT_INTERNED, &ps->in);
	ret = pt_emit(ps->f, &ps->pkt, &ps->hdr, 0);

out:
	htab_free(&cs_idx);
	free(cs);
	free(str_used);
	free(root_used);
	free(loc_used);
	free(map_of_mod);
	free(map_lo);
	free(map_hi);
	return ret;
}

int ex_perfetto_start(struct pf *p, const struct ex_opts *o, FILE *f, struct pt_stream **out)
{
	struct pt_stream *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->p = p;
	s->f = f;
	pb_init(&s->pkt);
	pb_init(&s->in);
	pb_init(&s->msg);
	pb_init(&s->sub);
	pb_init(&s->hdr);
	htab_init(&s->tasks.idx, 256);
	htab_init(&s->tracks.idx, 256);
	ret = pt_interned(s, o);
	if (ret) {
		pt_stream_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

/* 3. sched_switch events: per CPU, in bundles of at most PT_BUNDLE events */
static int pt_flush_bundle(struct pt_stream *s, size_t cpu)
{
	if (!s->nbundle[cpu])
		return 0;
	pb_reset(&s->pkt);
	pb_reset(&s->in);
	pb_uint(&s->in, 1, (uint64_t)cpu);
	pb_raw(&s->in, s->bundle[cpu].buf, s->bundle[cpu].len);
	pb_uint(&s->pkt, PT_SEQ_ID, PT_SEQ + 1 + (uint32_t)cpu);
	pb_msg(&s->pkt, PT_FTRACE_EVENTS, &s->in);
	pb_reset(&s->bundle[cpu]);
	s->nbundle[cpu] = 0;
	return pt_emit(s->f, &s->pkt, &s->hdr, 0);
}

static int pt_switch(struct pt_stream *s, const struct pf_switch *w)
{
	struct pf *p = s->p;
	size_t cpu = (size_t)w->cpu;

	if (pt_task_add(&s->tasks, w->prev_pid, 0, w->prev_comm) ||
	    pt_task_add(&s->tasks, w->next_pid, 0, w->next_comm))
		return -ENOMEM;
	if (w->cpu < 0 || w->ts_ns == EV_TS_NONE)
		return 0;
	if (cpu >= s->ncpus) {
		size_t n = cpu + 1, i;
		struct pb *b = realloc(s->bundle, n * sizeof(*b));
		size_t *c;

		if (!b)
			return -ENOMEM;
		s->bundle = b;
		c = realloc(s->nbundle, n * sizeof(*c));
		if (!c)
			return -ENOMEM;
		s->nbundle = c;
		for (i = s->ncpus; i < n; i++) {
			pb_init(&s->bundle[i]);
			s->nbundle[i] = 0;
		}
		s->ncpus = n;
	}
	pb_reset(&s->msg);
	pb_uint(&s->msg, 1, w->ts_ns);
	pb_uint(&s->msg, 2, (uint32_t)w->prev_pid);
	pb_reset(&s->sub);
	pb_str(&s->sub, 1, pf_str(p, w->prev_comm));
	pb_int(&s->sub, 2, w->prev_pid);
	pb_int(&s->sub, 3, w->prev_prio);
	pb_int(&s->sub, 4, pt_state(pf_str(p, w->prev_state)));
	pb_str(&s->sub, 5, pf_str(p, w->next_comm));
	pb_int(&s->sub, 6, w->next_pid);
	pb_int(&s->sub, 7, w->next_prio);
	pb_msg(&s->msg, 4, &s->sub);
	pb_msg(&s->bundle[cpu], 2, &s->msg);
	if (s->bundle[cpu].err)
		return s->bundle[cpu].err;
	return ++s->nbundle[cpu] >= PT_BUNDLE ? pt_flush_bundle(s, cpu) : 0;
}

/* 5. the TrackDescriptor of @e's task, before its first event */
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
	pb_uint(&s->pkt, PT_TIMESTAMP, p->ts_min == EV_TS_NONE ? 0 : p->ts_min);
	pb_uint(&s->pkt, PT_SEQ_ID, PT_SEQ);
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
	return pt_emit(s->f, &s->pkt, &s->hdr, 0);
}

/* 4. one perf sample per stack reference */
static int pt_sample(struct pt_stream *s, const struct pf_event *e)
{
	int ret;

	if (pt_task_add(&s->tasks, e->pid, e->tgid, s->p->samples[e->sample].comm))
		return -ENOMEM;
	if (e->ts_ns == EV_TS_NONE)
		return 0;
	pb_reset(&s->pkt);
	pb_uint(&s->pkt, PT_TIMESTAMP, e->ts_ns);
	pb_uint(&s->pkt, PT_SEQ_ID, PT_SEQ);
	pb_uint(&s->pkt, PT_SEQ_FLAGS, PT_SEQ_NEEDS);
	pb_reset(&s->msg);
	pb_uint(&s->msg, 1, e->cpu < 0 ? 0 : (uint64_t)e->cpu);
	pb_uint(&s->msg, 2, (uint32_t)(e->tgid > 0 ? e->tgid : e->pid < 0 ? 0 : e->pid));
	pb_uint(&s->msg, 3, (uint32_t)(e->pid < 0 ? 0 : e->pid));
	pb_uint(&s->msg, 5, 1); /* MODE_KERNEL */
	pb_uint(&s->msg, 4, s->cs_of_sample[e->sample]);
	pb_msg(&s->pkt, PT_PERF_SAMPLE, &s->msg);
	ret = pt_emit(s->f, &s->pkt, &s->hdr, 0);
	if (!ret)
		ret = pt_track(s, e);
	if (ret)
		return ret;
	/* 5. the instant on the task's track, with the same callstack */
	pb_reset(&s->pkt);
	pb_uint(&s->pkt, PT_TIMESTAMP, e->ts_ns);
	pb_uint(&s->pkt, PT_SEQ_ID, PT_SEQ);
	pb_uint(&s->pkt, PT_SEQ_FLAGS, PT_SEQ_NEEDS);
	pb_reset(&s->msg);
	pb_uint(&s->msg, TE_TYPE, TE_TYPE_INSTANT);
	pb_uint(&s->msg, TE_TRACK_UUID, pt_track_uuid(e->pid));
	pb_str(&s->msg, TE_NAME, pf_str(s->p, s->p->samples[e->sample].type));
	pb_uint(&s->msg, TE_CALLSTACK_IID, s->cs_of_sample[e->sample]);
	pb_msg(&s->pkt, PT_TRACK_EVENT, &s->msg);
	return pt_emit(s->f, &s->pkt, &s->hdr, 0);
}

int ex_perfetto_sink(void *arg, const struct pf_event *e, const struct pf_switch *w)
{
	struct pt_stream *s = arg;

	if (!s->ret)
		s->ret = e ? pt_sample(s, e) : pt_switch(s, w);
	return s->ret;
}

/* 2. the process tree: every task seen (written last, when all of them are known) */
static int pt_process_tree(struct pt_stream *s)
{
	struct pf *p = s->p;
	size_t i;

	pb_reset(&s->pkt);
	pb_uint(&s->pkt, PT_TIMESTAMP, p->ts_min == EV_TS_NONE ? 0 : p->ts_min);
	pb_uint(&s->pkt, PT_SEQ_ID, PT_SEQ);
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
	return pt_emit(s->f, &s->pkt, &s->hdr, 0);
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
		ret = pt_emit(s->f, NULL, &s->hdr, 1);
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
