// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark: the kernel's stackmap against the RFC design, the BPF stack-trace map, a
 * mutex-protected chained table and no dedup, on the same synthetic stacks in one run.
 * Prints tables, ratios and the project's targets (PASS/MISS), and writes a CSV:
 *   section,design,param,variant,metric,value
 * Every timed figure is the median of --runs runs (default 5).
 *
 *   bench [--runs N] [--quick] [--csv FILE] [--only latency|hash|fill|scaling|herd|signals|
 *         export|memory]
 *   bench --callgrind hit|insert|hash --design NAME --depth D --iters N
 *         (single-thread loop for scripts/callgrind.sh; the loop is bench_measured())
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../shim/shim.h"
#include "../tests/stacks.h"
#include "designs.h"
#include "stackmap.h"

#define MAX_T 16
#define MAX_RUNS 15

static const struct design *designs[] = {
	&design_stackmap, &design_rfc, &design_bpf, &design_mutex, &design_nodedup,
};
#define ND ((int)(sizeof(designs) / sizeof(designs[0])))

static int runs = 5, quick;
static const char *only;

static int want(const char *section)
{
	return !only || !strcmp(only, section);
}
static unsigned int ncpu;
static FILE *csv;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void out(const char *section, const char *design, const char *param, const char *variant,
		const char *metric, double value)
{
	if (csv)
		fprintf(csv, "%s,%s,%s,%s,%s,%.6g\n", section, design, param, variant, metric,
			value);
}

static const struct design *find_design(const char *name)
{
	int i;

	for (i = 0; i < ND; i++)
		if (!strcmp(designs[i]->name, name))
			return designs[i];
	return NULL;
}

/* ------------------------------------------------------------ single-thread latency */

static volatile long sink;

/* The measured loop; scripts/callgrind.sh counts instructions inside it only. */
__attribute__((noinline)) void bench_measured(const struct design *d, void *m,
					      const struct stackset *set, unsigned long iters,
					      unsigned int mod)
{
	unsigned long i;
	long acc = 0;

	for (i = 0; i < iters; i++) {
		unsigned int k = (unsigned int)(i % mod);

		acc += d->get_id(m, set->ips[k], set->nr[k]);
	}
	sink = acc;
}

__attribute__((noinline)) void bench_measured_hash(int which, const struct stackset *set,
						   unsigned long iters)
{
	unsigned long i;
	uint64_t acc = 0;

	for (i = 0; i < iters; i++) {
		unsigned int k = (unsigned int)(i & 63);
		const unsigned long *ips = set->ips[k];
		unsigned int nr = set->nr[k];

		if (which == 0)
			acc += bench_jhash2((const uint32_t *)ips, nr * 2, 0x1234);
		else if (which == 1)
			acc += bench_xxh64(ips, nr * sizeof(long), 0x1234);
		else
			acc += bench_crc32c(ips, nr, 0x1234);
	}
	sink = (long)acc;
}

static const int depths[] = { 4, 8, 16, 32, 64 };
#define NDEPTH 5
static double lat_hit[8][NDEPTH], lat_ins[8][NDEPTH];

static double time_hit(const struct design *d, const struct stackset *set, unsigned long iters)
{
	void *m = d->create(14);
	unsigned int i;
	double t0, t1;

	for (i = 0; i < 256; i++)
		d->get_id(m, set->ips[i], set->nr[i]);
	bench_measured(d, m, set, iters / 4, 256);	/* warm up */
	t0 = now_ns();
	bench_measured(d, m, set, iters, 256);
	t1 = now_ns();
	d->destroy(m);
	return (t1 - t0) / iters;
}

static double time_insert(const struct design *d, const struct stackset *set)
{
	void *m = d->create(14);
	double t0, t1;

	t0 = now_ns();
	bench_measured(d, m, set, set->n, set->n);
	t1 = now_ns();
	d->destroy(m);
	return (t1 - t0) / set->n;
}

