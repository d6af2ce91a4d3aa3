// SPDX-License-Identifier: GPL-2.0
/*
 * The map's own hash, for the hash-only benchmark: ftrace_stackmap.c is included unchanged so that
 * the function measured is the kernel's ftrace_stackmap_hash(), built as the map is. The Makefile
 * keeps only bench_stackmap_hash() global in this object (objcopy), so the included copy of
 * the map does not clash with the one the benchmark links.
 */
#include "ftrace_stackmap.c"

uint64_t bench_stackmap_hash(const unsigned long *ips, unsigned int nr, uint64_t seed);

uint64_t bench_stackmap_hash(const unsigned long *ips, unsigned int nr, uint64_t seed)
{
	u64 lanes[4];

	ftrace_stackmap_hash_seed(lanes, seed);
	return ftrace_stackmap_hash(ips, nr, lanes);
}
