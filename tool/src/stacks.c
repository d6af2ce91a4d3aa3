// SPDX-License-Identifier: GPL-2.0
/*
 * The table of what a recording's stack ids stand for: its definitions and its map. See
 * stacks.h for the rules.
 */
#include "stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stackmap.h"

void stk_init(struct stk_set *s)
{
	memset(s, 0, sizeof(*s));
	htab_init(&s->idx, 64);
}

void stk_free(struct stk_set *s)
{
	free(s->defs);
	free(s->def_ts);
	free(s->def_sw);
	free(s->def_first);
	free(s->def_next);
	htab_free(&s->idx);
	free(s->occ);
	free(s->span);
	free(s->swt);
	free(s->addrs);
	free(s->text);
	free(s->toffs);
	free(s->tptrs);
	free(s->gens);
	free(s->mstk);
	memset(s, 0, sizeof(*s));
}

struct stk_key {
	uint32_t gen, sw, id;
};

static int stk_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct stk_set *s = ctx;
	const struct ev_idstack *d = &s->defs[idx];
	const struct stk_key *k = key;

	return d->id == k->id && d->gen == k->gen && s->def_sw[idx] == k->sw;
}

static uint64_t stk_hash(const struct stk_key *k)
{
	return htab_hash_gen_id(k->gen ^ k->sw * 0x85EBCA6Bu, k->id);
}

/* The id's switch count modulo 8192 (its bits 18 and up). */
static uint32_t stk_id_sw(uint32_t id)
{
	return (id >> SMBIN_SWITCH_SHIFT) & SMBIN_SWITCH_MASK;
}

/* Whether definition @i holds the frames of @d (before stk_finish(): from the offsets). */
static int stk_same(const struct stk_set *s, size_t i, const struct stk_def *d)
{
	size_t first = s->def_first[i], k;

	if (s->defs[i].nr != d->nr)
		return 0;
	if (d->addrs)
		return !memcmp(s->addrs + first, d->addrs, d->nr * sizeof(*d->addrs));
	for (k = 0; k < d->nr; k++) {
		const char *t = s->text + s->toffs[first + k];

		if (strlen(t) != d->lens[k] || memcmp(t, d->texts[k], d->lens[k]))
			return 0;
	}
	return 1;
}

/* Append the frames of @d; *@first gets the index of the first one. */
static int stk_store(struct stk_set *s, const struct stk_def *d, size_t *first)
{
	size_t k, need, *o;
	uint64_t *a;
	char *t;

	if (d->addrs) {
		a = sm_grow(s->addrs, &s->addrs_cap, s->naddrs + d->nr, sizeof(*a));
		if (!a)
			return -ENOMEM;
		s->addrs = a;
		memcpy(s->addrs + s->naddrs, d->addrs, d->nr * sizeof(*d->addrs));
		*first = s->naddrs;
		s->naddrs += d->nr;
		return 0;
	}
	for (need = 0, k = 0; k < d->nr; k++)
		need += d->lens[k] + 1;
	t = sm_grow(s->text, &s->tcap, s->tlen + need, 1);
	if (!t)
		return -ENOMEM;
	s->text = t;
	o = sm_grow(s->toffs, &s->toffs_cap, s->ntoffs + d->nr, sizeof(*o));
	if (!o)
		return -ENOMEM;
	s->toffs = o;
	*first = s->ntoffs;
	for (k = 0; k < d->nr; k++) {
		s->toffs[s->ntoffs++] = s->tlen;
		memcpy(s->text + s->tlen, d->texts[k], d->lens[k]);
		s->tlen += d->lens[k];
		s->text[s->tlen++] = '\0';
	}
	return 0;
}

