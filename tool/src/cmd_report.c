// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap report: the stack references of a recording (<stack_id N> entries and full-stack
 * fallbacks), attributed to their events by the input layer (input.h), as the most frequent
 * stacks per event type, as a per-function view (self and total, like perf report
 * --children), as folded lines or as JSON.
 */
#define _GNU_SOURCE
#include "input.h"
#include "stackmap.h"
#include "trace_parse.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#define REP_DEFAULT_TOP 5

/*
 * One (event type, stack) pair and how many references it got. A stack by id is its generation,
 * id and what it resolved to: one (gen, id) defined with two stacks (after 8192 map switches)
 * is two entries.
 */
struct rep_ent {
	uint32_t event; /* index in rep.types */
	uint32_t full; /* 0: val is a stack id of generation gen; 1: val indexes rep.full */
	uint32_t val, gen;
	const struct ev_idstack *s; /* by id: what it stands for, NULL when nothing resolves it */
	uint64_t count;
};

struct rep_type {
	uint64_t events, refs;
	size_t distinct;
};

struct rep_filter {
	const char *comm, *event;
	long pid, cpu; /* -1: any */
	uint64_t t0, t1; /* nanoseconds of the trace clock, t1 == 0: no end */
	int have_time;
};

struct rep {
	struct in_src *in;
	struct sm_frames *fr;
	struct rep_filter flt;
	struct tp_strtab types; /* event type names */
	uint32_t *tcache; /* the reader's type index -> our index + 1 (0: not looked up) */
	size_t tcache_n;
	struct rep_type *tv;
	size_t tv_cap;
	struct tp_strtab full; /* full stacks keyed by their frames joined with '\n' */
	struct rep_ent *ents; /* distinct (event, stack) pairs in first-seen order */
	size_t nents, cap;
	struct htab idx; /* over ents, hashed by rep_hash() */
	uint64_t events, refs, refs_id, refs_full; /* after the filters */
	char *joinbuf;
	size_t joincap;
};

/* The index + 1 of what a stack by id resolved to in the input's table, 0: nothing. */
static uint32_t rep_res(const struct ev_idstack *s)
{
	return s ? s->index + 1 : 0;
}

static uint64_t rep_hash(uint32_t ev, uint32_t full, uint32_t val, uint32_t gen, uint32_t res)
{
	uint64_t h = ((uint64_t)ev << 33 | (uint64_t)full << 32 | val) * 0x9E3779B97F4A7C15ull;

	h ^= ((uint64_t)res << 32 | gen) * 0xC2B2AE3D27D4EB4Full;
	return h ^ (h >> 31);
}

static int rep_ent_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct rep_ent *e = &((const struct rep *)ctx)->ents[idx], *k = key;

	return e->event == k->event && e->full == k->full && e->val == k->val && e->gen == k->gen &&
	       e->s == k->s;
}