static void bench_latency(void)
{
	struct stackset set;
	double v[MAX_RUNS];
	char p[16];
	int di, k, r;

	printf("\n== Single-thread latency (ns per call, median of %d runs) ==\n", runs);
	printf("%-9s %-7s", "design", "kind");
	for (k = 0; k < NDEPTH; k++)
		printf(" %8d", depths[k]);
	printf("\n");
	for (k = 0; k < NDEPTH; k++) {
		stackset_generate(&set, 8192, depths[k], 0, 100 + k);
		for (di = 0; di < ND; di++) {
			for (r = 0; r < runs; r++)
				v[r] = time_hit(designs[di], &set, quick ? 100000 : 400000);
			lat_hit[di][k] = median(v, runs);
			for (r = 0; r < runs; r++)
				v[r] = time_insert(designs[di], &set);
			lat_ins[di][k] = median(v, runs);
			snprintf(p, sizeof(p), "%d", depths[k]);
			out("latency", designs[di]->name, p, "hit", "ns", lat_hit[di][k]);
			out("latency", designs[di]->name, p, "insert", "ns", lat_ins[di][k]);
		}
		stackset_free(&set);
	}
	for (di = 0; di < ND; di++) {
		printf("%-9s %-7s", designs[di]->name, "hit");
		for (k = 0; k < NDEPTH; k++)
			printf(" %8.1f", lat_hit[di][k]);
		printf("\n%-9s %-7s", designs[di]->name, "insert");
		for (k = 0; k < NDEPTH; k++)
			printf(" %8.1f", lat_ins[di][k]);
		printf("\n");
	}
}

static double hash_ns[3][3];

static void bench_hashes(void)
{
	static const char *names[] = { "jhash2", "xxh64", "crc32c-sse4.2" };
	static const int hd[] = { 16, 32, 64 };
	struct stackset set;
	double v[MAX_RUNS], t0;
	int h, k, r;
	char p[16];

	printf("\n== Hash alone (ns per stack, median of %d runs) ==\n%-14s %8s %8s %8s\n", runs,
	       "hash", "16", "32", "64");
	for (k = 0; k < 3; k++) {
		stackset_generate(&set, 64, hd[k], 0, 7 + k);
		for (h = 0; h < 3; h++) {
			for (r = 0; r < runs; r++) {
				t0 = now_ns();
				bench_measured_hash(h, &set, 1000000);
				v[r] = (now_ns() - t0) / 1000000;
			}
			hash_ns[h][k] = median(v, runs);
			snprintf(p, sizeof(p), "%d", hd[k]);
			out("hash", names[h], p, "", "ns", hash_ns[h][k]);
		}
		stackset_free(&set);
	}
	for (h = 0; h < 3; h++)
		printf("%-14s %8.1f %8.1f %8.1f\n", names[h], hash_ns[h][0], hash_ns[h][1],
		       hash_ns[h][2]);
}

/* ------------------------------------------------------------ fill sweep */

static double lost_at_full[8];

static void bench_fill(void)
{
	static const double fr[] = { 0.1, 0.25, 0.5, 0.75, 0.9, 1.0, 1.25, 1.5, 2.0 };
	const unsigned int bits = 12, cap = 1U << bits;
	struct stackset set;
	unsigned int i, k, n, lost;
	char p[16];
	int di;
	void *m;

	stackset_generate(&set, 2 * cap, STACKS_DEPTH_REALISTIC, 0, 55);
	printf("\n== Fill sweep: distinct stacks lost (no usable id) at n/capacity, capacity %u ==\n"
	       "%-9s", cap, "design");
	for (k = 0; k < sizeof(fr) / sizeof(fr[0]); k++)
		printf(" %7.2f", fr[k]);
	printf("\n");
	for (di = 0; di < ND - 1; di++) {
		printf("%-9s", designs[di]->name);
		for (k = 0; k < sizeof(fr) / sizeof(fr[0]); k++) {
			n = (unsigned int)(fr[k] * cap);
			m = designs[di]->create(bits);
			for (i = 0; i < n; i++)
				designs[di]->get_id(m, set.ips[i], set.nr[i]);
			for (i = 0, lost = 0; i < n; i++)
				lost += designs[di]->get_id(m, set.ips[i], set.nr[i]) < 0;
			designs[di]->destroy(m);
			printf(" %7u", lost);
			snprintf(p, sizeof(p), "%.2f", fr[k]);
			out("fill", designs[di]->name, p, "", "lost", lost);
			out("fill", designs[di]->name, p, "", "lost_pct", 100.0 * lost / n);
			if (fr[k] == 1.0)
				lost_at_full[di] = lost;
		}
		printf("\n");
	}
	stackset_free(&set);
}

