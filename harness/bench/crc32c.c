// SPDX-License-Identifier: GPL-2.0
/*
 * CRC32C with the SSE4.2 instruction, one 8-byte word per step, one lane: what a CPU with
 * that instruction offers (the kernel of 6.12 has no NMI-safe interface to it). Built with
 * -msse4.2, apart from the files built as kernel code.
 */
#include <nmmintrin.h>

#include "designs.h"

uint32_t bench_crc32c(const unsigned long *ips, unsigned int nr, uint32_t seed)
{
	uint64_t c = seed;
	unsigned int i;

	for (i = 0; i < nr; i++)
		c = _mm_crc32_u64(c, ips[i]);
	return (uint32_t)c;
}
