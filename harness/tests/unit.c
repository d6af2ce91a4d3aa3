// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the stackmap contracts (SPEC.md 2.6 and the export interface), black box:
 * only ftrace_stackmap.h and the shim controls. Single-threaded except where a cmpxchg() hook stands
 * in for an NMI that fires between filling a record and publishing it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../shim/shim.h"
#include "check.h"
#include "ftrace_stackmap.h"

CHECK_DEFINE();

#define BASE 0xffffffff81000000UL

static void fill(unsigned long *ips, unsigned int nr, unsigned long tag)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		ips[i] = BASE + tag * 0x10000 + i * 8;
}

static struct ftrace_stackmap *new_map(unsigned int bits)
{
	struct ftrace_stackmap *map;

	shim_set_seed(0x1234 + bits);
	map = ftrace_stackmap_create(bits);
	if (!map) {
		fprintf(stderr, "ftrace_stackmap_create(%u) failed\n", bits);
		exit(2);
	}
	return map;
}

static struct ftrace_stackmap_stats stats_of(struct ftrace_stackmap *map)
{
	struct ftrace_stackmap_stats st;

	ftrace_stackmap_read_lock(map);
	ftrace_stackmap_get_stats(map, &st);
	ftrace_stackmap_read_unlock(map);
	return st;
}

static u32 ref_of(struct ftrace_stackmap *map, int id)
{
	struct ftrace_stackmap_stack s;

	if (id < 0 || !ftrace_stackmap_lookup(map, (u32)id, &s, NULL))
		return 0xdeadbeef;
	return s.ref_count;
}

static void test_create_clamps(void)
{
	static const unsigned int in[] = { 0, 9, 10, 14, 18, 19, 40 };
	static const unsigned int want[] = { 10, 10, 10, 14, 18, 18, 18 };
	struct ftrace_stackmap_stats st;
	struct ftrace_stackmap *map;
	unsigned int i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		map = new_map(in[i]);
		st = stats_of(map);
		CHECK_EQ(st.capacity, 1ULL << want[i]);
		CHECK_EQ(st.table_size, 2ULL << want[i]);
		CHECK_EQ(st.entries, 0);
		CHECK_EQ(st.generation, 0);
		CHECK_EQ(st.storage_size, (1ULL << want[i]) * FTRACE_STACKMAP_BYTES_PER_STACK);
		CHECK_EQ(ftrace_stackmap_id_limit(map), 0);
		ftrace_stackmap_destroy(map);
	}
	ftrace_stackmap_destroy(NULL);
}

static void test_einval(void)
{
	struct ftrace_stackmap *map = new_map(10);
	unsigned long ips[4];
	struct ftrace_stackmap_stats st;

	fill(ips, 4, 1);
	CHECK_EQ(ftrace_stackmap_get_id(NULL, ips, 4), -EINVAL);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 0), -EINVAL);
	st = stats_of(map);
	CHECK_EQ(st.drops, 0);
	CHECK_EQ(st.successes, 0);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 4), 0);
	ftrace_stackmap_destroy(map);
}

