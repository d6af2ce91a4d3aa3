// SPDX-License-Identifier: GPL-2.0
/*
 * White-box tests: this file includes kernel/trace/stackmap.c (unchanged) so that it can set
 * counters near their limits (saturation) and check the table's invariants directly.
 */
#include "stackmap.c"

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

static u32 ref_of(struct stackmap *map, int id)
{
	struct stackmap_stack s;

	return stackmap_lookup(map, (u32)id, &s) ? s.ref_count : 0xdeadbeef;
}

static local_t *ref_slot(struct stackmap *map, int cpu, int id)
{
	return &map->refs[(size_t)cpu * map->capacity + id];
}

static void test_refcount_saturation(void)
{
	struct stackmap *map = stackmap_create(10);
	unsigned long ips[4];
	int id;

	fill(ips, 4, 1);
	id = stackmap_get_id(map, ips, 4);
	CHECK_EQ(id, 0);
	/* A per-CPU counter that wraps sticks at the maximum. */
	local_set(ref_slot(map, 0, id), -1L);
	CHECK_EQ(stackmap_get_id(map, ips, 4), id);
	CHECK_EQ(local_read(ref_slot(map, 0, id)), -1L);
	CHECK_EQ(ref_of(map, id), U32_MAX);
	/* The exported sum saturates at U32_MAX. */
	local_set(ref_slot(map, 0, id), (long)U32_MAX - 1);
	CHECK_EQ(ref_of(map, id), U32_MAX - 1);
	CHECK_EQ(stackmap_get_id(map, ips, 4), id);
	CHECK_EQ(ref_of(map, id), U32_MAX);
	CHECK_EQ(stackmap_get_id(map, ips, 4), id);
	CHECK_EQ(ref_of(map, id), U32_MAX);
	/* The sum over CPUs saturates instead of wrapping. */
	local_set(ref_slot(map, 0, id), -1L);
	local_set(ref_slot(map, 1, id), 5);
	CHECK_EQ(ref_of(map, id), U32_MAX);
	stackmap_destroy(map);
}

static void test_stats_saturation(void)
{
	struct stackmap *map = stackmap_create(10);
	struct stackmap_stats st;

	per_cpu_ptr(map->pcpu, 0)->hits = U64_MAX - 1;	/* successes = hits + inserts + races */
	per_cpu_ptr(map->pcpu, 1)->inserts = 7;
	per_cpu_ptr(map->pcpu, 2)->drops = U64_MAX;
	per_cpu_ptr(map->pcpu, 3)->drops = U64_MAX;
	stackmap_get_stats(map, &st);
	CHECK(st.successes == U64_MAX, "successes %llu", (unsigned long long)st.successes);
	CHECK(st.drops == U64_MAX, "drops %llu", (unsigned long long)st.drops);
	stackmap_destroy(map);
}

/* Walk the table and check every invariant of the header comment of stackmap.c. */
static void check_invariants(struct stackmap *map, unsigned int nr_stacks)
{
	u32 limit = stackmap_id_limit(map), idx, off, home, dist, used = 0, id;
	struct stackmap_rec *rec;
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
		rec = stackmap_rec_at(map, off);
		CHECK(rec->id < limit, "slot %u id %u limit %u", idx, rec->id, limit);
		CHECK(rec->nr >= 1 && rec->nr <= rec->cap && rec->cap <= STACKMAP_MAX_DEPTH,
		      "nr %u cap %u", rec->nr, rec->cap);
		CHECK_EQ(map->id_off[rec->id], off);
		CHECK(!seen[rec->id], "id %u in two slots", rec->id);
		seen[rec->id] = 1;
		hash = xxh64(rec->ips, rec->nr * sizeof(unsigned long), map->seed);
		CHECK_EQ(slot_fp(v), hash_fp(hash));
		home = (u32)hash & map->table_mask;
		dist = (idx - home) & map->table_mask;
		CHECK(dist < STACKMAP_MAX_PROBE, "slot %u is %u probes from home", idx, dist);
	}
	CHECK_EQ(used, nr_stacks);
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
	struct stackmap *map;
	u32 idx, k, home;
	u64 hash;
	int id;

	for (seed = 0; seed < 40; seed++) {
		shim_set_seed(seed * 7919 + 1);
		map = stackmap_create(10);
		stored = 0;
		for (i = 0; i < 1100; i++) {
			fill(ips, 3, seed * 100000 + i);
			id = stackmap_get_id(map, ips, 3);
			if (id >= 0) {
				stored++;
				continue;
			}
			CHECK_EQ(id, -ENOSPC);
			if (atomic_read(&map->next_id) >= (int)map->capacity)
				continue;
			/* Not out of ids: the probe window must have been full. */
			probe_drops++;
			hash = xxh64(ips, sizeof(ips), map->seed);
			home = (u32)hash & map->table_mask;
			for (k = 0; k < STACKMAP_MAX_PROBE; k++) {
				idx = (home + k) & map->table_mask;
				if (!map->table[idx])
					break;
			}
			CHECK(k == STACKMAP_MAX_PROBE, "drop with an empty slot %u probes in", k);
			window_full++;
		}
		if (1024 - stored > worst)
			worst = 1024 - stored;
		check_invariants(map, stored);
		stackmap_destroy(map);
	}
	printf("whitebox: probe-bound drops before the map was full: %u in 40 fills of 1024 "
	       "(worst fill lost %u ids' worth)\n", probe_drops, worst);
	CHECK_EQ(window_full, probe_drops);
}

int main(void)
{
	shim_set_nr_cpus(4);
	if (shim_thread_register(0))
		return 2;
	run_test("refcount_saturates", test_refcount_saturation);
	run_test("stats_saturate", test_stats_saturation);
	run_test("fill_invariants_and_probe_bound", test_fill_invariants_and_probe_bound);
	return check_summary("whitebox");
}
