/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The designs the benchmark compares, behind one interface. "stackmap" is the kernel's
 * kernel/trace/ftrace_stackmap.c compiled unchanged; the others are re-implementations, written for
 * this benchmark from the descriptions in docs (SPEC.md section 3 and ANCHORS.md):
 *   rfc     the RFC series' map (2x slots {u32 hash; elt *}, pool of 520-byte elements,
 *           seeded jhash2, linear probing to 64, best-effort dedup, gravestones)
 *   bpf     the BPF stack-trace map (direct-mapped, jhash2 seed 0, lossy, no ref counts)
 *   mutex   a chained hash table under one mutex (trylock in signal handlers)
 *   nodedup no map: copy the stack into a per-thread buffer, as full stack events do
 */
#ifndef BENCH_DESIGNS_H
#define BENCH_DESIGNS_H

#include <stddef.h>
#include <stdint.h>

struct design {
	const char *name;
	void *(*create)(unsigned int bits);
	void (*destroy)(void *m);
	/* id >= 0, or -errno; callable from a signal handler on a registered thread */
	int (*get_id)(void *m, const unsigned long *ips, unsigned int nr);
	/* 0 or -errno; drains concurrent get_id() callers like the kernel would */
	int (*reset)(void *m);
	/* walk every stored stack like an exporter; returns the number walked */
	unsigned long (*export_all)(void *m);
};

extern const struct design design_stackmap, design_rfc, design_bpf, design_mutex,
	design_nodedup;

/* Hash functions, for the hash-only benchmark (hashes.c, maphash.c). */
uint32_t bench_jhash2(const uint32_t *k, uint32_t length, uint32_t initval);
uint64_t bench_xxh64(const void *p, size_t len, uint64_t seed);
uint64_t bench_siphash(const void *p, size_t len, uint64_t seed);
uint32_t bench_crc32c(const unsigned long *ips, unsigned int nr, uint32_t seed);
uint64_t bench_stackmap_hash(const unsigned long *ips, unsigned int nr, uint64_t seed);

#endif /* BENCH_DESIGNS_H */