/* ------------------------------------------------------------ multi-threaded runs */

struct mt {
	const struct design *d;
	void *m;
	const struct stackset *hot;
	unsigned int threads;
	unsigned long ops;
	double repeat;		/* fraction of calls on known stacks */
	int mode;		/* 0 mixed, 1 one hot stack, 2 herd */
	int signals;
	volatile int stop;
	unsigned int arrived;
	unsigned long go;
	int herd_ids[MAX_T];
	unsigned long herd_dups, herd_fail;
	unsigned long sig_calls[MAX_T], sig_fail[MAX_T];
	double t_start, t_end;
};

struct mt_arg {
	struct mt *mt;
	int t;
};

static __thread struct mt_arg *cur_arg;
static __thread uint64_t sig_rng;

static void sig_handler(int sig)
{
	struct mt_arg *a = cur_arg;
	unsigned int k;
	int id, saved = errno;

	(void)sig;
	if (a) {
		k = stackset_pick(a->mt->hot, &sig_rng);
		id = a->mt->d->get_id(a->mt->m, a->mt->hot->ips[k], a->mt->hot->nr[k]);
		a->mt->sig_calls[a->t]++;
		if (id < 0)
			a->mt->sig_fail[a->t]++;
	}
	errno = saved;
}

static void mt_barrier(struct mt *mt, unsigned long round)
{
	if (__atomic_add_fetch(&mt->arrived, 1, __ATOMIC_ACQ_REL) == mt->threads) {
		__atomic_store_n(&mt->arrived, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&mt->go, round, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&mt->go, __ATOMIC_ACQUIRE) < round)
		if (mt->threads > ncpu)
			sched_yield();
}

static void *mt_thread(void *p)
{
	struct mt_arg *a = p;
	struct mt *mt = a->mt;
	unsigned long ips[STACKS_MAX_DEPTH], i, fresh = 0;
	uint64_t rng = 0x9876 + (uint64_t)a->t * 7919;
	const struct design *d = mt->d;
	struct sigevent sev;
	struct itimerspec its;
	timer_t timer;
	unsigned int k, nr;
	int have_timer = 0;
	sigset_t mask;

	shim_thread_register(a->t);
	cur_arg = a;
	sig_rng = rng ^ 0x5555;
	if (mt->signals) {
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = SIGRTMIN;
		sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
		if (!timer_create(CLOCK_MONOTONIC, &sev, &timer)) {
			have_timer = 1;
			its.it_value.tv_sec = 0;
			its.it_value.tv_nsec = 20000;
			its.it_interval = its.it_value;
			timer_settime(timer, 0, &its, NULL);
		}
	}
	mt_barrier(mt, 1);
	if (a->t == 0)
		mt->t_start = now_ns();
	if (mt->mode == 2) {
		for (i = 1; i <= mt->ops; i++) {
			for (k = 0; k < 16; k++)
				ips[k] = 0xffffffff83000000UL + i * 0x1000 + k * 8;
			mt_barrier(mt, 2 * i);
			mt->herd_ids[a->t] = d->get_id(mt->m, ips, 16);
			mt_barrier(mt, 2 * i + 1);
			if (a->t == 0) {
				for (k = 0; k < mt->threads; k++)
					if (mt->herd_ids[k] < 0)
						mt->herd_fail++;
				for (k = 1; k < mt->threads; k++)
					if (mt->herd_ids[k] >= 0 && mt->herd_ids[0] >= 0 &&
					    mt->herd_ids[k] != mt->herd_ids[0])
						mt->herd_dups++;
			}
		}
	} else {
		for (i = 0; i < mt->ops && !mt->stop; i++) {
			if (mt->mode == 1) {
				d->get_id(mt->m, mt->hot->ips[0], mt->hot->nr[0]);
				continue;
			}
			k = stackset_pick(mt->hot, &rng);
			if (rng_unit(&rng) < mt->repeat) {
				d->get_id(mt->m, mt->hot->ips[k], mt->hot->nr[k]);
				continue;
			}
			/* A stack never seen before: a known one with a new innermost frame. */
			nr = mt->hot->nr[k];
			memcpy(ips, mt->hot->ips[k], nr * sizeof(long));
			ips[0] = 0xffffffffc0000000UL + ((unsigned long)a->t << 32) + ++fresh * 8;
			d->get_id(mt->m, ips, nr);
		}
	}
	if (have_timer) {
		sigemptyset(&mask);
		sigaddset(&mask, SIGRTMIN);
		pthread_sigmask(SIG_BLOCK, &mask, NULL);
		timer_delete(timer);
	}
	cur_arg = NULL;
	shim_thread_unregister();
	return NULL;
}

