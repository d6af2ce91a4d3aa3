// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregate of a recording that the exporters write; see profile.h.
 *
 * Off-CPU time: a sched_switch record whose stack is the stack of the task leaving the CPU
 * (prev_pid; the tracepoint runs in its context) opens an interval for that pid; the next
 * sched_switch that switches the same pid in (next_pid) closes it, and the interval's length
 * is added to the sample of the switch-out. Not seen: tasks still off CPU at the end of the
 * recording (counted in off_open), switch-outs without a stack (off_nostack), pid 0 (the
 * per-CPU idle tasks share it), and time before the first switch-out of a task.
 */
#define _POSIX_C_SOURCE 200809L
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t pf_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

size_t pf_utf8_len(const unsigned char *s, size_t len)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (n > len)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * Every string of the profile goes through here. Task names (and, in a damaged trace, any
 * text) may hold bytes that are not UTF-8; they become '?' so that the JSON, SVG and
 * protobuf strings written from the table stay valid.
 */
long pf_intern(struct pf *p, const char *s, size_t len)
{
	size_t i, o = 0, n;
	char *clean;
	long ret;

	for (i = 0; i < len && (unsigned char)s[i] < 0x80; i++)
		;
	if (i == len)
		return tp_strtab_intern(&p->strs, s, len);
	clean = malloc(len + 1);
	if (!clean)
		return -ENOMEM;
	for (i = 0; i < len;) {
		n = pf_utf8_len((const unsigned char *)s + i, len - i);
		if (!n) {
			clean[o++] = '?';
			i++;
			continue;
		}
		memcpy(clean + o, s + i, n);
		o += n;
		i += n;
	}
	ret = tp_strtab_intern(&p->strs, clean, o);
	free(clean);
	return ret;
}

/* Functions ------------------------------------------------------------------------------- */

static int pf_func_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pf_func *f = &((const struct pf *)ctx)->funcs[idx], *k = key;

	return f->name == k->name && f->module == k->module;
}

static long pf_func(struct pf *p, uint32_t name, uint32_t module)
{
	struct pf_func key = {.name = name, .module = module};
	uint64_t h = pf_mix((uint64_t)name << 32 | module);
	uint32_t idx;
	size_t j;

	if (htab_reserve(&p->func_idx))
		return -ENOMEM;
	idx = htab_find(&p->func_idx, h, pf_func_eq, p, &key, &j);
	if (idx != HTAB_NONE)
		return idx;
	p->funcs = sm_grow(p->funcs, &p->funcs_cap, p->nfuncs + 1, sizeof(*p->funcs));
	if (!p->funcs)
		return -ENOMEM;
	p->funcs[p->nfuncs] = key;
	htab_insert_at(&p->func_idx, j, h, (uint32_t)p->nfuncs);
	return (long)p->nfuncs++;
}

/* "sym [mod]" -> function (sym, mod); anything else is a name of the core kernel. */
static long pf_func_text(struct pf *p, const char *t, size_t len)
{
	long name, mod = 0;
	size_t k;

	if (len > 3 && t[len - 1] == ']' && t[0] != '[') {
		for (k = len - 1; k > 1; k--)
			if (t[k] == '[' && t[k - 1] == ' ')
				break;
		if (k > 1) {
			mod = pf_intern(p, t + k + 1, len - k - 2);
			if (mod < 0)
				return mod;
			len = k - 1;
		}
	}
	name = pf_intern(p, t, len);
	if (name < 0)
		return name;
	return pf_func(p, (uint32_t)name, (uint32_t)mod);
}

/* Locations ------------------------------------------------------------------------------- */

static int pf_loc_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pf_loc *l = &((const struct pf *)ctx)->locs[idx], *k = key;

	return l->addr == k->addr && l->func == k->func;
}

static long pf_loc(struct pf *p, uint64_t addr, uint32_t func)
{
	struct pf_loc key = {.addr = addr, .func = func};
	uint64_t h = pf_mix(addr * 31 + func);
	uint32_t idx;
	size_t j;

	if (htab_reserve(&p->loc_idx))
		return -ENOMEM;
	idx = htab_find(&p->loc_idx, h, pf_loc_eq, p, &key, &j);
	if (idx != HTAB_NONE)
		return idx;
	p->locs = sm_grow(p->locs, &p->locs_cap, p->nlocs + 1, sizeof(*p->locs));
	if (!p->locs)
		return -ENOMEM;
	p->locs[p->nlocs] = key;
	htab_insert_at(&p->loc_idx, j, h, (uint32_t)p->nlocs);
	return (long)p->nlocs++;
}