/* One more reference of event type @ev to a full stack (@full: @val) or to id @val of @gen. */
static int rep_count(struct rep *r, uint32_t ev, uint32_t full, uint32_t val, uint32_t gen,
		     const struct ev_idstack *s)
{
	struct rep_ent key = {
		.event = ev, .full = full, .val = val, .gen = gen, .s = s, .count = 1};
	uint64_t h = rep_hash(ev, full, val, gen, rep_res(s));
	uint32_t idx;
	size_t j;
	int ret;

	ret = htab_reserve(&r->idx);
	if (ret)
		return ret;
	idx = htab_find(&r->idx, h, rep_ent_eq, r, &key, &j);
	if (idx != HTAB_NONE) {
		r->ents[idx].count++;
		return 0;
	}
	if (r->nents == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 512;
		struct rep_ent *n = realloc(r->ents, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->ents = n;
		r->cap = ncap;
	}
	r->ents[r->nents] = key;
	htab_insert_at(&r->idx, j, h, (uint32_t)r->nents++);
	r->tv[ev].distinct++;
	return 0;
}

static long rep_type(struct rep *r, const char *name)
{
	long t = tp_strtab_intern(&r->types, name, strlen(name));

	if (t < 0)
		return t;
	if ((size_t)t >= r->tv_cap) {
		size_t ncap = r->tv_cap ? r->tv_cap * 2 : 16;
		struct rep_type *n = realloc(r->tv, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + r->tv_cap, 0, (ncap - r->tv_cap) * sizeof(*n));
		r->tv = n;
		r->tv_cap = ncap;
	}
	return t;
}

static int rep_keep(const struct rep_filter *f, const struct ev_record *rec)
{
	if (f->comm && strcmp(f->comm, rec->comm))
		return 0;
	if (f->pid >= 0 && rec->pid != f->pid)
		return 0;
	if (f->cpu >= 0 && rec->cpu != f->cpu)
		return 0;
	if (f->event && strcmp(f->event, rec->type_name))
		return 0;
	if (f->have_time &&
	    (rec->ts_ns == EV_TS_NONE || rec->ts_ns < f->t0 || (f->t1 && rec->ts_ns > f->t1)))
		return 0;
	return 1;
}

/* A full stack's key: its frame texts (text input) or its addresses formatted (trace.dat). */
static long rep_full_key(struct rep *r, const struct ev_stack *s)
{
	size_t len = 0, n;
	uint32_t i;

	if (s->frames) {
		if (sm_join_frames(&r->joinbuf, &r->joincap, s->frames, s->nr, &len))
			return -ENOMEM;
		return tp_strtab_intern(&r->full, r->joinbuf, len);
	}
	for (i = 0; i < s->nr; i++) {
		const char *t = sm_frame(r->fr, s->addrs[i], SM_FRAME_FULL, NULL);

		n = strlen(t);
		if (len + n + 2 > r->joincap) {
			size_t ncap = (len + n + 2) * 2;
			char *b = realloc(r->joinbuf, ncap);

			if (!b)
				return -ENOMEM;
			r->joinbuf = b;
			r->joincap = ncap;
		}
		memcpy(r->joinbuf + len, t, n);
		len += n;
		r->joinbuf[len++] = '\n';
	}
	return tp_strtab_intern(&r->full, r->joinbuf ? r->joinbuf : "", len);
}

static int rep_on_record(void *arg, const struct ev_record *rec)
{
	struct rep *r = arg;
	long t, idx;

	if ((rec->flags & EV_F_LOST) || !rep_keep(&r->flt, rec))
		return 0;
	if (rec->type >= r->tcache_n) {
		size_t n = (size_t)rec->type + 64;
		uint32_t *c = realloc(r->tcache, n * sizeof(*c));

		if (!c)
			return -ENOMEM;
		memset(c + r->tcache_n, 0, (n - r->tcache_n) * sizeof(*c));
		r->tcache = c;
		r->tcache_n = n;
	}
	if (r->tcache[rec->type]) {
		t = (long)r->tcache[rec->type] - 1;
	} else {
		t = rep_type(r, rec->type_name);
		if (t < 0)
			return (int)t;
		r->tcache[rec->type] = (uint32_t)t + 1;
	}
	if (!(rec->flags & (EV_F_EXTRA | EV_F_UNATTRIBUTED))) {
		r->tv[t].events++;
		r->events++;
	}
	if (rec->stack.kind == EV_STACK_NONE)
		return 0;
	r->tv[t].refs++;
	r->refs++;
	if (rec->stack.kind == EV_STACK_ID) {
		r->refs_id++;
		return rep_count(r, (uint32_t)t, 0, rec->stack.id, rec->stack.gen, rec->stack.res);
	}
	r->refs_full++;
	idx = rep_full_key(r, &rec->stack);
	if (idx < 0)
		return (int)idx;
	return rep_count(r, (uint32_t)t, 1, (uint32_t)idx, 0, NULL);
}

/* Output order ----------------------------------------------------------------------------- */

enum rep_sort { REP_SORT_REFS, REP_SORT_EVENTS, REP_SORT_NAME };

static const struct rep *rep_sorting;
static enum rep_sort rep_sort_key;
static uint32_t *rep_rank; /* event index -> output position, for rep_ent_cmp */

static int rep_type_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct rep_type *tx = &rep_sorting->tv[x], *ty = &rep_sorting->tv[y];

	if (rep_sort_key == REP_SORT_REFS && tx->refs != ty->refs)
		return tx->refs > ty->refs ? -1 : 1;
	if (rep_sort_key == REP_SORT_EVENTS && tx->events != ty->events)
		return tx->events > ty->events ? -1 : 1;
	return strcmp(rep_sorting->types.strs[x], rep_sorting->types.strs[y]);
}