/* Runs the threads; returns aggregate millions of calls per second. */
static double mt_run(struct mt *mt, unsigned int bits)
{
	struct mt_arg args[MAX_T];
	pthread_t tid[MAX_T];
	unsigned int t;
	double el;

	mt->m = mt->d->create(bits);
	shim_thread_register(0);
	for (t = 0; t < mt->hot->n && mt->mode == 0; t++)
		mt->d->get_id(mt->m, mt->hot->ips[t], mt->hot->nr[t]);
	if (mt->mode == 1)
		mt->d->get_id(mt->m, mt->hot->ips[0], mt->hot->nr[0]);
	shim_thread_unregister();
	for (t = 0; t < mt->threads; t++) {
		args[t].mt = mt;
		args[t].t = (int)t;
		pthread_create(&tid[t], NULL, mt_thread, &args[t]);
	}
	for (t = 0; t < mt->threads; t++)
		pthread_join(tid[t], NULL);
	mt->t_end = now_ns();
	el = mt->t_end - mt->t_start;
	mt->d->destroy(mt->m);
	return (double)mt->ops * mt->threads / el * 1e3;
}

static double scal[8][MAX_T + 1][3], hot_tp[8][MAX_T + 1];

static void bench_scaling(struct stackset *hot)
{
	static const double reps[] = { 0.50, 0.90, 0.99 };
	unsigned int t, ri;
	double v[MAX_RUNS];
	char p[16], var[16];
	int di, r;
	struct mt mt;

	printf("\n== Threads x repeat ratio: aggregate Mcalls/s (median of %d) ==\n", runs);
	printf("%-9s %-7s", "design", "repeat");
	for (t = 1; t <= 2 * ncpu; t++)
		printf(" %6u thr", t);
	printf("\n");
	for (di = 0; di < ND; di++) {
		for (ri = 0; ri < 3; ri++) {
			printf("%-9s %6.0f%%", designs[di]->name, reps[ri] * 100);
			for (t = 1; t <= 2 * ncpu; t++) {
				for (r = 0; r < runs; r++) {
					memset(&mt, 0, sizeof(mt));
					mt.d = designs[di];
					mt.hot = hot;
					mt.threads = t;
					mt.ops = quick ? 20000 : 150000;
					mt.repeat = reps[ri];
					v[r] = mt_run(&mt, 17);
				}
				scal[di][t][ri] = median(v, runs);
				printf(" %10.2f", scal[di][t][ri]);
				snprintf(p, sizeof(p), "%u", t);
				snprintf(var, sizeof(var), "%.0f", reps[ri] * 100);
				out("scaling", designs[di]->name, p, var, "mops", scal[di][t][ri]);
			}
			printf("\n");
		}
	}

	printf("\n== One hot stack (depth %u) hammered by all threads: aggregate Mcalls/s ==\n",
	       hot->nr[0]);
	for (di = 0; di < ND; di++) {
		printf("%-9s", designs[di]->name);
		for (t = 1; t <= 2 * ncpu; t++) {
			for (r = 0; r < runs; r++) {
				memset(&mt, 0, sizeof(mt));
				mt.d = designs[di];
				mt.hot = hot;
				mt.threads = t;
				mt.ops = quick ? 100000 : 400000;
				mt.mode = 1;
				v[r] = mt_run(&mt, 14);
			}
			hot_tp[di][t] = median(v, runs);
			printf(" %10.2f", hot_tp[di][t]);
			snprintf(p, sizeof(p), "%u", t);
			out("hot", designs[di]->name, p, "", "mops", hot_tp[di][t]);
		}
		printf("\n");
	}
}

static unsigned long herd_dups[8][MAX_T + 1];