static long pf_loc_addr(struct pf *p, uint64_t addr)
{
	const char *t = sm_frame(p->fr, addr, SM_FRAME_FOLDED, NULL);
	long f = pf_func_text(p, t, strlen(t));

	if (f < 0)
		return f;
	/* the trampoline sentinel is not an address in any mapping */
	return pf_loc(p, addr == SMBIN_TRAMPOLINE ? 0 : addr, (uint32_t)f);
}

/* Stacks ---------------------------------------------------------------------------------- */

static uint64_t pf_frames_hash(const uint32_t *fr, size_t nr)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ nr;
	size_t i;

	for (i = 0; i < nr; i++)
		h = pf_mix(h ^ fr[i]);
	return h;
}

/* Key of pf_stack_eq(): frames not yet committed (they sit at the end of p->frames). */
struct pf_frames_key {
	const uint32_t *fr;
	size_t nr;
};

static int pf_stack_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pf *p = ctx;
	const struct pf_stack *s = &p->stacks[idx];
	const struct pf_frames_key *k = key;

	return s->nr == k->nr && memcmp(p->frames + s->first, k->fr, k->nr * sizeof(*k->fr)) == 0;
}

static int pf_push_frame(struct pf *p, long loc);

/*
 * The stack made of the @nr locations just appended at p->frames[p->nframes - nr ..]. A stack
 * without frames (a <stack trace> block with no lines, a map record of depth 0) becomes one
 * "[empty stack]" frame, so that every format shows it.
 */
static long pf_stack_commit(struct pf *p, size_t nr)
{
	struct pf_frames_key key;
	uint32_t idx;
	uint64_t h;
	size_t j;

	if (!nr) {
		long name = pf_intern(p, "[empty stack]", strlen("[empty stack]")), f;
		int ret;

		if (name < 0)
			return name;
		f = pf_func(p, (uint32_t)name, 0);
		if (f < 0)
			return f;
		ret = pf_push_frame(p, pf_loc(p, 0, (uint32_t)f));
		if (ret)
			return ret;
		nr = 1;
	}
	key.fr = p->frames + p->nframes - nr;
	key.nr = nr;
	h = pf_frames_hash(key.fr, nr);
	if (htab_reserve(&p->stack_idx))
		return -ENOMEM;
	idx = htab_find(&p->stack_idx, h, pf_stack_eq, p, &key, &j);
	if (idx != HTAB_NONE) {
		p->nframes -= nr; /* already known: drop the copy */
		return idx;
	}
	p->stacks = sm_grow(p->stacks, &p->stacks_cap, p->nstacks + 1, sizeof(*p->stacks));
	if (!p->stacks)
		return -ENOMEM;
	p->stacks[p->nstacks] =
		(struct pf_stack){.first = (uint32_t)(p->nframes - nr), .nr = (uint32_t)nr};
	htab_insert_at(&p->stack_idx, j, h, (uint32_t)p->nstacks);
	return (long)p->nstacks++;
}

static int pf_push_frame(struct pf *p, long loc)
{
	if (loc < 0)
		return (int)loc;
	p->frames = sm_grow(p->frames, &p->frames_cap, p->nframes + 1, sizeof(*p->frames));
	if (!p->frames)
		return -ENOMEM;
	p->frames[p->nframes++] = (uint32_t)loc;
	return 0;
}

static int pf_unknown_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct pf *)ctx)->unknown_ids[idx] == *(const uint32_t *)key;
}

