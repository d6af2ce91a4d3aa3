// SPDX-License-Identifier: GPL-2.0
/*
 * White-box tests: this file includes kernel/trace/ftrace_stackmap.c (unchanged) so that it can set
 * counters near their limits (saturation) and check the table's invariants directly.
 */
#include "ftrace_stackmap.c"

#include <stdio.h>
#include <stdlib.h>

#include "../shim/shim.h"
#include "check.h"

CHECK_DEFINE();

static void fill(unsigned long *ips, unsigned int nr, unsigned long tag)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		ips[i] = 0xffffffff81000000UL + tag * 0x10000 + i * 8;
}

static u32 ref_of(struct ftrace_stackmap *map, int id)
{
	struct ftrace_stackmap_stack s;

	return ftrace_stackmap_lookup(map, (u32)id, &s, NULL) ? s.ref_count : 0xdeadbeef;
}

#define SLOTS	((int)map->cache_mask + 1)

static unsigned long *cache_slot(struct ftrace_stackmap *map, int cpu, u32 id)
{
	return &map->cache[((size_t)cpu << map->cache_shift) + (id & map->cache_mask)];
}

static u32 count_of(struct ftrace_stackmap *map, u32 id)
{
	return (u32)atomic_read(&map->counts[id]);
}

/* Two stacks whose ids share a cache slot: ids 0 and SLOTS (the slots per CPU). */
static void two_in_one_slot(struct ftrace_stackmap *map, unsigned long a[4], unsigned long b[4])
{
	unsigned long ips[4];
	unsigned int i;

	for (i = 0; i <= SLOTS; i++) {
		fill(ips, 4, 1000 + i);
		CHECK_EQ(ftrace_stackmap_get_id(map, ips, 4), (int)i);
		if (i == 0)
			memcpy(a, ips, sizeof(ips));
		if (i == SLOTS)
			memcpy(b, ips, sizeof(ips));
	}
}

static void test_refcount_saturation(void)
{
	struct ftrace_stackmap *map = ftrace_stackmap_create(10);
	unsigned long ips[4], *slot;
	int id;

	fill(ips, 4, 1);
	id = ftrace_stackmap_get_id(map, ips, 4);
	CHECK_EQ(id, 0);
	slot = cache_slot(map, 0, id);
	CHECK_EQ(*slot, cache_word(id, 1));
	/* A shared count that would wrap sticks at the maximum. */
	atomic_set(&map->counts[id], (int)(U32_MAX - 1));
	ftrace_stackmap_flush(map, id, 5);
	CHECK_EQ(count_of(map, id), U32_MAX);
	ftrace_stackmap_flush(map, id, 1);
	CHECK_EQ(count_of(map, id), U32_MAX);
	CHECK_EQ(ref_of(map, id), U32_MAX);
	/* Exactly reaching the maximum is not a wrap. */
	atomic_set(&map->counts[id], (int)(U32_MAX - 3));
	ftrace_stackmap_flush(map, id, 3);
	CHECK_EQ(count_of(map, id), U32_MAX);
	/* Shared count plus pending counts saturate in the reader. */
	atomic_set(&map->counts[id], (int)(U32_MAX - 10));
	*slot = cache_word(id, 10);
	CHECK_EQ(ref_of(map, id), U32_MAX);
	*cache_slot(map, 1, id) = cache_word(id, 7);
	CHECK_EQ(ref_of(map, id), U32_MAX);
	/*
	 * A pending count that would carry into the tag is flushed, and the slot starts again
	 * at 1; a flush of U32_MAX or more saturates the shared count.
	 */
	atomic_set(&map->counts[id], 0);
	*cache_slot(map, 1, id) = 0;
	*slot = cache_word(id, FTRACE_STACKMAP_PENDING_MASK);
	CHECK_EQ(ref_of(map, id), U32_MAX);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 4), id);
	CHECK_EQ(count_of(map, id), U32_MAX);
	CHECK_EQ(*slot, cache_word(id, 1));
	CHECK_EQ(ref_of(map, id), U32_MAX);
	/* Below U32_MAX, the flush adds exactly. */
	atomic_set(&map->counts[id], 0);
	*slot = cache_word(id, 1000);
	ftrace_stackmap_flush(map, id, U32_MAX - 1);
	CHECK_EQ(count_of(map, id), U32_MAX - 1);
	CHECK_EQ(ref_of(map, id), U32_MAX);
	/* A pending count that carries changes the tag: the fast path cannot take it. */
	CHECK(cache_tag(cache_word(id, FTRACE_STACKMAP_PENDING_MASK) + 1) != id + 1, "carry");
	ftrace_stackmap_destroy(map);
}