static int rep_ent_cmp(const void *a, const void *b)
{
	const struct rep_ent *x = a, *y = b;

	if (x->event != y->event)
		return rep_rank[x->event] < rep_rank[y->event] ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->full != y->full)
		return x->full < y->full ? -1 : 1;
	if (x->val != y->val)
		return x->val < y->val ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return rep_res(x->s) < rep_res(y->s) ? -1 : (rep_res(x->s) > rep_res(y->s));
}

/* The frames of an entry, leaf first (valid until the next rep_frames_of() on it). */
#define REP_MAX_FRAMES 4096
struct rep_frames {
	const char *v[REP_MAX_FRAMES];
	size_t len[REP_MAX_FRAMES];
	size_t n;
	const struct ev_idstack *s; /* by id: what it stands for, NULL when nothing resolves it */
	char text[SMBIN_MAX_DEPTH * 1024]; /* copies of the frame texts of a stack by id */
};

static void rep_frames_of(struct rep *r, const struct rep_ent *e, struct rep_frames *f,
			  enum sm_frame_style style)
{
	const char *nl;
	char *p;
	uint32_t j;

	f->n = 0;
	f->s = NULL;
	if (e->full) {
		for (p = r->full.strs[e->val];
		     *p && f->n < REP_MAX_FRAMES && (nl = strchr(p, '\n')); p = (char *)nl + 1) {
			f->v[f->n] = p;
			f->len[f->n++] = (size_t)(nl - p);
		}
		return;
	}
	f->s = e->s;
	/*
	 * copies: the frame cache may move its text when it grows; in @style: a text definition's
	 * frames as printed, or their function part (tp_frame_func()) for the folded style
	 */
	for (j = 0, p = f->text; f->s && j < f->s->nr; j++) {
		size_t room = sizeof(f->text) - (size_t)(p - f->text), n;
		const char *t;

		if (f->s->addrs) {
			t = sm_frame(r->fr, f->s->addrs[j], style, NULL);
			n = strlen(t);
			if (n + 1 >= room)
				break;
			memcpy(p, t, n + 1); /* with its NUL: rep_func() returns it as a string */
		} else if (style == SM_FRAME_FOLDED) {
			if (room < 2)
				break;
			n = tp_frame_func(f->s->frames[j], p, room);
		} else {
			n = strlen(f->s->frames[j]);
			if (n + 1 >= room)
				break;
			memcpy(p, f->s->frames[j], n + 1);
		}
		f->v[f->n] = p;
		f->len[f->n++] = n;
		p += n + 1;
	}
}

/* The function of frame @k (folded form: no offset). */
static const char *rep_func(struct rep *r, const struct rep_ent *e, const struct rep_frames *f,
			    size_t k, char *buf, size_t size)
{
	char tmp[1024];
	size_t n;

	if (!e->full)
		return f->v[k]; /* already SM_FRAME_FOLDED */
	n = f->len[k] < sizeof(tmp) ? f->len[k] : sizeof(tmp) - 1;
	memcpy(tmp, f->v[k], n);
	tmp[n] = '\0';
	(void)r;
	tp_frame_func(tmp, buf, size);
	return buf;
}

static void rep_folded_line(struct sm_out *o, struct rep *r, const char *evname,
			    const struct rep_ent *e)
{
	struct rep_frames *f = malloc(sizeof(*f));
	char buf[1024];
	size_t k;

	sm_out_str(o, evname);
	if (!f) {
		sm_out_str(o, ";[out of memory]");
	} else {
		rep_frames_of(r, e, f, SM_FRAME_FOLDED);
		if (!e->full && !f->s)
			sm_out_fmt(o, ";" SM_UNKNOWN_STACK, e->val);
		for (k = f->n; k > 0; k--) {
			sm_out_chr(o, ';');
			sm_out_str(o, rep_func(r, e, f, k - 1, buf, sizeof(buf)));
		}
	}
	sm_out_chr(o, ' ');
	sm_out_u64(o, e->count);
	sm_out_chr(o, '\n');
	free(f);
}

static double rep_pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static void rep_text_stack(struct sm_out *o, struct rep *r, const struct rep_ent *e,
			   struct rep_frames *f)
{
	size_t k;