static long pf_stack_unknown(struct pf *p, uint32_t id)
{
	uint64_t h = pf_mix(id);
	char name[64];
	long st, f, n;
	uint32_t idx;
	size_t j;

	p->nr_refs_unknown++;
	if (htab_reserve(&p->unknown_idx))
		return -ENOMEM;
	idx = htab_find(&p->unknown_idx, h, pf_unknown_eq, p, &id, &j);
	if (idx != HTAB_NONE)
		return p->unknown_stack[idx];
	/* ids of two recordings are unrelated: a diff tags each side's unknown stacks */
	snprintf(name, sizeof(name), SM_UNKNOWN_STACK "%s%s", id, p->opts.unknown_tag ? " of " : "",
		 p->opts.unknown_tag ? p->opts.unknown_tag : "");
	n = pf_intern(p, name, strlen(name));
	if (n < 0)
		return n;
	f = pf_func(p, (uint32_t)n, 0);
	if (f < 0)
		return f;
	st = pf_push_frame(p, pf_loc(p, 0, (uint32_t)f));
	if (st)
		return st;
	st = pf_stack_commit(p, 1);
	if (st < 0)
		return st;
	if (p->nunknown == p->unknown_cap) {
		size_t cap = p->unknown_cap;
		uint32_t *a = sm_grow(p->unknown_ids, &cap, p->nunknown + 1, sizeof(*a));

		if (!a)
			return -ENOMEM;
		p->unknown_ids = a;
		cap = p->unknown_cap;
		a = sm_grow(p->unknown_stack, &cap, p->nunknown + 1, sizeof(*a));
		if (!a)
			return -ENOMEM;
		p->unknown_stack = a;
		p->unknown_cap = cap;
	}
	p->unknown_ids[p->nunknown] = id;
	p->unknown_stack[p->nunknown] = (uint32_t)st;
	htab_insert_at(&p->unknown_idx, j, h, (uint32_t)p->nunknown++);
	return st;
}

