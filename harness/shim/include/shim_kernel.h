/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-ins for the kernel interfaces that kernel/trace/ftrace_stackmap.c, lib/xxhash.c
 * and include/linux/jhash.h use. Every include/linux/ and include/asm/ shim header in this
 * directory includes this one file, so the whole emulation is in one place.
 *
 * Model
 * -----
 * - A "CPU" is a registered thread: shim_thread_register(cpu) stores the index in a
 *   thread-local, which raw_smp_processor_id() reads. The map's per-CPU data are plain
 *   arrays indexed by it.
 * - A signal handler on a registered thread stands in for an NMI: it runs on the same CPU as
 *   the code it interrupted. CPU-local read-modify-writes (local_inc(), cmpxchg_local()) are
 *   therefore single instructions or __atomic builtins, atomic against a handler on the same
 *   thread (as the kernel's are against an NMI).
 * - RCU-sched: each thread has a nesting count and a quiescent-state counter (see shim.c).
 *   synchronize_rcu() waits until every registered thread was seen outside a read section.
 * - Memory ordering uses C11 __atomic builtins with the order named at each use.
 */
#ifndef SHIM_KERNEL_H
#define SHIM_KERNEL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

/* ---- compiler.h ---- */
#ifndef likely
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#endif
#define __packed		__attribute__((__packed__))
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define noinline		__attribute__((__noinline__))
#define __percpu
#define fallthrough		__attribute__((__fallthrough__))
#define __force
#define __must_check
#define __read_mostly
#define ____cacheline_aligned	__attribute__((__aligned__(64)))
#define ____cacheline_aligned_in_smp	____cacheline_aligned
#define L1_CACHE_BYTES		64
#define barrier()		__asm__ __volatile__("" ::: "memory")

/* types.h and limits.h: see linux/types.h and linux/limits.h */
#include <linux/types.h>
#include <linux/limits.h>
typedef unsigned int gfp_t;

/* ---- kernel.h, math.h, minmax.h, overflow.h ---- */
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define BIT(n)			(1UL << (n))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp(v, lo, hi)	min(max((v), (lo)), (hi))
#define BUILD_BUG_ON(c)		_Static_assert(!(c), "BUILD_BUG_ON: " #c)
#define WARN_ON(c)		({ int __w = !!(c); __w; })
#define WARN_ON_ONCE(c)		WARN_ON(c)

static inline size_t shim_size_mul(size_t a, size_t b)
{
	size_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return SIZE_MAX;
	return r;
}

static inline size_t shim_size_add(size_t a, size_t b)
{
	size_t r;

	if (__builtin_add_overflow(a, b, &r))
		return SIZE_MAX;
	return r;
}

#define array_size(a, b)	shim_size_mul((a), (b))
#define size_mul(a, b)		shim_size_mul((a), (b))
#define struct_size_t(type, member, count) \
	shim_size_add(sizeof(type), shim_size_mul(sizeof(((type *)0)->member[0]), (count)))
#define struct_size(p, member, count) \
	shim_size_add(sizeof(*(p)), shim_size_mul(sizeof((p)->member[0]), (count)))

/* ---- bitops.h ---- */
static inline u32 rol32(u32 word, unsigned int shift)
{
	return (word << (shift & 31)) | (word >> ((-shift) & 31));
}

static inline u64 rol64(u64 word, unsigned int shift)
{
	return (word << (shift & 63)) | (word >> ((-shift) & 63));
}

/* ---- kconfig.h: IS_ENABLED() for options that are defined to 1 or not defined ---- */
#define SHIM_ARG_PLACEHOLDER_1		0,
#define SHIM_TAKE_SECOND(ignored, val, ...)	val
#define SHIM_IS_DEFINED3(arg1_or_junk)	SHIM_TAKE_SECOND(arg1_or_junk 1, 0, 0)
#define SHIM_IS_DEFINED2(val)		SHIM_IS_DEFINED3(SHIM_ARG_PLACEHOLDER_##val)
#define IS_ENABLED(option)		SHIM_IS_DEFINED2(option)
/* What x86-64 selects, for lib/siphash.c (the benchmark's hash comparison). */
#ifdef __x86_64__
#define CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS	1
#endif

/* ---- align.h, byteorder (little-endian only) ---- */
#define __aligned(x)		__attribute__((__aligned__(x)))
#define IS_ALIGNED(x, a)	(((x) & ((__typeof__(x))(a) - 1)) == 0)
#define le32_to_cpup(p)		(*(const u32 *)(p))
#define le32_to_cpu(x)		((u32)(x))
#define le64_to_cpu(x)		((u64)(x))
#define le64_to_cpup(p)		(*(const u64 *)(p))

/* ---- log2.h (for a non-zero 32-bit argument, as the map uses it) ---- */
#define ilog2(n)		(31 - __builtin_clz((unsigned int)(n)))

/* ---- unaligned.h (little-endian x86-64 only) ---- */
static inline u32 get_unaligned_le32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u16 get_unaligned_le16(const void *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u64 get_unaligned_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* ---- module.h ---- */
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define MODULE_LICENSE(s)
#define MODULE_DESCRIPTION(s)

/* ---- rwonce.h, barrier.h, atomic.h ---- */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

typedef struct {
	int counter;
} atomic_t;

#define ATOMIC_INIT(i)		{ (i) }

static inline int atomic_read(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline int atomic_read_acquire(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE);
}

static inline void atomic_set(atomic_t *v, int i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_set_release(atomic_t *v, int i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELEASE);
}

/* Value-returning atomics are fully ordered in the kernel: SEQ_CST here. */
static inline int atomic_add_return(int i, atomic_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

/* Same instruction as the fully ordered one on x86 (lock xadd); unordered here. */
static inline int atomic_add_return_relaxed(int i, atomic_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_RELAXED);
}

static inline int atomic_inc_return(atomic_t *v)
{
	return atomic_add_return(1, v);
}

static inline void atomic_inc(atomic_t *v)
{
	__atomic_add_fetch(&v->counter, 1, __ATOMIC_RELAXED);
}

static inline int atomic_cmpxchg(atomic_t *v, int old, int new)
{
	__atomic_compare_exchange_n(&v->counter, &old, new, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

/*
 * Test hooks (below) are compiled out of the benchmark's build of the kernel files
 * (SHIM_NO_HOOKS): the kernel has no such check on its hot path.
 */
#ifdef SHIM_NO_HOOKS
#define SHIM_HOOK(hook, ptr)	do { } while (0)
#else
#define SHIM_HOOK(hook, ptr)	do { if (hook) hook((void *)(ptr)); } while (0)
#endif

/*
 * Test hook: when set, called by every cmpxchg() just before it runs, with the address. The
 * harness uses it to run a nested insert at the exact point where an NMI would make two
 * contexts race to publish the same stack.
 */
extern void (*shim_cmpxchg_hook)(void *ptr);

/* cmpxchg(): fully ordered on success, returns the old value (kernel semantics). */
#define cmpxchg(ptr, old, new)							\
	({									\
		__typeof__(*(ptr)) __old = (old);				\
		SHIM_HOOK(shim_cmpxchg_hook, (ptr));				\
		__atomic_compare_exchange_n((ptr), &__old, (new), false,	\
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED); \
		__old;								\
	})

#include "../shim.h"	/* SHIM_X86_PERCPU, the inline RCU read side */

/* ---- asm/local.h: atomic against this CPU only; x86's are single non-locked instructions */
typedef struct {
	long a;
} local_t;

static inline long local_read(const local_t *l)
{
	return __atomic_load_n(&l->a, __ATOMIC_RELAXED);
}

static inline void local_set(local_t *l, long i)
{
	__atomic_store_n(&l->a, i, __ATOMIC_RELAXED);
}

static inline void local_inc(local_t *l)
{
#ifdef SHIM_X86_PERCPU
	__asm__ __volatile__("incq %0" : "+m"(l->a) : : "memory");
#else
	__atomic_add_fetch(&l->a, 1, __ATOMIC_RELAXED);
#endif
}

static inline void local_dec(local_t *l)
{
#ifdef SHIM_X86_PERCPU
	__asm__ __volatile__("decq %0" : "+m"(l->a) : : "memory");
#else
	__atomic_sub_fetch(&l->a, 1, __ATOMIC_RELAXED);
#endif
}

/*
 * ---- asm/local64.h: what asm-generic/local64.h gives a 64-bit kernel, a local_t (the harness
 * runs only 64-bit builds)
 */
typedef struct {
	local_t a;
} local64_t;

#define local64_read(l)		local_read(&(l)->a)
#define local64_set(l, i)	local_set(&(l)->a, (i))
#define local64_inc(l)		local_inc(&(l)->a)
#define local64_dec(l)		local_dec(&(l)->a)

/* ---- atomic_long_t ---- */
typedef struct {
	long counter;
} atomic_long_t;

static inline long atomic_long_read(const atomic_long_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_long_inc(atomic_long_t *v)
{
	__atomic_add_fetch(&v->counter, 1, __ATOMIC_RELAXED);
}

/* ---- smp.h, cpumask.h ---- */
/*
 * A "CPU" is a registered thread (shim.h); raw_smp_processor_id() is one thread-local load,
 * as the kernel's is one %gs-relative load. The map keeps its per-CPU data in plain arrays
 * indexed by it, so there is no per-CPU allocator here.
 */
#define SHIM_NR_CPUS		1024

extern unsigned int nr_cpu_ids;
extern __thread int shim_this_cpu SHIM_TLS;

#define raw_smp_processor_id()	shim_this_cpu
#define num_possible_cpus()	nr_cpu_ids
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < (int)nr_cpu_ids; (cpu)++)

/*
 * Test hook: when set, called by cmpxchg_local() just before it runs, with the address. The
 * harness uses it to run a nested get_id() (an "NMI") between the map's read of a cache
 * slot and its cmpxchg_local() of that slot.
 */
extern void (*shim_cmpxchg_local_hook)(void *ptr);

/*
 * cmpxchg_local(): atomic against this CPU only (an interrupt or NMI on it). With
 * SHIM_X86_PERCPU it is x86's: a cmpxchg without the lock prefix, atomic against a signal
 * handler on the same thread, which is all the kernel's is against an NMI.
 */
#ifdef SHIM_X86_PERCPU
#define cmpxchg_local(ptr, o, n)						\
	({									\
		__typeof__(*(ptr)) __o = (o);					\
		_Static_assert(sizeof(*(ptr)) == 8, "cmpxchg_local: 8 bytes only"); \
		SHIM_HOOK(shim_cmpxchg_local_hook, (ptr));			\
		__asm__ __volatile__("cmpxchgq %2, %1"				\
				     : "+a"(__o), "+m"(*(ptr))			\
				     : "r"((__typeof__(*(ptr)))(n)) : "memory", "cc"); \
		__o;								\
	})
#else
#define cmpxchg_local(ptr, o, n)						\
	({									\
		__typeof__(*(ptr)) __o = (o);					\
		SHIM_HOOK(shim_cmpxchg_local_hook, (ptr));			\
		__atomic_compare_exchange_n((ptr), &__o, (n), false,		\
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
		__o;								\
	})
#endif

/* try_cmpxchg_local(): cmpxchg_local() that says whether it stored and, if not, sets *po. */
#ifdef SHIM_X86_PERCPU
#define try_cmpxchg_local(ptr, po, n)						\
	({									\
		bool __ok;							\
		_Static_assert(sizeof(*(ptr)) == 8, "try_cmpxchg_local: 8 bytes only"); \
		SHIM_HOOK(shim_cmpxchg_local_hook, (ptr));			\
		__asm__ __volatile__("cmpxchgq %3, %1"				\
				     : "=@ccz"(__ok), "+m"(*(ptr)), "+a"(*(po))	\
				     : "r"((__typeof__(*(ptr)))(n)) : "memory");	\
		__ok;								\
	})
#else
#define try_cmpxchg_local(ptr, po, n)						\
	({									\
		SHIM_HOOK(shim_cmpxchg_local_hook, (ptr));			\
		__atomic_compare_exchange_n((ptr), (po), (n), false,		\
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
	})
#endif

/* ---- rcupdate.h ---- */
void synchronize_rcu(void);
#define rcu_read_lock_sched()	rcu_read_lock_sched_notrace()
#define rcu_read_unlock_sched()	rcu_read_unlock_sched_notrace()
#define preempt_disable_notrace() barrier()
#define preempt_enable_notrace() barrier()

/* ---- rwsem.h ---- */
struct rw_semaphore {
	pthread_rwlock_t lock;
};

#define init_rwsem(s)		pthread_rwlock_init(&(s)->lock, NULL)
#define down_read(s)		pthread_rwlock_rdlock(&(s)->lock)
#define up_read(s)		pthread_rwlock_unlock(&(s)->lock)
#define down_write(s)		pthread_rwlock_wrlock(&(s)->lock)
#define up_write(s)		pthread_rwlock_unlock(&(s)->lock)
/* Lock assertions are checked by lockdep in the debug kernel run, not here. */
#define lockdep_assert_held_read(l) do { } while (0)
#define lockdep_assert_preemption_disabled() do { } while (0)
/* Readers run in threads that the harness never needs to preempt by hand. */
static inline void cond_resched(void) { }

/* ---- slab.h, vmalloc.h ---- */
#define GFP_KERNEL		0U
#define GFP_NOWAIT		0U

/* Every allocation is counted: shim_alloc(), shim_free() and shim_allocated_bytes() in shim.h. */
#define kzalloc(size, gfp)	shim_alloc((size), true, false)
#define kmalloc(size, gfp)	shim_alloc((size), false, true)
#define kfree(p)		shim_free(p)
/* vmalloc() memory is not zeroed in the kernel: poisoned so nothing relies on zeroes. */
#define vmalloc(size)		shim_alloc((size), false, true)
#define vzalloc(size)		shim_alloc((size), true, false)
#define vcalloc(n, size)	shim_alloc(shim_size_mul((n), (size)), true, false)
#define vfree(p)		shim_free(p)

/* ---- random.h ---- */
u64 get_random_u64(void);

#endif /* SHIM_KERNEL_H */