static void test_e2big_never_truncates(void)
{
	struct ftrace_stackmap *map = new_map(10);
	unsigned long a[FTRACE_STACKMAP_MAX_DEPTH + 1], b[FTRACE_STACKMAP_MAX_DEPTH + 1];
	struct ftrace_stackmap_stats st;
	int ida, idb, idp;

	fill(a, FTRACE_STACKMAP_MAX_DEPTH + 1, 7);
	memcpy(b, a, sizeof(a));
	b[FTRACE_STACKMAP_MAX_DEPTH] ^= 0x40;	/* differ only at frame 65 */

	CHECK_EQ(ftrace_stackmap_get_id(map, a, FTRACE_STACKMAP_MAX_DEPTH + 1), -E2BIG);
	CHECK_EQ(ftrace_stackmap_get_id(map, b, FTRACE_STACKMAP_MAX_DEPTH + 1), -E2BIG);
	CHECK_EQ(ftrace_stackmap_get_id(map, a, 1000), -E2BIG);
	st = stats_of(map);
	CHECK_EQ(st.too_deep, 3);
	CHECK_EQ(st.entries, 0);
	CHECK_EQ(st.drops, 0);
	CHECK_EQ(ftrace_stackmap_id_limit(map), 0);

	/* The 64-frame prefix is a stack of its own; the 65-frame ones never get its id. */
	ida = ftrace_stackmap_get_id(map, a, FTRACE_STACKMAP_MAX_DEPTH);
	CHECK(ida >= 0, "64 frames must be accepted: %d", ida);
	CHECK_EQ(ftrace_stackmap_get_id(map, a, FTRACE_STACKMAP_MAX_DEPTH + 1), -E2BIG);
	CHECK_EQ(ftrace_stackmap_get_id(map, b, FTRACE_STACKMAP_MAX_DEPTH + 1), -E2BIG);

	/* 64 frames differing only in the last one are two stacks. */
	memcpy(b, a, sizeof(a));
	b[FTRACE_STACKMAP_MAX_DEPTH - 1] ^= 0x40;
	idb = ftrace_stackmap_get_id(map, b, FTRACE_STACKMAP_MAX_DEPTH);
	CHECK(idb >= 0 && idb != ida, "ida %d idb %d", ida, idb);

	/* A prefix (63 frames) is a different stack too. */
	idp = ftrace_stackmap_get_id(map, a, FTRACE_STACKMAP_MAX_DEPTH - 1);
	CHECK(idp >= 0 && idp != ida && idp != idb, "idp %d", idp);
	CHECK_EQ(ref_of(map, ida), 1);
	CHECK_EQ(ref_of(map, idb), 1);
	ftrace_stackmap_destroy(map);
}

static void test_same_stack_same_id_dense(void)
{
	struct ftrace_stackmap *map = new_map(12);
	unsigned long ips[16];
	struct ftrace_stackmap_stats st;
	struct ftrace_stackmap_stack s;
	int i, id;

	for (i = 0; i < 500; i++) {
		fill(ips, 1 + i % 16, (unsigned long)i);
		CHECK_EQ(ftrace_stackmap_get_id(map, ips, 1 + i % 16), i);	/* dense, in order */
	}
	for (i = 499; i >= 0; i--) {
		fill(ips, 1 + i % 16, (unsigned long)i);
		id = ftrace_stackmap_get_id(map, ips, 1 + i % 16);
		CHECK_EQ(id, i);
	}
	st = stats_of(map);
	CHECK_EQ(st.entries, 500);
	CHECK_EQ(st.successes, 1000);
	CHECK_EQ(st.hits, 500);
	CHECK_EQ(st.drops, 0);
	CHECK_EQ(st.races, 0);
	CHECK_EQ(st.lost_ids, 0);
	CHECK_EQ(ftrace_stackmap_id_limit(map), 500);

	ftrace_stackmap_read_lock(map);
	for (i = 0; i < 500; i++) {
		fill(ips, 1 + i % 16, (unsigned long)i);
		CHECK(ftrace_stackmap_lookup(map, (u32)i, &s, NULL), "id %d", i);
		CHECK_EQ(s.id, i);
		CHECK_EQ(s.nr, 1 + i % 16);
		CHECK_EQ(s.ref_count, 2);
		CHECK(!memcmp(s.ips, ips, s.nr * sizeof(*ips)), "frames of id %d", i);
	}
	CHECK(!ftrace_stackmap_lookup(map, 500, &s, NULL), "unused id 500");
	CHECK(!ftrace_stackmap_lookup(map, 1U << 12, &s, NULL), "id == capacity");
	CHECK(!ftrace_stackmap_lookup(map, UINT32_MAX, &s, NULL), "id UINT32_MAX");
	CHECK_EQ(ftrace_stackmap_generation(map), 0);
	ftrace_stackmap_read_unlock(map);
	ftrace_stackmap_destroy(map);
}