/* "sym (ffffffff81000000)" (trace-cmd) carries the address; tracefs frames do not. */
static uint64_t pf_text_addr(const char *t)
{
	const char *o = strrchr(t, '(');
	uint64_t v = 0;
	int n = 0;

	if (!o)
		return 0;
	for (o++; *o && *o != ')'; o++, n++) {
		int d = *o >= '0' && *o <= '9'	 ? *o - '0'
			: *o >= 'a' && *o <= 'f' ? *o - 'a' + 10
			: *o >= 'A' && *o <= 'F' ? *o - 'A' + 10
						 : -1;

		if (d < 0 || n >= 16)
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	return *o == ')' ? v : 0;
}

/* Push frame texts (addresses from @addrs, else from trace-cmd's "sym (addr)" texts). */
static int pf_push_texts(struct pf *p, const char *const *frames, const uint64_t *addrs,
			 uint32_t nr)
{
	uint32_t i;
	int ret;

	for (i = 0; i < nr; i++) {
		char fn[512];
		uint64_t addr = addrs ? addrs[i] : pf_text_addr(frames[i]);
		size_t n = tp_frame_func(frames[i], fn, sizeof(fn));
		long f = pf_func_text(p, fn, n);

		if (f < 0)
			return (int)f;
		ret = pf_push_frame(p, pf_loc(p, addr, (uint32_t)f));
		if (ret)
			return ret;
	}
	return 0;
}

/* A stack by id: what the input layer resolved it to (es->res), once per resolved stack. */
static long pf_stack_id(struct pf *p, const struct ev_stack *es)
{
	const struct ev_idstack *s = es->res;
	uint32_t i;
	long st;
	int ret;

	if (!s)
		return pf_stack_unknown(p, es->id);
	if (s->index < p->id_stack_cap && p->id_stack[s->index])
		return p->id_stack[s->index] - 1;
	if (s->addrs) {
		for (i = 0; i < s->nr; i++) {
			ret = pf_push_frame(p, pf_loc_addr(p, s->addrs[i]));
			if (ret)
				return ret;
		}
	} else {
		ret = pf_push_texts(p, s->frames, NULL, s->nr);
		if (ret)
			return ret;
	}
	st = pf_stack_commit(p, s->nr);
	if (st < 0)
		return st;
	if (s->index >= p->id_stack_cap) {
		uint32_t *n =
			sm_grow(p->id_stack, &p->id_stack_cap, (size_t)s->index + 1, sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->id_stack = n;
	}
	p->id_stack[s->index] = (uint32_t)st + 1;
	return st;
}

static long pf_stack_full(struct pf *p, const struct ev_stack *es)
{
	size_t len, i;
	long key, st;
	int ret;

	if (!es->frames) { /* addresses only (binary inputs): not cached by text */
		for (i = 0; i < es->nr; i++) {
			ret = pf_push_frame(p, pf_loc_addr(p, es->addrs[i]));
			if (ret)
				return ret;
		}
		return pf_stack_commit(p, es->nr);
	}
	if (sm_join_frames(&p->joinbuf, &p->joincap, es->frames, es->nr, &len))
		return -ENOMEM;
	key = tp_strtab_intern(&p->full, p->joinbuf, len);
	if (key < 0)
		return key;
	if ((size_t)key < p->full_stack_cap && p->full_stack[key])
		return p->full_stack[key] - 1;
	ret = pf_push_texts(p, es->frames, es->addrs, es->nr);
	if (ret)
		return ret;
	st = pf_stack_commit(p, es->nr);
	if (st < 0)
		return st;
	if ((size_t)key >= p->full_stack_cap) {
		size_t old = p->full_stack_cap;
		uint32_t *n =
			sm_grow(p->full_stack, &p->full_stack_cap, (size_t)key + 1, sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + old, 0, (p->full_stack_cap - old) * sizeof(*n));
		p->full_stack = n;
	}
	p->full_stack[key] = (uint32_t)st + 1;
	return st;
}

/* Samples --------------------------------------------------------------------------------- */

static uint64_t pf_sample_key(uint32_t stack, uint32_t type, uint32_t comm, int32_t pid)
{
	return pf_mix(pf_mix((uint64_t)stack << 32 | type) ^
		      ((uint64_t)comm << 32 | (uint32_t)pid));
}

static int pf_sample_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pf_sample *s = &((const struct pf *)ctx)->samples[idx], *k = key;

	return s->stack == k->stack && s->type == k->type && s->comm == k->comm && s->pid == k->pid;
}

static long pf_sample(struct pf *p, uint32_t stack, uint32_t type, uint32_t comm, int32_t pid)
{
	struct pf_sample key = {.stack = stack, .type = type, .comm = comm, .pid = pid};
	uint64_t h = pf_sample_key(stack, type, comm, pid);
	uint32_t idx;
	size_t j;

	if (htab_reserve(&p->sample_idx))
		return -ENOMEM;
	idx = htab_find(&p->sample_idx, h, pf_sample_eq, p, &key, &j);
	if (idx != HTAB_NONE)
		return idx;
	p->samples = sm_grow(p->samples, &p->samples_cap, p->nsamples + 1, sizeof(*p->samples));
	if (!p->samples)
		return -ENOMEM;
	p->samples[p->nsamples] = key;
	htab_insert_at(&p->sample_idx, j, h, (uint32_t)p->nsamples);
	return (long)p->nsamples++;
}

/* Off-CPU intervals ----------------------------------------------------------------------- */

static int pf_off_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct pf *)ctx)->off[idx].pid == *(const int32_t *)key;
}

static struct pf_off *pf_off_slot(struct pf *p, int32_t pid, int create)
{
	uint64_t h = pf_mix((uint32_t)pid);
	struct pf_off *n;
	uint32_t idx;
	size_t j;

	if (create && htab_reserve(&p->off_idx))
		return NULL;
	idx = htab_find(&p->off_idx, h, pf_off_eq, p, &pid, &j);
	if (idx != HTAB_NONE)
		return &p->off[idx];
	if (!create)
		return NULL;
	n = sm_grow(p->off, &p->off_cap, p->noff + 1, sizeof(*p->off));
	if (!n)
		return NULL; /* p->off and the index stay consistent */
	p->off = n;
	p->off[p->noff] = (struct pf_off){.pid = pid};
	htab_insert_at(&p->off_idx, j, h, (uint32_t)p->noff);
	return &p->off[p->noff++];
}

/*
 * A task switched back in keeps its entry, marked "closed" (sample = UINT32_MAX - 1): htab has
 * no deletion; a later switch-out of the same pid reuses it.
 */
#define PF_OFF_CLOSED (UINT32_MAX - 1)

