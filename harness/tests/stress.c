// SPDX-License-Identifier: GPL-2.0
/*
 * Stress test of stackmap with conservation checks.
 *
 * For N = 1, 2 and 2 * online CPUs inserter threads (each one "CPU" of the shim), on stacks
 * from a synthetic call tree with Zipf popularity, in a map small enough to fill up:
 * - every inserter has a per-thread POSIX timer (SIGEV_THREAD_ID) whose handler inserts too,
 *   standing in for an NMI that fires inside an insert;
 * - phase "steady": no resets; a reader thread walks the exports meanwhile. At the end:
 *   every call returned an id, -ENOSPC or nothing else; one id per distinct stack, no two
 *   stacks share an id; each id's ref count equals the successful calls for its stack;
 *   the stats' successes and drops equal the calls' outcomes; exports match.
 * - phase "resets": a thread resets the map every few milliseconds and reads the exports
 *   in between; every call returned an id, -ENOSPC or -EINVAL (reset in progress); within a
 *   generation each stack has one id and each id one stack, as seen by inserters (calls that
 *   did not straddle a reset) and by exports alike.
 * - phase "herd": all threads insert the same new stack at once, many rounds: one id each.
 * A watchdog fails the run if a phase does not end in time (deadlock or livelock).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../shim/shim.h"
#include "check.h"
#include "ftrace_stackmap.h"
#include "stacks.h"

CHECK_DEFINE();

#if defined(__SANITIZE_THREAD__)
#define SLOW 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLOW 1
#endif
#endif
#ifndef SLOW
#define SLOW 0
#endif

#define NR_STACKS	3000
#define MAX_THREADS	16
#define MAX_GEN		200
#define MAP_BITS	10

static struct stackset set;
static struct ftrace_stackmap *map;
static unsigned int nthreads;
static unsigned long ops_per_thread;
static int phase_resets;

/* Harness epoch: odd while the reset thread is inside ftrace_stackmap_reset(); gen = epoch / 2. */
static unsigned long epoch;
static int stop_flag;
static unsigned long violations;

/* Per thread (and per context: 0 = thread, 1 = its signal handler) observations. */
struct obs {
	unsigned long ok[NR_STACKS];
	unsigned long nospc[NR_STACKS];
	int id[NR_STACKS];		/* steady phase: id seen, -1 none */
	int *gen_id;			/* resets phase: [gen][stack] id, -1 none */
	unsigned long calls, einval, other, straddled;
	uint64_t rng;
};

struct worker {
	pthread_t tid;
	int cpu;
	struct obs ctx[2];
	unsigned long progress;
	timer_t timer;
	int have_timer;
};

static struct worker workers[MAX_THREADS];

static __thread struct worker *self;

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_add_fetch(&violations, 1, __ATOMIC_RELAXED) > 20)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void one_call(struct obs *o)
{
	unsigned int s = stackset_pick(&set, &o->rng);
	unsigned long e1, e2;
	int id, *slot;

	e1 = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
	id = ftrace_stackmap_get_id(map, set.ips[s], set.nr[s]);
	e2 = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
	o->calls++;
	if (id >= 0) {
		o->ok[s]++;
	} else if (id == -ENOSPC) {
		o->nospc[s]++;
	} else if (id == -EINVAL && phase_resets) {
		o->einval++;
	} else {
		o->other++;
		violation("stack %u: unexpected return %d", s, id);
	}
	if (!phase_resets) {
		if (id >= 0 && o->id[s] < 0)
			o->id[s] = id;
		else if (id >= 0 && o->id[s] != id)
			violation("stack %u: id %d then %d without reset", s, o->id[s], id);
		else if (id == -ENOSPC && o->id[s] >= 0)
			violation("stack %u: -ENOSPC after it got id %d", s, o->id[s]);
		return;
	}
	if (id < 0)
		return;
	if (e1 != e2 || (e1 & 1) || e1 / 2 >= MAX_GEN) {
		o->straddled++;
		return;
	}
	slot = &o->gen_id[(e1 / 2) * NR_STACKS + s];
	if (*slot < 0)
		*slot = id;
	else if (*slot != id)
		violation("gen %lu stack %u: id %d then %d", e1 / 2, s, *slot, id);
}

static void on_timer(int sig)
{
	int saved = errno;

	(void)sig;
	if (self)
		one_call(&self->ctx[1]);
	errno = saved;
}

