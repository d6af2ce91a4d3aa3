// SPDX-License-Identifier: GPL-2.0
/*
 * evpipe: the reader on a thread of its own (see evpipe.h).
 *
 * The two threads share a ring of EVP_NB batches. The reader's thread copies each record into
 * the batch it fills (the record itself, and into the batch's arena what it points to, as
 * offsets); a full batch is handed over and the next free one taken, waiting while the
 * consumer still holds it. The calling thread takes the batches in the same order, turns the
 * offsets back into pointers into the arena and calls the consumer on each record. Memory is
 * bounded by EVP_NB batches of EVP_RECS records and about EVP_ARENA bytes of arena each.
 *
 * Why: on 200,000 events of the trace.dat of tests/bench-report.sh, the decoding thread of a
 * Perfetto export runs 243 M instructions and the consumer 271 M (callgrind
 * --separate-threads), so the export's wall time falls by more than a quarter on two CPUs
 * (1.87 s to 1.35 s); report's consumer runs 49 M, and report gains nothing (tool/README.md
 * has the timings). Batches of 8192 records rather than 1024 halved report's system time
 * with the thread (0.13 s to 0.06 s).
 */
#define _POSIX_C_SOURCE 200809L
#include "evpipe.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EVP_NB	  4 /* batches in the ring */
#define EVP_RECS  8192 /* records per batch */
#define EVP_ARENA (2u << 20) /* a batch is handed over once its arena holds this much */

struct evp_batch {
	struct ev_record rec[EVP_RECS];
	size_t n;
	char *arena; /* offset 0 stands for NULL */
	size_t used, cap;
};

struct evp {
	pthread_mutex_t mu;
	pthread_cond_t cv_full, cv_free;
	struct evp_batch *b[EVP_NB];
	int full[EVP_NB]; /* under mu */
	unsigned int pi; /* the batch the reader fills (reader's thread only) */
	int done; /* under mu: the reader returned */
	int reader_ret;
	atomic_int stop; /* the consumer's nonzero return, 0 while it goes on */
	evpipe_reader reader;
	void *ctx;
};

/* @len bytes of @b's arena, 8-aligned: the offset (never 0, used starts at 1); 0: no memory. */
static size_t evp_alloc(struct evp_batch *b, size_t len)
{
	size_t off = (b->used + 7) & ~(size_t)7;
	char *n;

	if (off + len > b->cap) {
		size_t cap = b->cap ? b->cap : EVP_ARENA;

		while (cap < off + len)
			cap *= 2;
		n = realloc(b->arena, cap);
		if (!n)
			return 0;
		b->arena = n;
		b->cap = cap;
	}
	b->used = off + len;
	return off;
}

/* A copy of string @s in @b's arena, as an offset (0 for NULL, or out of memory: -1). */
static long evp_str(struct evp_batch *b, const char *s)
{
	size_t len, off;

	if (!s)
		return 0;
	len = strlen(s) + 1;
	off = evp_alloc(b, len);
	if (!off)
		return -1;
	memcpy(b->arena + off, s, len);
	return (long)off;
}

/* The arena's offsets of the fields of a copied record travel in its pointer fields. */
#define EVP_OFF(x)    ((const void *)(uintptr_t)(x))
#define EVP_PTR(b, p) ((p) ? (const void *)((b)->arena + (uintptr_t)(p)) : NULL)

static int evp_copy(struct evp_batch *b, const struct ev_record *r)
{
	struct ev_record *c = &b->rec[b->n];
	long off;
	size_t i;

	*c = *r;
	off = evp_str(b, r->type_name);
	if (off < 0)
		return -ENOMEM;
	c->type_name = EVP_OFF(off);
	if (r->stack.addrs) {
		size_t a = evp_alloc(b, r->stack.nr * sizeof(uint64_t));

		if (!a)
			return -ENOMEM;
		memcpy(b->arena + a, r->stack.addrs, r->stack.nr * sizeof(uint64_t));
		c->stack.addrs = EVP_OFF(a);
	}
	if (r->stack.frames) {
		size_t a = evp_alloc(b, r->stack.nr * sizeof(char *));

		if (!a)
			return -ENOMEM;
		c->stack.frames = EVP_OFF(a);
		for (i = 0; i < r->stack.nr; i++) {
			off = evp_str(b, r->stack.frames[i]);
			if (off < 0)
				return -ENOMEM;
			/* an offset in the pointer's place, until the consumer's thread takes it */
			((uintptr_t *)(void *)(b->arena + a))[i] = (uintptr_t)off;
		}
	}
	b->n++;
	return 0;
}