static void test_exact_refcounts(void)
{
	struct ftrace_stackmap *map;
	unsigned long a[8], b[3];
	struct ftrace_stackmap_stats st;
	int i, ida = -1, idb = -1;

	shim_set_nr_cpus(4);
	map = new_map(10);
	fill(a, 8, 1);
	fill(b, 3, 2);
	for (i = 0; i < 5; i++)
		ida = ftrace_stackmap_get_id(map, a, 8);
	for (i = 0; i < 3; i++)
		idb = ftrace_stackmap_get_id(map, b, 3);
	CHECK_EQ(ref_of(map, ida), 5);
	CHECK_EQ(ref_of(map, idb), 3);
	/* Counts from other CPUs are summed. */
	shim_thread_set_cpu(3);
	for (i = 0; i < 4; i++)
		CHECK_EQ(ftrace_stackmap_get_id(map, a, 8), ida);
	shim_thread_set_cpu(1);
	CHECK_EQ(ftrace_stackmap_get_id(map, b, 3), idb);
	shim_thread_set_cpu(0);
	CHECK_EQ(ref_of(map, ida), 9);
	CHECK_EQ(ref_of(map, idb), 4);
	st = stats_of(map);
	CHECK_EQ(st.successes, 13);
	CHECK_EQ(st.hits, 11);
	CHECK_EQ(st.entries, 2);
	ftrace_stackmap_destroy(map);
}

struct reset_probe {
	struct ftrace_stackmap *map;
	int calls;
	int get_id_during;
	int nested_reset;
	u32 limit_during;
	u64 busy_during;
};

static void reset_cb(void *arg)
{
	struct reset_probe *p = arg;
	struct ftrace_stackmap_stats st;
	unsigned long ips[2] = { 1, 2 };

	p->calls++;
	p->get_id_during = ftrace_stackmap_get_id(p->map, ips, 2);
	p->nested_reset = ftrace_stackmap_reset(p->map, NULL, NULL);
	p->limit_during = ftrace_stackmap_id_limit(p->map);
	ftrace_stackmap_get_stats(p->map, &st);
	p->busy_during = st.busy;
}

static void test_reset(void)
{
	struct ftrace_stackmap *map = new_map(10);
	struct reset_probe p = { .map = map };
	unsigned long ips[8], deep[FTRACE_STACKMAP_MAX_DEPTH + 1];
	struct ftrace_stackmap_stats st;
	struct ftrace_stackmap_stack s;
	int i;

	for (i = 0; i < 10; i++) {
		fill(ips, 8, (unsigned long)i);
		CHECK_EQ(ftrace_stackmap_get_id(map, ips, 8), i);
	}
	fill(deep, FTRACE_STACKMAP_MAX_DEPTH + 1, 0);
	CHECK_EQ(ftrace_stackmap_get_id(map, deep, FTRACE_STACKMAP_MAX_DEPTH + 1), -E2BIG);

	CHECK_EQ(ftrace_stackmap_reset(map, reset_cb, &p), 0);
	CHECK_EQ(p.calls, 1);
	CHECK_EQ(p.get_id_during, -EINVAL);	/* inserts fail fast during a reset */
	CHECK_EQ(p.nested_reset, -EBUSY);	/* one reset at a time */
	CHECK_EQ(p.limit_during, 10);		/* the callback runs before the clear */
	CHECK_EQ(p.busy_during, 1);

	st = stats_of(map);
	CHECK_EQ(st.generation, 1);
	CHECK_EQ(st.entries, 0);
	CHECK_EQ(st.successes, 0);
	CHECK_EQ(st.hits, 0);
	CHECK_EQ(st.too_deep, 0);
	CHECK_EQ(st.drops, 0);
	CHECK_EQ(st.storage_used, 8);	/* only the reserved word 0 */
	CHECK_EQ(ftrace_stackmap_id_limit(map), 0);
	ftrace_stackmap_read_lock(map);
	CHECK(!ftrace_stackmap_lookup(map, 0, &s, NULL), "id 0 after reset");
	CHECK_EQ(ftrace_stackmap_generation(map), 1);
	ftrace_stackmap_read_unlock(map);

	/* Ids restart at 0, in the order of first insertion after the reset. */
	fill(ips, 8, 9);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 8), 0);
	fill(ips, 8, 0);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 8), 1);
	CHECK_EQ(ref_of(map, 1), 1);
	CHECK_EQ(ftrace_stackmap_reset(map, NULL, NULL), 0);
	CHECK_EQ(stats_of(map).generation, 2);
	ftrace_stackmap_destroy(map);
}

