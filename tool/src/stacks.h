/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stacks - what the stack ids of a recording stand for: the recording's own stack definitions
 * (kernel_stack_def records, `<stack_def N gen G switch S>` blocks) and the stack map (stack_map_bin).
 *
 * With the kernel's stack_map_defs set, the first use of each stack in a map writes a definition
 * just before the id event, on the same CPU: after a reset of the map (a new generation, and ids
 * start again from 0), and after each switch to the instance's other map, whose ids carry the
 * switch count modulo 8192 in their high bits (the generation stays: stackmap.1, DESCRIPTION);
 * the definitions of kernels with switches carry the full count. Another CPU may
 * use the id a few events before that definition is committed, so every definition is
 * collected first (stk_add_def(), the input layer's first pass over the recording), then the
 * table is closed (stk_finish()) and only read while the references are resolved
 * (stk_resolve(), from any thread).
 *
 * The rules it implements (which generation a reference belongs to, definitions before the
 * map, the map's generation, repeated and disagreeing definitions) are written down once, in
 * the man page (stackmap.1, INPUT, "Stack definitions"); stk_gen_at() and stk_resolve() are
 * them. The generations are ordered by their first definition's timestamp (gens). A
 * definition's key is (gen, sw, id), sw its full switch count, or the id's bits 18 and up when
 * the recording's definitions have none; a reference gets the switch count of stk_switch_at().
 * Each distinct stack defined under a key is one entry of defs; without full counts an id
 * comes back with another stack after 8192 map switches in one generation, so every definition
 * read is also kept as a stk_occ (when, which entry), and stk_finish() turns them into each
 * key's timeline: its definitions in time order, a run of one stack kept once (span). The map's
 * records get ev_idstack entries of their own (mstk) so that every resolved stack has one
 * dense index. This library never prints; functions return 0 or a negative errno.
 */
#ifndef STACKS_H
#define STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "htab.h"
#include "smbin.h"

/* One definition as a reader found it (the frames are copied by stk_add_def()). */
struct stk_def {
	uint32_t id, gen;
	uint32_t sw; /* the full switch count, when sw_known */
	int sw_known;
	uint64_t ts_ns;
	uint32_t nr; /* 1 to SMBIN_MAX_DEPTH */
	const uint64_t *addrs; /* addresses (trace.dat), or NULL and: */
	const char *const *texts; /* frame texts (trace text), not NUL-terminated, */
	const size_t *lens; /* their lengths */
};

/* A definition's place in its generation's run of switch counts. */
struct stk_swt {
	uint64_t ts_ns;
	uint32_t gen, sw;
};

struct stk_gen {
	uint64_t first_ts; /* the earliest definition of the generation */
	uint32_t gen;
};

/* A definition read: when, its key (the key's first entry of defs) and its stack. */
struct stk_occ {
	uint64_t ts_ns;
	uint32_t head, def;
};

/* stk_finish(): the timeline of a key, occ[first] to occ[first + n - 1], ts increasing. */
struct stk_span {
	uint32_t first, n;
};

struct stk_set {
	/* distinct definitions in the order first seen; index i is ev_idstack.index i */
	struct ev_idstack *defs;
	size_t ndefs, defs_cap;
	uint64_t *def_ts; /* per definition: its earliest timestamp */
	uint32_t *def_sw; /* per definition: the sw of its key */
	size_t *def_first; /* per definition: its first frame in addrs or toffs */
	uint32_t *def_next; /* per definition: the next of its key (HTAB_NONE: none) */
	struct htab idx; /* over the first definition of each key, hashed by it */
	struct stk_occ *occ; /* every definition read; stk_finish(): the timelines */
	size_t nocc, occ_cap;
	struct stk_span *span; /* stk_finish(): per first definition of a key */
	/* definitions with a full switch count (then all are), without one */
	size_t sw_defs, nosw_defs;
	/* stk_finish(): per definition read, by (gen, ts): the highest switch count so far */
	struct stk_swt *swt;
	size_t nswt;
	uint64_t *addrs; /* address frames, back to back */
	size_t naddrs, addrs_cap;
	char *text; /* text frames, each NUL-terminated */
	size_t tlen, tcap;
	size_t *toffs; /* start of each text frame in text */
	size_t ntoffs, toffs_cap;
	const char **tptrs; /* stk_finish(): the pointers behind defs[i].frames */
	size_t addr_defs; /* definitions with addresses */
	/* stk_finish(): generations ordered by first_ts (ties by number) */
	struct stk_gen *gens;
	size_t ngens;
	/* the map (NULL when none), its generation and a record per map stack */
	const struct smbin_map *map;
	uint32_t map_gen;
	int map_sw_known; /* the map's switch count is known (version 2) and so are the defs' */
	uint32_t defs_sw_max; /* the highest switch count defined in map_gen (with sw_defs) */
	struct ev_idstack *mstk; /* mstk[i] stands for map->stacks[i], index ndefs + i */
	int finished;
	uint64_t dup_differ; /* stacks defined under a key that already had another */
	size_t map_differ; /* keys whose latest definition differs from the map's record */
	uint32_t map_differ_id; /* the lowest such id */
};

void stk_init(struct stk_set *s);
void stk_free(struct stk_set *s);

/*
 * stk_add_def() - add a definition (before stk_finish()). Return 0, -ENOMEM, or -EINVAL for
 * a definition that does not fit the others (text and addresses, with and without a switch
 * count).
 */
int stk_add_def(struct stk_set *s, const struct stk_def *d);

/*
 * stk_finish() - close the table: order the generations, take @map (NULL: none; it must
 * outlive @s) of generation @map_gen, or, when @map_gen_known is 0, of the latest generation
 * with definitions. Return 0 or -ENOMEM.
 */
int stk_finish(struct stk_set *s, const struct smbin_map *map, int map_gen_known, uint32_t map_gen);

/* stk_total() - the number of stacks the table can resolve to (ev_idstack.index < it). */
static inline size_t stk_total(const struct stk_set *s)
{
	return s->ndefs + (s->map ? s->map->nr : 0);
}

/* stk_gen_at() - the generation of a reference at @ts_ns (the rule above). */
uint32_t stk_gen_at(const struct stk_set *s, uint64_t ts_ns);

/*
 * stk_switch_at() - the full switch count of id @id of generation @gen at @ts_ns: of the
 * counts with the id's bits, the nearest to the highest one defined in @gen up to @ts_ns
 * (before the first definition: the first one's). Without full counts: the id's bits.
 */
uint32_t stk_switch_at(const struct stk_set *s, uint32_t gen, uint64_t ts_ns, uint32_t id);

/*
 * stk_resolve() - what id @id of a reference at @ts_ns stands for (NULL: nothing); its gen.
 * Of several definitions of its key, the latest not after @ts_ns, else the earliest. The map
 * resolves it only when the map is of its generation and, when both switch counts are known,
 * holds its switch count.
 */
const struct ev_idstack *stk_resolve(const struct stk_set *s, uint64_t ts_ns, uint32_t id,
				     uint32_t *gen);

/* stk_resolver() - the table as a reader's resolver (events.h); after stk_finish(). */
struct ev_resolver stk_resolver(const struct stk_set *s);

#endif /* STACKS_H */