/* Append definition @d, of key switch count @sw, as entry *@i of defs (not yet in the index). */
static int stk_new_def(struct stk_set *s, const struct stk_def *d, uint32_t sw, uint32_t *i)
{
	size_t first, cap;
	int ret;

	if (s->ndefs == s->defs_cap) {
		/* five arrays of one capacity: each grows from the old one */
		void *n;

		if (s->ndefs >= HTAB_NONE)
			return -E2BIG;
		cap = s->defs_cap;
		if (!(n = sm_grow(s->defs, &cap, s->ndefs + 1, sizeof(*s->defs))))
			return -ENOMEM;
		s->defs = n;
		cap = s->defs_cap;
		if (!(n = sm_grow(s->def_ts, &cap, s->ndefs + 1, sizeof(*s->def_ts))))
			return -ENOMEM;
		s->def_ts = n;
		cap = s->defs_cap;
		if (!(n = sm_grow(s->def_sw, &cap, s->ndefs + 1, sizeof(*s->def_sw))))
			return -ENOMEM;
		s->def_sw = n;
		cap = s->defs_cap;
		if (!(n = sm_grow(s->def_first, &cap, s->ndefs + 1, sizeof(*s->def_first))))
			return -ENOMEM;
		s->def_first = n;
		cap = s->defs_cap;
		if (!(n = sm_grow(s->def_next, &cap, s->ndefs + 1, sizeof(*s->def_next))))
			return -ENOMEM;
		s->def_next = n;
		s->defs_cap = cap;
	}
	ret = stk_store(s, d, &first);
	if (ret)
		return ret;
	*i = (uint32_t)s->ndefs++;
	s->defs[*i] = (struct ev_idstack){
		.id = d->id, .gen = d->gen, .nr = d->nr, .index = *i, .from = EV_FROM_DEF};
	s->def_ts[*i] = d->ts_ns;
	s->def_sw[*i] = sw;
	s->def_first[*i] = first;
	s->def_next[*i] = HTAB_NONE;
	if (d->addrs)
		s->addr_defs++;
	return 0;
}

int stk_add_def(struct stk_set *s, const struct stk_def *d)
{
	struct stk_key key = {
		.gen = d->gen, .sw = d->sw_known ? d->sw : stk_id_sw(d->id), .id = d->id};
	uint64_t h = stk_hash(&key);
	struct stk_occ *o;
	uint32_t head, i;
	size_t pos;
	int ret;

	if (s->finished || !d->nr || d->nr > SMBIN_MAX_DEPTH ||
	    (s->ndefs && !!d->addrs != !!s->addr_defs) || (d->sw_known ? s->nosw_defs : s->sw_defs))
		return -EINVAL; /* (one recording has text or addresses, never both; and so for sw) */
	if (d->sw_known && stk_id_sw(d->id) != (d->sw & SMBIN_SWITCH_MASK))
		return -EINVAL; /* (an id carries its switch count's low bits) */
	if (s->nocc >= UINT32_MAX)
		return -E2BIG; /* (a timeline's place in occ is 32 bits) */
	o = sm_grow(s->occ, &s->occ_cap, s->nocc + 1, sizeof(*s->occ));
	if (!o)
		return -ENOMEM;
	s->occ = o;
	ret = htab_reserve(&s->idx);
	if (ret)
		return ret;
	head = htab_find(&s->idx, h, stk_eq, s, &key, &pos);
	if (head == HTAB_NONE) {
		ret = stk_new_def(s, d, key.sw, &i);
		if (ret)
			return ret;
		htab_insert_at(&s->idx, pos, h, i);
		head = i;
	} else {
		/* the same stack again (writing 1 to stack_map_defs), or another one */
		for (i = head; i != HTAB_NONE && !stk_same(s, i, d); i = s->def_next[i])
			;
		if (i == HTAB_NONE) {
			ret = stk_new_def(s, d, key.sw, &i);
			if (ret)
				return ret;
			s->def_next[i] = s->def_next[head];
			s->def_next[head] = i;
			s->dup_differ++;
		} else if (d->ts_ns < s->def_ts[i]) {
			s->def_ts[i] = d->ts_ns;
		}
	}
	s->occ[s->nocc++] = (struct stk_occ){.ts_ns = d->ts_ns, .head = head, .def = i};
	if (d->sw_known)
		s->sw_defs++;
	else
		s->nosw_defs++;
	return 0;
}

static int stk_gen_cmp_num(const void *a, const void *b)
{
	const struct stk_gen *x = a, *y = b;

	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return x->first_ts < y->first_ts ? -1 : (x->first_ts > y->first_ts);
}

static int stk_gen_cmp_ts(const void *a, const void *b)
{
	const struct stk_gen *x = a, *y = b;

	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return x->gen < y->gen ? -1 : (x->gen > y->gen);
}

/* The generations and the first timestamp of each, ordered by it. */
static int stk_gens(struct stk_set *s)
{
	size_t i, n = 0;

	if (!s->ndefs)
		return 0;
	s->gens = calloc(s->ndefs, sizeof(*s->gens));
	if (!s->gens)
		return -ENOMEM;
	for (i = 0; i < s->ndefs; i++)
		s->gens[i] = (struct stk_gen){.first_ts = s->def_ts[i], .gen = s->defs[i].gen};
	qsort(s->gens, s->ndefs, sizeof(*s->gens), stk_gen_cmp_num);
	for (i = 0; i < s->ndefs; i++)
		if (!n || s->gens[n - 1].gen != s->gens[i].gen)
			s->gens[n++] =
				s->gens[i]; /* the first of each number has its earliest ts */
	s->ngens = n;
	qsort(s->gens, n, sizeof(*s->gens), stk_gen_cmp_ts);
	return 0;
}