/*
 * The compare itself, which the hit path reaches only when a fingerprint matched: for every
 * depth, a stack equals its own record and differs from one that differs in any single
 * frame (in each block of eight and in the remainder's blocks of four, two and one) or in
 * its length.
 */
static void test_rec_equal_every_frame(void)
{
	u64 words[1 + FTRACE_STACKMAP_MAX_DEPTH];
	struct ftrace_stackmap_rec *rec = (struct ftrace_stackmap_rec *)words;
	unsigned long ips[FTRACE_STACKMAP_MAX_DEPTH];
	unsigned int nr, i, bad = 0;

	for (nr = 1; nr <= FTRACE_STACKMAP_MAX_DEPTH; nr++) {
		fill(ips, nr, nr);
		rec->nr = nr;
		memcpy(rec->ips, ips, nr * sizeof(*ips));
		if (!ftrace_stackmap_rec_equal(rec, ips, nr))
			bad++;
		if (nr > 1 && ftrace_stackmap_rec_equal(rec, ips, nr - 1))
			bad++;
		for (i = 0; i < nr; i++) {
			rec->ips[i] ^= 0x10;
			if (ftrace_stackmap_rec_equal(rec, ips, nr))
				bad++;
			rec->ips[i] ^= 0x10;
		}
	}
	CHECK_EQ(bad, 0u);
}

/* Evictions move pending counts to the shared counter, exactly. */
static void test_cache_eviction_exact(void)
{
	struct ftrace_stackmap *map = ftrace_stackmap_create(10);
	unsigned long a[4], b[4];
	int i;

	two_in_one_slot(map, a, b);
	/* Inserting b evicted a's pending 1. */
	CHECK_EQ(count_of(map, 0), 1);
	CHECK_EQ(*cache_slot(map, 0, 0), cache_word(SLOTS, 1));
	for (i = 0; i < 5; i++)
		CHECK_EQ(ftrace_stackmap_get_id(map, b, 4), SLOTS);
	for (i = 0; i < 3; i++)
		CHECK_EQ(ftrace_stackmap_get_id(map, a, 4), 0);
	CHECK_EQ(count_of(map, SLOTS), 6);
	CHECK_EQ(count_of(map, 0), 1);
	CHECK_EQ(ref_of(map, 0), 4);
	CHECK_EQ(ref_of(map, SLOTS), 6);
	/* Another CPU caches its own pending counts; the reader adds them. */
	shim_thread_set_cpu(3);
	CHECK_EQ(ftrace_stackmap_get_id(map, a, 4), 0);
	CHECK_EQ(ftrace_stackmap_get_id(map, a, 4), 0);
	shim_thread_set_cpu(0);
	CHECK_EQ(ref_of(map, 0), 6);
	CHECK_EQ(count_of(map, 0), 1);
	ftrace_stackmap_destroy(map);
}

/*
 * An "NMI" at the worst moment: between the map's read of a cache slot and its
 * cmpxchg_local() of it, a nested get_id() on the same CPU changes that slot. The
 * interrupted reference must still be counted once, in counts[], without a retry.
 */
static struct ftrace_stackmap *nmi_map;
static const unsigned long *nmi_ips;
static int nmi_left, nmi_id;

static void nmi_hook(void *ptr)
{
	(void)ptr;
	if (nmi_left <= 0)
		return;
	nmi_left--;
	nmi_id = ftrace_stackmap_get_id(nmi_map, nmi_ips, 4);
}

static void test_flush_racing_nmi(void)
{
	struct ftrace_stackmap *map = ftrace_stackmap_create(10);
	unsigned long a[4], b[4];
	u32 before_a, before_b;

	two_in_one_slot(map, a, b);
	nmi_map = map;
	shim_cmpxchg_local_hook = nmi_hook;

	/* The NMI hits the same cached id: both counted. b is cached with pending 1. */
	nmi_ips = b;
	nmi_left = 1;
	CHECK_EQ(ftrace_stackmap_get_id(map, b, 4), SLOTS);
	CHECK_EQ(nmi_id, SLOTS);
	CHECK_EQ(ref_of(map, SLOTS), 3);

	/* The NMI evicts the slot our hit was about to update. */
	before_a = ref_of(map, 0);
	before_b = ref_of(map, SLOTS);
	nmi_ips = a;
	nmi_left = 1;
	CHECK_EQ(ftrace_stackmap_get_id(map, b, 4), SLOTS);
	CHECK_EQ(nmi_id, 0);
	CHECK_EQ(ref_of(map, 0), before_a + 1);
	CHECK_EQ(ref_of(map, SLOTS), before_b + 1);

	/* Nested twice: the first NMI's own cmpxchg() is interrupted by a second one. */
	before_a = ref_of(map, 0);
	before_b = ref_of(map, SLOTS);
	nmi_ips = b;
	nmi_left = 2;
	CHECK_EQ(ftrace_stackmap_get_id(map, b, 4), SLOTS);
	CHECK_EQ(nmi_left, 0);
	CHECK_EQ(ref_of(map, 0), before_a);
	CHECK_EQ(ref_of(map, SLOTS), before_b + 3);

	shim_cmpxchg_local_hook = NULL;
	ftrace_stackmap_destroy(map);
}