static void bench_herd(struct stackset *hot)
{
	unsigned int tl[2] = { ncpu, 2 * ncpu }, i;
	struct mt mt;
	char p[16];
	int di;

	printf("\n== Thundering first insert: all threads insert the same new stack at once ==\n");
	for (di = 0; di < ND - 1; di++) {
		for (i = 0; i < 2; i++) {
			memset(&mt, 0, sizeof(mt));
			mt.d = designs[di];
			mt.hot = hot;
			mt.threads = tl[i];
			mt.ops = quick ? 2000 : 10000;
			mt.mode = 2;
			mt_run(&mt, 15);
			herd_dups[di][tl[i]] = mt.herd_dups;
			printf("%-9s %u threads: %lu rounds, %lu duplicate ids, %lu failed calls\n",
			       designs[di]->name, tl[i], mt.ops, mt.herd_dups, mt.herd_fail);
			snprintf(p, sizeof(p), "%u", tl[i]);
			out("herd", designs[di]->name, p, "", "duplicates", mt.herd_dups);
			out("herd", designs[di]->name, p, "", "rounds", mt.ops);
		}
	}
}

static void bench_signals(struct stackset *hot)
{
	unsigned long calls, fails;
	struct mt mt;
	unsigned int t;
	double tp;
	int di;

	printf("\n== Signals inside inserts (%u threads, 20 us timer per thread, handler "
	       "inserts; 90%% repeats) ==\n", ncpu);
	for (di = 0; di < ND - 1; di++) {
		memset(&mt, 0, sizeof(mt));
		mt.d = designs[di];
		mt.hot = hot;
		mt.threads = ncpu;
		mt.ops = quick ? 50000 : 200000;
		mt.repeat = 0.9;
		mt.signals = 1;
		tp = mt_run(&mt, 17);
		for (t = 0, calls = 0, fails = 0; t < ncpu; t++) {
			calls += mt.sig_calls[t];
			fails += mt.sig_fail[t];
		}
		printf("%-9s %8.2f Mcalls/s, %lu handler calls, %lu failed in the handler\n",
		       designs[di]->name, tp, calls, fails);
		out("signals", designs[di]->name, "", "", "mops", tp);
		out("signals", designs[di]->name, "", "", "handler_calls", calls);
		out("signals", designs[di]->name, "", "", "handler_failed", fails);
	}
}

struct exp_arg {
	struct mt *mt;
	unsigned long exports, resets;
	double export_ns;
};

static void *exporter(void *p)
{
	struct exp_arg *e = p;
	double t0;

	while (!__atomic_load_n(&e->mt->stop, __ATOMIC_ACQUIRE)) {
		t0 = now_ns();
		e->mt->d->export_all(e->mt->m);
		e->export_ns += now_ns() - t0;
		e->exports++;
		usleep(1000);
		if (e->exports % 10 == 0 && !e->mt->d->reset(e->mt->m))
			e->resets++;
	}
	return NULL;
}

static void bench_export_reset(struct stackset *hot)
{
	struct mt_arg args[MAX_T];
	pthread_t tid[MAX_T], et;
	struct exp_arg e;
	unsigned int t;
	struct mt mt;
	double tp;
	int di;

	printf("\n== Export every 1 ms and reset every 10 ms while %u threads insert (90%% "
	       "repeats) ==\n", ncpu);
	for (di = 0; di < ND - 1; di++) {
		memset(&mt, 0, sizeof(mt));
		memset(&e, 0, sizeof(e));
		mt.d = designs[di];
		mt.hot = hot;
		mt.threads = ncpu;
		mt.ops = quick ? 100000 : 400000;
		mt.repeat = 0.9;
		mt.m = mt.d->create(14);
		e.mt = &mt;
		for (t = 0; t < ncpu; t++) {
			args[t].mt = &mt;
			args[t].t = (int)t;
			pthread_create(&tid[t], NULL, mt_thread, &args[t]);
		}
		pthread_create(&et, NULL, exporter, &e);
		for (t = 0; t < ncpu; t++)
			pthread_join(tid[t], NULL);
		mt.t_end = now_ns();
		__atomic_store_n(&mt.stop, 1, __ATOMIC_RELEASE);
		pthread_join(et, NULL);
		tp = (double)mt.ops * ncpu / (mt.t_end - mt.t_start) * 1e3;
		printf("%-9s %8.2f Mcalls/s while %lu exports (%.1f us each) and %lu resets\n",
		       mt.d->name, tp, e.exports, e.exports ? e.export_ns / e.exports / 1e3 : 0,
		       e.resets);
		out("export_reset", mt.d->name, "", "", "mops", tp);
		out("export_reset", mt.d->name, "", "", "export_us",
		    e.exports ? e.export_ns / e.exports / 1e3 : 0);
		out("export_reset", mt.d->name, "", "", "resets", e.resets);
		mt.d->destroy(mt.m);
	}
}

