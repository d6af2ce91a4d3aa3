// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic stacks (see stacks.h). A frame at level L of the call tree is identified by its
 * parent frame and a child number k < fanout(L) (few near the root, many at the innermost
 * frame, which is where events fire); its address is derived from that pair, so
 * the same path always gives the same frames and different paths share their outer frames
 * up to the level where they diverge. Distinct stacks are found by content.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t content_hash(const unsigned long *ips, unsigned int nr)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ nr;
	unsigned int i;

	for (i = 0; i < nr; i++)
		h = mix64(h ^ ips[i]);
	return h;
}

static unsigned int pick_depth(int depth, uint64_t *rng)
{
	double u1, u2, z, d;

	if (depth > 0)
		return (unsigned int)depth;
	/* 95%: log-normal around 11 (most of it 7..20); 5%: uniform 25..64. */
	if (rng_unit(rng) < 0.05)
		return 25 + (unsigned int)(rng_next(rng) % 40);
	u1 = rng_unit(rng);
	u2 = rng_unit(rng);
	if (u1 < 1e-12)
		u1 = 1e-12;
	z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
	d = exp(log(11.0) + 0.3 * z);
	if (d < 3)
		d = 3;
	if (d > 64)
		d = 64;
	return (unsigned int)(d + 0.5);
}

int stackset_find(const struct stackset *set, const unsigned long *ips, unsigned int nr)
{
	unsigned int slot = (unsigned int)content_hash(ips, nr) & set->index_mask;
	unsigned int i;

	while ((i = set->index[slot]) != 0) {
		i--;
		if (set->nr[i] == nr && !memcmp(set->ips[i], ips, nr * sizeof(*ips)))
			return (int)i;
		slot = (slot + 1) & set->index_mask;
	}
	return -1;
}

int stackset_generate(struct stackset *set, unsigned int n, int depth, double zipf_s,
		      uint64_t seed)
{
	unsigned long frames[STACKS_MAX_DEPTH], path[STACKS_MAX_DEPTH];
	uint64_t rng = seed ? seed : 1, parent;
	unsigned int i, l, nr, slot, fanout, tries = 0;
	double sum = 0, total_depth = 0;

	memset(set, 0, sizeof(*set));
	set->nr = calloc(n, sizeof(*set->nr));
	set->ips = calloc(n, sizeof(*set->ips));
	set->cdf = calloc(n, sizeof(*set->cdf));
	set->index_mask = 1;
	while (set->index_mask < 4 * n)
		set->index_mask <<= 1;
	set->index = calloc(set->index_mask, sizeof(*set->index));
	set->index_mask--;
	if (!set->nr || !set->ips || !set->cdf || !set->index)
		goto nomem;

	while (set->n < n) {
		if (++tries > 100 * n + 1000)
			goto nomem;	/* the depth mix cannot give that many stacks */
		nr = pick_depth(depth, &rng);
		parent = 0;
		for (l = 0; l < nr; l++) {
			/* Few callers near the root, more choices deeper down. */
			fanout = l + 1 == nr ? 4096 : 3 + 2 * l;
			parent = mix64(parent * 31 + l * 1000003 + rng_next(&rng) % fanout + 1);
			path[l] = 0xffffffff81000000UL + ((parent >> 20) & 0xffffff0UL) +
				  (parent & 0xf);
		}
		for (l = 0; l < nr; l++)
			frames[l] = path[nr - 1 - l];
		if (stackset_find(set, frames, nr) >= 0)
			continue;
		i = set->n;
		set->ips[i] = malloc(nr * sizeof(unsigned long));
		if (!set->ips[i])
			goto nomem;
		memcpy(set->ips[i], frames, nr * sizeof(unsigned long));
		set->nr[i] = nr;
		total_depth += nr;
		slot = (unsigned int)content_hash(frames, nr) & set->index_mask;
		while (set->index[slot])
			slot = (slot + 1) & set->index_mask;
		set->index[slot] = i + 1;
		set->n++;
	}

	for (i = 0; i < n; i++) {
		sum += zipf_s > 0 ? 1.0 / pow(i + 1, zipf_s) : 1.0;
		set->cdf[i] = sum;
	}
	for (i = 0; i < n; i++)
		set->cdf[i] /= sum;
	set->mean_depth = total_depth / n;
	return 0;

nomem:
	stackset_free(set);
	return -ENOMEM;
}

void stackset_free(struct stackset *set)
{
	unsigned int i;

	if (set->ips)
		for (i = 0; i < set->n; i++)
			free(set->ips[i]);
	free(set->ips);
	free(set->nr);
	free(set->cdf);
	free(set->index);
	memset(set, 0, sizeof(*set));
}

unsigned int stackset_pick(const struct stackset *set, uint64_t *rng)
{
	double u = rng_unit(rng);
	unsigned int lo = 0, hi = set->n - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (set->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
