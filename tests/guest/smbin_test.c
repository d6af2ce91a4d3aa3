// SPDX-License-Identifier: GPL-2.0
/*
 * smbin_test: checks of the stack_map_bin export, run as root inside the test VM.
 *
 *   smbin_test check            single-reader semantics (see the checks below)
 *   smbin_test stress SECONDS   readers looping on the file while tracing toggles and resets
 *   smbin_test lockdown         opening the exports must fail with EPERM
 *   smbin_test time             time to read a whole export (prints milliseconds)
 *
 * Prints "ok ..." / "not ok ..." per check and "N passed, N failed"; exits 1 on failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ftrace_stackmap.h>

#include "tracefs.h"

#define MAGIC FTRACE_STACKMAP_BIN_MAGIC
#define HDR ((uint32_t)sizeof(struct ftrace_stackmap_bin_header))
#define RECHDR ((uint32_t)sizeof(struct ftrace_stackmap_bin_record))
#define MAX_DEPTH FTRACE_STACKMAP_BIN_MAX_DEPTH

static int passed, failed;

static void check(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf(cond ? "ok " : "not ok ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (cond)
		passed++;
	else
		failed++;
}

static void die(const char *what)
{
	printf("not ok %s: %s\n", what, strerror(errno));
	printf("%d passed, %d failed\n", passed, failed + 1);
	exit(1);
}

static void must_write(const char *file, const char *val)
{
	int ret = twrite(file, val);

	if (ret) {
		errno = -ret;
		die(file);
	}
}

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("realloc");
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* Read fd to EOF in chunks of @chunk bytes; returns 0 or -errno (data so far kept in @b). */
static int read_all(int fd, struct buf *b, size_t chunk)
{
	unsigned char tmp[65536];
	ssize_t n;

	for (;;) {
		n = read(fd, tmp, chunk);
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		buf_add(b, tmp, n);
	}
}

static int read_file(const char *path, struct buf *b, size_t chunk)
{
	int fd = open(path, O_RDONLY), ret;

	if (fd < 0)
		return -errno;
	ret = read_all(fd, b, chunk);
	close(fd);
	return ret;
}

struct rec {
	uint32_t id, nr, ref;
};

/*
 * Parse an export; fills @recs (up to @max). Returns the number of records, or -1 with a
 * message in @err when the stream is malformed.
 */
static long parse(const unsigned char *p, size_t len, struct rec *recs, long max, char *err)
{
	uint32_t h[4], r[4], prev = 0;
	size_t off = HDR;
	long n = 0;

	if (len < HDR)
		return sprintf(err, "short header (%zu bytes)", len), -1;
	memcpy(h, p, HDR);
	if (h[0] != MAGIC || h[1] != FTRACE_STACKMAP_BIN_VERSION)
		return sprintf(err, "bad header %08x %u %u %u", h[0], h[1], h[2], h[3]), -1;
	while (off < len) {
		if (len - off < RECHDR)
			return sprintf(err, "offset %zu: truncated record header", off), -1;
		memcpy(r, p + off, RECHDR);
		if (r[1] == 0 || r[1] > MAX_DEPTH || r[3] != 0)
			return sprintf(err, "offset %zu: nr %u reserved %u", off, r[1], r[3]), -1;
		if (n > 0 && r[0] <= prev)
			return sprintf(err, "offset %zu: id %u after %u", off, r[0], prev), -1;
		if (len - off < RECHDR + 8ul * r[1])
			return sprintf(err, "offset %zu: record of %u frames truncated", off, r[1]), -1;
		if (recs && n < max) {
			recs[n].id = r[0];
			recs[n].nr = r[1];
			recs[n].ref = r[2];
		}
		prev = r[0];
		off += RECHDR + 8ul * r[1];
		n++;
	}
	if ((uint32_t)n != h[2])
		return sprintf(err, "nr_stacks %u but %ld records", h[2], n), -1;
	return n;
}

