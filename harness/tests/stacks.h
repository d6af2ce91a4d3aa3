/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthetic kernel stacks for the stress test and the benchmark: paths through a random
 * call tree (outer frames shared by many stacks, as in a real kernel), innermost frame
 * first, with a chosen depth mix, drawn with Zipf popularity.
 */
#ifndef HARNESS_STACKS_H
#define HARNESS_STACKS_H

#include <stdint.h>

#define STACKS_MAX_DEPTH	64

/* Depth mixes: a fixed depth (1..64) or the realistic mix (mean ~13, mostly 8-24, tail 64). */
#define STACKS_DEPTH_REALISTIC	0

struct stackset {
	unsigned int n;			/* distinct stacks */
	unsigned int *nr;		/* depth of stack i */
	unsigned long **ips;		/* frames of stack i, innermost first */
	double *cdf;			/* Zipf cumulative distribution over i */
	unsigned int *index;		/* content hash table: slot -> i + 1, 0 = empty */
	unsigned int index_mask;
	double mean_depth;
};

static inline uint64_t rng_next(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static inline double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * Generate @n distinct stacks with depth mix @depth (STACKS_DEPTH_REALISTIC or 1..64) and
 * Zipf exponent @zipf_s (0 = uniform) from @seed. Returns 0 or -ENOMEM.
 */
int stackset_generate(struct stackset *set, unsigned int n, int depth, double zipf_s,
		      uint64_t seed);
void stackset_free(struct stackset *set);
/* A stack index drawn with Zipf popularity. */
unsigned int stackset_pick(const struct stackset *set, uint64_t *rng);
/* Index of the stack with these frames, or -1. */
int stackset_find(const struct stackset *set, const unsigned long *ips, unsigned int nr);

#endif /* HARNESS_STACKS_H */