static int stk_swt_cmp(const void *a, const void *b)
{
	const struct stk_swt *x = a, *y = b;

	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return x->ts_ns < y->ts_ns ? -1 : (x->ts_ns > y->ts_ns);
}

/*
 * Every definition read as (gen, ts, sw), ordered by (gen, ts), each sw then raised to the
 * highest of its generation so far: what stk_switch_at() searches. Before stk_timelines().
 */
static int stk_switches(struct stk_set *s)
{
	size_t i;

	if (!s->sw_defs)
		return 0;
	s->swt = calloc(s->nocc, sizeof(*s->swt));
	if (!s->swt)
		return -ENOMEM;
	for (i = 0; i < s->nocc; i++) {
		uint32_t def = s->occ[i].def;

		s->swt[i] = (struct stk_swt){
			.ts_ns = s->occ[i].ts_ns, .gen = s->defs[def].gen, .sw = s->def_sw[def]};
	}
	s->nswt = s->nocc;
	qsort(s->swt, s->nswt, sizeof(*s->swt), stk_swt_cmp);
	for (i = 1; i < s->nswt; i++)
		if (s->swt[i].gen == s->swt[i - 1].gen && s->swt[i].sw < s->swt[i - 1].sw)
			s->swt[i].sw = s->swt[i - 1].sw;
	return 0;
}

static int stk_occ_cmp(const void *a, const void *b)
{
	const struct stk_occ *x = a, *y = b;

	if (x->head != y->head)
		return x->head < y->head ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->def < y->def ? -1 : (x->def > y->def);
}

/*
 * Each (gen, id)'s timeline: its definitions ordered by timestamp (ties by entry), in place in
 * occ, keeping only the first of each run of one stack; span[head] says where it is.
 */
static int stk_timelines(struct stk_set *s)
{
	size_t i, n = 0;

	if (!s->ndefs)
		return 0;
	s->span = calloc(s->ndefs, sizeof(*s->span));
	if (!s->span)
		return -ENOMEM;
	qsort(s->occ, s->nocc, sizeof(*s->occ), stk_occ_cmp);
	for (i = 0; i < s->nocc; i++) {
		struct stk_span *sp = &s->span[s->occ[i].head];

		if (!sp->n)
			sp->first = (uint32_t)n;
		else if (s->occ[n - 1].def == s->occ[i].def)
			continue;
		sp->n++;
		s->occ[n++] = s->occ[i];
	}
	s->nocc = n;
	return 0;
}

/*
 * The full switch count of the map's record of @id (map_sw_known): the map in use's, or the
 * retired map's, one less.
 */
static uint32_t stk_map_sw(const struct stk_set *s, uint32_t id)
{
	uint32_t sw = s->map->switches;

	return stk_id_sw(id) == (sw & SMBIN_SWITCH_MASK) ? sw : sw - 1;
}

/* The definition of the key whose first definition is @head for a reference at @ts_ns. */
static const struct ev_idstack *stk_def_at(const struct stk_set *s, uint32_t head, uint64_t ts_ns)
{
	const struct stk_span *sp = &s->span[head];
	size_t lo = sp->first, hi = (size_t)sp->first + sp->n;

	if (sp->n <= 1)
		return &s->defs[head];
	/* the last definition not after ts_ns; else the first */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->occ[mid].ts_ns <= ts_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &s->defs[s->occ[lo > sp->first ? lo - 1 : sp->first].def];
}