/* The text export's blocks, in order. */
static long parse_text(struct rec *recs, long max)
{
	struct buf b = { 0 };
	char *line, *save, *s;
	long n = 0;

	if (read_file(T "stack_map", &b, 65536) < 0)
		die("read stack_map");
	buf_add(&b, "", 1);
	for (line = strtok_r((char *)b.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "stack_id ", 9))
			continue;
		s = line;
		if (n < max && sscanf(s, "stack_id %u [ref %u, depth %u]", &recs[n].id, &recs[n].ref,
				      &recs[n].nr) == 3)
			n++;
	}
	free(b.p);
	return n;
}

static void workload(int rounds)
{
	int i;

	for (i = 0; i < rounds; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			if (null >= 0)
				dup2(null, 1);
			execl("/bin/ls", "ls", "/", (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		struct buf b = { 0 };

		read_file("/proc/meminfo", &b, 512);
		free(b.p);
		usleep(2000);
	}
}

static void setup_recording(void)
{
	must_write(T "tracing_on", "0");
	must_write(T "options/stackmap", "1");
	must_write(T "options/stacktrace", "1");
	must_write(T "buffer_size_kb", "2048");
	must_write(T "events/sched/sched_switch/enable", "1");
}

static void record(int rounds)
{
	must_write(T "tracing_on", "1");
	workload(rounds);
	must_write(T "tracing_on", "0");
}

static void reset_map(void)
{
	must_write(T "tracing_on", "0");
	must_write(T "stack_map", "0");
}

static struct rec recs[1 << 18], trecs[1 << 18];

/* The switches: line of stack_map_stat. */
static long stat_switches(void)
{
	struct buf st = { 0 };
	const char *p;
	long v = -1;

	if (read_file(T "stack_map_stat", &st, 4096) == 0) {
		buf_add(&st, "", 1);
		p = strstr((char *)st.p, "\nswitches:");
		if (p)
			v = strtol(p + strlen("\nswitches:"), NULL, 10);
	}
	free(st.p);
	return v;
}

/*
 * After "next": the header's switch count is stack_map_stat's, and every record is of the
 * map in use (the count's low 13 bits in bits 18 and up of its id) or of the retired one.
 */
static void check_switch_count(void)
{
	struct buf b = { 0 };
	uint32_t sw, era;
	long n, i, other = 0, bad = 0;
	char err[256];

	record(10);
	must_write(T "stack_map", "next");
	record(10);
	check(read_file(T "stack_map_bin", &b, 65536) == 0, "read stack_map_bin after next");
	n = parse(b.p, b.len, recs, 1 << 18, err);
	check(n > 0, "well formed after next (%ld: %s)", n, n < 0 ? err : "ok");
	sw = b.len >= HDR ? ((uint32_t *)b.p)[3] : 0;
	check(sw == 1 && stat_switches() == 1, "header switch count %u, stack_map_stat %ld, after one next",
	      sw, stat_switches());
	for (i = 0; i < n && i < (1 << 18); i++) {
		era = recs[i].id >> 18;
		if (era == ((sw - 1) & 8191))
			other++;
		else if (era != (sw & 8191))
			bad++;
	}
	check(!bad && n > other, "records of switch %u, %ld of the retired map, %ld of neither", sw, other,
	      bad);
	free(b.p);
	reset_map();
}

static int cmd_check(void)
{
	struct buf a = { 0 }, b = { 0 }, c = { 0 };
	long n, tn, i;
	char err[256];
	int fd, ret, same;

	setup_recording();
	reset_map();
	record(20);

	/*
	 * Header (switch count 0 after the reset), record sizes, nr <= 64, reserved 0,
	 * count == nr_stacks, no trailing bytes.
	 */
	ret = read_file(T "stack_map_bin", &a, 65536);
	check(ret == 0, "read stack_map_bin in 64 KiB reads (%d)", ret);
	n = parse(a.p, a.len, recs, 1 << 18, err);
	check(n > 0, "stream well formed with records (%ld: %s)", n, n < 0 ? err : "ok");
	check(a.len >= HDR && ((uint32_t *)a.p)[1] == 2, "version 2");
	check(a.len >= HDR && ((uint32_t *)a.p)[3] == 0, "switch count 0 after a reset (%u)",
	      a.len >= HDR ? ((uint32_t *)a.p)[3] : 0);

	/* The same stacks, depths and ref counts as the text export (tracing is off). */
	tn = parse_text(trecs, 1 << 18);
	same = tn == n;
	for (i = 0; same && i < n; i++)
		same = recs[i].id == trecs[i].id && recs[i].nr == trecs[i].nr &&
		       recs[i].ref == trecs[i].ref;
	check(same, "binary and text exports agree (%ld vs %ld stacks)", n, tn);

	/* Reads of any size give the same bytes. */
	ret = read_file(T "stack_map_bin", &b, 1);
	check(ret == 0 && b.len == a.len && !memcmp(a.p, b.p, a.len), "1-byte reads give the same bytes");
	b.len = 0;
	ret = read_file(T "stack_map_bin", &b, 4095);
	check(ret == 0 && b.len == a.len && !memcmp(a.p, b.p, a.len), "4095-byte reads give the same bytes");
	b.len = 0;
	ret = read_file(T "stack_map_bin", &b, 7);
	check(ret == 0 && b.len == a.len && !memcmp(a.p, b.p, a.len), "7-byte reads give the same bytes");

	/* lseek back to 0 restarts cleanly. */
	fd = open(T "stack_map_bin", O_RDONLY);
	if (fd < 0)
		die("open stack_map_bin");
	b.len = 0;
	if (read(fd, err, 100) < 0)
		die("read");
	check(lseek(fd, 0, SEEK_SET) == 0, "lseek to 0");
	ret = read_all(fd, &b, 333);
	check(ret == 0 && b.len == a.len && !memcmp(a.p, b.p, a.len), "after lseek(0) the stream restarts");

	/* A reader that reached EOF stays at EOF after a reset. */
	reset_map();
	check(read(fd, err, sizeof(err)) == 0, "EOF after a reset that followed EOF");
	close(fd);

	/* A reset between two reads: -ESTALE (never EAGAIN), after any data of the pass. */
	record(20);
	fd = open(T "stack_map_bin", O_RDONLY);
	if (fd < 0)
		die("open stack_map_bin");
	if (read(fd, err, 40) != 40)
		die("first read");
	reset_map();
	c.len = 0;
	ret = read_all(fd, &c, 64);
	check(ret == -ESTALE, "reset between reads gives ESTALE (got %s)", ret ? strerror(-ret) : "EOF");
	check(read(fd, err, 64) < 0 && errno == ESTALE, "and keeps giving ESTALE");
	close(fd);

	check_switch_count();

	/* The record set is fixed at open(): stacks stored later are not in the stream. */
	record(20);
	tn = parse_text(trecs, 1 << 18);
	fd = open(T "stack_map_bin", O_RDONLY);
	if (fd < 0)
		die("open stack_map_bin");
	must_write(T "events/sched/sched_process_fork/enable", "1");
	must_write(T "events/sched/sched_process_exec/enable", "1");
	record(10);
	must_write(T "events/sched/sched_process_fork/enable", "0");
	must_write(T "events/sched/sched_process_exec/enable", "0");
	b.len = 0;
	ret = read_all(fd, &b, 65536);
	close(fd);
	n = parse(b.p, b.len, recs, 1 << 18, err);
	long now = parse_text(trecs + tn, (1 << 18) - tn);
	same = n == tn;
	for (i = 0; same && i < n; i++)
		same = recs[i].id == trecs[i].id;
	check(now > tn, "new stacks were stored after open (%ld -> %ld)", tn, now);
	check(ret == 0 && same, "only the stacks present at open() are emitted (%ld of %ld)", n, tn);

	/* Not for unprivileged users. */
	pid_t pid = fork();

	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		fd = open(T "stack_map_bin", O_RDONLY);
		_exit(fd < 0 && errno == EACCES ? 0 : 1);
	}
	int st;

	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a non-root user gets EACCES");

	must_write(T "events/sched/sched_switch/enable", "0");
	reset_map();
	must_write(T "options/stackmap", "0");
	must_write(T "options/stacktrace", "0");
	must_write(T "tracing_on", "1");
	free(a.p);
	free(b.p);
	free(c.p);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

/* One reader: open, read everything in random chunk sizes, validate; until told to stop. */
static void stress_reader(int idx)
{
	struct buf b = { 0 };
	unsigned long reads = 0, stale = 0, records = 0;
	unsigned int seed = idx * 7919 + 1;
	char err[256];
	int fd, ret;
	long n;

	signal(SIGALRM, on_alarm);
	while (!stop) {
		fd = open(T "stack_map_bin", O_RDONLY);
		if (fd < 0) {
			printf("not ok reader %d: open: %s\n", idx, strerror(errno));
			_exit(1);
		}
		b.len = 0;
		/* Reader 0 reads in tiny pieces so that resets land inside its streams. */
		ret = read_all(fd, &b, 1 + rand_r(&seed) % (idx == 0 ? 48 : 8192));
		close(fd);
		if (ret == -ESTALE) {
			stale++;
			continue;
		}
		if (ret) {
			printf("not ok reader %d: read: %s\n", idx, strerror(-ret));
			_exit(1);
		}
		n = parse(b.p, b.len, NULL, 0, err);
		if (n < 0) {
			printf("not ok reader %d: malformed stream: %s\n", idx, err);
			_exit(1);
		}
		reads++;
		records += n;
	}
	printf("# reader %d: %lu complete reads (%lu records), %lu stale\n", idx, reads, records, stale);
	_exit(reads > 0 ? 0 : 1);
}

static int cmd_stress(int seconds)
{
	pid_t readers[2], load;
	int i, st, ok = 1, resets = 0, busy = 0, ret;
	time_t end = time(NULL) + seconds;

	setup_recording();
	reset_map();
	load = fork();
	if (load == 0) {
		for (;;)
			workload(1);
	}
	for (i = 0; i < 2; i++) {
		readers[i] = fork();
		if (readers[i] == 0) {
			alarm(seconds);
			stress_reader(i);
		}
	}
	while (time(NULL) < end) {
		must_write(T "tracing_on", "1");
		usleep(100000);
		/* A reset while tracing is on must be refused. */
		ret = twrite(T "stack_map", "0");
		if (ret == -EBUSY)
			busy++;
		else
			ok = 0;
		must_write(T "tracing_on", "0");
		ret = twrite(T "stack_map", "reset");
		if (ret == 0)
			resets++;
		else
			ok = 0;
	}
	for (i = 0; i < 2; i++) {
		waitpid(readers[i], &st, 0);
		check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "stress reader %d", i);
	}
	kill(load, SIGKILL);
	waitpid(load, NULL, 0);
	check(ok && resets > 0, "%d resets with tracing off, %d refused with tracing on", resets, busy);
	must_write(T "events/sched/sched_switch/enable", "0");
	reset_map();
	must_write(T "options/stackmap", "0");
	must_write(T "options/stacktrace", "0");
	must_write(T "tracing_on", "1");
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

static int cmd_lockdown(void)
{
	const char *files[] = { T "stack_map_bin", T "stack_map", T "stack_map_stat" };
	unsigned int i;
	int fd;

	for (i = 0; i < 3; i++) {
		fd = open(files[i], O_RDONLY);
		check(fd < 0 && errno == EPERM, "%s: open under lockdown gives EPERM (%s)", files[i],
		      fd < 0 ? strerror(errno) : "opened");
		if (fd >= 0)
			close(fd);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

static int cmd_time(void)
{
	struct timespec t0, t1;
	struct buf b = { 0 };
	char err[256];
	long n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (read_file(T "stack_map_bin", &b, 65536))
		die("read");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	n = parse(b.p, b.len, NULL, 0, err);
	printf("read %zu bytes, %ld stacks in %.1f ms\n", b.len, n,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	return n < 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return cmd_check();
	if (argc >= 3 && !strcmp(argv[1], "stress"))
		return cmd_stress(atoi(argv[2]));
	if (argc >= 2 && !strcmp(argv[1], "lockdown"))
		return cmd_lockdown();
	if (argc >= 2 && !strcmp(argv[1], "time"))
		return cmd_time();
	fprintf(stderr, "usage: smbin_test check | stress SECONDS | lockdown | time\n");
	return 2;
}
