/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htab: the one hash index of the tool. Open addressing with linear probing over a power-of-two
 * array of slots; each slot holds an entry index + 1 (0 = empty) and the low 32 bits of the
 * entry's 64-bit hash. The entries themselves live in the caller's dense array (index 0, 1,
 * 2, ... in insertion order), so the table never moves them and a caller keeps its own layout.
 *
 * The caller computes the hash and passes an equality callback; htab_find() is inline so that
 * the callback of each call site is inlined too. The stored hash is compared before the
 * callback, and growth re-places slots from their stored hashes without calling back.
 *
 * Load factor at most 1/2: htab_reserve() doubles the array when one more entry would pass
 * it, so a probe always ends at an empty slot. Growing re-inserts the old slots in slot order.
 * There is no deletion (no user needs it: entries are only added until the table is freed).
 *
 * Usage (find or add):
 *	if (htab_reserve(&t))
 *		return -ENOMEM;
 *	i = htab_find(&t, h, eq, ctx, key, &pos);
 *	if (i == HTAB_NONE) {
 *		i = n++;                      (append the entry to the caller's array)
 *		htab_insert_at(&t, pos, h, i);
 *	}
 *
 * htab replaced the hand-written copies in cmd_report.c (counts per event and stack), common.c
 * (the frame cache), trace_parse.c (tp_strtab), profile.c (functions, locations, stacks,
 * unknown ids, samples, the off-CPU table), exp_perfetto.c (tasks, callstacks) and exp_text.c
 * (folded path merge). Cost, measured with callgrind (instructions, repeatable under load;
 * input from tests/gen_trace.py: 200,000 events, 40 MB of trace text, over a `mkbin random`
 * map of 4096 stacks and a 50,000-symbol kallsyms), before -> after:
 *	report                               562,681,364 ->   562,191,549  (-0.09%)
 *	export --format folded --by pid    1,453,399,659 -> 1,438,239,792  (-1.0%)
 *	export --format perfetto           1,185,558,331 -> 1,170,946,049  (-1.2%)
 *	export --format svg                1,338,661,242 -> 1,322,725,340  (-1.2%)
 *	dump (4096 stacks, text)              94,970,990 ->    95,460,853  (+0.5%)
 * Outputs byte-identical. With htab_reserve() out of line, report was +1.5% (570,987,870);
 * the inline load check removed that.
 */
#ifndef STACKMAP_HTAB_H
#define STACKMAP_HTAB_H

#include <stddef.h>
#include <stdint.h>

#define HTAB_NONE UINT32_MAX

/*
 * The hash of a stack's (generation, id) pair, the key of every table of stack definitions
 * (src/stacks.c, src/input.c, the plugin): one multiply and a fold of the high bits down.
 */
static inline uint64_t htab_hash_gen_id(uint32_t gen, uint32_t id)
{
	uint64_t h = ((uint64_t)gen << 32 | id) * 0x9E3779B97F4A7C15ull;

	return h ^ (h >> 29);
}

struct htab_slot {
	uint32_t idx1; /* entry index + 1; 0: empty */
	uint32_t hash; /* low 32 bits of the entry's hash */
};

struct htab {
	struct htab_slot *slots; /* NULL until the first htab_reserve() */
	size_t mask; /* capacity - 1 */
	size_t used; /* entries inserted */
	size_t min_cap; /* first capacity (a power of two; 0: 64) */
};

/* Equality of entry @idx and @key; nonzero when equal. */
typedef int (*htab_eq_fn)(const void *ctx, uint32_t idx, const void *key);

/* An empty table whose first array has @min_cap slots (a power of two, 0 for the default). */
void htab_init(struct htab *t, size_t min_cap);
void htab_free(struct htab *t);

/*
 * Make room for one more entry (grow when used + 1 would exceed half the capacity). Returns 0,
 * -ENOMEM, or -E2BIG when the table already holds UINT32_MAX - 1 entries. Slot positions
 * returned by htab_find() before a successful growth are stale. The check is inline, the
 * growth (htab_grow(): double the array, or allocate the first one) is not.
 */
int htab_grow(struct htab *t);

static inline int htab_reserve(struct htab *t)
{
	if (t->slots && (t->used + 1) * 2 <= t->mask + 1)
		return 0;
	return htab_grow(t);
}

static inline size_t htab_cap(const struct htab *t)
{
	return t->slots ? t->mask + 1 : 0;
}

/* Entry index in slot @i (< htab_cap()), or HTAB_NONE when that slot is empty. */
static inline uint32_t htab_slot(const struct htab *t, size_t i)
{
	return t->slots[i].idx1 ? t->slots[i].idx1 - 1 : HTAB_NONE;
}

/*
 * The index of the entry equal to @key (eq(ctx, idx, key) != 0) among those whose hash is
 * @hash, or HTAB_NONE; then *@pos (if not NULL) is the empty slot where it belongs. On a table
 * never reserved it returns HTAB_NONE and *@pos is 0 (reserve before inserting).
 */
static inline uint32_t htab_find(const struct htab *t, uint64_t hash, htab_eq_fn eq,
				 const void *ctx, const void *key, size_t *pos)
{
	uint32_t h = (uint32_t)hash;
	size_t j;

	if (!t->slots) {
		if (pos)
			*pos = 0;
		return HTAB_NONE;
	}
	for (j = h & t->mask; t->slots[j].idx1; j = (j + 1) & t->mask)
		if (t->slots[j].hash == h && eq(ctx, t->slots[j].idx1 - 1, key))
			return t->slots[j].idx1 - 1;
	if (pos)
		*pos = j;
	return HTAB_NONE;
}

/* Put entry @idx with @hash in slot @pos, as returned by htab_find() after htab_reserve(). */
static inline void htab_insert_at(struct htab *t, size_t pos, uint64_t hash, uint32_t idx)
{
	t->slots[pos].idx1 = idx + 1;
	t->slots[pos].hash = (uint32_t)hash;
	t->used++;
}

#endif