/* ------------------------------------------------------------ memory */

static double mem_per[8];

static void bench_memory(void)
{
	struct stackset set;
	struct stackmap_stats st;
	struct stackmap *map;
	unsigned int i, cpus[3] = { 0, 8, 64 }, c;
	double ours_measured;
	char p[16];
	int di;

	stackset_generate(&set, 1U << 14, STACKS_DEPTH_REALISTIC, 0, 77);
	cpus[0] = ncpu;
	printf("\n== Memory per unique stack, realistic depth mix (mean %.1f frames) ==\n",
	       set.mean_depth);
	printf("%-9s %12s %12s %12s %14s\n", "design", "B/stack@ncpu", "B/stack@8cpu",
	       "B/stack@64cpu", "alloc@2^14/cap");
	for (di = 0; di < ND; di++) {
		printf("%-9s", designs[di]->name);
		for (c = 0; c < 3; c++) {
			double b = designs[di]->bytes_per_stack(set.mean_depth, cpus[c]);

			if (c == 0)
				mem_per[di] = b;
			printf(" %12.1f", b);
			snprintf(p, sizeof(p), "%u", cpus[c]);
			out("memory", designs[di]->name, p, "per_stack", "bytes", b);
		}
		printf(" %14.1f\n", designs[di]->bytes_allocated(14, ncpu) / (1 << 14));
		snprintf(p, sizeof(p), "%u", ncpu);
		out("memory", designs[di]->name, p, "allocated_per_capacity", "bytes",
		    designs[di]->bytes_allocated(14, ncpu) / (1 << 14));
	}
	/* Check the model against the real map: fill one and read its accounting. */
	shim_set_nr_cpus(ncpu);
	shim_thread_register(0);
	map = stackmap_create(14);
	for (i = 0; i < set.n; i++)
		stackmap_get_id(map, set.ips[i], set.nr[i]);
	stackmap_get_stats(map, &st);
	ours_measured = (2.0 * sizeof(unsigned long) * st.table_size / 2 + st.storage_used +
			 4.0 * st.capacity + (double)ncpu * sizeof(long) * st.capacity) /
			st.entries;
	printf("stackmap measured: %llu of %llu stacks stored, storage %llu / %llu bytes, "
	       "%.1f B per stored stack, %.1f MB allocated (RFC design: %.1f MB)\n",
	       (unsigned long long)st.entries, (unsigned long long)st.capacity,
	       (unsigned long long)st.storage_used, (unsigned long long)st.storage_size,
	       ours_measured, st.memory / 1048576.0,
	       design_rfc.bytes_allocated(14, ncpu) / 1048576.0);
	out("memory", "stackmap", "measured", "per_stack", "bytes", ours_measured);
	stackmap_destroy(map);
	shim_thread_unregister();
	shim_set_nr_cpus(MAX_T);
	stackset_free(&set);
}

/* ------------------------------------------------------------ targets */

static int misses;

static void target(const char *what, double ratio, int pass, const char *need)
{
	printf("%-4s %-62s %8.3f  (need %s)\n", pass ? "PASS" : "MISS", what, ratio, need);
	out("target", what, "", pass ? "PASS" : "MISS", "ratio", ratio);
	misses += !pass;
}

