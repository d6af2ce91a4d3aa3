// SPDX-License-Identifier: GPL-2.0
/*
 * workload: a seeded, reproducible mix of process and file activity for the stackmap demo and
 * the retention benchmark. Runs in the test VM (busybox userland), built with gcc -static.
 *
 *   workload [-s SEED] [-n ROUNDS] [-d DIR] [-b BUSYBOX] [-t FILE]
 *
 * Each round picks one action with a xorshift64* generator seeded by SEED, so the same SEED and
 * ROUNDS issue the same system calls in the same order (the scheduler's interleaving, and so
 * the sched_switch events, still vary a little between runs):
 *   fork+exec of a busybox applet (ls, cat, dd, wc, md5sum, sort, true, stat),
 *   direct file I/O on files it creates under DIR (write, read back, rename, unlink),
 *   reads of /proc files (meminfo, stat, self/status, self/maps, loadavg, a /proc listing),
 *   a pipe between a forked writer and the parent.
 * With -t FILE it writes, after the last round, the CLOCK_MONOTONIC start time of every round
 * (seconds with 9 decimals, one per line) to FILE: with the trace clock set to "mono", this maps
 * a trace timestamp to how far the workload had got.
 * At the end it prints one line to stderr:
 *   workload: seed S rounds N elapsed_ns T execs E files F procreads P pipes Q
 * Exit status 0, or 1 if a step failed (the failing step is named on stderr).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng_state;
static const char *busybox = "/bin/busybox";
static const char *dir = "/tmp/workload";
static unsigned long n_exec, n_file, n_proc, n_pipe;
static char buf[65536];

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static unsigned int pick(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static void fail(const char *what)
{
	fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void file_name(char *out, size_t len, const char *prefix, unsigned int i)
{
	snprintf(out, len, "%s/%s%u", dir, prefix, i);
}

/* Write a file of 1..64 KiB filled from the generator. */
static void make_file(const char *path)
{
	size_t size = 1024 + pick(63 * 1024), done = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		fail(path);
	for (size_t i = 0; i < size; i += 8) {
		uint64_t v = rnd();

		memcpy(buf + i % sizeof(buf), &v, 8);
	}
	while (done < size) {
		ssize_t w = write(fd, buf + done, size - done);

		if (w <= 0)
			fail("write");
		done += (size_t)w;
	}
	close(fd);
}

static void run_applet(void)
{
	char f[256], g[256], count[32];
	const char *argv[8] = { 0 };
	unsigned int i = pick(8);
	pid_t pid;
	int status;

	file_name(f, sizeof(f), "f", i);
	file_name(g, sizeof(g), "g", i);
	if (access(f, F_OK) != 0)
		make_file(f);
	snprintf(count, sizeof(count), "count=%u", 1 + pick(16));
	switch (pick(8)) {
	case 0: argv[0] = "ls"; argv[1] = "-l"; argv[2] = "/proc/self/"; break;
	case 1: argv[0] = "cat"; argv[1] = f; break;
	case 2:
		argv[0] = "dd"; argv[1] = "bs=4096"; argv[2] = count;
		argv[3] = "if=/dev/zero"; argv[4] = "of=/dev/null";
		/* one in two dd copies between files instead of /dev/zero -> /dev/null */
		if (pick(2)) {
			static char in[300], out[300];

			snprintf(in, sizeof(in), "if=%s", f);
			snprintf(out, sizeof(out), "of=%s", g);
			argv[3] = in;
			argv[4] = out;
		}
		break;
	case 3: argv[0] = "wc"; argv[1] = "-c"; argv[2] = f; break;
	case 4: argv[0] = "md5sum"; argv[1] = f; break;
	case 5: argv[0] = "sort"; argv[1] = f; break;
	case 6: argv[0] = "true"; break;
	default: argv[0] = "stat"; argv[1] = f; break;
	}
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(busybox, (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		fail("waitpid");
	n_exec++;
}

static void file_io(void)
{
	char f[256], g[256];
	unsigned int i = pick(8);
	int fd;

	file_name(f, sizeof(f), "f", i);
	file_name(g, sizeof(g), "h", i);
	make_file(f);
	fd = open(f, O_RDONLY);
	if (fd < 0)
		fail(f);
	while (read(fd, buf, 4096) > 0)
		;
	close(fd);
	switch (pick(3)) {
	case 0:
		if (rename(f, g) != 0)
			fail("rename");
		unlink(g);
		break;
	case 1:
		unlink(f);
		break;
	default: {
		struct stat st;

		if (stat(f, &st) != 0)
			fail("stat");
		break;
	}
	}
	n_file++;
}

static void read_proc(void)
{
	static const char *const files[] = { "/proc/meminfo", "/proc/stat", "/proc/self/status",
					     "/proc/self/maps", "/proc/loadavg", "/proc/interrupts" };
	unsigned int i = pick(7);

	if (i == 6) {
		DIR *d = opendir("/proc");
		struct dirent *e;

		if (!d)
			fail("/proc");
		while ((e = readdir(d)))
			;
		closedir(d);
	} else {
		int fd = open(files[i], O_RDONLY);

		if (fd < 0)
			fail(files[i]);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	n_proc++;
}

static void pipe_pair(void)
{
	unsigned int chunks = 1 + pick(32);
	int p[2], status;
	pid_t pid;

	if (pipe(p) != 0)
		fail("pipe");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		close(p[0]);
		memset(buf, 'x', 4096);
		for (unsigned int i = 0; i < chunks; i++)
			if (write(p[1], buf, 4096) != 4096)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	while (read(p[0], buf, sizeof(buf)) > 0)
		;
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0)
		fail("waitpid");
	n_pipe++;
}

int main(int argc, char **argv)
{
	unsigned long seed = 1, rounds = 200;
	const char *times_file = NULL;
	struct timespec t0, t1, *starts;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:d:b:t:")) != -1) {
		switch (opt) {
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'n': rounds = strtoul(optarg, NULL, 0); break;
		case 'd': dir = optarg; break;
		case 'b': busybox = optarg; break;
		case 't': times_file = optarg; break;
		default:
			fprintf(stderr,
				"usage: workload [-s SEED] [-n ROUNDS] [-d DIR] [-b BUSYBOX] [-t FILE]\n");
			return 2;
		}
	}
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		fail(dir);
	starts = calloc(rounds ? rounds : 1, sizeof(*starts));
	if (!starts)
		fail("calloc");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long r = 0; r < rounds; r++) {
		unsigned int a = pick(10);

		clock_gettime(CLOCK_MONOTONIC, &starts[r]);
		if (a < 3)
			run_applet();
		else if (a < 6)
			file_io();
		else if (a < 9)
			read_proc();
		else
			pipe_pair();
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (times_file) {
		FILE *f = fopen(times_file, "w");

		if (!f)
			fail(times_file);
		for (unsigned long r = 0; r < rounds; r++)
			fprintf(f, "%lld.%09ld\n", (long long)starts[r].tv_sec, starts[r].tv_nsec);
		fprintf(f, "%lld.%09ld end\n", (long long)t1.tv_sec, t1.tv_nsec);
		fclose(f);
	}
	fprintf(stderr,
		"workload: seed %lu rounds %lu elapsed_ns %lld execs %lu files %lu procreads %lu pipes %lu\n",
		seed, rounds,
		(long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec), n_exec,
		n_file, n_proc, n_pipe);
	return 0;
}