static void *inserter(void *arg)
{
	struct worker *w = arg;
	struct sigevent sev;
	struct itimerspec its;
	unsigned long i;
	sigset_t mask;

	if (shim_thread_register(w->cpu)) {
		violation("cannot register cpu %d", w->cpu);
		return NULL;
	}
	self = w;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGRTMIN;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (!timer_create(CLOCK_MONOTONIC, &sev, &w->timer)) {
		w->have_timer = 1;
		its.it_value.tv_sec = 0;
		its.it_value.tv_nsec = 20000;
		its.it_interval = its.it_value;
		its.it_interval.tv_nsec = 50000;
		timer_settime(w->timer, 0, &its, NULL);
	}
	for (i = 0; i < ops_per_thread && !__atomic_load_n(&stop_flag, __ATOMIC_RELAXED); i++) {
		one_call(&w->ctx[0]);
		__atomic_store_n(&w->progress, i + 1, __ATOMIC_RELAXED);
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	if (w->have_timer)
		timer_delete(w->timer);
	self = NULL;
	shim_thread_unregister();
	pthread_sigmask(SIG_UNBLOCK, &mask, NULL);
	return NULL;
}

/* One pass over the exports under the read lock; records ids per generation. */
static unsigned long export_pass(int *gen_export)
{
	unsigned char seen[NR_STACKS];
	struct ftrace_stackmap_stack st;
	struct ftrace_stackmap_stats stats;
	unsigned long n = 0;
	u32 id, limit;
	u64 gen;
	int s;

	memset(seen, 0, sizeof(seen));
	ftrace_stackmap_read_lock(map);
	gen = ftrace_stackmap_generation(map);
	limit = ftrace_stackmap_id_limit(map);
	if (limit > (1U << MAP_BITS))
		violation("id limit %u above capacity", limit);
	for (id = 0; id < limit; id++) {
		if (!ftrace_stackmap_lookup(map, id, &st, NULL))
			continue;
		n++;
		if (st.id != id || st.nr == 0 || st.nr > FTRACE_STACKMAP_MAX_DEPTH) {
			violation("export id %u: bad record id %u nr %u", id, st.id, st.nr);
			continue;
		}
		s = stackset_find(&set, st.ips, st.nr);
		if (s < 0) {
			violation("export id %u: frames of no known stack", id);
			continue;
		}
		if (seen[s])
			violation("gen %llu: stack %d exported under two ids", (unsigned long long)gen,
				  s);
		seen[s] = 1;
		if (gen_export && gen < MAX_GEN) {
			int *slot = &gen_export[gen * NR_STACKS + s];

			if (*slot >= 0 && *slot != (int)id)
				violation("gen %llu stack %d exported as %d then %u",
					  (unsigned long long)gen, s, *slot, id);
			*slot = (int)id;
		}
	}
	ftrace_stackmap_get_stats(map, &stats);
	/*
	 * An insert publishes the id before it counts the entry, so up to one insert per
	 * context (thread and handler) may be exported and not yet counted.
	 */
	if (n > stats.entries + 2 * nthreads)
		violation("exported %lu stacks, stats say %llu", n,
			  (unsigned long long)stats.entries);
	if (stats.generation != gen)
		violation("generation changed under the read lock");
	ftrace_stackmap_read_unlock(map);
	return n;
}

static int *gen_export;
static unsigned long export_passes, resets_done;

static void before_clear(void *arg)
{
	(void)arg;
	/* ftrace clears its ring buffers here; nothing to do for the harness. */
}

static void *reader(void *arg)
{
	int r;

	(void)arg;
	while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
		export_pass(phase_resets ? gen_export : NULL);
		export_passes++;
		if (!phase_resets || resets_done + 1 >= MAX_GEN) {
			usleep(500);
			continue;
		}
		usleep(SLOW ? 20000 : 3000);
		__atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE);	/* odd: resetting */
		r = ftrace_stackmap_reset(map, before_clear, NULL);
		__atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE);	/* even: new generation */
		if (r)
			violation("reset returned %d", r);
		resets_done++;
	}
	return NULL;
}