/* A reset while pending counts sit in several CPUs' caches: none leaks into the new ids. */
static void test_reset_with_pending(void)
{
	struct ftrace_stackmap *map = ftrace_stackmap_create(10);
	unsigned long ips[4];
	int cpu, k;

	fill(ips, 4, 77);
	for (cpu = 0; cpu < 4; cpu++) {
		shim_thread_set_cpu(cpu);
		for (k = 0; k <= cpu; k++)
			CHECK_EQ(ftrace_stackmap_get_id(map, ips, 4), 0);
	}
	shim_thread_set_cpu(0);
	CHECK_EQ(ref_of(map, 0), 10);
	CHECK_EQ(count_of(map, 0), 0);
	CHECK_EQ(ftrace_stackmap_reset(map, NULL, NULL), 0);
	for (cpu = 0; cpu < 4; cpu++)
		CHECK_EQ(*cache_slot(map, cpu, 0), 0);
	/* A different stack gets id 0 in the new generation and counts from zero. */
	fill(ips, 4, 78);
	shim_thread_set_cpu(2);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 4), 0);
	shim_thread_set_cpu(0);
	CHECK_EQ(ref_of(map, 0), 1);
	ftrace_stackmap_destroy(map);
}

static void test_stats_saturation(void)
{
	struct ftrace_stackmap *map = ftrace_stackmap_create(10);
	struct ftrace_stackmap_stats st;

	local64_set(&map->cpus[0].hits, -2L);	/* U64_MAX - 1; successes = hits + inserts + races */
	local64_set(&map->cpus[1].inserts, 7);
	local64_set(&map->cpus[2].drops, -1L);
	local64_set(&map->cpus[3].drops, -1L);
	ftrace_stackmap_get_stats(map, &st);
	CHECK(st.successes == U64_MAX, "successes %llu", (unsigned long long)st.successes);
	CHECK(st.drops == U64_MAX, "drops %llu", (unsigned long long)st.drops);
	ftrace_stackmap_destroy(map);
}

/* Walk the table and check every invariant of the header comment of ftrace_stackmap.c. */
static void check_invariants(struct ftrace_stackmap *map, unsigned int nr_stacks)
{
	u32 limit = ftrace_stackmap_id_limit(map), idx, off, home, dist, used = 0, id;
	struct ftrace_stackmap_rec *rec;
	unsigned char *seen = calloc(map->capacity, 1);
	unsigned long v;
	u64 hash;

	for (idx = 0; idx <= map->table_mask; idx++) {
		v = map->table[idx];
		if (!v)
			continue;
		used++;
		off = slot_off(v);
		CHECK(off > 0 && off < map->arena_words, "slot %u offset %u", idx, off);
		rec = ftrace_stackmap_rec_at(map, off);
		CHECK(rec->id < limit, "slot %u id %u limit %u", idx, rec->id, limit);
		CHECK(rec->nr >= 1 && rec->nr <= rec->cap && rec->cap <= FTRACE_STACKMAP_MAX_DEPTH,
		      "nr %u cap %u", rec->nr, rec->cap);
		CHECK_EQ(map->id_off[rec->id], off);
		CHECK(!seen[rec->id], "id %u in two slots", rec->id);
		seen[rec->id] = 1;
		hash = ftrace_stackmap_hash(rec->ips, rec->nr, map->seed);
		CHECK_EQ(slot_fp(v), hash_fp(hash));
		home = (u32)hash & map->table_mask;
		dist = (idx - home) & map->table_mask;
		CHECK(dist < FTRACE_STACKMAP_MAX_PROBE, "slot %u is %u probes from home", idx, dist);
	}
	CHECK_EQ(used, nr_stacks);
	CHECK_EQ(map->arena[0], 0);
	for (id = 0; id < limit; id++)
		CHECK(seen[id] || !map->id_off[id], "id %u published but not in the table", id);
	free(seen);
}

/*
 * Fill maps of the smallest size with many seeds: every -ENOSPC must be explained (ids full
 * or the 32-slot probe window full), and the table keeps its invariants.
 */
