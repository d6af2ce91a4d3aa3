// SPDX-License-Identifier: GPL-2.0
/*
 * Replay of a reader folding the reference counts while a new stack is half inserted just
 * after a reset (issue 21, item 2). Like whitebox.c it includes kernel/trace/ftrace_stackmap.c
 * unchanged, so it can stop an insert between its steps: the id is handed out
 * (ftrace_stackmap_new_rec()), then a reader opens an export (one fold of the counts, as
 * stack_map and stack_map_bin do at open()), then the insert completes (the record is parked
 * as this CPU's spare and the next insert on this CPU publishes it, the path an insert that
 * lost a race takes). The previous generation's count of the id must show up nowhere.
 *
 * Build (as the whitebox test, from harness/):
 *   gcc -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter \
 *	-Wno-sign-compare -Wno-implicit-fallthrough -Wno-missing-field-initializers \
 *	-Ishim/include -Ibuild/src/include -Ibuild/src/kernel/trace -Itests \
 *	tests/replay_reset_counts.c build/plain/xxhash.o build/plain/shim.o \
 *	-o build/plain/replay_reset_counts -lpthread -lm -lrt
 */
#include "ftrace_stackmap.c"

#include <stdio.h>
#include <stdlib.h>

#include "../shim/shim.h"
#include "check.h"

CHECK_DEFINE();

#define OLD_REFS	5000
#define SENTINEL	0xdeadbeefU

static void fill(unsigned long *ips, unsigned int nr, unsigned long tag)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		ips[i] = 0xffffffff81000000UL + tag * 0x10000 + i * 8;
}

/*
 * Generation 0: stack A gets id 0 and OLD_REFS references, flushed into counts[0] by an
 * eviction (the stack with id "slots per CPU" shares id 0's cache slot); then a reset.
 */
static struct ftrace_stackmap *old_generation(void)
{
	struct ftrace_stackmap *map = ftrace_stackmap_create(10);
	unsigned long ips[4];
	u32 i, slots;

	slots = map->cache_mask + 1;
	fill(ips, 4, 1);
	for (i = 0; i < OLD_REFS; i++)
		CHECK_EQ(ftrace_stackmap_get_id(map, ips, 4), 0);
	for (i = 1; i <= slots; i++) {
		fill(ips, 4, 100 + i);
		CHECK_EQ(ftrace_stackmap_get_id(map, ips, 4), (int)i);
	}
	CHECK_EQ((u32)atomic_read(&map->counts[0]), OLD_REFS);
	CHECK_EQ(ftrace_stackmap_reset(map, NULL, NULL), 0);
	return map;
}

/* The whole interleaving, with the checks an export relies on. */
static void test_fold_during_insert_after_reset(void)
{
	struct ftrace_stackmap *map = old_generation();
	struct ftrace_stackmap_stack s;
	struct ftrace_stackmap_rec *rec;
	unsigned long ips[4];
	u32 *counts, limit, i;

	/* A reset leaves no count behind: the ids of the new generation start from zero. */
	CHECK_EQ((u32)atomic_read(&map->counts[0]), 0);

	/* Step 1: an insert of stack B has been handed id 0; nothing is published yet. */
	rec = ftrace_stackmap_new_rec(map, 4);
	CHECK(rec != NULL, "no record");
	if (!rec)
		goto out;
	CHECK_EQ(rec->id, 0);

	/* Step 2: a reader opens an export: id limit, then one fold, under the read lock. */
	counts = malloc(ftrace_stackmap_capacity(map) * sizeof(*counts));
	for (i = 0; i < ftrace_stackmap_capacity(map); i++)
		counts[i] = SENTINEL;
	ftrace_stackmap_read_lock(map);
	limit = ftrace_stackmap_id_limit(map);
	CHECK_EQ(limit, 1);
	CHECK(!ftrace_stackmap_lookup(map, 0, &s, NULL), "id 0 published before its insert ended");
	ftrace_stackmap_fold_counts(map, counts);
	ftrace_stackmap_read_unlock(map);
	/* An id that was not published when the fold ran gets no count from it. */
	CHECK(counts[0] == SENTINEL, "fold gave the unpublished id 0 the count %u%s", counts[0],
	      counts[0] == OLD_REFS ? " (the previous generation's)" : "");

	/* Step 3: the insert completes: the record, parked, is published by the next insert. */
	rec->nr = 4;
	fill(rec->ips, 4, 2);
	ftrace_stackmap_park(map, rec);
	fill(ips, 4, 2);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 4), 0);

	/* Step 4: B was served once: that is its count, read now or in a later fold. */
	ftrace_stackmap_read_lock(map);
	CHECK(ftrace_stackmap_lookup(map, 0, &s, NULL), "id 0 not published");
	CHECK_EQ(s.ref_count, 1);
	for (i = 0; i < ftrace_stackmap_capacity(map); i++)
		counts[i] = SENTINEL;
	ftrace_stackmap_fold_counts(map, counts);
	CHECK_EQ(counts[0], 1);
	ftrace_stackmap_read_unlock(map);
	free(counts);
out:
	ftrace_stackmap_destroy(map);
}

/* Without a fold: the first reference of a new id after a reset counts from zero. */
static void test_first_ref_after_reset(void)
{
	struct ftrace_stackmap *map = old_generation();
	struct ftrace_stackmap_stack s;
	unsigned long ips[4];

	fill(ips, 4, 3);
	CHECK_EQ(ftrace_stackmap_get_id(map, ips, 4), 0);
	ftrace_stackmap_read_lock(map);
	CHECK(ftrace_stackmap_lookup(map, 0, &s, NULL), "id 0 not published");
	CHECK_EQ(s.ref_count, 1);
	ftrace_stackmap_read_unlock(map);
	ftrace_stackmap_destroy(map);
}

int main(void)
{
	shim_set_nr_cpus(2);
	if (shim_thread_register(0))
		return 2;
	run_test("fold_during_insert_after_reset", test_fold_during_insert_after_reset);
	run_test("first_ref_after_reset", test_first_ref_after_reset);
	return check_summary("replay_reset_counts");
}
