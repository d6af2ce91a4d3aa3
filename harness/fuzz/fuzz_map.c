// SPDX-License-Identifier: GPL-2.0
/*
 * Differential fuzz target: bytes -> a sequence of insert / lookup / reset / export / CPU
 * switch / bulk-fill operations on a real stackmap (kernel/trace/ftrace_stackmap.c, included
 * unchanged) and on a trivial model (a list of distinct stacks with ids and counts). Any
 * difference aborts (libFuzzer) or is counted (fuzz/replay_main.c under gcc).
 *
 * The model predicts everything single-threaded use can show: ids are handed out densely in
 * order of first insertion; -ENOSPC when the ids or the record storage are used up or when
 * the 32 slots of the stack's probe window are all taken (the model reads the table to
 * decide that one case, which it cannot know otherwise); exact reference counts and stats.
 *
 * Input format: a stream of operations, each one opcode byte (low 3 bits) and its operands:
 *   0,1,2 insert   nr(byte, 0..69 used modulo 70) family(byte) mutate_at(byte)
 *   3     lookup   id(2 bytes, little-endian)
 *   4     reset    (the callback inserts and resets again: -EINVAL and -EBUSY expected)
 *   5     export   (walk every id and compare all stats)
 *   6     cpu      cpu(byte, modulo 4)
 *   7     fill     count(byte) depth(byte): insert count*4 new stacks of that depth
 */
#include "ftrace_stackmap.c"

#include <stdio.h>
#include <stdlib.h>

#include "../shim/shim.h"

#define FZ_BITS		10
#define FZ_CAP		(1U << FZ_BITS)
#define FZ_MAX_MODEL	(FZ_CAP + 8)

struct fz_stack {
	unsigned int nr;
	unsigned long ips[FTRACE_STACKMAP_MAX_DEPTH];
	unsigned long count;
};

struct fz_model {
	struct fz_stack st[FZ_MAX_MODEL];	/* index = id */
	unsigned int next_id;
	unsigned long arena_used;
	u64 successes, hits, drops, too_deep, generation;
	unsigned long fill_serial;
	int index[4 * FZ_MAX_MODEL];		/* hash of frames -> id + 1, 0 = empty */
};

void (*fuzz_report)(const char *msg);
static struct fz_model *model;
static struct ftrace_stackmap *fz_map;
static bool fz_failed;

static void fz_fail(const char *what, long got, long want)
{
	char msg[200];

	snprintf(msg, sizeof(msg), "fuzz mismatch: %s: got %ld, expected %ld", what, got, want);
	fz_failed = true;
	if (fuzz_report) {
		fuzz_report(msg);
		return;
	}
	fprintf(stderr, "%s\n", msg);
	abort();
}

#define FZ_EQ(what, got, want)							\
	do {									\
		long __g = (long)(got), __w = (long)(want);			\
		if (__g != __w)							\
			fz_fail(what, __g, __w);				\
	} while (0)

static void fz_frames(unsigned long *ips, unsigned int nr, unsigned int family,
		      unsigned int mutate_at)
{
	unsigned int i;

	for (i = 0; i < nr && i < FTRACE_STACKMAP_MAX_DEPTH + 8; i++)
		ips[i] = 0xffffffff81000000UL + ((family * 131 + i * 7) % 61) * 16 + family % 3;
	if (mutate_at < nr)
		ips[mutate_at] ^= 0x100;
}

static unsigned int fz_home(const unsigned long *ips, unsigned int nr)
{
	static const u64 key[4] = { 77, 78, 79, 80 };	/* the model's own, fixed lanes */

	return (unsigned int)ftrace_stackmap_hash(ips, nr, key) % (4 * FZ_MAX_MODEL);
}

static int fz_find(const unsigned long *ips, unsigned int nr)
{
	unsigned int slot = fz_home(ips, nr);
	int i;

	while ((i = model->index[slot]) != 0) {
		i--;
		if (model->st[i].nr == nr && !memcmp(model->st[i].ips, ips, nr * sizeof(*ips)))
			return i;
		slot = (slot + 1) % (4 * FZ_MAX_MODEL);
	}
	return -1;
}