static void test_fill_invariants_and_probe_bound(void)
{
	unsigned long ips[3];
	unsigned int seed, i, stored, window_full = 0, probe_drops = 0, worst = 0;
	struct ftrace_stackmap *map;
	u32 idx, k, home;
	u64 hash;
	int id;

	for (seed = 0; seed < 40; seed++) {
		shim_set_seed(seed * 7919 + 1);
		map = ftrace_stackmap_create(10);
		stored = 0;
		for (i = 0; i < 1100; i++) {
			fill(ips, 3, seed * 100000 + i);
			id = ftrace_stackmap_get_id(map, ips, 3);
			if (id >= 0) {
				stored++;
				continue;
			}
			CHECK_EQ(id, -ENOSPC);
			if (atomic_read(&map->next_id) >= (int)map->capacity)
				continue;
			/* Not out of ids: the probe window must have been full. */
			probe_drops++;
			hash = ftrace_stackmap_hash(ips, 3, map->seed);
			home = (u32)hash & map->table_mask;
			for (k = 0; k < FTRACE_STACKMAP_MAX_PROBE; k++) {
				idx = (home + k) & map->table_mask;
				if (!map->table[idx])
					break;
			}
			CHECK(k == FTRACE_STACKMAP_MAX_PROBE, "drop with an empty slot %u probes in", k);
			window_full++;
		}
		if (1024 - stored > worst)
			worst = 1024 - stored;
		check_invariants(map, stored);
		ftrace_stackmap_destroy(map);
	}
	printf("whitebox: probe-bound drops before the map was full: %u in 40 fills of 1024 "
	       "(worst fill lost %u ids' worth)\n", probe_drops, worst);
	CHECK_EQ(window_full, probe_drops);
}

/*
 * The hit path tests its stack's first slot for the fingerprint only: an empty slot (0)
 * passes for a hash whose upper half is 0 (every hash without a fingerprint) and leads to
 * arena word 0, which must read as a record of no frames. Build that case: choose the first
 * lane's start value so that a one-frame stack hashes to 0x1234 (the hash's last steps
 * undone), then look the stack up in an empty map.
 */
static u64 unhash(u64 h)
{
	u64 inv = FTRACE_STACKMAP_HASH_K2;
	int k;

	for (k = 0; k < 5; k++)		/* Newton: the inverse of K2 modulo 2^64 */
		inv *= 2 - FTRACE_STACKMAP_HASH_K2 * inv;
	h ^= (h >> 29) ^ (h >> 58);	/* undo a ^= a >> 29 */
	h *= inv;			/* undo a *= K2 */
	return h ^ (h >> 32);		/* undo a ^= a >> 32 */
}

static void test_empty_first_slot(void)
{
	struct ftrace_stackmap *map = ftrace_stackmap_create(10);
	struct ftrace_stackmap_stats st;
	unsigned long ips[1] = { 0xffffffff81234567UL };
	const u64 want = 0x1234;
	u64 d;

	/* The one frame goes to lane d; the other lanes keep their start values. */
	d = ftrace_stackmap_mix1(map->seed[3], ips[0]);
	map->seed[0] = unhash(want) ^ rol64(map->seed[1], 16) ^ rol64(map->seed[2], 32) ^
		       rol64(d, 48) ^ 1;
	CHECK_EQ(ftrace_stackmap_hash(ips, 1, map->seed), want);
	CHECK_EQ(map->table[want & map->table_mask], 0);
	CHECK_EQ(map->arena[0], 0);

	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 1), 0);	/* not found, inserted */
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 1), 0);	/* found */
	ftrace_stackmap_get_stats(map, &st);
	CHECK_EQ(st.entries, 1);
	CHECK_EQ(st.successes, 2);
	CHECK_EQ(st.hits, 1);
	CHECK_EQ(ftrace_stackmap_reset(map, NULL, NULL), 0);
	CHECK_EQ(map->arena[0], 0);
	ftrace_stackmap_destroy(map);
}

int main(void)
{
	shim_set_nr_cpus(4);
	if (shim_thread_register(0))
		return 2;
	run_test("rec_equal_every_frame", test_rec_equal_every_frame);
	run_test("refcount_saturates", test_refcount_saturation);
	run_test("cache_eviction_exact", test_cache_eviction_exact);
	run_test("flush_racing_nmi", test_flush_racing_nmi);
	run_test("reset_with_pending_counts", test_reset_with_pending);
	run_test("stats_saturate", test_stats_saturation);
	run_test("fill_invariants_and_probe_bound", test_fill_invariants_and_probe_bound);
	run_test("empty_first_slot", test_empty_first_slot);
	return check_summary("whitebox");
}
