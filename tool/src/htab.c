// SPDX-License-Identifier: GPL-2.0
/* htab: open-addressing hash index over a caller's dense entry array. See htab.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"

void htab_init(struct htab *t, size_t min_cap)
{
	memset(t, 0, sizeof(*t));
	t->min_cap = min_cap;
}

void htab_free(struct htab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->mask = 0;
	t->used = 0;
}

int htab_grow(struct htab *t)
{
	size_t ncap, i;
	struct htab_slot *n;

	if (t->used >= UINT32_MAX - 1)
		return -E2BIG;
	ncap = t->slots ? (t->mask + 1) * 2 : (t->min_cap ? t->min_cap : 64);
	/* positions come from the 32 stored hash bits */
	if (ncap > ((size_t)1 << 31) * 2 || ncap > SIZE_MAX / sizeof(*n))
		return -E2BIG;
	n = calloc(ncap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (i = 0; t->slots && i <= t->mask; i++) {
		size_t j;

		if (!t->slots[i].idx1)
			continue;
		j = t->slots[i].hash & (ncap - 1);
		while (n[j].idx1)
			j = (j + 1) & (ncap - 1);
		n[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = n;
	t->mask = ncap - 1;
	return 0;
}
