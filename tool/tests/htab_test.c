// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of src/htab.[ch]: growth, collisions, many keys, slot iteration. Prints one
 * "ok NAME" or "not ok NAME: why" line per check (tests/run.sh counts them) and exits 1 when
 * a check failed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "htab.h"

static int failed;

static void check(int cond, const char *name, const char *why)
{
	if (cond) {
		printf("ok %s\n", name);
	} else {
		printf("not ok %s: %s\n", name, why);
		failed = 1;
	}
}

/* Entries: 64-bit keys in a dense array; the hash is chosen per test. */
struct keys {
	uint64_t *v;
	size_t n, cap;
	uint64_t (*hash)(uint64_t key);
	size_t eq_calls;
};

static int key_eq(const void *ctx, uint32_t idx, const void *key)
{
	struct keys *k = (struct keys *)ctx;

	k->eq_calls++;
	return k->v[idx] == *(const uint64_t *)key;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t hash_mix(uint64_t key)
{
	return mix(key);
}

static uint64_t hash_const(uint64_t key)
{
	(void)key;
	return 42;
}

/* differ only in the high 32 bits, which htab does not store */
static uint64_t hash_high(uint64_t key)
{
	return key << 32 | 7;
}

/* Find or add @key; return its index, or HTAB_NONE on error. */
static uint32_t add(struct htab *t, struct keys *k, uint64_t key, int *added)
{
	uint64_t h = k->hash(key);
	uint32_t idx;
	size_t pos;

	*added = 0;
	if (htab_reserve(t))
		return HTAB_NONE;
	idx = htab_find(t, h, key_eq, k, &key, &pos);
	if (idx != HTAB_NONE)
		return idx;
	if (k->n == k->cap) {
		size_t ncap = k->cap ? k->cap * 2 : 16;
		uint64_t *n = realloc(k->v, ncap * sizeof(*n));

		if (!n)
			return HTAB_NONE;
		k->v = n;
		k->cap = ncap;
	}
	k->v[k->n] = key;
	htab_insert_at(t, pos, h, (uint32_t)k->n);
	*added = 1;
	return (uint32_t)k->n++;
}

static uint32_t find(const struct htab *t, struct keys *k, uint64_t key)
{
	return htab_find(t, k->hash(key), key_eq, k, &key, NULL);
}

/* Insert @n keys (key i = keyf(i)), checking the table after every insert; then look up. */
static void run(const char *name, size_t min_cap, size_t n, uint64_t (*hash)(uint64_t),
		uint64_t salt)
{
	struct keys k = {.hash = hash};
	struct htab t;
	size_t i, cap_prev = 0, grows = 0, seen;
	const char *why = NULL;
	uint8_t *visited;
	int added;

	htab_init(&t, min_cap);
	for (i = 0; i < n && !why; i++) {
		uint64_t key = mix(i ^ salt);

		if (add(&t, &k, key, &added) != i || !added)
			why = "a new key did not get the next index";
		else if (t.used != i + 1)
			why = "used is not the number of keys";
		else if (t.used * 2 > htab_cap(&t))
			why = "load factor above 1/2";
		else if (htab_cap(&t) & (htab_cap(&t) - 1))
			why = "capacity not a power of two";
		if (htab_cap(&t) != cap_prev) {
			if (cap_prev && htab_cap(&t) != cap_prev * 2)
				why = "growth did not double the capacity";
			if (!cap_prev && htab_cap(&t) != (min_cap ? min_cap : 64))
				why = "first capacity is not min_cap";
			cap_prev = htab_cap(&t);
			grows++;
			/* every key inserted so far is still found after a growth */
			for (size_t j = 0; j <= i && !why; j++)
				if (find(&t, &k, k.v[j]) != j)
					why = "a key was lost by a growth";
		}
	}
	for (i = 0; i < n && !why; i++) {
		if (find(&t, &k, mix(i ^ salt)) != i)
			why = "a key is not found";
		else if (add(&t, &k, mix(i ^ salt), &added) != i || added)
			why = "adding a key again gave a new entry";
	}
	for (i = 0; i < n && !why; i++)
		if (find(&t, &k, mix((i + n) ^ salt)) != HTAB_NONE)
			why = "a key never added is found";
	if (!why && t.used != n)
		why = "adding known keys changed used";
	/* each entry sits in exactly one slot */
	visited = calloc(n + 1, 1);
	seen = 0;
	for (i = 0; !why && visited && i < htab_cap(&t); i++) {
		uint32_t idx = htab_slot(&t, i);

		if (idx == HTAB_NONE)
			continue;
		if (idx >= n || visited[idx]++)
			why = "slot iteration gave a bad or repeated index";
		seen++;
	}
	if (!why && (!visited || seen != n))
		why = "slot iteration missed entries";
	free(visited);
	if (!why && n > 64 && grows < 2)
		why = "the table never grew";
	check(!why, name, why);
	htab_free(&t);
	free(k.v);
}

int main(void)
{
	struct keys k = {.hash = hash_mix};
	struct htab t;
	uint64_t key = 1;
	size_t pos = 99, cap;
	int added, i;

	htab_init(&t, 0);
	check(htab_cap(&t) == 0 && htab_find(&t, 1, key_eq, &k, &key, &pos) == HTAB_NONE &&
		      pos == 0,
	      "empty", "a table never reserved finds something");
	check(htab_reserve(&t) == 0 && htab_cap(&t) == 64, "default-capacity",
	      "first capacity of min_cap 0 is not 64");
	for (i = 0; i < 32; i++)
		add(&t, &k, (uint64_t)i, &added);
	cap = htab_cap(&t);
	check(cap == 64 && t.used == 32, "no-early-growth", "grew below half full");
	add(&t, &k, 1000, &added);
	check(htab_cap(&t) == 128 && find(&t, &k, 1000) == 32, "growth-at-half",
	      "the 33rd key of 64 slots did not double the table");
	htab_free(&t);
	check(htab_cap(&t) == 0 && t.used == 0 && find(&t, &k, 1000) == HTAB_NONE, "free",
	      "a freed table still holds entries");
	k.n = 0;
	check(add(&t, &k, 5, &added) == 0 && added && find(&t, &k, 5) == 0, "reuse-after-free",
	      "a freed table cannot be used again");
	htab_free(&t);
	free(k.v);

	run("growth-from-8", 8, 5000, hash_mix, 1);
	run("collisions-same-hash", 0, 700, hash_const, 2);
	run("collisions-high-bits", 0, 700, hash_high, 3);
	run("many-keys", 1024, 1000000, hash_mix, 4);

	/* stored hash bits are compared first: distinct hashes never reach the callback */
	k = (struct keys){.hash = hash_mix};
	htab_init(&t, 0);
	for (i = 0; i < 1000; i++)
		add(&t, &k, (uint64_t)i, &added);
	k.eq_calls = 0;
	for (i = 1000; i < 2000; i++)
		find(&t, &k, (uint64_t)i);
	check(k.eq_calls < 10, "hash-filter", "the callback ran for keys with other hashes");
	htab_free(&t);
	free(k.v);
	return failed;
}