static int pf_offcpu(struct pf *p, const struct ev_record *r, long sample)
{
	struct pf_off *o;

	if (r->ts_ns == EV_TS_NONE)
		return 0;
	o = pf_off_slot(p, r->sw.next_pid, 0);
	if (o && o->sample != PF_OFF_CLOSED) {
		if (o->sample == UINT32_MAX) {
			p->off_nostack++;
		} else if (r->ts_ns < o->ts_ns) {
			p->off_backwards++;
		} else {
			p->samples[o->sample].weight_ns += r->ts_ns - o->ts_ns;
			p->off_total_ns += r->ts_ns - o->ts_ns;
		}
		o->sample = PF_OFF_CLOSED;
	}
	if (r->sw.prev_pid == 0)
		return 0;
	o = pf_off_slot(p, r->sw.prev_pid, 1);
	if (!o)
		return -ENOMEM;
	o->sample = sample < 0 ? UINT32_MAX : (uint32_t)sample;
	o->ts_ns = r->ts_ns;
	return 0;
}

/* Records --------------------------------------------------------------------------------- */

int pf_init(struct pf *p, struct sm_frames *fr, const struct pf_opts *opts)
{
	memset(p, 0, sizeof(*p));
	p->opts = *opts;
	p->fr = fr;
	p->ts_min = EV_TS_NONE;
	tp_strtab_init(&p->strs);
	tp_strtab_init(&p->full);
	htab_init(&p->func_idx, 256);
	htab_init(&p->loc_idx, 256);
	htab_init(&p->stack_idx, 256);
	htab_init(&p->unknown_idx, 256);
	htab_init(&p->sample_idx, 256);
	htab_init(&p->off_idx, 1024);
	if (pf_intern(p, "", 0) != 0)
		return -ENOMEM;
	return 0;
}

void pf_free(struct pf *p)
{
	tp_strtab_free(&p->strs);
	tp_strtab_free(&p->full);
	free(p->funcs);
	htab_free(&p->func_idx);
	free(p->locs);
	htab_free(&p->loc_idx);
	free(p->frames);
	free(p->stacks);
	htab_free(&p->stack_idx);
	free(p->id_stack);
	free(p->full_stack);
	htab_free(&p->unknown_idx);
	free(p->unknown_ids);
	free(p->unknown_stack);
	free(p->samples);
	htab_free(&p->sample_idx);
	free(p->events);
	free(p->switches);
	free(p->off);
	htab_free(&p->off_idx);
	free(p->joinbuf);
	free(p->type_str);
	memset(p, 0, sizeof(*p));
}

/* The strs index of the record's event type, cached by the reader's dense type index. */
static long pf_type_str(struct pf *p, const struct ev_record *r)
{
	long s;

	if (r->type < p->type_str_cap && p->type_str[r->type])
		return p->type_str[r->type] - 1;
	s = pf_intern(p, r->type_name, strlen(r->type_name));
	if (s < 0)
		return s;
	if (r->type >= p->type_str_cap) {
		size_t old = p->type_str_cap;
		uint32_t *n =
			sm_grow(p->type_str, &p->type_str_cap, (size_t)r->type + 1, sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + old, 0, (p->type_str_cap - old) * sizeof(*n));
		p->type_str = n;
	}
	p->type_str[r->type] = (uint32_t)s + 1;
	return s;
}

/* The strs index of a task name, through a small cache keyed by pid (names rarely change). */
static long pf_comm_str(struct pf *p, int which, int32_t pid, const char *comm)
{
	struct pf_comm_cache *e = &p->comm_cache[which][(uint32_t)pid % 1024];
	long s;

	if (e->str && e->pid == pid && strcmp(pf_str(p, e->str - 1), comm) == 0)
		return e->str - 1;
	s = pf_intern(p, comm, strlen(comm));
	if (s < 0)
		return s;
	e->pid = pid;
	e->str = (uint32_t)s + 1;
	return s;
}

/* The strs index of a prev_state string (a handful of distinct ones), through a cache. */
static long pf_state_str(struct pf *p, const char *state)
{
	struct pf_state_cache *e;
	char key[EV_STATE_LEN] = {0};
	size_t len = strnlen(state, EV_STATE_LEN - 1);
	uint32_t h = 0;
	long s;

	memcpy(key, state, len);
	for (size_t i = 0; i < len; i++)
		h = h * 31 + (uint8_t)key[i];
	e = &p->state_cache[h % 16];
	if (e->str && !memcmp(e->s, key, sizeof(key)))
		return e->str - 1;
	s = pf_intern(p, key, len);
	if (s < 0)
		return s;
	memcpy(e->s, key, sizeof(key));
	e->str = (uint32_t)s + 1;
	return s;
}

