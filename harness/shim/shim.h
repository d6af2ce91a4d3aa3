/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Harness-side controls of the kernel shim (see shim.c). Safe to include from harness code
 * that does not otherwise see the kernel headers.
 */
#ifndef SHIM_H
#define SHIM_H

#include <stdint.h>

#define SHIM_MAX_THREADS	64

/* Number of "possible CPUs"; set before creating a map. At most 64. */
void shim_set_nr_cpus(unsigned int n);
/* Make the calling thread CPU @cpu (0 <= cpu < nr_cpus); 0 or -errno. Not signal-safe. */
int shim_thread_register(int cpu);
/* Move a registered thread to another CPU index (only between calls into the map). */
void shim_thread_set_cpu(int cpu);
void shim_thread_unregister(void);
/* Read sections currently open on the calling thread. */
unsigned long shim_rcu_read_depth(void);
/* Seed of get_random_u64(), so that a map's hash seed is reproducible. */
void shim_set_seed(uint64_t seed);
/* Offset of @addr inside its per-CPU allocation slot, or -1 if not per-CPU memory. */
long shim_pcpu_slot_offset(const void *addr);
/* Called by cmpxchg() just before it runs; NULL to disable. */
extern void (*shim_cmpxchg_hook)(void *ptr);

#endif /* SHIM_H */