/* Watchdog: a phase that does not end in time is a deadlock or a livelock. */
static void run_phase(void *(*fn)(void *), int with_reader, int timeout_s)
{
	pthread_t rd;
	unsigned int t;
	unsigned long last[MAX_THREADS] = { 0 }, now;
	int waited = 0, done, stuck;

	__atomic_store_n(&stop_flag, 0, __ATOMIC_RELEASE);
	for (t = 0; t < nthreads; t++)
		pthread_create(&workers[t].tid, NULL, fn, &workers[t]);
	if (with_reader)
		pthread_create(&rd, NULL, reader, NULL);
	for (;;) {
		usleep(100000);
		waited++;
		done = 1;
		stuck = 0;
		for (t = 0; t < nthreads; t++) {
			now = __atomic_load_n(&workers[t].progress, __ATOMIC_RELAXED);
			if (now < ops_per_thread)
				done = 0;
			if (now == last[t] && now < ops_per_thread)
				stuck++;
			last[t] = now;
		}
		if (done)
			break;
		if (waited > timeout_s * 10) {
			printf("FAIL watchdog: phase not done after %d s (%d threads without "
			       "progress in the last 100 ms)\nRESULT 0 1\n", timeout_s, stuck);
			fflush(stdout);
			_exit(1);
		}
	}
	for (t = 0; t < nthreads; t++)
		pthread_join(workers[t].tid, NULL);
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
	if (with_reader)
		pthread_join(rd, NULL);
}

static void reset_workers(void)
{
	unsigned int t, c;

	for (t = 0; t < nthreads; t++) {
		int *g0 = workers[t].ctx[0].gen_id, *g1 = workers[t].ctx[1].gen_id;

		memset(&workers[t], 0, sizeof(workers[t]));
		workers[t].cpu = (int)t;
		workers[t].ctx[0].gen_id = g0;
		workers[t].ctx[1].gen_id = g1;
		for (c = 0; c < 2; c++) {
			workers[t].ctx[c].rng = 0x1000 + t * 2 + c;
			memset(workers[t].ctx[c].id, 0xff, sizeof(workers[t].ctx[c].id));
			if (workers[t].ctx[c].gen_id)
				memset(workers[t].ctx[c].gen_id, 0xff,
				       sizeof(int) * MAX_GEN * NR_STACKS);
		}
	}
}

static void test_steady(void)
{
	unsigned long ok[NR_STACKS] = { 0 }, total_ok = 0, total_nospc = 0, calls = 0, sig = 0;
	int id_of[NR_STACKS], stack_of[1 << MAP_BITS];
	struct ftrace_stackmap_stats st;
	struct ftrace_stackmap_stack ex;
	unsigned int t, c, s, stored = 0;
	u32 *counts;
	int id;

	map = ftrace_stackmap_create(MAP_BITS);
	phase_resets = 0;
	reset_workers();
	violations = 0;
	run_phase(inserter, 1, SLOW ? 150 : 60);

	memset(id_of, 0xff, sizeof(id_of));
	memset(stack_of, 0xff, sizeof(stack_of));
	for (t = 0; t < nthreads; t++) {
		for (c = 0; c < 2; c++) {
			struct obs *o = &workers[t].ctx[c];

			calls += o->calls;
			if (c)
				sig += o->calls;
			CHECK_EQ(o->other, 0);
			CHECK_EQ(o->einval, 0);
			for (s = 0; s < NR_STACKS; s++) {
				ok[s] += o->ok[s];
				total_ok += o->ok[s];
				total_nospc += o->nospc[s];
				if (o->id[s] < 0)
					continue;
				if (id_of[s] < 0)
					id_of[s] = o->id[s];
				CHECK(id_of[s] == o->id[s], "stack %u: ids %d and %d", s, id_of[s],
				      o->id[s]);
			}
		}
	}
	CHECK_EQ(total_ok + total_nospc, calls);
	ftrace_stackmap_read_lock(map);
	ftrace_stackmap_get_stats(map, &st);
	CHECK_EQ(st.successes, total_ok);
	CHECK_EQ(st.drops, total_nospc);
	CHECK_EQ(st.busy, 0);
	CHECK_EQ(st.too_deep, 0);
	for (s = 0; s < NR_STACKS; s++) {
		id = id_of[s];
		if (id < 0) {
			CHECK_EQ(ok[s], 0);
			continue;
		}
		stored++;
		CHECK(id < (1 << MAP_BITS), "id %d", id);
		CHECK(stack_of[id] < 0, "id %d names stacks %d and %u", id, stack_of[id], s);
		stack_of[id] = (int)s;
		CHECK(ftrace_stackmap_lookup(map, (u32)id, &ex, NULL), "id %d not exported", id);
		CHECK_EQ(ex.ref_count, ok[s]);
		CHECK(ex.nr == set.nr[s] && !memcmp(ex.ips, set.ips[s], ex.nr * sizeof(long)),
		      "id %d frames", id);
	}
	CHECK_EQ(st.entries, stored);
	counts = calloc(ftrace_stackmap_capacity(map), sizeof(*counts));
	CHECK(counts != NULL, "calloc");
	ftrace_stackmap_fold_counts(map, counts);
	for (id = 0, c = 0; id < (int)ftrace_stackmap_id_limit(map); id++) {
		if (!ftrace_stackmap_lookup(map, (u32)id, &ex, counts))
			continue;
		c++;
		CHECK(stack_of[id] >= 0 && ex.ref_count == ok[stack_of[id]],
		      "id %d: folded count %u", id, ex.ref_count);
	}
	free(counts);
	CHECK_EQ(c, stored);
	ftrace_stackmap_read_unlock(map);
	CHECK_EQ(violations, 0);
	printf("  steady %u threads: %lu calls (%lu in signal handlers), %u stacks stored, "
	       "%llu drops, %llu races, %llu lost ids, %lu export passes\n", nthreads, calls, sig,
	       stored, (unsigned long long)st.drops, (unsigned long long)st.races,
	       (unsigned long long)st.lost_ids, export_passes);
	CHECK(SLOW || sig > 0, "no insert ran in a signal handler");
	ftrace_stackmap_destroy(map);
}