	sm_out_fmt(o, "  %8llu %5.1f%%  ", (unsigned long long)e->count,
		   rep_pct(e->count, r->refs));
	rep_frames_of(r, e, f, SM_FRAME_FULL);
	if (e->full)
		sm_out_fmt(o, "full stack #%u (kernel fell back to a full stack, depth %zu)\n",
			   e->val + 1, f->n);
	else if (!f->s)
		sm_out_fmt(o, SM_UNKNOWN_STACK "\n", e->val);
	else if (f->s->from == EV_FROM_DEF)
		sm_out_fmt(o, "stack_id %u [gen %u, depth %u]\n", f->s->id, f->s->gen, f->s->nr);
	else
		sm_out_fmt(o, "stack_id %u [ref %u, depth %u]\n", f->s->id, f->s->ref_count,
			   f->s->nr);
	for (k = 0; k < f->n; k++) {
		sm_out_fmt(o, "        [%zu] ", k);
		sm_out_mem(o, f->v[k], f->len[k]);
		sm_out_chr(o, '\n');
	}
}

static json_object *rep_json_stack(struct rep *r, const struct rep_ent *e, struct rep_frames *f)
{
	json_object *o = json_object_new_object(), *fa = json_object_new_array();
	char tmp[1024];
	size_t k, n;

	rep_frames_of(r, e, f, SM_FRAME_FULL);
	json_object_object_add(o, "count", json_object_new_int64((int64_t)e->count));
	json_object_object_add(
		o, "percent",
		json_object_new_double((double)(int64_t)(rep_pct(e->count, r->refs) * 100 + 0.5) /
				       100));
	if (e->full) {
		json_object_object_add(o, "stack_id", NULL);
		json_object_object_add(o, "full_stack", json_object_new_boolean(1));
	} else {
		json_object_object_add(o, "stack_id", json_object_new_int64(e->val));
		json_object_object_add(o, "full_stack", json_object_new_boolean(0));
		json_object_object_add(o, "in_map",
				       json_object_new_boolean(f->s && f->s->from == EV_FROM_MAP));
		if (r->in->stk.ndefs) {
			/* where the frames came from, in a recording with definitions */
			json_object_object_add(o, "generation", json_object_new_int64(e->gen));
			json_object_object_add(o, "from",
					       !f->s ? NULL
					       : f->s->from == EV_FROM_DEF
						       ? json_object_new_string("definition")
						       : json_object_new_string("stack_map_bin"));
		}
	}
	for (k = 0; k < f->n; k++) {
		n = f->len[k] < sizeof(tmp) ? f->len[k] : sizeof(tmp) - 1;
		memcpy(tmp, f->v[k], n);
		tmp[n] = '\0';
		json_object_array_add(fa, json_object_new_string(tmp));
	}
	json_object_object_add(o, "frames", fa);
	return o;
}

/* Per-function view ------------------------------------------------------------------------ */

struct rep_fn {
	uint32_t name; /* index in rep_fns.names */
	uint64_t self, total;
	uint64_t seen; /* last entry index + 1 that counted total (a function twice in a stack) */
};

struct rep_fns {
	struct tp_strtab names;
	struct rep_fn *v;
	size_t n, cap;
};