static void fz_index(int id)
{
	unsigned int slot = fz_home(model->st[id].ips, model->st[id].nr);

	while (model->index[slot])
		slot = (slot + 1) % (4 * FZ_MAX_MODEL);
	model->index[slot] = id + 1;
}

/* The one thing the model cannot know: are all slots of this stack's probe window used? */
static bool fz_window_full(const unsigned long *ips, unsigned int nr)
{
	u64 hash = ftrace_stackmap_hash(ips, nr, fz_map->seed);
	u32 idx = (u32)hash & fz_map->table_mask, k;

	for (k = 0; k < FTRACE_STACKMAP_MAX_PROBE; k++, idx = (idx + 1) & fz_map->table_mask)
		if (!fz_map->table[idx])
			return false;
	return true;
}

static void fz_insert(const unsigned long *ips, unsigned int nr)
{
	int got = ftrace_stackmap_get_id(fz_map, ips, nr), known, want;
	unsigned long words;

	if (nr == 0) {
		FZ_EQ("insert nr 0", got, -EINVAL);
		return;
	}
	if (nr > FTRACE_STACKMAP_MAX_DEPTH) {
		FZ_EQ("insert too deep", got, -E2BIG);
		model->too_deep++;
		return;
	}
	known = fz_find(ips, nr);
	if (known >= 0) {
		FZ_EQ("insert known stack", got, known);
		model->st[known].count++;
		model->successes++;
		model->hits++;
		return;
	}
	words = 1 + nr;
	if (model->next_id >= FZ_CAP || model->arena_used + words > fz_map->arena_words ||
	    got == -ENOSPC) {
		/* A probe-window drop is only allowed when the window really is full. */
		if (model->next_id < FZ_CAP && model->arena_used + words <= fz_map->arena_words &&
		    !fz_window_full(ips, nr))
			fz_fail("-ENOSPC with room and a free slot in the window", got, -ENOSPC);
		FZ_EQ("insert into full map", got, -ENOSPC);
		model->drops++;
		return;
	}
	want = (int)model->next_id;
	FZ_EQ("insert new stack (dense id)", got, want);
	if (got != want)
		return;
	model->st[want].nr = nr;
	memcpy(model->st[want].ips, ips, nr * sizeof(*ips));
	model->st[want].count = 1;
	fz_index(want);
	model->next_id++;
	model->arena_used += words;
	model->successes++;
}

static void fz_lookup(u32 id)
{
	struct ftrace_stackmap_stack s;
	bool got;

	ftrace_stackmap_read_lock(fz_map);
	got = ftrace_stackmap_lookup(fz_map, id, &s, NULL);
	ftrace_stackmap_read_unlock(fz_map);
	FZ_EQ("lookup presence", got, id < model->next_id);
	if (!got || id >= model->next_id)
		return;
	FZ_EQ("lookup id", s.id, id);
	FZ_EQ("lookup nr", s.nr, model->st[id].nr);
	FZ_EQ("lookup ref", s.ref_count, model->st[id].count);
	FZ_EQ("lookup frames", memcmp(s.ips, model->st[id].ips, s.nr * sizeof(long)), 0);
}

