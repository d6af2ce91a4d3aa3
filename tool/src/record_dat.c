// SPDX-License-Identifier: GPL-2.0
/*
 * record_dat: the binary side of `stackmap record`. Reads the per-CPU ring buffers page by page
 * from per_cpu/cpuN/trace_pipe_raw (non-blocking, so one thread serves every CPU), keeps the
 * pages in unlinked temporary files in the output directory, and at the end writes trace.dat
 * (version 6, see tracedat.h) under a temporary name that is renamed into place only when
 * complete. Messages are printed by cmd_record.c; functions here return 0 or a negative errno.
 */
#define _GNU_SOURCE
#include "record_dat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <time.h>
#include <tracefs.h>
#include <unistd.h>

#include "smbin.h"
#include "tracedat.h"

#define RD_MAX_CPUS 4096

static int rdat_tmpfile(const char *dir)
{
	char path[4096];
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/.stackmap-cpu.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

int rdat_open(struct rdat *rd, const char *outdir)
{
	long long kb;
	int cpu;

	memset(rd, 0, sizeof(*rd));
	rd->page_size = (uint32_t)getpagesize();
	/* 6.x lets the sub-buffer differ from the page size */
	if (!tracefs_instance_file_read_number(NULL, "buffer_subbuf_size_kb", &kb) && kb > 0 &&
	    kb <= 1024)
		rd->page_size = (uint32_t)kb * 1024;
	rd->buf = malloc(rd->page_size);
	rd->raw = calloc(RD_MAX_CPUS, sizeof(*rd->raw));
	rd->tmp = calloc(RD_MAX_CPUS, sizeof(*rd->tmp));
	rd->sizes = calloc(RD_MAX_CPUS, sizeof(*rd->sizes));
	rd->pages = calloc(RD_MAX_CPUS, sizeof(*rd->pages));
	if (!rd->buf || !rd->raw || !rd->tmp || !rd->sizes || !rd->pages)
		return -ENOMEM;
	for (cpu = 0; cpu < RD_MAX_CPUS; cpu++) {
		char name[64], *path;
		int fd;

		snprintf(name, sizeof(name), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		path = tracefs_instance_get_file(NULL, name);
		if (!path)
			return -ENOMEM;
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		tracefs_put_tracing_file(path);
		if (fd < 0) {
			if (errno == ENOENT)
				break;
			return -errno;
		}
		rd->raw[cpu] = fd;
		rd->ncpus = cpu + 1;
		rd->tmp[cpu] = rdat_tmpfile(outdir);
		if (rd->tmp[cpu] < 0)
			return rd->tmp[cpu];
	}
	return rd->ncpus ? 0 : -ENOENT;
}

void rdat_close(struct rdat *rd)
{
	int cpu;

	for (cpu = 0; cpu < rd->ncpus; cpu++) {
		if (rd->raw[cpu] > 0)
			close(rd->raw[cpu]);
		if (rd->tmp[cpu] > 0)
			close(rd->tmp[cpu]);
	}
	free(rd->raw);
	free(rd->tmp);
	free(rd->sizes);
	free(rd->pages);
	free(rd->buf);
	memset(rd, 0, sizeof(*rd));
}

static int rdat_write_all(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

long rdat_drain(struct rdat *rd, long max_pages)
{
	long total = 0;
	int cpu, ret;

	for (cpu = 0; cpu < rd->ncpus; cpu++) {
		long n;

		for (n = 0; max_pages < 0 || n < max_pages; n++) {
			ssize_t r = read(rd->raw[cpu], rd->buf, rd->page_size);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == EAGAIN)
				break;
			if (r < 0)
				return -errno;
			if (r == 0)
				break; /* a plain file (tests) ends; tracefs says EAGAIN */
			if ((size_t)r < rd->page_size) /* keep page alignment in the file */
				memset(rd->buf + r, 0, rd->page_size - (size_t)r);
			ret = rdat_write_all(rd->tmp[cpu], rd->buf, rd->page_size);
			if (ret)
				return ret;
			rd->sizes[cpu] += rd->page_size;
			rd->pages[cpu]++;
			total++;
		}
	}
	return total;
}

int rdat_wait(struct rdat *rd, int timeout_ms)
{
	struct pollfd *p = calloc((size_t)rd->ncpus, sizeof(*p));
	int cpu, n;

	if (!p)
		return -ENOMEM;
	for (cpu = 0; cpu < rd->ncpus; cpu++)
		p[cpu] = (struct pollfd){.fd = rd->raw[cpu], .events = POLLIN};
	n = poll(p, (nfds_t)rd->ncpus, timeout_ms);
	free(p);
	return n < 0 ? -errno : n;
}

/* Read a tracefs file (relative to the tracing directory); *len 0 and "" if it is missing. */
static char *rdat_read(const char *name, size_t *len, int required, int *err)
{
	char *path = tracefs_instance_get_file(NULL, name), *buf = NULL;
	int ret;

	*len = 0;
	if (!path) {
		*err = -ENOMEM;
		return NULL;
	}
	ret = smbin_read_file(path, &buf, len);
	tracefs_put_tracing_file(path);
	if (ret && (required || ret == -ENOMEM)) {
		*err = ret;
		return NULL;
	}
	if (ret) {
		buf = strdup("");
		*len = 0;
		if (!buf)
			*err = -ENOMEM;
	}
	return buf;
}

struct rdat_fmts {
	struct td_format *v;
	char **texts;
	size_t n, cap;
};

static int rdat_add_format(struct rdat_fmts *f, const char *sys, const char *event)
{
	char name[1024], *text;
	size_t len;
	int err = 0;

	snprintf(name, sizeof(name), "events/%s/%s/format", sys, event);
	text = rdat_read(name, &len, 1, &err);
	if (!text)
		return err;
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 64;
		struct td_format *nv = realloc(f->v, ncap * sizeof(*nv));
		char **nt;

		if (!nv) {
			free(text);
			return -ENOMEM;
		}
		f->v = nv;
		nt = realloc(f->texts, ncap * sizeof(*nt));
		if (!nt) {
			free(text);
			return -ENOMEM;
		}
		f->texts = nt;
		f->cap = ncap;
	}
	f->texts[f->n] = text;
	f->v[f->n] = (struct td_format){.system = NULL, .text = text, .len = len};
	f->n++;
	return 0;
}

/* Every event of @sys (NULL @event) or one event; @sysname is kept for the format list. */
static int rdat_add_events(struct rdat_fmts *f, const char *sys, const char *event,
			   const char *sysname)
{
	char **list;
	size_t i, first = f->n;
	int ret = 0;

	if (event) {
		ret = rdat_add_format(f, sys, event);
	} else {
		list = tracefs_system_events(tracefs_tracing_dir(), sys);
		for (i = 0; list && list[i] && !ret; i++)
			ret = rdat_add_format(f, sys, list[i]);
		tracefs_list_free(list);
	}
	for (i = first; i < f->n; i++)
		f->v[i].system = sysname;
	return ret;
}

static int64_t rdat_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

int rdat_measure_date(struct rdat *rd)
{
	static const struct {
		const char *name;
		clockid_t id;
		int exact;
	} map[] = {
		{"local", CLOCK_MONOTONIC_RAW, 0},
		{"global", CLOCK_MONOTONIC_RAW, 0},
		{"perf", CLOCK_MONOTONIC_RAW, 0},
		{"mono", CLOCK_MONOTONIC, 1},
		{"mono_raw", CLOCK_MONOTONIC_RAW, 1},
		{"boot", CLOCK_BOOTTIME, 1},
		{"tai", CLOCK_TAI, 1},
	};
	struct timespec a, b, m;
	int64_t best = INT64_MAX;
	char *txt, *open, *close;
	size_t len, i;
	int ret = 0, k;

	rd->have_date = 0;
	txt = rdat_read("trace_clock", &len, 1, &ret);
	if (!txt)
		return ret;
	/* "[local] global counter ...": the selected clock is in brackets */
	open = strchr(txt, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close) {
		free(txt);
		return -EOPNOTSUPP;
	}
	*close = '\0';
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(open + 1, map[i].name))
			break;
	free(txt);
	if (i == sizeof(map) / sizeof(map[0]))
		return -EOPNOTSUPP;
	for (k = 0; k < 16; k++) {
		int64_t win;

		if (clock_gettime(CLOCK_REALTIME, &a) || clock_gettime(map[i].id, &m) ||
		    clock_gettime(CLOCK_REALTIME, &b))
			return -errno;
		win = rdat_ns(&b) - rdat_ns(&a);
		if (win < 0 || win >= best)
			continue;
		best = win;
		rd->date_offset_ns = rdat_ns(&a) + win / 2 - rdat_ns(&m);
		rd->date_err_ns = (win + 1) / 2;
	}
	if (best == INT64_MAX)
		return -EIO; /* the wall clock went backwards every time */
	rd->date_exact = map[i].exact;
	rd->have_date = 1;
	return 0;
}

