/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Harness-side controls of the kernel shim (see shim.c). Safe to include from harness code
 * that does not otherwise see the kernel headers.
 */
#ifndef SHIM_H
#define SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHIM_MAX_THREADS	64

/* Number of "possible CPUs"; set before creating a map. At most 1024. */
void shim_set_nr_cpus(unsigned int n);
/* Make the calling thread CPU @cpu (0 <= cpu < nr_cpus); 0 or -errno. Not signal-safe. */
int shim_thread_register(int cpu);
/* Move a registered thread to another CPU index (only between calls into the map). */
void shim_thread_set_cpu(int cpu);
void shim_thread_unregister(void);
/*
 * RCU-sched read side (see shim.c), inline because the kernel's is: preempt_disable() is one
 * per-CPU increment. The map and the baseline designs of the benchmark use the same one.
 */
struct shim_thread {
	unsigned long nest;	/* read sections open on this thread */
	unsigned long qs;	/* quiescent points passed */
};

/*
 * The harness links statically into executables, so thread-locals can use the local-exec
 * model: one %fs-relative access, as the kernel's %gs-relative per-CPU accesses are.
 */
#define SHIM_TLS	__attribute__((tls_model("local-exec")))

extern __thread struct shim_thread shim_self SHIM_TLS;

/*
 * SHIM_X86_PERCPU: outside ThreadSanitizer builds on x86-64, CPU-local read-modify-writes
 * are single instructions without the lock prefix, exactly as the kernel's x86 local_inc()
 * and cmpxchg_local() are: atomic against a signal handler on the same thread (it can
 * only run between instructions), not against other threads, which never write another
 * CPU's data. ThreadSanitizer builds use __atomic builtins instead, so that TSan
 * understands them.
 */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if !__has_feature(thread_sanitizer)
#define SHIM_X86_PERCPU 1
#endif
#else
#define SHIM_X86_PERCPU 1
#endif
#endif

#ifdef SHIM_X86_PERCPU
/* Plain increments; synchronize_rcu() supplies the barriers with membarrier(). */
static inline void rcu_read_lock_sched_notrace(void)
{
	__asm__ __volatile__("incq %0" : "+m"(shim_self.nest) : : "memory");
}

static inline void rcu_read_unlock_sched_notrace(void)
{
	__asm__ __volatile__("decq %0" : "+m"(shim_self.nest) : : "memory");
	if (__atomic_load_n(&shim_self.nest, __ATOMIC_RELAXED) == 0)
		__asm__ __volatile__("incq %0" : "+m"(shim_self.qs) : : "memory");
}
#else
static inline void rcu_read_lock_sched_notrace(void)
{
	__atomic_add_fetch(&shim_self.nest, 1, __ATOMIC_SEQ_CST);
}

static inline void rcu_read_unlock_sched_notrace(void)
{
	if (__atomic_sub_fetch(&shim_self.nest, 1, __ATOMIC_SEQ_CST) == 0)
		__atomic_add_fetch(&shim_self.qs, 1, __ATOMIC_RELEASE);
}
#endif

/* Read sections currently open on the calling thread. */
unsigned long shim_rcu_read_depth(void);
/* Seed of get_random_u64(), so that a map's hash seed is reproducible. */
void shim_set_seed(uint64_t seed);
/* Called by cmpxchg() just before it runs; NULL to disable. */
extern void (*shim_cmpxchg_hook)(void *ptr);
/* Called by cmpxchg_local() just before it runs; NULL to disable. */
extern void (*shim_cmpxchg_local_hook)(void *ptr);
/* Bytes allocated through the shim (kzalloc, vmalloc, ...) now. */
size_t shim_allocated_bytes(void);
/* The counted heap behind kzalloc() and friends, for harness code that wants it too. */
void *shim_alloc(size_t size, bool zero, bool poison);
void shim_free(void *p);

#endif /* SHIM_H */