static void print_targets(void)
{
	double r;
	int k;
	char what[128];

	printf("\n== Targets (ratios to the baseline in this run) ==\n");
	snprintf(what, sizeof(what), "herd duplicate ids, stackmap (rfc had %lu at %u thr)",
		 herd_dups[1][ncpu], ncpu);
	target(what, (double)herd_dups[0][ncpu] + herd_dups[0][2 * ncpu],
	       herd_dups[0][ncpu] + herd_dups[0][2 * ncpu] == 0, "0 duplicates");
	r = mem_per[0] / mem_per[1];
	target("memory per stack vs rfc (realistic mix)", r, r <= 0.35, "<= 0.35");
	for (k = 2; k < NDEPTH; k++) {
		r = lat_hit[0][k] / lat_hit[1][k];
		snprintf(what, sizeof(what), "hit time vs rfc at %d frames", depths[k]);
		target(what, r, r <= 0.5, "<= 0.5");
	}
	r = hot_tp[0][2 * ncpu] / hot_tp[1][2 * ncpu];
	snprintf(what, sizeof(what), "hot stack throughput vs rfc, %u threads", 2 * ncpu);
	target(what, r, r >= 2, ">= 2");
	r = hot_tp[0][ncpu] / hot_tp[1][ncpu];
	snprintf(what, sizeof(what), "hot stack throughput vs rfc, %u threads", ncpu);
	target(what, r, r >= 2, ">= 2");
	target("distinct stacks lost at n = capacity (bpf lost the rest)", lost_at_full[0],
	       lost_at_full[0] == 0, "0");
	for (k = 2; k < NDEPTH; k++) {
		r = lat_hit[0][k] / lat_hit[2][k];
		snprintf(what, sizeof(what), "hit time vs bpf at %d frames", depths[k]);
		target(what, r, r <= 1.3, "<= 1.3");
	}
	r = scal[0][2][1] / scal[3][2][1];
	target("throughput vs mutex table, 2 threads, 90% repeats", r, r >= 3, ">= 3");
	printf("(instruction-count targets: see scripts/callgrind.sh output)\n");
}

/* ------------------------------------------------------------ callgrind mode */

static int callgrind_mode(const char *what, const char *dname, int depth, unsigned long iters)
{
	const struct design *d = find_design(dname);
	struct stackset set;
	unsigned int i, n;
	void *m;

	if (!strcmp(what, "hash")) {
		stackset_generate(&set, 64, depth, 0, 7);
		bench_measured_hash(!strcmp(dname, "jhash2") ? 0 : !strcmp(dname, "xxh64") ? 1 : 2,
				    &set, iters);
		return 0;
	}
	if (!d)
		return 2;
	shim_thread_register(0);
	n = !strcmp(what, "insert") ? (unsigned int)iters : 256;
	stackset_generate(&set, n, depth, 0, 100);
	m = d->create(14);
	if (!strcmp(what, "hit")) {
		for (i = 0; i < 256; i++)
			d->get_id(m, set.ips[i], set.nr[i]);
		bench_measured(d, m, &set, iters, 256);
	} else {
		bench_measured(d, m, &set, iters, n);
	}
	d->destroy(m);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cg = NULL, *dname = "stackmap", *csv_path = NULL;
	unsigned long iters = 10000;
	struct stackset hot;
	struct sigaction sa;
	int i, depth = 16;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
			csv_path = argv[++i];
		else if (!strcmp(argv[i], "--callgrind") && i + 1 < argc)
			cg = argv[++i];
		else if (!strcmp(argv[i], "--design") && i + 1 < argc)
			dname = argv[++i];
		else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
			depth = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = strtoul(argv[++i], NULL, 0);
	}
	if (runs < 1)
		runs = 1;
	if (runs > MAX_RUNS)
		runs = MAX_RUNS;
	ncpu = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	if (2 * ncpu > MAX_T)
		ncpu = MAX_T / 2;
	shim_set_nr_cpus(MAX_T);
	if (cg)
		return callgrind_mode(cg, dname, depth, iters);

	if (csv_path) {
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", csv_path);
		if (system(cmd) != 0)
			return 2;
		csv = fopen(csv_path, "w");
		if (!csv)
			return 2;
		fprintf(csv, "section,design,param,variant,metric,value\n");
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
	alarm(1200);	/* watchdog: a deadlocked design ends the run */

	printf("stackmap benchmark: %u CPUs online, %d runs per figure%s\n", ncpu, runs,
	       quick ? " (quick)" : "");
	shim_thread_register(0);
	if (want("latency"))
		bench_latency();
	if (want("hash"))
		bench_hashes();
	if (want("fill"))
		bench_fill();
	shim_thread_unregister();
	stackset_generate(&hot, 2000, STACKS_DEPTH_REALISTIC, 1.0, 99);
	if (want("scaling"))
		bench_scaling(&hot);
	if (want("herd"))
		bench_herd(&hot);
	if (want("signals"))
		bench_signals(&hot);
	if (want("export"))
		bench_export_reset(&hot);
	if (want("memory"))
		bench_memory();
	if (!only)
		print_targets();
	stackset_free(&hot);
	if (csv)
		fclose(csv);
	return 0;
}
