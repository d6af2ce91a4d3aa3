// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline designs for the benchmark (see designs.h), written here from their published
 * descriptions; plus the adapter for the kernel's stackmap.
 *
 * All lock-free designs pay the same read-side cost for being drainable by a reset (the
 * shim's rcu_read_lock_sched_notrace()), so that the comparison is of the maps themselves.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../shim/shim.h"
#include "designs.h"
#include "ftrace_stackmap.h"

void synchronize_rcu(void);

#define MAX_DEPTH 64

/*
 * Every design allocates through the shim's counted heap, so that the memory figures of the
 * benchmark are what each design really allocated.
 */
static void *bench_calloc(size_t n, size_t size)
{
	return n && size > SIZE_MAX / n ? NULL : shim_alloc(n * size, true, false);
}

static void *bench_malloc(size_t size)
{
	return shim_alloc(size, false, false);
}

/*
 * The baselines compare frames as the kernel's kernel_memcmp() would on x86-64 (lib/string.c with
 * CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS: a word at a time, stopping at the first difference,
 * then bytes), not with the C library's vectorised one: the benchmark compares designs as
 * they would run in the kernel, and this file is built without SSE as kernel code is.
 * Returns 0 when equal (the callers only test that).
 */
static int kernel_memcmp(const void *a, const void *b, size_t len)
{
	const unsigned char *x = a, *y = b;
	unsigned long u, v;

	while (len >= sizeof(unsigned long)) {
		memcpy(&u, x, sizeof(u));
		memcpy(&v, y, sizeof(v));
		if (u != v)
			break;
		x += sizeof(u);
		y += sizeof(v);
		len -= sizeof(u);
	}
	for (; len; x++, y++, len--)
		if (*x != *y)
			return *x - *y;
	return 0;
}

/* ---------------------------------------------------------------- stackmap (ours) */

static void *sm_create(unsigned int bits)
{
	return ftrace_stackmap_create(bits);
}

static void sm_destroy(void *m)
{
	ftrace_stackmap_destroy(m);
}

static int sm_get_id(void *m, const unsigned long *ips, unsigned int nr)
{
	return ftrace_stackmap_get_id(m, ips, nr);
}

static int sm_reset(void *m)
{
	return ftrace_stackmap_reset(m, NULL, NULL);
}

/* As the kernel's exports do: one fold of the counts per export, into a fresh array. */
static unsigned long sm_export(void *m)
{
	struct ftrace_stackmap_stack s;
	unsigned long n = 0, sum = 0;
	u32 id, limit, *counts;

	counts = bench_calloc(ftrace_stackmap_capacity(m), sizeof(*counts));
	if (!counts)
		return 0;
	ftrace_stackmap_read_lock(m);
	limit = ftrace_stackmap_id_limit(m);
	ftrace_stackmap_fold_counts(m, counts);
	for (id = 0; id < limit; id++) {
		if (ftrace_stackmap_lookup(m, id, &s, counts)) {
			n++;
			sum += s.ips[0] + s.ref_count;
		}
	}
	ftrace_stackmap_read_unlock(m);
	shim_free(counts);
	return n + (sum == 1);
}



const struct design design_stackmap = {
	"stackmap", sm_create, sm_destroy, sm_get_id, sm_reset, sm_export,
};

/* ---------------------------------------------------------------- RFC design */

struct rfc_elt {
	u32 nr;
	int ref_count;
	unsigned long ips[MAX_DEPTH];
};

struct rfc_slot {
	u32 hash;
	struct rfc_elt *elt;
};

struct rfc_map {
	struct rfc_slot *slots;
	struct rfc_elt *pool;
	u32 bits, mask, pool_size, seed;
	int pool_next;
	int resetting;
};

static void *rfc_create(unsigned int bits)
{
	struct rfc_map *m = bench_calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->bits = bits;
	m->mask = (2U << bits) - 1;
	m->pool_size = 1U << bits;
	m->slots = bench_calloc((size_t)m->mask + 1, sizeof(*m->slots));
	m->pool = bench_calloc(m->pool_size, sizeof(*m->pool));
	m->seed = 0x2545f491;
	if (!m->slots || !m->pool) {
		shim_free(m->slots);
		shim_free(m->pool);
		shim_free(m);
		return NULL;
	}
	return m;
}

static void rfc_destroy(void *p)
{
	struct rfc_map *m = p;

	shim_free(m->slots);
	shim_free(m->pool);
	shim_free(m);
}

static void rfc_ref(struct rfc_elt *e)
{
	int old = __atomic_load_n(&e->ref_count, __ATOMIC_RELAXED);

	/* CAS loop on the shared element: saturate at INT_MAX. */
	do {
		if (old == 0x7fffffff)
			return;
	} while (!__atomic_compare_exchange_n(&e->ref_count, &old, old + 1, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static int rfc_get_id(void *p, const unsigned long *ips, unsigned int nr)
{
	struct rfc_map *m = p;
	struct rfc_elt *e;
	u32 hash, idx, h, probe;
	int ret = -ENOSPC, n;

	if (!nr)
		return -EINVAL;
	if (nr > MAX_DEPTH)
		return -E2BIG;
	rcu_read_lock_sched_notrace();
	if (__atomic_load_n(&m->resetting, __ATOMIC_ACQUIRE)) {
		ret = -EINVAL;
		goto out;
	}
	hash = bench_jhash2((const u32 *)ips, nr * (sizeof(long) / 4), m->seed);
	if (!hash)
		hash = 1;
	idx = hash >> (32 - (m->bits + 1));
	for (probe = 0; probe < 64; probe++, idx = (idx + 1) & m->mask) {
		h = __atomic_load_n(&m->slots[idx].hash, __ATOMIC_ACQUIRE);
		if (!h) {
			u32 zero = 0;

			if (__atomic_compare_exchange_n(&m->slots[idx].hash, &zero, hash, false,
							__ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
				n = __atomic_fetch_add(&m->pool_next, 1, __ATOMIC_RELAXED);
				if (n >= (int)m->pool_size)
					goto out;	/* gravestone: slot claimed, no element */
				e = &m->pool[n];
				e->nr = nr;
				memcpy(e->ips, ips, nr * sizeof(*ips));
				e->ref_count = 1;
				__atomic_store_n(&m->slots[idx].elt, e, __ATOMIC_RELEASE);
				ret = (int)idx;
				goto out;
			}
			h = zero;	/* the winner's hash */
		}
		if (h != hash)
			continue;
		/* Unpublished (claimed, element not yet stored): skipped, may duplicate. */
		e = __atomic_load_n(&m->slots[idx].elt, __ATOMIC_ACQUIRE);
		if (!e || e->nr != nr || kernel_memcmp(e->ips, ips, nr * sizeof(*ips)))
			continue;
		rfc_ref(e);
		ret = (int)idx;
		goto out;
	}
out:
	rcu_read_unlock_sched_notrace();
	return ret;
}

/*
 * The lock-free baselines reset alike: claim the flag, drain inserters with an RCU grace
 * period, clear the table and the allocation cursor, drop the flag with release.
 */
static int baseline_reset(int *resetting, void *table, size_t table_bytes, int *cursor)
{
	int zero = 0;

	if (!__atomic_compare_exchange_n(resetting, &zero, 1, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return -EBUSY;
	synchronize_rcu();
	memset(table, 0, table_bytes);
	*cursor = 0;
	__atomic_store_n(resetting, 0, __ATOMIC_RELEASE);
	return 0;
}

static int rfc_reset(void *p)
{
	struct rfc_map *m = p;

	return baseline_reset(&m->resetting, m->slots, ((size_t)m->mask + 1) * sizeof(*m->slots),
			      &m->pool_next);
}

static unsigned long rfc_export(void *p)
{
	struct rfc_map *m = p;
	unsigned long n = 0, sum = 0;
	struct rfc_elt *e;
	u32 i;

	for (i = 0; i <= m->mask; i++) {
		e = __atomic_load_n(&m->slots[i].elt, __ATOMIC_ACQUIRE);
		if (e) {
			n++;
			sum += e->ips[0] + (unsigned long)e->ref_count;
		}
	}
	return n + (sum == 1);
}



const struct design design_rfc = {
	"rfc", rfc_create, rfc_destroy, rfc_get_id, rfc_reset, rfc_export,
};

/* ---------------------------------------------------------------- BPF stack-trace map */

struct bpf_bucket {
	void *freelist_node[2];	/* the kernel's pcpu_freelist_node */
	u32 hash;
	u32 nr;
	unsigned long ips[MAX_DEPTH];
};

struct bpf_map {
	struct bpf_bucket **buckets;
	struct bpf_bucket *elems;
	u32 mask, nr_elems;
	int next_elem;
	int resetting;
};

static void *bpf_create(unsigned int bits)
{
	struct bpf_map *m = bench_calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->mask = (1U << bits) - 1;
	m->nr_elems = 1U << bits;
	m->buckets = bench_calloc((size_t)m->mask + 1, sizeof(*m->buckets));
	m->elems = bench_calloc(m->nr_elems, sizeof(*m->elems));
	if (!m->buckets || !m->elems) {
		shim_free(m->buckets);
		shim_free(m->elems);
		shim_free(m);
		return NULL;
	}
	return m;
}

static void bpf_destroy(void *p)
{
	struct bpf_map *m = p;

	shim_free(m->buckets);
	shim_free(m->elems);
	shim_free(m);
}

static int bpf_get_id(void *p, const unsigned long *ips, unsigned int nr)
{
	struct bpf_map *m = p;
	struct bpf_bucket *b, *nb, *old = NULL;
	u32 hash, id;
	int ret, n;

	if (!nr)
		return -EINVAL;
	if (nr > MAX_DEPTH)
		return -E2BIG;
	rcu_read_lock_sched_notrace();
	if (__atomic_load_n(&m->resetting, __ATOMIC_ACQUIRE)) {
		ret = -EINVAL;
		goto out;
	}
	hash = bench_jhash2((const u32 *)ips, nr * (sizeof(long) / 4), 0);
	id = hash & m->mask;
	b = __atomic_load_n(&m->buckets[id], __ATOMIC_ACQUIRE);
	if (b && b->hash == hash && b->nr == nr && !kernel_memcmp(b->ips, ips, nr * sizeof(*ips))) {
		ret = (int)id;	/* hit: no stores */
		goto out;
	}
	if (b) {
		ret = -EEXIST;	/* another stack owns the bucket: this one is lost */
		goto out;
	}
	n = __atomic_fetch_add(&m->next_elem, 1, __ATOMIC_RELAXED);
	if (n >= (int)m->nr_elems) {
		ret = -ENOMEM;
		goto out;
	}
	nb = &m->elems[n];
	nb->hash = hash;
	nb->nr = nr;
	memcpy(nb->ips, ips, nr * sizeof(*ips));
	if (__atomic_compare_exchange_n(&m->buckets[id], &old, nb, false, __ATOMIC_RELEASE,
					__ATOMIC_ACQUIRE))
		ret = (int)id;
	else if (old->hash == hash && old->nr == nr && !kernel_memcmp(old->ips, ips, nr * sizeof(*ips)))
		ret = (int)id;	/* same stack raced in; our element is wasted */
	else
		ret = -EEXIST;
out:
	rcu_read_unlock_sched_notrace();
	return ret;
}

static int bpf_reset(void *p)
{
	struct bpf_map *m = p;

	return baseline_reset(&m->resetting, m->buckets,
			      ((size_t)m->mask + 1) * sizeof(*m->buckets), &m->next_elem);
}

static unsigned long bpf_export(void *p)
{
	struct bpf_map *m = p;
	unsigned long n = 0, sum = 0;
	struct bpf_bucket *b;
	u32 i;

	for (i = 0; i <= m->mask; i++) {
		b = __atomic_load_n(&m->buckets[i], __ATOMIC_ACQUIRE);
		if (b) {
			n++;
			sum += b->ips[0];
		}
	}
	return n + (sum == 1);
}



const struct design design_bpf = {
	"bpf", bpf_create, bpf_destroy, bpf_get_id, bpf_reset, bpf_export,
};

/* ---------------------------------------------------------------- mutex + chaining */

struct mx_node {
	struct mx_node *next;
	u32 hash, nr;
	int id;
	unsigned long refs;
	unsigned long ips[];
};

struct mx_map {
	pthread_mutex_t lock;
	struct mx_node **heads;
	u32 mask, capacity;
	int next_id;
};

/* True while the current thread holds the map lock: a handler must not block on it. */
static __thread int mx_in_lock;

static void *mx_create(unsigned int bits)
{
	struct mx_map *m = bench_calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->mask = (2U << bits) - 1;
	m->capacity = 1U << bits;
	m->heads = bench_calloc((size_t)m->mask + 1, sizeof(*m->heads));
	pthread_mutex_init(&m->lock, NULL);
	if (!m->heads) {
		shim_free(m);
		return NULL;
	}
	return m;
}

static void mx_clear(struct mx_map *m)
{
	struct mx_node *n, *next;
	u32 i;

	for (i = 0; i <= m->mask; i++) {
		for (n = m->heads[i]; n; n = next) {
			next = n->next;
			shim_free(n);
		}
		m->heads[i] = NULL;
	}
	m->next_id = 0;
}

static void mx_destroy(void *p)
{
	struct mx_map *m = p;

	mx_clear(m);
	shim_free(m->heads);
	shim_free(m);
}

static int mx_get_id(void *p, const unsigned long *ips, unsigned int nr)
{
	struct mx_map *m = p;
	struct mx_node *n;
	u32 hash;
	int ret;

	if (!nr)
		return -EINVAL;
	if (nr > MAX_DEPTH)
		return -E2BIG;
	hash = (u32)bench_xxh64(ips, nr * sizeof(*ips), 0);
	/*
	 * A signal handler that interrupted this thread while it takes or holds the lock must
	 * not wait for it (it would wait for itself): it fails instead, as stackdepot's
	 * trylock does in NMI. The flag is set before locking so no window is left.
	 */
	if (mx_in_lock)
		return -EBUSY;
	mx_in_lock = 1;
	pthread_mutex_lock(&m->lock);
	for (n = m->heads[hash & m->mask]; n; n = n->next) {
		if (n->hash == hash && n->nr == nr && !kernel_memcmp(n->ips, ips, nr * sizeof(*ips))) {
			n->refs++;
			ret = n->id;
			goto out;
		}
	}
	ret = -ENOSPC;
	if (m->next_id >= (int)m->capacity)
		goto out;
	/* malloc() in the insert path: this design could not run in NMI at all. */
	n = bench_malloc(sizeof(*n) + nr * sizeof(*ips));
	if (!n)
		goto out;
	n->hash = hash;
	n->nr = nr;
	n->refs = 1;
	n->id = m->next_id++;
	memcpy(n->ips, ips, nr * sizeof(*ips));
	n->next = m->heads[hash & m->mask];
	m->heads[hash & m->mask] = n;
	ret = n->id;
out:
	pthread_mutex_unlock(&m->lock);
	mx_in_lock = 0;
	return ret;
}

static int mx_reset(void *p)
{
	struct mx_map *m = p;

	pthread_mutex_lock(&m->lock);
	mx_clear(m);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static unsigned long mx_export(void *p)
{
	struct mx_map *m = p;
	unsigned long cnt = 0;
	struct mx_node *n;
	u32 i;

	pthread_mutex_lock(&m->lock);
	for (i = 0; i <= m->mask; i++)
		for (n = m->heads[i]; n; n = n->next)
			cnt++;
	pthread_mutex_unlock(&m->lock);
	return cnt;
}



const struct design design_mutex = {
	"mutex", mx_create, mx_destroy, mx_get_id, mx_reset, mx_export,
};

/* ---------------------------------------------------------------- no dedup */

#define ND_BUF (64 * 1024)
static __thread unsigned char nd_buf[ND_BUF];
static __thread size_t nd_pos;

static void *nd_create(unsigned int bits)
{
	(void)bits;
	return bench_malloc(1);
}

static void nd_destroy(void *m)
{
	shim_free(m);
}

static int nd_get_id(void *m, const unsigned long *ips, unsigned int nr)
{
	size_t len = nr * sizeof(*ips);

	(void)m;
	if (!nr)
		return -EINVAL;
	if (nd_pos + len > ND_BUF)
		nd_pos = 0;
	memcpy(nd_buf + nd_pos, ips, len);
	nd_pos += len;
	return 0;
}

static int nd_reset(void *m)
{
	(void)m;
	return 0;
}

static unsigned long nd_export(void *m)
{
	(void)m;
	return 0;
}



const struct design design_nodedup = {
	"nodedup", nd_create, nd_destroy, nd_get_id, nd_reset, nd_export,
};