int stk_finish(struct stk_set *s, const struct smbin_map *map, int map_gen_known, uint32_t map_gen)
{
	const struct smbin_stack *m;
	size_t i, total;
	int ret;

	if (s->finished)
		return 0;
	if (s->ntoffs) {
		s->tptrs = calloc(s->ntoffs, sizeof(*s->tptrs));
		if (!s->tptrs)
			return -ENOMEM;
		for (i = 0; i < s->ntoffs; i++)
			s->tptrs[i] = s->text + s->toffs[i];
	}
	for (i = 0; i < s->ndefs; i++) {
		if (s->addr_defs)
			s->defs[i].addrs = s->addrs + s->def_first[i];
		else
			s->defs[i].frames = s->tptrs + s->def_first[i];
	}
	ret = stk_gens(s);
	if (!ret)
		ret = stk_switches(s);
	if (!ret)
		ret = stk_timelines(s);
	if (ret)
		return ret;
	s->map = map && map->nr ? map : NULL;
	s->map_gen = map_gen_known ? map_gen : s->ngens ? s->gens[s->ngens - 1].gen : 0;
	s->map_sw_known = s->map && map->version == SMBIN_VERSION && s->sw_defs;
	for (i = 0; i < s->nswt; i++)
		if (s->swt[i].gen == s->map_gen && s->swt[i].sw > s->defs_sw_max)
			s->defs_sw_max = s->swt[i].sw;
	if (s->map) {
		s->mstk = calloc(map->nr, sizeof(*s->mstk));
		if (!s->mstk)
			return -ENOMEM;
		for (i = 0; i < map->nr; i++) {
			m = &map->stacks[i];
			s->mstk[i] = (struct ev_idstack){.id = m->id,
							 .gen = s->map_gen,
							 .nr = m->nr,
							 .ref_count = m->ref_count,
							 .addrs = m->ips,
							 .index = (uint32_t)(s->ndefs + i),
							 .from = EV_FROM_MAP};
		}
		/* the map is saved at the end: it holds the latest definition of each id */
		for (i = 0; s->addr_defs && i < s->ndefs; i++) {
			const struct ev_idstack *d;

			if (!s->span[i].n)
				continue; /* (not the first definition of its key) */
			d = &s->defs[s->occ[s->span[i].first + s->span[i].n - 1].def];
			if (d->gen != s->map_gen || !(m = smbin_find(map, d->id, NULL)))
				continue;
			if (s->map_sw_known && s->def_sw[i] != stk_map_sw(s, d->id))
				continue; /* (another switch's stack under the same id) */
			if ((m->nr != d->nr ||
			     memcmp(m->ips, d->addrs, d->nr * sizeof(*d->addrs))) &&
			    (!s->map_differ++ || d->id < s->map_differ_id))
				s->map_differ_id = d->id;
		}
	}
	total = stk_total(s);
	if (total > UINT32_MAX)
		return -E2BIG;
	s->finished = 1;
	return 0;
}

uint32_t stk_gen_at(const struct stk_set *s, uint64_t ts_ns)
{
	size_t lo = 0, hi = s->ngens;

	if (s->ngens <= 1)
		return s->ngens ? s->gens[0].gen : 0;
	/* the last generation whose first definition is not after ts_ns; else the first */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->gens[mid].first_ts <= ts_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return s->gens[lo ? lo - 1 : 0].gen;
}

uint32_t stk_switch_at(const struct stk_set *s, uint32_t gen, uint64_t ts_ns, uint32_t id)
{
	size_t lo = 0, hi = s->nswt, first, end;
	uint32_t now, d;

	if (!s->nswt)
		return stk_id_sw(id);
	/* the generation's run of swt */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->swt[mid].gen < gen)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = s->nswt;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->swt[mid].gen <= gen)
			lo = mid + 1;
		else
			hi = mid;
	}
	end = lo;
	if (first == end)
		return stk_id_sw(id);
	/* the last definition not after ts_ns; else the first */
	lo = first;
	hi = end;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->swt[mid].ts_ns <= ts_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	now = s->swt[lo > first ? lo - 1 : first].sw;
	/* the count with the id's bits nearest to now */
	d = (stk_id_sw(id) - now) & SMBIN_SWITCH_MASK;
	return d <= SMBIN_SWITCH_MASK / 2 ? now + d : now - (SMBIN_SWITCH_MASK + 1 - d);
}

const struct ev_idstack *stk_resolve(const struct stk_set *s, uint64_t ts_ns, uint32_t id,
				     uint32_t *gen)
{
	const struct smbin_map *m = s->map;
	struct stk_key key;
	uint32_t g = stk_gen_at(s, ts_ns), idx;
	size_t pos;

	*gen = g;
	if (s->ndefs) {
		key = (struct stk_key){.gen = g, .sw = stk_switch_at(s, g, ts_ns, id), .id = id};
		idx = htab_find(&s->idx, stk_hash(&key), stk_eq, s, &key, NULL);
		if (idx != HTAB_NONE)
			return stk_def_at(s, idx, ts_ns);
		if (g != s->map_gen)
			return NULL;
		if (s->map_sw_known && m && key.sw != stk_map_sw(s, id))
			return NULL; /* (not a switch the map holds) */
	}
	if (!m)
		return NULL;
	/* ids are handed out from 0: a map without holes has id i at position i */
	if (id < m->nr && m->stacks[id].id == id)
		return &s->mstk[id];
	return smbin_find(m, id, &pos) ? &s->mstk[pos] : NULL;
}

static const struct ev_idstack *stk_resolve_cb(const void *ctx, uint64_t ts_ns, uint32_t id,
					       uint32_t *gen)
{
	return stk_resolve(ctx, ts_ns, id, gen);
}

struct ev_resolver stk_resolver(const struct stk_set *s)
{
	return (struct ev_resolver){.resolve = stk_resolve_cb, .ctx = s};
}
