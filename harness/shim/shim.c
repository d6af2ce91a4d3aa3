// SPDX-License-Identifier: GPL-2.0
/*
 * Run-time part of the kernel shim: CPUs as registered threads, a counted heap, an
 * RCU-sched emulation that tolerates read sections inside signal handlers, random numbers.
 *
 * RCU-sched emulation
 * -------------------
 * Every registered thread owns a struct shim_thread with two counters:
 * - nest: read sections currently open on the thread (a signal handler's section nests in
 *   the interrupted one). Read lock increments it (SEQ_CST), read unlock decrements it.
 * - qs: incremented after every unlock that brought nest back to 0 (a quiescent point).
 * synchronize_rcu() visits each registered thread: it snapshots qs, then nest; if nest is 0
 * the thread is outside; otherwise it waits until nest is 0 or qs has moved, either of which
 * proves that every section open at the snapshot has ended.
 * Why this drains a flag set before the call: the updater's store of the flag and its load
 * of nest are SEQ_CST, and so are the reader's increment of nest and (for stackmap) the
 * acquire load of the flag that follows it; so either the reader sees the flag, or the
 * updater sees the reader's section open and waits for it.
 * The unlock is a SEQ_CST (so also release) RMW, the updater's loads are acquire: everything
 * a reader did inside its section happens before synchronize_rcu() returns (this is also
 * what ThreadSanitizer needs to see). Outside TSan builds on x86-64 the read side is cheaper
 * (see SHIM_X86_PERCPU below) and membarrier() provides the barriers.
 */
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <time.h>

#include "include/shim_kernel.h"
#include "shim.h"

unsigned int nr_cpu_ids = 4;
__thread int shim_this_cpu SHIM_TLS = -1;
void (*shim_cmpxchg_hook)(void *ptr);
void (*shim_cmpxchg_local_hook)(void *ptr);
static size_t shim_allocated;

__thread struct shim_thread shim_self SHIM_TLS;
static struct shim_thread *shim_threads[SHIM_MAX_THREADS];
static pthread_mutex_t shim_lock = PTHREAD_MUTEX_INITIALIZER;

void shim_set_nr_cpus(unsigned int n)
{
	if (n < 1 || n > SHIM_NR_CPUS) {
		fprintf(stderr, "shim: nr_cpus %u out of range\n", n);
		abort();
	}
	nr_cpu_ids = n;
}

int shim_thread_register(int cpu)
{
	int i, ret = -ENOSPC;

	if (cpu < 0 || cpu >= (int)nr_cpu_ids)
		return -EINVAL;
	pthread_mutex_lock(&shim_lock);
	for (i = 0; i < SHIM_MAX_THREADS; i++) {
		if (!shim_threads[i]) {
			shim_threads[i] = &shim_self;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&shim_lock);
	if (!ret)
		shim_this_cpu = cpu;
	return ret;
}

void shim_thread_set_cpu(int cpu)
{
	shim_this_cpu = cpu;
}

void shim_thread_unregister(void)
{
	int i;

	pthread_mutex_lock(&shim_lock);
	for (i = 0; i < SHIM_MAX_THREADS; i++)
		if (shim_threads[i] == &shim_self)
			shim_threads[i] = NULL;
	pthread_mutex_unlock(&shim_lock);
	shim_this_cpu = -1;
}

#ifdef SHIM_X86_PERCPU
/*
 * The fast read side (shim.h) has only compiler barriers, like the kernel's
 * preempt_disable(). The full barrier the Dekker argument above needs on the reader's side
 * is supplied by synchronize_rcu() with membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
 * runs a memory barrier on every CPU running one of our threads (liburcu's "memb" flavour
 * does the same).
 */
static void shim_membarrier(void)
{
	static int registered;

	if (!registered) {
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0)) {
			perror("shim: membarrier register");
			abort();
		}
		registered = 1;
	}
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0)) {
		perror("shim: membarrier");
		abort();
	}
}
#else
static void shim_membarrier(void)
{
}
#endif

unsigned long shim_rcu_read_depth(void)
{
	return __atomic_load_n(&shim_self.nest, __ATOMIC_RELAXED);
}

void synchronize_rcu(void)
{
	struct shim_thread *t;
	unsigned long q;
	int i, spins;

	if (__atomic_load_n(&shim_self.nest, __ATOMIC_RELAXED)) {
		fprintf(stderr, "shim: synchronize_rcu() inside a read section\n");
		abort();
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	shim_membarrier();
	pthread_mutex_lock(&shim_lock);
	for (i = 0; i < SHIM_MAX_THREADS; i++) {
		t = shim_threads[i];
		if (!t)
			continue;
		q = __atomic_load_n(&t->qs, __ATOMIC_ACQUIRE);
		for (spins = 0; __atomic_load_n(&t->nest, __ATOMIC_ACQUIRE) &&
				q == __atomic_load_n(&t->qs, __ATOMIC_ACQUIRE); spins++) {
			if (spins < 100)
				sched_yield();
			else
				nanosleep(&(struct timespec){ .tv_nsec = 10000 }, NULL);
		}
	}
	/* Order the readers' sections before what the caller does next (fast read side). */
	shim_membarrier();
	pthread_mutex_unlock(&shim_lock);
}

/*
 * Heap allocations carry their size in a header so that frees can be counted. Header and
 * allocation are cache-line aligned, as kmalloc() is for the objects the map allocates
 * (struct ftrace_stackmap has a ____cacheline_aligned member).
 */
#define SHIM_HDR	64

void *shim_alloc(size_t size, bool zero, bool poison)
{
	char *p;

	if (size > SIZE_MAX - SHIM_HDR)
		return NULL;
	if (posix_memalign((void **)&p, SHIM_HDR, size + SHIM_HDR))
		return NULL;
	if (zero)
		memset(p + SHIM_HDR, 0, size);
	memcpy(p, &size, sizeof(size));
	if (poison)
		memset(p + SHIM_HDR, 0xa5, size);
	__atomic_add_fetch(&shim_allocated, size, __ATOMIC_RELAXED);
	return p + SHIM_HDR;
}

void shim_free(void *q)
{
	char *p = q;
	size_t size;

	if (!p)
		return;
	p -= SHIM_HDR;
	memcpy(&size, p, sizeof(size));
	__atomic_sub_fetch(&shim_allocated, size, __ATOMIC_RELAXED);
	free(p);
}

size_t shim_allocated_bytes(void)
{
	return __atomic_load_n(&shim_allocated, __ATOMIC_RELAXED);
}

static u64 shim_rand_state = 0x9e3779b97f4a7c15ULL;

void shim_set_seed(u64 seed)
{
	__atomic_store_n(&shim_rand_state, seed, __ATOMIC_RELAXED);
}

u64 get_random_u64(void)
{
	u64 z = __atomic_add_fetch(&shim_rand_state, 0x9e3779b97f4a7c15ULL, __ATOMIC_RELAXED);

	/* splitmix64 finaliser */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