static void fz_export(void)
{
	struct ftrace_stackmap_stats st;
	u32 id, limit;

	ftrace_stackmap_read_lock(fz_map);
	limit = ftrace_stackmap_id_limit(fz_map);
	ftrace_stackmap_get_stats(fz_map, &st);
	FZ_EQ("generation", ftrace_stackmap_generation(fz_map), model->generation);
	ftrace_stackmap_read_unlock(fz_map);
	FZ_EQ("id limit", limit, model->next_id);
	for (id = 0; id < limit + 2; id++)
		fz_lookup(id);
	/* The fold gives every id's count at once: the same as the model's. */
	{
		u32 *counts = calloc(ftrace_stackmap_capacity(fz_map), sizeof(*counts));

		if (!counts)
			abort();
		ftrace_stackmap_read_lock(fz_map);
		ftrace_stackmap_fold_counts(fz_map, counts);
		ftrace_stackmap_read_unlock(fz_map);
		for (id = 0; id < limit; id++)
			FZ_EQ("folded ref", counts[id], model->st[id].count);
		free(counts);
	}
	FZ_EQ("stats entries", st.entries, model->next_id);
	FZ_EQ("stats successes", st.successes, model->successes);
	FZ_EQ("stats hits", st.hits, model->hits);
	FZ_EQ("stats drops", st.drops, model->drops);
	FZ_EQ("stats too_deep", st.too_deep, model->too_deep);
	FZ_EQ("stats races", st.races, 0);
	FZ_EQ("stats lost_ids", st.lost_ids, 0);
	FZ_EQ("stats storage_used", st.storage_used, 8 * model->arena_used);
	FZ_EQ("stats generation", st.generation, model->generation);
}

static void fz_reset_cb(void *arg)
{
	unsigned long ips[2] = { 1, 2 };

	(void)arg;
	FZ_EQ("insert during reset", ftrace_stackmap_get_id(fz_map, ips, 2), -EINVAL);
	FZ_EQ("reset during reset", ftrace_stackmap_reset(fz_map, NULL, NULL), -EBUSY);
}

static void fz_reset(void)
{
	u64 gen = model->generation;
	unsigned long serial = model->fill_serial;

	FZ_EQ("reset", ftrace_stackmap_reset(fz_map, fz_reset_cb, NULL), 0);
	memset(model, 0, sizeof(*model));
	model->arena_used = 1;
	model->generation = gen + 1;
	model->fill_serial = serial;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool registered;
	unsigned long ips[FTRACE_STACKMAP_MAX_DEPTH + 8];
	size_t pos = 0;
	unsigned int op, nr, i, n;

	if (!registered) {
		shim_set_nr_cpus(4);
		shim_thread_register(0);
		registered = true;
	}
	shim_thread_set_cpu(0);
	if (!model)
		model = malloc(sizeof(*model));
	memset(model, 0, sizeof(*model));
	model->arena_used = 1;
	shim_set_seed(0xfeed);
	fz_map = ftrace_stackmap_create(FZ_BITS);
	if (!fz_map)
		return 0;
	fz_failed = false;

	while (pos < size && !fz_failed) {
		op = data[pos++] & 7;
		switch (op) {
		case 0: case 1: case 2:
			if (pos + 3 > size)
				goto out;
			nr = data[pos] % 70;
			fz_frames(ips, nr, data[pos + 1], data[pos + 2]);
			pos += 3;
			fz_insert(ips, nr);
			break;
		case 3:
			if (pos + 2 > size)
				goto out;
			fz_lookup((u32)data[pos] | (u32)data[pos + 1] << 8);
			pos += 2;
			break;
		case 4:
			fz_reset();
			break;
		case 5:
			fz_export();
			break;
		case 6:
			if (pos + 1 > size)
				goto out;
			shim_thread_set_cpu(data[pos++] % 4);
			break;
		case 7:
			if (pos + 2 > size)
				goto out;
			n = data[pos] * 4u;
			nr = 1 + data[pos + 1] % FTRACE_STACKMAP_MAX_DEPTH;
			pos += 2;
			for (i = 0; i < n && !fz_failed; i++) {
				model->fill_serial++;
				fz_frames(ips, nr, 1000, 255);
				ips[0] = 0xffffffffa0000000UL + model->fill_serial * 8;
				fz_insert(ips, nr);
			}
			break;
		}
	}
out:
	if (!fz_failed)
		fz_export();
	ftrace_stackmap_destroy(fz_map);
	fz_map = NULL;
	return 0;
}