static void test_resets(void)
{
	unsigned long calls = 0, ok = 0, nospc = 0, einval = 0, straddled = 0, checked = 0;
	int *id_s = malloc(sizeof(int) * NR_STACKS), *s_id = malloc(sizeof(int) << MAP_BITS);
	unsigned int t, c, s, g, src;
	int id, *v;

	map = ftrace_stackmap_create(MAP_BITS);
	phase_resets = 1;
	epoch = 0;
	resets_done = 0;
	reset_workers();
	memset(gen_export, 0xff, sizeof(int) * MAX_GEN * NR_STACKS);
	violations = 0;
	run_phase(inserter, 1, SLOW ? 150 : 60);

	for (t = 0; t < nthreads; t++) {
		for (c = 0; c < 2; c++) {
			struct obs *o = &workers[t].ctx[c];

			calls += o->calls;
			einval += o->einval;
			straddled += o->straddled;
			CHECK_EQ(o->other, 0);
			for (s = 0; s < NR_STACKS; s++) {
				ok += o->ok[s];
				nospc += o->nospc[s];
			}
		}
	}
	CHECK_EQ(ok + nospc + einval, calls);
	/* Per generation: one id per stack and one stack per id, over all observers. */
	for (g = 0; g < MAX_GEN && g <= resets_done; g++) {
		memset(id_s, 0xff, sizeof(int) * NR_STACKS);
		memset(s_id, 0xff, sizeof(int) << MAP_BITS);
		for (src = 0; src <= 2 * nthreads; src++) {
			v = src < 2 * nthreads ? workers[src / 2].ctx[src % 2].gen_id : gen_export;
			for (s = 0; s < NR_STACKS; s++) {
				id = v[g * NR_STACKS + s];
				if (id < 0)
					continue;
				checked++;
				CHECK(id_s[s] < 0 || id_s[s] == id, "gen %u stack %u: ids %d, %d", g,
				      s, id_s[s], id);
				CHECK(s_id[id] < 0 || s_id[id] == (int)s,
				      "gen %u id %d: stacks %d, %u", g, id, s_id[id], s);
				id_s[s] = id;
				s_id[id] = (int)s;
			}
		}
	}
	CHECK(resets_done >= 3, "only %lu resets", resets_done);
	CHECK_EQ(violations, 0);
	printf("  resets %u threads: %lu calls, %lu ids, %lu -ENOSPC, %lu -EINVAL (resetting), "
	       "%lu resets, %lu (gen, stack, id) observations checked, %lu calls straddled a "
	       "reset\n", nthreads, calls, ok, nospc, einval, resets_done, checked, straddled);
	ftrace_stackmap_destroy(map);
	free(id_s);
	free(s_id);
}

/*
 * Thundering first insert: all threads insert the same new stack at the same moment, then
 * all try to claim its definition (ftrace_stackmap_claim_def()): exactly one may win.
 */
static unsigned long herd_rounds;
static unsigned long herd_claims[MAX_THREADS];
static unsigned int herd_arrived;
static unsigned long herd_go;
static int herd_ids[MAX_THREADS];
static unsigned long herd_dups;