/* Hand the reader's batch over and take the next free one; the consumer's stop value if any. */
static int evp_hand_over(struct evp *q)
{
	struct evp_batch *b;

	pthread_mutex_lock(&q->mu);
	q->full[q->pi] = 1;
	pthread_cond_signal(&q->cv_full);
	q->pi = (q->pi + 1) % EVP_NB;
	while (q->full[q->pi] && !atomic_load(&q->stop))
		pthread_cond_wait(&q->cv_free, &q->mu);
	pthread_mutex_unlock(&q->mu);
	b = q->b[q->pi];
	b->n = 0;
	b->used = 1; /* offset 0 is NULL */
	return atomic_load(&q->stop);
}

/* The reader's callback on its thread. */
static int evp_push(void *arg, const struct ev_record *r)
{
	struct evp *q = arg;
	struct evp_batch *b = q->b[q->pi];
	int ret = atomic_load(&q->stop);

	if (ret)
		return ret;
	ret = evp_copy(b, r);
	if (ret)
		return ret;
	if (b->n == EVP_RECS || b->used >= EVP_ARENA)
		return evp_hand_over(q);
	return 0;
}

static void *evp_thread(void *arg)
{
	struct evp *q = arg;
	int ret = q->reader(q->ctx, evp_push, q);

	if (q->b[q->pi]->n && !atomic_load(&q->stop))
		evp_hand_over(q);
	pthread_mutex_lock(&q->mu);
	q->done = 1;
	q->reader_ret = ret;
	pthread_cond_signal(&q->cv_full);
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* Call @fn on each record of batch @b, its offsets turned back into pointers. */
static int evp_deliver(struct evp_batch *b, ev_fn fn, void *fn_arg)
{
	size_t i, k;
	int ret;

	for (i = 0; i < b->n; i++) {
		struct ev_record *r = &b->rec[i];

		r->type_name = EVP_PTR(b, r->type_name);
		r->stack.addrs = EVP_PTR(b, r->stack.addrs);
		if (r->stack.frames) {
			uintptr_t *f = (uintptr_t *)(void *)(b->arena + (uintptr_t)r->stack.frames);

			for (k = 0; k < r->stack.nr; k++)
				f[k] = f[k] ? (uintptr_t)(b->arena + f[k]) : 0;
			r->stack.frames = (const char *const *)(void *)f;
		}
		ret = fn(fn_arg, r);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether to run the reader on a thread of its own (see evpipe.h). */
static int evp_threaded(int threaded)
{
	const char *e = getenv("STACKMAP_THREADS");

	if (e && !strcmp(e, "1"))
		return 0;
	if (e && !strcmp(e, "2"))
		return 1;
	return threaded && sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

int evpipe_run(evpipe_reader reader, void *ctx, ev_fn fn, void *fn_arg, int threaded)
{
	struct evp q = {.reader = reader, .ctx = ctx};
	unsigned int ci = 0, i;
	pthread_t t;
	int ret = 0, cret = 0;

	if (!evp_threaded(threaded))
		return reader(ctx, fn, fn_arg);
	for (i = 0; i < EVP_NB; i++) {
		q.b[i] = calloc(1, sizeof(*q.b[i]));
		if (!q.b[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	q.b[0]->used = 1;
	atomic_init(&q.stop, 0);
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.cv_full, NULL);
	pthread_cond_init(&q.cv_free, NULL);
	if (pthread_create(&t, NULL, evp_thread, &q)) {
		/* no thread to be had: read on this one */
		ret = reader(ctx, fn, fn_arg);
		goto destroy;
	}
	for (;;) {
		pthread_mutex_lock(&q.mu);
		while (!q.full[ci] && !q.done)
			pthread_cond_wait(&q.cv_full, &q.mu);
		if (!q.full[ci]) {
			pthread_mutex_unlock(&q.mu);
			break; /* the reader returned and every batch was delivered */
		}
		pthread_mutex_unlock(&q.mu);
		cret = evp_deliver(q.b[ci], fn, fn_arg);
		pthread_mutex_lock(&q.mu);
		q.full[ci] = 0;
		if (cret)
			atomic_store(&q.stop, cret);
		pthread_cond_signal(&q.cv_free);
		pthread_mutex_unlock(&q.mu);
		if (cret)
			break;
		ci = (ci + 1) % EVP_NB;
	}
	pthread_join(t, NULL);
	ret = cret ? cret : q.reader_ret;
destroy:
	pthread_cond_destroy(&q.cv_free);
	pthread_cond_destroy(&q.cv_full);
	pthread_mutex_destroy(&q.mu);
out:
	for (i = 0; i < EVP_NB; i++) {
		if (q.b[i])
			free(q.b[i]->arena);
		free(q.b[i]);
	}
	return ret;
}