int pf_add_record(void *arg, const struct ev_record *r)
{
	struct pf *p = arg;
	long st = -1, sample = -1, type, comm;

	if (r->flags & EV_F_LOST)
		return 0; /* a marker, no event of its own (the input layer counts it) */
	if (!(r->flags & EV_F_EXTRA) && !(r->flags & EV_F_UNATTRIBUTED) && !p->replay)
		p->nr_events++;
	if (r->ts_ns != EV_TS_NONE) {
		if (r->ts_ns < p->ts_min)
			p->ts_min = r->ts_ns;
		if (r->ts_ns > p->ts_max)
			p->ts_max = r->ts_ns;
	}
	if (r->stack.kind == EV_STACK_ID)
		st = pf_stack_id(p, &r->stack);
	else if (r->stack.kind == EV_STACK_FULL)
		st = pf_stack_full(p, &r->stack);
	if (r->stack.kind != EV_STACK_NONE) {
		if (st < 0)
			return (int)st;
		if (!p->replay)
			p->nr_refs++;
		if ((r->flags & EV_F_UNATTRIBUTED) && !p->replay)
			p->nr_unattributed++;
		type = pf_type_str(p, r);
		comm = pf_comm_str(p, 0, r->pid, r->comm);
		if (type < 0 || comm < 0)
			return -ENOMEM;
		sample = pf_sample(p, (uint32_t)st, (uint32_t)type, (uint32_t)comm, r->pid);
		if (sample < 0)
			return (int)sample;
		if (!p->replay)
			p->samples[sample].count++;
		if (p->opts.keep_events || p->sink) {
			struct pf_event e = {.ts_ns = r->ts_ns,
					     .pid = r->pid,
					     .tgid = r->tgid,
					     .cpu = r->cpu,
					     .sample = (uint32_t)sample};
			int ret;

			if (p->sink) {
				ret = p->sink(p->sink_arg, &e, NULL);
				if (ret)
					return ret;
			} else {
				p->events = sm_grow(p->events, &p->events_cap, p->nevents + 1,
						    sizeof(*p->events));
				if (!p->events)
					return -ENOMEM;
				p->events[p->nevents++] = e;
			}
		}
	}
	if (!(r->flags & EV_F_SWITCH) || (r->flags & EV_F_EXTRA))
		return 0;
	if (p->opts.keep_events || p->sink) {
		struct pf_switch *w, one;
		long pc = pf_comm_str(p, 1, r->sw.prev_pid, r->sw.prev_comm);
		long nc = pf_comm_str(p, 1, r->sw.next_pid, r->sw.next_comm);
		long ps = pf_state_str(p, r->sw.prev_state);

		if (pc < 0 || nc < 0 || ps < 0)
			return -ENOMEM;
		if (p->sink) {
			w = &one;
		} else {
			p->switches = sm_grow(p->switches, &p->switches_cap, p->nswitches + 1,
					      sizeof(*p->switches));
			if (!p->switches)
				return -ENOMEM;
			w = &p->switches[p->nswitches++];
		}
		*w = (struct pf_switch){.ts_ns = r->ts_ns,
					.cpu = r->cpu,
					.prev_pid = r->sw.prev_pid,
					.next_pid = r->sw.next_pid,
					.prev_prio = r->sw.prev_prio,
					.next_prio = r->sw.next_prio,
					.prev_comm = (uint32_t)pc,
					.next_comm = (uint32_t)nc,
					.prev_state = (uint32_t)ps};
		if (p->sink) {
			int ret = p->sink(p->sink_arg, NULL, w);

			if (ret)
				return ret;
		}
	}
	if (p->opts.offcpu && !p->replay)
		return pf_offcpu(p, r, sample);
	return 0;
}

void pf_finish(struct pf *p)
{
	size_t i;

	for (i = 0; i < p->noff; i++)
		if (p->off[i].sample != PF_OFF_CLOSED)
			p->off_open++;
}
