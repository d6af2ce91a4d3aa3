// SPDX-License-Identifier: GPL-2.0
/*
 * Hash functions for the benchmark: the kernel's jhash2() (include/linux/jhash.h), xxh64()
 * (lib/xxhash.c) and siphash() (lib/siphash.c, keyed by the seed), compiled unchanged
 * against the shim and built as the kernel files are (no SSE). CRC32C with the SSE4.2
 * instruction is in crc32c.c, the map's own hash in maphash.c.
 */
#include <linux/jhash.h>
#include <linux/siphash.h>
#include <linux/xxhash.h>

#include "designs.h"

uint32_t bench_jhash2(const uint32_t *k, uint32_t length, uint32_t initval)
{
	return jhash2(k, length, initval);
}

uint64_t bench_xxh64(const void *p, size_t len, uint64_t seed)
{
	return xxh64(p, len, seed);
}

uint64_t bench_siphash(const void *p, size_t len, uint64_t seed)
{
	const siphash_key_t key = { { seed, ~seed } };

	return siphash(p, len, &key);
}