static void test_enospc_ids_full(void)
{
	struct ftrace_stackmap *map = new_map(10);
	unsigned long ips[2];
	struct ftrace_stackmap_stats st;
	int i, id, ok = 0, full = 0, other = 0, *ids;

	ids = calloc(3000, sizeof(*ids));
	for (i = 0; i < 3000; i++) {
		fill(ips, 2, (unsigned long)i);
		id = ftrace_stackmap_get_id(map, ips, 2);
		ids[i] = id;
		if (id >= 0)
			ok++;
		else if (id == -ENOSPC)
			full++;
		else
			other++;
	}
	st = stats_of(map);
	CHECK_EQ(other, 0);
	CHECK_EQ(ok + full, 3000);
	CHECK_EQ(st.entries, ok);
	CHECK_EQ(st.drops, full);
	CHECK_EQ(st.successes, ok);
	/* Ids run out at capacity; with this seed no probe sequence ran out before. */
	CHECK_EQ(ok, 1024);
	CHECK_EQ(ftrace_stackmap_id_limit(map), 1024);
	/* Stored stacks keep their ids when the map is full; refused ones stay refused. */
	for (i = 0; i < 3000; i++) {
		fill(ips, 2, (unsigned long)i);
		id = ftrace_stackmap_get_id(map, ips, 2);
		CHECK(id == ids[i] || (ids[i] < 0 && id == -ENOSPC), "stack %d: %d then %d", i,
		      ids[i], id);
	}
	st = stats_of(map);
	CHECK_EQ(st.drops, 2 * full);
	CHECK_EQ(st.hits, ok);
	CHECK_EQ(st.lost_ids, 0);
	free(ids);
	ftrace_stackmap_destroy(map);
}

static void test_enospc_storage_full(void)
{
	struct ftrace_stackmap *map = new_map(10);
	unsigned long ips[FTRACE_STACKMAP_MAX_DEPTH];
	struct ftrace_stackmap_stats st;
	int i, id, ok = 0, full = 0;
	/* 1024 * 128 bytes = 16384 words, word 0 reserved, 65 words per 64-frame record. */
	int fit = (int)((1024 * FTRACE_STACKMAP_BYTES_PER_STACK / 8 - 1) / (1 + FTRACE_STACKMAP_MAX_DEPTH));
	int left = (int)((1024 * FTRACE_STACKMAP_BYTES_PER_STACK / 8 - 1) % (1 + FTRACE_STACKMAP_MAX_DEPTH));

	for (i = 0; i < 300; i++) {
		fill(ips, FTRACE_STACKMAP_MAX_DEPTH, (unsigned long)i);
		id = ftrace_stackmap_get_id(map, ips, FTRACE_STACKMAP_MAX_DEPTH);
		if (id >= 0)
			ok++;
		else
			full += id == -ENOSPC;
	}
	CHECK_EQ(ok, fit);
	CHECK_EQ(full, 300 - fit);
	st = stats_of(map);
	CHECK_EQ(st.entries, fit);
	CHECK_EQ(st.drops, 300 - fit);
	CHECK_EQ(st.lost_ids, 0);
	CHECK(st.storage_used <= st.storage_size, "used %llu size %llu",
	      (unsigned long long)st.storage_used, (unsigned long long)st.storage_size);
	CHECK_EQ(st.storage_used, 8 * (1 + fit * (1 + FTRACE_STACKMAP_MAX_DEPTH)));
	/* Smaller stacks still fit in what is left (2 words each for one frame). */
	for (i = 0; i < left / 2 + 2; i++) {
		fill(ips, 1, 5000 + (unsigned long)i);
		id = ftrace_stackmap_get_id(map, ips, 1);
		if (i < left / 2)
			CHECK(id >= 0, "small stack %d: %d", i, id);
		else
			CHECK_EQ(id, -ENOSPC);
	}
	/* Known stacks are still found. */
	fill(ips, FTRACE_STACKMAP_MAX_DEPTH, 0);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, FTRACE_STACKMAP_MAX_DEPTH), 0);
	ftrace_stackmap_destroy(map);
}

/*
 * NMI stand-in: the cmpxchg() hook runs a nested insert of the same stack at the moment the
 * outer insert is about to publish its filled record.
 */
static struct ftrace_stackmap *hook_map;
static unsigned long hook_ips[8];
static int hook_depth, hook_max_depth, hook_ids[4];