int rdat_finish(struct rdat *rd, const char *outdir, const char *ksyms_path,
		const struct rdat_event *events, size_t nevents, uint64_t *bytes)
{
	struct rdat_fmts f = {0};
	struct td_write_info wi = {0};
	char *hp = NULL, *he = NULL, *ks = NULL, *pk = NULL, *cl = NULL, *clock = NULL, *sm = NULL;
	size_t sml = 0;
	char **stats = NULL, tmp[4096], dst[4096];
	size_t i, j, hpl, hel, ksl, pkl, cll, clockl;
	struct stat st;
	int cpu, fd = -1, ret = 0;

	hp = rdat_read("events/header_page", &hpl, 1, &ret);
	he = hp ? rdat_read("events/header_event", &hel, 1, &ret) : NULL;
	if (!he)
		goto out;
	pk = rdat_read("printk_formats", &pkl, 0, &ret);
	cl = pk ? rdat_read("saved_cmdlines", &cll, 0, &ret) : NULL;
	clock = cl ? rdat_read("trace_clock", &clockl, 0, &ret) : NULL;
	if (!clock)
		goto out;
	if (smbin_read_file(ksyms_path, &ks, &ksl)) {
		ks = strdup("");
		ksl = 0;
		if (!ks) {
			ret = -ENOMEM;
			goto out;
		}
	}
	/* the map saved beside (DIR/stack_map_bin) is stored inside too */
	snprintf(tmp, sizeof(tmp), "%s/stack_map_bin", outdir);
	if (smbin_read_file(tmp, &sm, &sml))
		sm = NULL;
	ret = rdat_add_events(&f, "ftrace", NULL, "ftrace");
	/* one entry per system, in the order given; a system named twice is written once */
	for (i = 0; i < nevents && !ret; i++) {
		int seen = 0;

		for (j = 0; j < i; j++)
			seen |= !strcmp(events[j].system, events[i].system) &&
				(!events[j].event ||
				 (events[i].event && !strcmp(events[j].event, events[i].event)));
		if (!seen && strcmp(events[i].system, "ftrace"))
			ret = rdat_add_events(&f, events[i].system, events[i].event,
					      events[i].system);
	}
	if (ret)
		goto out;
	/* the writer wants equal systems adjacent: stable sort by system name */
	for (i = 1; i < f.n; i++) {
		struct td_format x = f.v[i];

		for (j = i; j > 0 && strcmp(f.v[j - 1].system, x.system) > 0; j--)
			f.v[j] = f.v[j - 1];
		f.v[j] = x;
	}
	stats = calloc((size_t)rd->ncpus + 1, sizeof(*stats));
	if (!stats) {
		ret = -ENOMEM;
		goto out;
	}
	for (cpu = 0; cpu < rd->ncpus; cpu++) {
		char name[64];
		size_t sl;

		snprintf(name, sizeof(name), "per_cpu/cpu%d/stats", cpu);
		stats[cpu] = rdat_read(name, &sl, 0, &ret);
		if (!stats[cpu])
			goto out;
	}
	if (clockl && clock[clockl - 1] == '\n')
		clock[clockl - 1] = '\0';
	wi = (struct td_write_info){
		.page_size = rd->page_size,
		.header_page = hp,
		.header_page_len = hpl,
		.header_event = he,
		.header_event_len = hel,
		.formats = f.v,
		.nformats = f.n,
		.kallsyms = ks,
		.kallsyms_len = ksl,
		.printk = pk,
		.printk_len = pkl,
		.cmdlines = cl,
		.cmdlines_len = cll,
		.trace_clock = clock,
		.stackmap = sm,
		.stackmap_len = sml,
		.cpustats = (const char *const *)stats,
		.ncpus = rd->ncpus,
		.cpu_fds = rd->tmp,
		.cpu_sizes = rd->sizes,
		.have_date = rd->have_date,
		.date_offset_ns = rd->date_offset_ns,
	};
	snprintf(tmp, sizeof(tmp), "%s/.trace.dat.tmp", outdir);
	snprintf(dst, sizeof(dst), "%s/trace.dat", outdir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = td_write_v6(fd, &wi);
	if (!ret && fstat(fd, &st))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -EIO;
	if (!ret && rename(tmp, dst))
		ret = -errno;
	if (ret)
		unlink(tmp);
	else
		*bytes = (uint64_t)st.st_size;
out:
	for (i = 0; i < f.n; i++)
		free(f.texts[i]);
	free(f.texts);
	free(f.v);
	for (cpu = 0; stats && cpu < rd->ncpus; cpu++)
		free(stats[cpu]);
	free(stats);
	free(hp);
	free(he);
	free(ks);
	free(pk);
	free(cl);
	free(clock);
	free(sm);
	return ret;
}

int rdat_save_stats(struct rdat *rd, const char *outdir)
{
	char path[4096], name[64], *text;
	size_t len;
	int cpu, ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpu_stats", outdir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (cpu = 0; cpu < rd->ncpus && !ret; cpu++) {
		snprintf(name, sizeof(name), "per_cpu/cpu%d/stats", cpu);
		text = rdat_read(name, &len, 0, &ret);
		if (text)
			fprintf(f, "CPU: %d\n%s", cpu, text);
		free(text);
	}
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

/* "name: number" from a per_cpu stats text, 0 if absent. */
static uint64_t rdat_stat_field(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, name, n) && p[n] == ':')
			return strtoull(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

int rdat_cpu_stats(int cpu, struct rdat_stats *s)
{
	char name[64], *text;
	size_t len;
	int err = 0;

	memset(s, 0, sizeof(*s));
	snprintf(name, sizeof(name), "per_cpu/cpu%d/stats", cpu);
	text = rdat_read(name, &len, 1, &err);
	if (!text)
		return err;
	s->entries = rdat_stat_field(text, "entries");
	s->overrun = rdat_stat_field(text, "overrun");
	s->commit_overrun = rdat_stat_field(text, "commit overrun");
	s->dropped = rdat_stat_field(text, "dropped events");
	s->read = rdat_stat_field(text, "read events");
	free(text);
	return 0;
}