static int rep_fn_add(struct rep_fns *fs, const char *name, uint64_t count, int leaf, uint64_t ent)
{
	long i = tp_strtab_intern(&fs->names, name, strlen(name));

	if (i < 0)
		return (int)i;
	while ((size_t)i >= fs->n) {
		if (fs->n == fs->cap) {
			size_t ncap = fs->cap ? fs->cap * 2 : 256;
			struct rep_fn *n = realloc(fs->v, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			fs->v = n;
			fs->cap = ncap;
		}
		memset(&fs->v[fs->n], 0, sizeof(fs->v[0]));
		fs->v[fs->n].name = (uint32_t)fs->n;
		fs->n++;
	}
	if (leaf)
		fs->v[i].self += count;
	if (fs->v[i].seen != ent + 1) {
		fs->v[i].total += count;
		fs->v[i].seen = ent + 1;
	}
	return 0;
}

static int rep_fn_cmp(const void *a, const void *b)
{
	const struct rep_fn *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return x->name < y->name ? -1 : (x->name > y->name);
}

static int rep_functions(struct rep *r, struct rep_fns *fs)
{
	struct rep_frames *f = malloc(sizeof(*f));
	char buf[1024], unk[64];
	size_t i, k;
	int ret = 0;

	if (!f)
		return -ENOMEM;
	tp_strtab_init(&fs->names);
	for (i = 0; i < r->nents && !ret; i++) {
		const struct rep_ent *e = &r->ents[i];

		rep_frames_of(r, e, f, SM_FRAME_FOLDED);
		if (!e->full && !f->s) {
			snprintf(unk, sizeof(unk), SM_UNKNOWN_STACK, e->val);
			ret = rep_fn_add(fs, unk, e->count, 1, i);
			continue;
		}
		for (k = 0; k < f->n && !ret; k++)
			ret = rep_fn_add(fs, rep_func(r, e, f, k, buf, sizeof(buf)), e->count,
					 k == 0, i);
	}
	free(f);
	if (!ret)
		qsort(fs->v, fs->n, sizeof(*fs->v), rep_fn_cmp);
	return ret;
}

/* Printing --------------------------------------------------------------------------------- */

struct rep_out {
	int folded, json, functions;
	unsigned long top;
	int have_top;
	double percent_limit;
	enum rep_sort sort;
};

static void rep_header(struct sm_out *o, const struct rep *r)
{
	const struct in_stats *st = &r->in->st;
	double span = st->ts_first != EV_TS_NONE && st->ts_last > st->ts_first
			      ? (double)(st->ts_last - st->ts_first) / 1e9
			      : 0.0;

	if (r->in->buffer)
		sm_out_fmt(o, "# buffer: %s\n", r->in->buffer);
	sm_out_fmt(o, "# %llu events on %d CPUs over %.6f s", (unsigned long long)r->events,
		   st->ncpus, span);
	if (st->lost_markers && st->lost_events)
		sm_out_fmt(o, ", %llu or more lost at %llu places",
			   (unsigned long long)st->lost_events,
			   (unsigned long long)st->lost_markers);
	else if (st->lost_markers)
		sm_out_fmt(o, ", events lost at %llu places (count unknown)",
			   (unsigned long long)st->lost_markers);
	sm_out_str(o, "\n");
	sm_out_fmt(o,
		   "# %llu stack references (%llu by id, %llu full stacks), %zu distinct stacks; "
		   "map: ",
		   (unsigned long long)r->refs, (unsigned long long)r->refs_id,
		   (unsigned long long)r->refs_full, r->nents);
	if (!r->in->have_map)
		sm_out_str(o, "none");
	else if (r->in->map_capacity)
		sm_out_fmt(o, "%zu stacks, %.1f%% of %llu", r->in->map.nr,
			   rep_pct(r->in->map_entries, r->in->map_capacity),
			   (unsigned long long)r->in->map_capacity);
	else
		sm_out_fmt(o, "%zu stacks", r->in->map.nr);
	sm_out_str(o, "\n");
	if (r->in->stk.ndefs)
		sm_out_fmt(
			o,
			"# stacks: %zu ids resolved from definitions, %zu from stack_map_bin, %zu "
			"unresolved\n",
			st->ids_def, st->ids_map, st->ids_missing);
}

static int rep_print(struct rep *r, const struct rep_out *ro)
{
	size_t nev = r->types.n, i, k;
	uint32_t *order = NULL;
	struct rep_ent *ents = NULL;
	struct rep_frames *f = NULL;
	struct rep_fns fs = {0};
	json_object *root = NULL, *jev = NULL;
	struct sm_out out;
	int ret = -ENOMEM;

	if (sm_out_init(&out, stdout))
		return -ENOMEM;
	order = calloc(nev + 1, sizeof(*order));
	rep_rank = calloc(nev + 1, sizeof(*rep_rank));
	ents = calloc(r->nents + 1, sizeof(*ents));
	f = malloc(sizeof(*f));
	if (!order || !rep_rank || !ents || !f)
		goto out;
	for (i = 0; i < nev; i++)
		order[i] = (uint32_t)i;
	rep_sorting = r;
	rep_sort_key = ro->sort;
	qsort(order, nev, sizeof(*order), rep_type_cmp);
	for (i = 0; i < nev; i++)
		rep_rank[order[i]] = (uint32_t)i;
	memcpy(ents, r->ents, r->nents * sizeof(*ents));
	qsort(ents, r->nents, sizeof(*ents), rep_ent_cmp);

	if (ro->json) {
		const struct in_stats *st = &r->in->st;

		root = json_object_new_object();
		json_object_object_add(root, "input", json_object_new_string(r->in->path));
		if (r->in->buffer)
			json_object_object_add(root, "buffer",
					       json_object_new_string(r->in->buffer));
		json_object_object_add(root, "events", json_object_new_int64((int64_t)r->events));
		json_object_object_add(root, "cpus", json_object_new_int(st->ncpus));
		json_object_object_add(root, "lost_events",
				       json_object_new_int64((int64_t)st->lost_events));
		json_object_object_add(root, "stack_references",
				       json_object_new_int64((int64_t)r->refs));
		json_object_object_add(root, "by_id", json_object_new_int64((int64_t)r->refs_id));
		json_object_object_add(root, "full_stacks",
				       json_object_new_int64((int64_t)r->refs_full));
		json_object_object_add(root, "distinct_stacks",
				       json_object_new_int64((int64_t)r->nents));
		json_object_object_add(
			root, "map_stacks",
			r->in->have_map ? json_object_new_int64((int64_t)r->in->map.nr) : NULL);
		if (r->in->stk.ndefs) {
			json_object *src = json_object_new_object();

			json_object_object_add(src, "definitions",
					       json_object_new_int64((int64_t)st->ids_def));
			json_object_object_add(src, "stack_map_bin",
					       json_object_new_int64((int64_t)st->ids_map));
			json_object_object_add(src, "unresolved",
					       json_object_new_int64((int64_t)st->ids_missing));
			json_object_object_add(root, "stack_ids", src);
		}
		jev = json_object_new_array();
		json_object_object_add(root, "event_types", jev);
	} else if (!ro->folded) {
		rep_header(&out, r);
	}
	if (ro->functions) {
		ret = rep_functions(r, &fs);
		if (ret)
			goto out;
		if (ro->json) {
			json_object *ja = json_object_new_array();

			for (i = 0; i < fs.n; i++) {
				json_object *o;

				if (ro->have_top && i >= ro->top)
					break;
				if (rep_pct(fs.v[i].total, r->refs) < ro->percent_limit)
					break;
				o = json_object_new_object();
				json_object_object_add(
					o, "function",
					json_object_new_string(fs.names.strs[fs.v[i].name]));
				json_object_object_add(
					o, "total", json_object_new_int64((int64_t)fs.v[i].total));
				json_object_object_add(
					o, "self", json_object_new_int64((int64_t)fs.v[i].self));
				json_object_array_add(ja, o);
			}
			json_object_object_add(root, "functions", ja);
		} else {
			sm_out_str(&out, "\n#    total     self    total%  self%  function\n");
			for (i = 0; i < fs.n; i++) {
				if (ro->have_top && i >= ro->top)
					break;
				if (rep_pct(fs.v[i].total, r->refs) < ro->percent_limit)
					break;
				sm_out_fmt(&out, "  %8llu %8llu  %6.2f%% %6.2f%%  %s\n",
					   (unsigned long long)fs.v[i].total,
					   (unsigned long long)fs.v[i].self,
					   rep_pct(fs.v[i].total, r->refs),
					   rep_pct(fs.v[i].self, r->refs),
					   fs.names.strs[fs.v[i].name]);
			}
		}
		goto done;
	}
	k = 0;
	for (i = 0; i < nev; i++) {
		uint32_t t = order[i];
		const char *name = r->types.strs[t];
		size_t shown, distinct = 0, first = k;
		unsigned long limit =
			ro->have_top ? ro->top : (ro->folded ? (unsigned long)-1 : REP_DEFAULT_TOP);
		json_object *jt = NULL, *js = NULL;

		while (k < r->nents && ents[k].event == t) {
			distinct++;
			k++;
		}
		if (!r->tv[t].events && !r->tv[t].refs)
			continue;
		if (ro->json) {
			jt = json_object_new_object();
			js = json_object_new_array();
			json_object_object_add(jt, "event", json_object_new_string(name));
			json_object_object_add(jt, "events",
					       json_object_new_int64((int64_t)r->tv[t].events));
			json_object_object_add(jt, "stacks",
					       json_object_new_int64((int64_t)r->tv[t].refs));
			json_object_object_add(jt, "distinct",
					       json_object_new_int64((int64_t)distinct));
			json_object_object_add(jt, "top", js);
			json_object_array_add(jev, jt);
		} else if (!ro->folded) {
			sm_out_fmt(&out, "\n%s: %llu events, %llu stacks (%.1f%%), %zu distinct\n",
				   name, (unsigned long long)r->tv[t].events,
				   (unsigned long long)r->tv[t].refs,
				   rep_pct(r->tv[t].refs, r->refs), distinct);
		}
		for (shown = 0; shown < distinct && shown < limit; shown++) {
			const struct rep_ent *e = &ents[first + shown];

			if (rep_pct(e->count, r->refs) < ro->percent_limit)
				break;
			if (ro->json)
				json_object_array_add(js, rep_json_stack(r, e, f));
			else if (ro->folded)
				rep_folded_line(&out, r, name, e);
			else
				rep_text_stack(&out, r, e, f);
		}
		if (!ro->folded && !ro->json && shown < distinct)
			sm_out_fmt(&out,
				   "  ... %zu more distinct stacks (see --top, --percent-limit)\n",
				   distinct - shown);
	}
done:
	if (ro->json) {
		sm_out_str(&out, json_object_to_json_string_ext(
					 root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
		sm_out_chr(&out, '\n');
	}
	ret = sm_out_done(&out);
	out.buf = NULL;
out:
	if (out.buf)
		sm_out_done(&out);
	if (root)
		json_object_put(root);
	if (fs.v || fs.names.n) {
		free(fs.v);
		tp_strtab_free(&fs.names);
	}
	free(order);
	free(rep_rank);
	rep_rank = NULL;
	free(ents);
	free(f);
	return ret;
}

/* Options ---------------------------------------------------------------------------------- */

/* "SECONDS[.FRACTION]" to nanoseconds; -EINVAL when it is not a number. */
static int rep_parse_secs(const char *s, size_t len, uint64_t *ns)
{
	char buf[64], *end;
	double v;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || v < 0 || v > 1.8e10)
		return -EINVAL;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

/* --time START,END (either may be empty): trace timestamps in seconds, as report prints them */
static int rep_parse_time(const char *s, struct rep_filter *f)
{
	const char *comma = strchr(s, ',');
	size_t a = comma ? (size_t)(comma - s) : strlen(s);

	f->t0 = 0;
	f->t1 = 0;
	if (a && rep_parse_secs(s, a, &f->t0))
		return -EINVAL;
	if (comma && comma[1] && rep_parse_secs(comma + 1, strlen(comma + 1), &f->t1))
		return -EINVAL;
	if (!comma && !a)
		return -EINVAL;
	if (f->t1 && f->t1 < f->t0)
		return -EINVAL;
	f->have_time = 1;
	return 0;
}

enum {
	REP_OPT_TRACE = 0x200,
	REP_OPT_MAP,
	REP_OPT_TOP,
	REP_OPT_FOLDED,
	REP_OPT_JSON,
	REP_OPT_SORT,
	REP_OPT_COMM,
	REP_OPT_PID,
	REP_OPT_CPU,
	REP_OPT_EVENT,
	REP_OPT_TIME,
	REP_OPT_PCT,
	REP_OPT_FUNCS,
	REP_OPT_BUFFER,
};

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"trace", required_argument, NULL, REP_OPT_TRACE},
		{"input", required_argument, NULL, 'i'},
		{"map", required_argument, NULL, REP_OPT_MAP},
		{"buffer", required_argument, NULL, REP_OPT_BUFFER},
		{"top", required_argument, NULL, REP_OPT_TOP},
		{"folded", no_argument, NULL, REP_OPT_FOLDED},
		{"json", no_argument, NULL, REP_OPT_JSON},
		{"sort", required_argument, NULL, REP_OPT_SORT},
		{"comm", required_argument, NULL, REP_OPT_COMM},
		{"pid", required_argument, NULL, REP_OPT_PID},
		{"cpu", required_argument, NULL, REP_OPT_CPU},
		{"event", required_argument, NULL, REP_OPT_EVENT},
		{"time", required_argument, NULL, REP_OPT_TIME},
		{"percent-limit", required_argument, NULL, REP_OPT_PCT},
		{"functions", no_argument, NULL, REP_OPT_FUNCS},
		{"help", no_argument, NULL, 'h'},
		SM_SYM_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct rep_out ro = {.top = REP_DEFAULT_TOP, .sort = REP_SORT_REFS};
	const char *input = NULL, *map_opt = NULL, *buffer = NULL;
	struct rep r = {.flt = {.pid = -1, .cpu = -1}};
	unsigned long v;
	struct sm_frames fr;
	struct in_src in;
	char *end;
	int ret, c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hi:", longopts, NULL)) != -1) {
		if (sm_sym_option(c, optarg))
			continue;
		switch (c) {
		case REP_OPT_TRACE:
		case 'i':
			if (input) {
				sm_err("report: one input only (got '%s' and '%s')", input, optarg);
				return SM_EXIT_USAGE;
			}
			input = optarg;
			break;
		case REP_OPT_MAP:
			map_opt = optarg;
			break;
		case REP_OPT_BUFFER:
			buffer = optarg;
			break;
		case REP_OPT_TOP:
			if (sm_parse_uint(optarg, &ro.top)) {
				sm_err("report: --top needs a number, got '%s'", optarg);
				return SM_EXIT_USAGE;
			}
			ro.have_top = 1;
			break;
		case REP_OPT_FOLDED:
			ro.folded = 1;
			break;
		case REP_OPT_JSON:
			ro.json = 1;
			break;
		case REP_OPT_FUNCS:
			ro.functions = 1;
			break;
		case REP_OPT_SORT:
			if (!strcmp(optarg, "stacks"))
				ro.sort = REP_SORT_REFS;
			else if (!strcmp(optarg, "events"))
				ro.sort = REP_SORT_EVENTS;
			else if (!strcmp(optarg, "name"))
				ro.sort = REP_SORT_NAME;
			else {
				sm_err("report: --sort takes stacks, events or name, got '%s'",
				       optarg);
				return SM_EXIT_USAGE;
			}
			break;
		case REP_OPT_COMM:
			r.flt.comm = optarg;
			break;
		case REP_OPT_EVENT:
			r.flt.event = optarg;
			break;
		case REP_OPT_PID:
		case REP_OPT_CPU:
			if (sm_parse_uint(optarg, &v) || v > INT32_MAX) {
				sm_err("report: --%s needs a number, got '%s'",
				       c == REP_OPT_PID ? "pid" : "cpu", optarg);
				return SM_EXIT_USAGE;
			}
			if (c == REP_OPT_PID)
				r.flt.pid = (long)v;
			else
				r.flt.cpu = (long)v;
			break;
		case REP_OPT_TIME:
			if (rep_parse_time(optarg, &r.flt)) {
				sm_err("report: --time takes START,END in seconds (either may be "
				       "empty), got '%s'",
				       optarg);
				return SM_EXIT_USAGE;
			}
			break;
		case REP_OPT_PCT:
			errno = 0;
			ro.percent_limit = strtod(optarg, &end);
			if (errno || *end || end == optarg || ro.percent_limit < 0 ||
			    ro.percent_limit > 100) {
				sm_err("report: --percent-limit takes a percentage (0 to 100), got "
				       "'%s'",
				       optarg);
				return SM_EXIT_USAGE;
			}
			break;
		case 'h':
			sm_cmd_usage(stdout, "report");
			return SM_EXIT_OK;
		default:
			sm_err("report: unknown or incomplete option '%s'", argv[optind - 1]);
			return SM_EXIT_USAGE;
		}
	}
	if (optind < argc && !input)
		input = argv[optind++];
	if (optind < argc) {
		sm_err("report: unexpected argument '%s' (one input only)", argv[optind]);
		return SM_EXIT_USAGE;
	}
	if (ro.folded + ro.json > 1) {
		sm_err("report: --folded and --json are two outputs; choose one");
		return SM_EXIT_USAGE;
	}
	if (ro.folded && ro.functions) {
		sm_err("report: --functions has no folded form (use --folded alone)");
		return SM_EXIT_USAGE;
	}
	ret = in_open(&in, "report", input, map_opt, buffer, 0);
	if (ret)
		goto out_in;
	sm_frames_init(&fr, in.have_syms ? &in.syms : NULL, sm_opts.lines);
	r.in = &in;
	r.fr = &fr;
	tp_strtab_init(&r.types);
	tp_strtab_init(&r.full);
	htab_init(&r.idx, 1024);
	in.no_task_fields = !r.flt.comm; /* (report shows no task names) */
	ret = in_feed(&in, rep_on_record, &r);
	if (!ret) {
		ret = rep_print(&r, &ro);
		if (ret) {
			sm_err("report: %s", strerror(-ret));
			ret = SM_EXIT_USAGE;
		} else {
			in_notes(&in);
		}
	}
	free(r.ents);
	free(r.tv);
	free(r.tcache);
	htab_free(&r.idx);
	free(r.joinbuf);
	tp_strtab_free(&r.full);
	tp_strtab_free(&r.types);
	sm_frames_free(&fr);
out_in:
	in_close(&in);
	return ret;
}