static void nested_insert_hook(void *ptr)
{
	int level;

	(void)ptr;
	if (hook_depth >= hook_max_depth)
		return;
	level = ++hook_depth;
	hook_ids[level] = ftrace_stackmap_get_id(hook_map, hook_ips, 8);
}

static void test_publish_race_one_id(void)
{
	struct ftrace_stackmap *map = new_map(10);
	unsigned long ips[16];
	struct ftrace_stackmap_stats st;
	struct ftrace_stackmap_stack s;
	int id, id2;

	hook_map = map;
	fill(hook_ips, 8, 42);
	hook_depth = 0;
	hook_max_depth = 1;
	shim_cmpxchg_hook = nested_insert_hook;
	id = ftrace_stackmap_get_id(map, hook_ips, 8);
	shim_cmpxchg_hook = NULL;
	CHECK_EQ(hook_depth, 1);
	CHECK(hook_ids[1] >= 0, "nested insert %d", hook_ids[1]);
	CHECK_EQ(id, hook_ids[1]);		/* one id per stack */
	st = stats_of(map);
	CHECK_EQ(st.races, 1);
	CHECK_EQ(st.entries, 1);
	CHECK_EQ(st.successes, 2);
	CHECK_EQ(ref_of(map, id), 2);
	CHECK_EQ(ftrace_stackmap_id_limit(map), 2);	/* the loser's id is parked with its record */
	ftrace_stackmap_read_lock(map);
	CHECK(!ftrace_stackmap_lookup(map, (u32)(1 - id), &s, NULL), "parked id must not be exported");
	ftrace_stackmap_read_unlock(map);

	/* The parked record (8 frames of room) is reused: the next new stack takes its id. */
	fill(ips, 8, 43);
	id2 = ftrace_stackmap_get_id(map, ips, 8);
	CHECK_EQ(id2, 1 - id);
	CHECK_EQ(ftrace_stackmap_id_limit(map), 2);
	/* Too big for a parked record: a fresh one is taken. */
	fill(ips, 16, 44);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 16), 2);
	st = stats_of(map);
	CHECK_EQ(st.lost_ids, 0);
	CHECK_EQ(st.entries, 3);

	/* Two nested levels: the outer loser finds the spare taken and abandons its record. */
	fill(hook_ips, 8, 45);
	hook_depth = 0;
	hook_max_depth = 2;
	shim_cmpxchg_hook = nested_insert_hook;
	id = ftrace_stackmap_get_id(map, hook_ips, 8);
	shim_cmpxchg_hook = NULL;
	CHECK_EQ(hook_depth, 2);
	CHECK_EQ(id, hook_ids[1]);
	CHECK_EQ(id, hook_ids[2]);
	st = stats_of(map);
	CHECK_EQ(st.races, 3);
	CHECK_EQ(st.lost_ids, 1);
	CHECK_EQ(ref_of(map, id), 3);
	ftrace_stackmap_destroy(map);
}

/*
 * Definitions (ftrace_stackmap_claim_def()): one claim per stored stack, given back by
 * unclaim, all dropped by forget_defs and by a reset; the mark never shows in an id, a
 * lookup or the stats.
 */
static void test_defs(void)
{
	struct ftrace_stackmap *map = new_map(10);
	struct ftrace_stackmap_stack s;
	unsigned long ips[8];
	int a, b;

	fill(ips, 8, 1);
	a = ftrace_stackmap_get_id(map, ips, 8);
	fill(ips, 8, 2);
	b = ftrace_stackmap_get_id(map, ips, 8);
	CHECK(a == 0 && b == 1, "ids %d %d", a, b);
	CHECK(ftrace_stackmap_claim_def(map, b), "first claim of b");
	CHECK(!ftrace_stackmap_claim_def(map, b), "second claim of b");
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 8), b);	/* the hit path masks the mark */
	ftrace_stackmap_read_lock(map);
	CHECK(ftrace_stackmap_lookup(map, b, &s, NULL), "lookup b");
	ftrace_stackmap_read_unlock(map);
	CHECK_EQ(s.id, b);
	CHECK_EQ(s.nr, 8);
	CHECK_EQ(s.ref_count, 2);
	CHECK(!ftrace_stackmap_claim_def(map, 2), "id 2 was never handed out");
	CHECK(!ftrace_stackmap_claim_def(map, 1024), "id past the capacity");
	CHECK(ftrace_stackmap_claim_def(map, a), "a is independent of b");

	ftrace_stackmap_unclaim_def(map, b);
	CHECK(ftrace_stackmap_claim_def(map, b), "claim after unclaim");
	CHECK(!ftrace_stackmap_claim_def(map, a), "unclaim of b left a claimed");

	ftrace_stackmap_read_lock(map);
	ftrace_stackmap_forget_defs(map);
	ftrace_stackmap_read_unlock(map);
	CHECK(ftrace_stackmap_claim_def(map, a), "claim of a after forget");
	CHECK(ftrace_stackmap_claim_def(map, b), "claim of b after forget");

	/* The insert path, racing with itself, also masks the mark of the winner's record. */
	fill(ips, 8, 1);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 8), a);

	CHECK_EQ(ftrace_stackmap_reset(map, NULL, NULL), 0);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 8), 0);
	CHECK(ftrace_stackmap_claim_def(map, 0), "claim after reset");
	ftrace_stackmap_destroy(map);
}

