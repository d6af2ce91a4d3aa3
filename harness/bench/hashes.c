// SPDX-License-Identifier: GPL-2.0
/*
 * Hash functions for the benchmark: the kernel's jhash2() (include/linux/jhash.h), xxh64()
 * (lib/xxhash.c) and siphash() (lib/siphash.c, keyed by the seed), compiled unchanged
 * against the shim, and CRC32C with the SSE4.2 instruction (one 8-byte word per step, one
 * lane), which the kernel has no NMI-safe interface for. The map's own hash is in maphash.c.
 */
#include <nmmintrin.h>

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

uint32_t bench_crc32c(const unsigned long *ips, unsigned int nr, uint32_t seed)
{
	uint64_t c = seed;
	unsigned int i;

	for (i = 0; i < nr; i++)
		c = _mm_crc32_u64(c, ips[i]);
	return (uint32_t)c;
}