static void herd_barrier(unsigned long round)
{
	if (__atomic_add_fetch(&herd_arrived, 1, __ATOMIC_ACQ_REL) == nthreads) {
		__atomic_store_n(&herd_arrived, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&herd_go, round, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&herd_go, __ATOMIC_ACQUIRE) < round)
		if (nthreads > 2)
			sched_yield();
}

static void *herd_thread(void *arg)
{
	struct worker *w = arg;
	unsigned long ips[16], r;
	unsigned int i;

	shim_thread_register(w->cpu);
	for (r = 1; r <= herd_rounds; r++) {
		for (i = 0; i < 16; i++)
			ips[i] = 0xffffffff82000000UL + r * 0x1000 + i * 8;
		herd_barrier(2 * r);
		herd_ids[w->cpu] = ftrace_stackmap_get_id(map, ips, 16);
		if (herd_ids[w->cpu] >= 0) {
			rcu_read_lock_sched_notrace();
			herd_claims[w->cpu] += ftrace_stackmap_claim_def(map, herd_ids[w->cpu]);
			rcu_read_unlock_sched_notrace();
		}
		herd_barrier(2 * r + 1);
		if (w->cpu == 0) {
			for (i = 1; i < nthreads; i++)
				if (herd_ids[i] != herd_ids[0])
					herd_dups++;
		}
		__atomic_store_n(&w->progress, r, __ATOMIC_RELAXED);
	}
	shim_thread_unregister();
	return NULL;
}

static void test_herd(void)
{
	struct ftrace_stackmap_stats st;
	unsigned long saved = ops_per_thread, claims = 0;
	unsigned int t;

	map = ftrace_stackmap_create(14);
	memset(herd_claims, 0, sizeof(herd_claims));
	reset_workers();
	herd_rounds = SLOW ? 300 : 5000;
	herd_dups = 0;
	herd_go = 0;
	herd_arrived = 0;
	ops_per_thread = herd_rounds;
	run_phase(herd_thread, 0, SLOW ? 150 : 60);
	ops_per_thread = saved;
	ftrace_stackmap_get_stats(map, &st);
	for (t = 0; t < nthreads; t++)
		claims += herd_claims[t];
	CHECK_EQ(herd_dups, 0);
	CHECK_EQ(claims, herd_rounds);	/* one definition per stack, whoever inserted it */
	CHECK_EQ(st.entries, herd_rounds);
	CHECK_EQ(st.successes, herd_rounds * nthreads);
	printf("  herd %u threads: %lu rounds, %lu duplicate ids, %llu races resolved to one id, "
	       "%llu lost ids, %lu definitions claimed\n", nthreads, herd_rounds, herd_dups,
	       (unsigned long long)st.races, (unsigned long long)st.lost_ids, claims);
	ftrace_stackmap_destroy(map);
}

int main(int argc, char **argv)
{
	unsigned int configs[3], nconf = 0, i, t, ncpu = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	char name[64];
	struct sigaction sa;

	(void)argc;
	(void)argv;
	if (ncpu < 1)
		ncpu = 1;
	configs[nconf++] = 1;
	configs[nconf++] = 2;
	if (2 * ncpu > 2)
		configs[nconf++] = 2 * ncpu > MAX_THREADS ? MAX_THREADS : 2 * ncpu;
	ops_per_thread = SLOW ? 20000 : 300000;
	if (stackset_generate(&set, NR_STACKS, STACKS_DEPTH_REALISTIC, 1.0, 42))
		return 2;
	gen_export = malloc(sizeof(int) * MAX_GEN * NR_STACKS);
	for (t = 0; t < MAX_THREADS; t++)
		for (i = 0; i < 2; i++)
			workers[t].ctx[i].gen_id = malloc(sizeof(int) * MAX_GEN * NR_STACKS);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timer;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);

	shim_set_nr_cpus(MAX_THREADS);
	printf("stress: %u stacks (mean depth %.1f), map of %u, %lu calls per thread%s\n",
	       set.n, set.mean_depth, 1U << MAP_BITS, ops_per_thread,
	       SLOW ? " (sanitizer build)" : "");
	for (i = 0; i < nconf; i++) {
		nthreads = configs[i];
		snprintf(name, sizeof(name), "stress_steady_%u_threads", nthreads);
		run_test(name, test_steady);
		snprintf(name, sizeof(name), "stress_resets_%u_threads", nthreads);
		run_test(name, test_resets);
		snprintf(name, sizeof(name), "stress_herd_%u_threads", nthreads);
		run_test(name, test_herd);
	}
	return check_summary(SLOW ? "stress-tsan" : "stress");
}