/*
 * The memory line is what the map really allocated (counted by the shim), less the map's
 * header, and follows the formula of Documentation/trace/ftrace-stackmap.rst at any number
 * of possible CPUs (64-bit): 152 bytes per stack of capacity, and per CPU 64 bytes plus 8 per
 * cache slot, where a CPU has the largest power of two of slots within capacity / (2 * CPUs),
 * at least 32.
 */
static u64 slots_per_cpu(u64 cap, unsigned int cpus)
{
	u64 share = cap / (2 * cpus), slots = 32;

	while (slots * 2 <= share)
		slots *= 2;
	return slots;
}

static void test_stats_memory(void)
{
	static const unsigned int cpus[] = { 1, 2, 8, 64, 256, 1024 };
	struct ftrace_stackmap *map;
	struct ftrace_stackmap_stats st;
	size_t before, header = 0;
	unsigned int i, bits;

	for (bits = 10; bits <= 14; bits += 4) {
		for (i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
			u64 cap = 1ULL << bits, formula;

			shim_set_nr_cpus(cpus[i]);
			before = shim_allocated_bytes();
			map = new_map(bits);
			st = stats_of(map);
			formula = cap * (2 * sizeof(unsigned long) + FTRACE_STACKMAP_BYTES_PER_STACK + 4 + 4) +
				  cpus[i] * (slots_per_cpu(cap, cpus[i]) * sizeof(unsigned long) + 8 * 8);
			CHECK(st.memory == formula, "bits %u, %u cpus: memory %llu, formula %llu",
			      bits, cpus[i], (unsigned long long)st.memory,
			      (unsigned long long)formula);
			if (!header)
				header = shim_allocated_bytes() - before - st.memory;
			CHECK(shim_allocated_bytes() - before == st.memory + header,
			      "bits %u, %u cpus: allocated %zu, memory %llu + header %zu", bits,
			      cpus[i], shim_allocated_bytes() - before,
			      (unsigned long long)st.memory, header);
			ftrace_stackmap_destroy(map);
			CHECK_EQ(shim_allocated_bytes(), before);
		}
	}
	CHECK(header > 0 && header < 1024, "header %zu", header);
	shim_set_nr_cpus(4);
}

int main(void)
{
	shim_set_nr_cpus(4);
	if (shim_thread_register(0)) {
		fprintf(stderr, "cannot register\n");
		return 2;
	}
	run_test("create_clamps_bits", test_create_clamps);
	run_test("einval_null_map_zero_depth", test_einval);
	run_test("e2big_at_65_never_truncates", test_e2big_never_truncates);
	run_test("same_stack_same_id_dense_ids", test_same_stack_same_id_dense);
	run_test("exact_refcounts_summed_over_cpus", test_exact_refcounts);
	run_test("reset_einval_ebusy_generation", test_reset);
	run_test("enospc_ids_full_drops_counted", test_enospc_ids_full);
	run_test("enospc_storage_full_drops_counted", test_enospc_storage_full);
	run_test("publish_race_gives_one_id_and_parks", test_publish_race_one_id);
	run_test("stats_memory_accounting", test_stats_memory);
	run_test("defs_one_claim_per_stack", test_defs);
	return check_summary("unit");
}
