// SPDX-License-Identifier: GPL-2.0
/*
 * fileops_test: every file operation on stack_map, stack_map_stat, stack_map_bin,
 * stack_map_defs and stack_map_bits, checked
 * against the table in Documentation/trace/ftrace-stackmap.rst ("File operations"). Run as
 * root inside the test VM (tests/boot/fileops.sh boots with ftrace_stackmap.bits=10 so that
 * the map can be filled).
 *
 *   fileops_test check                    the whole table, once per map state (never
 *                                         allocated, empty, partly filled, full), with
 *                                         tracing off and on, then once more while other
 *                                         threads reset, toggle options, create and remove
 *                                         instances and resize the buffer
 *   fileops_test random SEED SECONDS [N]  N threads (default 4) doing random operations with
 *                                         random flags, sizes and offsets on random files,
 *                                         with the same disturbances, for SECONDS
 *   fileops_test pairs SEED SECONDS [N [M]]
 *                                         random mode with N threads (default 2) on the top
 *                                         level, while two instances record the same events,
 *                                         one with ids and definitions and generation
 *                                         switches as fast as they are accepted, the other
 *                                         full stacks: every id checked against the full
 *                                         stack recorded beside it, with at least M switches
 *                                         (default 5; see cmd_pairs())
 *   fileops_test pairs-overwrite SEED SECONDS [N [M]]
 *                                         the same with small overwriting buffers read
 *                                         once at the end: every id still there checked
 *                                         against the stack beside it, through its
 *                                         definition or else stack_map
 *   fileops_test pairs-wrap SEED SECONDS [N]
 *                                         pairs until the switch count passes 8192 by
 *                                         PAIRS_WRAP_PAST (at most SECONDS): ids of one
 *                                         switch count's bits and two stacks checked across
 *                                         the wrap
 *
 * Every result is checked against the table (expect()). With tracing off the map may change
 * only through a valid reset write: the stack_map_bin stream is compared after every batch of
 * operations. Under disturbances the generation must grow by exactly the number of reset
 * writes that succeeded. Prints "ok ..." / "not ok ..." and "N passed, N failed"; exit 1 on
 * failure.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <linux/ftrace_stackmap.h>
#include <linux/futex.h>

#include "tracefs.h"

#define MAGIC FTRACE_STACKMAP_BIN_MAGIC

enum { F_MAP, F_STAT, F_BIN, F_DEFS, F_BITS, NR_FILES };
static const char *const fname[NR_FILES] = { "stack_map", "stack_map_stat", "stack_map_bin",
					     "stack_map_defs", "stack_map_bits" };
static const mode_t fmode[NR_FILES] = { 0640, 0440, 0440, 0640, 0640 };

/* The exports of the map, whose open readers see ESTALE after a reset. */
static int stales(int file)
{
	return file == F_MAP || file == F_BIN;
}

/* The files whose write-only opens have no seq_file (position stays 0). */
static int wo_no_seq(int file)
{
	return file == F_MAP || file == F_DEFS || file == F_BITS;
}

static atomic_int passed, failed;
static atomic_long nr_ops;

static void check(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		passed++;
		return;
	}
	va_start(ap, fmt);
	flockfile(stdout);
	printf("not ok ");
	vprintf(fmt, ap);
	printf("\n");
	funlockfile(stdout);
	fflush(stdout);
	va_end(ap);
	failed++;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("ok ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	passed++;
}

/*
 * A "# " line with the seconds since the first one: where a run that does not finish
 * stopped, and how long each step took (a boot test's output is all a CI log keeps).
 */
static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
	static struct timespec t0;
	struct timespec t;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!t0.tv_sec && !t0.tv_nsec)
		t0 = t;
	va_start(ap, fmt);
	flockfile(stdout);
	printf("# %.1f s: ", (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9);
	vprintf(fmt, ap);
	printf("\n");
	funlockfile(stdout);
	fflush(stdout);
	va_end(ap);
}

static void must(const char *file, const char *val)
{
	int ret = twrite(file, val);

	if (ret) {
		printf("not ok setup: write '%s' to %s: %s\n", val, file, strerror(-ret));
		printf("%d passed, %d failed\n", passed, failed + 1);
		exit(1);
	}
}

/* Whole content of a file (NUL-terminated); -errno on failure. */
static long slurp(const char *path, char **out)
{
	size_t cap = 1 << 16, len = 0;
	char *b = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		free(b);
		return -errno;
	}
	for (;;) {
		if (cap - len < 4096)
			b = realloc(b, cap *= 2);
		n = read(fd, b + len, cap - len - 1);
		if (n < 0) {
			n = -errno;
			close(fd);
			free(b);
			return n;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	b[len] = 0;
	*out = b;
	return (long)len;
}

/* The number after @key in the file at @path; -1 if the file or the key is missing. */
static long file_value(const char *path, const char *key)
{
	char *s, *p;
	long v = -1;

	if (slurp(path, &s) < 0)
		return -1;
	p = strstr(s, key);
	if (p)
		v = strtol(p + strlen(key), NULL, 10);
	free(s);
	return v;
}

static long stat_value(const char *key)
{
	return file_value(T "stack_map_stat", key);
}

static int map_exists(void)
{
	char *s;
	int yes;

	if (slurp(T "stack_map_stat", &s) < 0)
		return 0;
	yes = !strstr(s, "not initialized");
	free(s);
	return yes;
}

static void record_some(int rounds);

/*
 * Every event on, but the lock:* events of a lockdep kernel. On the 7.3 debug kernel the stack
 * walk itself fires lock:lock_acquire/lock_release (the unwinder's RCU read lock), so with
 * options/stacktrace each such event walks the stack again, nested: the fill below then
 * stalled the guest (RCU stall reports, no progress in 800 s). Subsystem by subsystem, so
 * that the lock:* events are never on, not even for a moment: turning them on and off would
 * patch the lock code's tracepoints (tests/lib/hold-tracepoints.sh holds every other one).
 */
static void all_events_on(void)
{
	DIR *d = opendir(T "events");
	struct dirent *e;

	check(d != NULL, "open %sevents: %s", T, strerror(errno));
	while (d && (e = readdir(d))) {
		char path[PATH_MAX];

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "lock"))
			continue;
		snprintf(path, sizeof(path), "%sevents/%s/enable", T, e->d_name);
		if (access(path, W_OK) == 0)
			must(path, "1");
	}
	if (d)
		closedir(d);
}

/* ---- the operations and what the table says about them ---- */

struct ctx {
	int tracing_on; /* resets are refused */
	int disturbed; /* resets may happen at any time */
	int have_map;
	const char *where;
};

static int readable(int oflags)
{
	return (oflags & O_ACCMODE) != O_WRONLY;
}

static int writable(int oflags)
{
	return (oflags & O_ACCMODE) != O_RDONLY;
}

/*
 * One result against the table. @ret is the system call's return value with errno in @err.
 * @ok lists the errnos the table allows (0-terminated); ret >= 0 is always allowed unless
 * @must_fail is set.
 */
static void expect(const struct ctx *c, const char *op, int file, int oflags, long ret, int err,
		   int must_fail, const int *ok)
{
	int i, fine = 0;

	nr_ops++;
	if (ret >= 0) {
		fine = !must_fail;
	} else {
		for (i = 0; ok && ok[i]; i++)
			if (ok[i] == err)
				fine = 1;
	}
	check(fine, "%s: %s on %s (flags 0%o): %s", c->where, op, fname[file], oflags,
	      ret >= 0 ? "succeeded" : strerror(err));
}

#define ERRS(...) ((const int[]){ __VA_ARGS__, 0 })

/* Errnos a read of @file may give besides EBADF for a write-only fd. */
static const int errs_ebadf[] = { EBADF, 0 }, errs_estale[] = { ESTALE, 0 };

static const int *read_errs(const struct ctx *c, int file, int oflags)
{
	if (!readable(oflags))
		return errs_ebadf;
	if (stales(file) && c->disturbed)
		return errs_estale;
	return NULL;
}

static void op_read(const struct ctx *c, int fd, int file, int oflags, size_t size, off_t off,
		    int kind)
{
	static __thread char buf[1 << 17];
	struct iovec iov[3];
	const char *name;
	long ret;

	if (size > sizeof(buf))
		size = sizeof(buf);
	switch (kind) {
	case 0:
		name = "read";
		ret = read(fd, buf, size);
		break;
	case 1:
		name = "pread";
		ret = pread(fd, buf, size, off);
		break;
	default:
		name = "readv";
		iov[0] = (struct iovec){ buf, size / 3 };
		iov[1] = (struct iovec){ buf + size / 3, 1 };
		iov[2] = (struct iovec){ buf + size / 3 + 1, size - size / 3 - 1 };
		ret = readv(fd, iov, 3);
		break;
	}
	if (off < 0 && kind == 1) {
		/* The offset is checked before the access mode. */
		expect(c, "pread at a negative offset", file, oflags, ret, errno, 1, ERRS(EINVAL));
		return;
	}
	expect(c, name, file, oflags, ret, errno, !readable(oflags), read_errs(c, file, oflags));
}

/* A valid write to stack_map_defs: always works. */
static int is_defs(const char *s, size_t n)
{
	return (n == 1 && (*s == '0' || *s == '1')) ||
	       (n == 2 && (*s == '0' || *s == '1') && s[1] == '\n');
}

/* A valid reset is allowed to succeed (tracing off, not disturbed) or to be refused. */
static int is_reset(const char *s, size_t n)
{
	return (n == 1 && !memcmp(s, "0", 1)) || (n == 2 && !memcmp(s, "0\n", 2)) ||
	       (n == 5 && !memcmp(s, "reset", 5)) || (n == 6 && !memcmp(s, "reset\n", 6));
}

/* "next": switch the map's generation; works, or is refused while the other map is busy. */
static int is_next(const char *s, size_t n)
{
	return (n == 4 && !memcmp(s, "next", 4)) || (n == 5 && !memcmp(s, "next\n", 5));
}

/* A valid stack_map_bits value: refused with EBUSY, the map being in place whenever written. */
static int is_bits(const char *s, size_t n)
{
	return (n == 2 || (n == 3 && s[2] == '\n')) && s[0] == '1' && s[1] >= '0' && s[1] <= '8';
}

static atomic_long resets_done;

static void op_write(const struct ctx *c, int fd, int file, int oflags, const char *s, size_t n,
		     int kind)
{
	struct iovec iov[2];
	const char *name;
	int reset = file == F_MAP && is_reset(s, n);
	int defs = file == F_DEFS && is_defs(s, n);
	int next = file == F_MAP && is_next(s, n);
	int bits = file == F_BITS && is_bits(s, n);
	long ret;

	switch (kind) {
	case 0:
		name = "write";
		ret = write(fd, s, n);
		break;
	case 1:
		name = "pwrite";
		ret = pwrite(fd, s, n, 4096);
		break;
	default:
		/* Each segment is one write(): the first one decides. */
		name = "writev";
		iov[0] = (struct iovec){ (void *)s, n };
		iov[1] = (struct iovec){ (void *)"x", 1 };
		ret = writev(fd, iov, 2);
		break;
	}
	if (ret > 0 && reset)
		resets_done++;
	if (kind == 1) {
		/* No positioned writes on any open of the five files (checked before the mode). */
		expect(c, name, file, oflags, ret, errno, 1, ERRS(ESPIPE));
	} else if (!n && writable(oflags)) {
		/* A zero-length write may not reach the file at all. */
		expect(c, name, file, oflags, ret, errno, 0, ERRS(EINVAL));
	} else if (!writable(oflags)) {
		expect(c, name, file, oflags, ret, errno, 1, ERRS(EBADF));
	} else if (defs) {
		expect(c, name, file, oflags, ret, errno, 0, NULL);
		check(ret == (long)n, "%s: %s of '%.*s' to %s returned %ld", c->where, name,
		      (int)n, s, fname[file], ret);
	} else if (bits) {
		expect(c, name, file, oflags, ret, errno, 1, ERRS(EBUSY));
	} else if (next) {
		/* EBUSY: the retired map is not recycled yet; ENODEV: no map; ENOMEM. */
		expect(c, name, file, oflags, ret, errno, 0, ERRS(EBUSY, ENODEV, ENOMEM));
		if (ret >= 0)
			check(ret == (long)n, "%s: %s of next returned %ld for %zu bytes", c->where,
			      name, ret, n);
	} else if (!reset) {
		expect(c, name, file, oflags, ret, errno, 1, ERRS(EINVAL));
	} else if (c->tracing_on && !c->disturbed) {
		expect(c, "reset while tracing", file, oflags, ret, errno, 1, ERRS(EBUSY));
	} else if (c->disturbed) {
		expect(c, name, file, oflags, ret, errno, 0, ERRS(EBUSY));
		if (ret >= 0)
			check(ret == (long)n, "%s: %s returned %ld for %zu bytes", c->where, name,
			      ret, n);
	} else {
		expect(c, "reset", file, oflags, ret, errno, 0, NULL);
		/* writev: the second segment ("x") is refused after the first one worked. */
		check(ret == (long)n, "%s: %s of a reset returned %ld, not %zu", c->where, name,
		      ret, n);
	}
}

static void op_lseek(const struct ctx *c, int fd, int file, int oflags, off_t off, int whence)
{
	char what[64];
	off_t ret = lseek(fd, off, whence);
	int err = errno;

	snprintf(what, sizeof(what), "lseek(%lld, %d)", (long long)off, whence);
	if (wo_no_seq(file) && !readable(oflags)) {
		/* Write-only: no seq_file, the position stays 0 (tracing_lseek()). */
		nr_ops++;
		check(ret == 0, "%s: %s on write-only %s gave %lld (%s)", c->where, what,
		      fname[file], (long long)ret, ret < 0 ? strerror(err) : "");
		return;
	}
	if (whence != SEEK_SET && whence != SEEK_CUR) {
		expect(c, what, file, oflags, ret, err, 1, ERRS(EINVAL));
		return;
	}
	if (whence == SEEK_SET && off < 0) {
		expect(c, what, file, oflags, ret, err, 1, ERRS(EINVAL));
		return;
	}
	/* SEEK_CUR may land below 0 (EINVAL); a reset since open() gives ESTALE. */
	expect(c, what, file, oflags, ret, err, 0,
	       stales(file) && c->disturbed ? ERRS(EINVAL, ESTALE) : ERRS(EINVAL));
	if (ret >= 0 && whence == SEEK_SET)
		check(ret == off, "%s: %s on %s (flags 0%o) returned %lld", c->where, what,
		      fname[file], oflags, (long long)ret);
}

static void op_misc(const struct ctx *c, int fd, int file, int oflags, int which, long arg)
{
	static __thread int pipefd[2] = { -1, -1 };
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	struct epoll_event ev = { .events = EPOLLIN };
	struct termios tio;
	struct stat st;
	long ret;
	void *p;
	int v, ep;

	if (pipefd[0] < 0 && pipe2(pipefd, O_NONBLOCK))
		pipefd[0] = -1;
	switch (which) {
	case 0:
		p = mmap(NULL, 4096, PROT_READ, arg & 1 ? MAP_SHARED : MAP_PRIVATE, fd, 0);
		ret = p == MAP_FAILED ? -1 : 0;
		if (!ret)
			munmap(p, 4096);
		/* The VFS refuses a mapping of a file not open for reading first. */
		expect(c, "mmap", file, oflags, ret, errno, 1,
		       readable(oflags) ? ERRS(ENODEV) : ERRS(EACCES));
		break;
	case 1:
		ret = ioctl(fd, TCGETS, &tio);
		expect(c, "ioctl(TCGETS)", file, oflags, ret, errno, 1, ERRS(ENOTTY));
		break;
	case 2:
		/* Generic VFS ioctl: st_size - position, as for any regular file. */
		ret = ioctl(fd, FIONREAD, &v);
		expect(c, "ioctl(FIONREAD)", file, oflags, ret, errno, 0, NULL);
		break;
	case 3:
		ret = poll(&pfd, 1, 0);
		expect(c, "poll", file, oflags, ret, errno, 0, NULL);
		check(ret == 1 && (pfd.revents & (POLLIN | POLLOUT)) == (POLLIN | POLLOUT),
		      "%s: poll on %s: %ld, revents %#x", c->where, fname[file], ret, pfd.revents);
		ep = epoll_create1(0);
		ret = epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
		expect(c, "epoll_ctl(ADD)", file, oflags, ret, errno, 1, ERRS(EPERM));
		close(ep);
		break;
	case 4:
		ret = fstat(fd, &st);
		expect(c, "fstat", file, oflags, ret, errno, 0, NULL);
		check(S_ISREG(st.st_mode) && (st.st_mode & 07777) == fmode[file],
		      "%s: fstat %s: mode %o", c->where, fname[file], st.st_mode);
		break;
	case 5:
		/* Changes st_size only (tracefs' generic setattr); put it back to 0. */
		ret = ftruncate(fd, arg & 0xffff);
		expect(c, "ftruncate", file, oflags, ret, errno, !writable(oflags),
		       writable(oflags) ? NULL : ERRS(EINVAL));
		if (ret == 0 && ftruncate(fd, 0))
			check(0, "%s: ftruncate back to 0 failed", c->where);
		break;
	case 6:
		ret = fallocate(fd, 0, 0, 4096);
		expect(c, "fallocate", file, oflags, ret, errno, 1,
		       writable(oflags) ? ERRS(EOPNOTSUPP) : ERRS(EBADF));
		break;
	case 7:
		ret = fsync(fd);
		expect(c, "fsync", file, oflags, ret, errno, 1, ERRS(EINVAL));
		break;
	case 8:
		ret = flock(fd, LOCK_EX | LOCK_NB);
		expect(c, "flock", file, oflags, ret, errno, 0, ERRS(EWOULDBLOCK));
		if (ret == 0)
			flock(fd, LOCK_UN);
		break;
	case 9:
		if (pipefd[0] < 0)
			break;
		ret = splice(fd, NULL, pipefd[1], NULL, arg & 0xffff ? arg & 0xffff : 1,
			     SPLICE_F_NONBLOCK);
		/* EAGAIN: the pipe is full (it is drained below). */
		expect(c, "splice to a pipe", file, oflags, ret, errno, !readable(oflags),
		       readable(oflags) ? (stales(file) && c->disturbed ? ERRS(ESTALE, EAGAIN) :
									 ERRS(EAGAIN)) :
					  ERRS(EBADF));
		while (read(pipefd[0], &v, sizeof(v)) > 0)
			;
		break;
	case 10:
		if (pipefd[0] < 0)
			break;
		if (write(pipefd[1], "0\n", 2) != 2)
			break;
		ret = splice(pipefd[0], NULL, fd, NULL, 2, SPLICE_F_NONBLOCK);
		expect(c, "splice from a pipe", file, oflags, ret, errno, 1,
		       writable(oflags) ? ERRS(EINVAL) : ERRS(EBADF));
		while (read(pipefd[0], &v, sizeof(v)) > 0)
			;
		break;
	case 11: {
		int null = open("/dev/null", O_WRONLY);
		off_t o = arg & 0xfff;

		ret = sendfile(null, fd, arg & 0x1000 ? &o : NULL, 1 << 16);
		expect(c, "sendfile from the file", file, oflags, ret, errno, !readable(oflags),
		       read_errs(c, file, oflags));
		close(null);
		break;
	}
	case 12: {
		int zero = open("/dev/zero", O_RDONLY);

		ret = sendfile(fd, zero, NULL, 2);
		expect(c, "sendfile to the file", file, oflags, ret, errno, 1,
		       writable(oflags) ? ERRS(EINVAL) : ERRS(EBADF));
		close(zero);
		break;
	}
	case 13: {
		struct flock fl = { .l_type = readable(oflags) ? F_RDLCK : F_WRLCK,
				    .l_whence = SEEK_SET };

		ret = fcntl(fd, F_SETLK, &fl);
		expect(c, "fcntl(F_SETLK)", file, oflags, ret, errno, 0, ERRS(EAGAIN));
		fl.l_type = F_UNLCK;
		fcntl(fd, F_SETLK, &fl);
		break;
	}
	}
}

#define NR_MISC 14

/* Open flags tried on every file; all must open (as root). */
static const int oflags_all[] = {
	O_RDONLY,
	O_WRONLY,
	O_RDWR,
	O_RDONLY | O_NONBLOCK,
	O_WRONLY | O_APPEND,
	O_WRONLY | O_TRUNC,
	O_RDWR | O_APPEND | O_NONBLOCK,
	O_RDWR | O_TRUNC,
	O_RDONLY | O_CLOEXEC | O_NOATIME,
};

#define NR_OFLAGS (int)(sizeof(oflags_all) / sizeof(oflags_all[0]))

static void open_refusals(const struct ctx *c, int file)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), T "%s", fname[file]);
	fd = open(path, O_RDONLY | O_DIRECT);
	expect(c, "open(O_DIRECT)", file, O_DIRECT, fd, errno, 1, ERRS(EINVAL));
	if (fd >= 0)
		close(fd);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	expect(c, "open(O_CREAT|O_EXCL)", file, O_CREAT | O_EXCL, fd, errno, 1, ERRS(EEXIST));
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	expect(c, "open(O_DIRECTORY)", file, O_DIRECTORY, fd, errno, 1, ERRS(ENOTDIR));
	if (fd >= 0)
		close(fd);
	fd = open(path, O_PATH);
	expect(c, "open(O_PATH)", file, O_PATH, fd, errno, 0, NULL);
	if (fd >= 0) {
		char b[8];
		long r = read(fd, b, sizeof(b));

		expect(c, "read on an O_PATH fd", file, O_PATH, r, errno, 1, ERRS(EBADF));
		close(fd);
	}
}

/* Every operation of the table once on one open file. */
static void table_on_fd(const struct ctx *c, int fd, int file, int oflags)
{
	static const char *const bad_writes[] = { "x", "1", "resetx", "0 ", " 0", "RESET",
						  "reset\r\n", "nex", "next ", "NEXT", "nextt" };
	/* Writes strlen() cannot describe: empty, embedded NULs, binary junk, over-long. */
	static const struct {
		const char *s;
		size_t n;
	} raw_writes[] = { { "", 0 },	      { "\0", 1 },	      { "0\0", 2 },
			   { "\377\376", 2 }, { "reset\n\n", 7 }, { "12345678", 8 } };
	static const off_t offs[] = { 0, 1, 17, 4096, (off_t)1 << 40, -1 };
	size_t i;
	int k;

	for (k = 0; k < 3; k++)
		for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
			op_read(c, fd, file, oflags, 1 + (i * 977) % 8192, offs[i], k);
	op_lseek(c, fd, file, oflags, 0, SEEK_SET);
	op_lseek(c, fd, file, oflags, 5, SEEK_SET);
	op_lseek(c, fd, file, oflags, (off_t)1 << 40, SEEK_SET);
	op_read(c, fd, file, oflags, 100, 0, 0);
	op_lseek(c, fd, file, oflags, -1, SEEK_SET);
	op_lseek(c, fd, file, oflags, 0, SEEK_CUR);
	op_lseek(c, fd, file, oflags, -((off_t)1 << 41), SEEK_CUR);
	op_lseek(c, fd, file, oflags, 0, SEEK_END);
	op_lseek(c, fd, file, oflags, 0, SEEK_DATA);
	op_lseek(c, fd, file, oflags, 0, SEEK_HOLE);
	op_lseek(c, fd, file, oflags, 0, SEEK_SET);
	for (i = 0; i < sizeof(bad_writes) / sizeof(bad_writes[0]); i++)
		for (k = 0; k < 3; k++)
			op_write(c, fd, file, oflags, bad_writes[i], strlen(bad_writes[i]), k);
	for (i = 0; i < sizeof(raw_writes) / sizeof(raw_writes[0]); i++)
		for (k = 0; k < 3; k++)
			op_write(c, fd, file, oflags, raw_writes[i].s, raw_writes[i].n, k);
	for (k = 0; k < NR_MISC; k++)
		op_misc(c, fd, file, oflags, k, 0x1234 + k);
}

/* The stack_map_bin stream, to tell whether anything but a reset changed the map. */
static char *map_image(long *len)
{
	char *s;

	*len = slurp(T "stack_map_bin", &s);
	return *len < 0 ? NULL : s;
}

static void table_pass(struct ctx *c)
{
	char where[96];
	long len0 = 0, len1;
	char *img0 = NULL, *img1;
	long gen0 = stat_value("generation:");
	int file, i, fd;

	if (!c->disturbed && !c->tracing_on)
		img0 = map_image(&len0);
	for (file = 0; file < NR_FILES; file++) {
		open_refusals(c, file);
		for (i = 0; i < NR_OFLAGS; i++) {
			char path[128];

			snprintf(path, sizeof(path), T "%s", fname[file]);
			fd = open(path, oflags_all[i]);
			expect(c, "open", file, oflags_all[i], fd, errno, 0, NULL);
			if (fd < 0)
				continue;
			table_on_fd(c, fd, file, oflags_all[i]);
			check(close(fd) == 0, "%s: close %s", c->where, fname[file]);
			if (!img0)
				continue;
			/* Tracing is off: nothing may have changed the map. */
			img1 = map_image(&len1);
			snprintf(where, sizeof(where), "%s: after the table on %s (flags 0%o)",
				 c->where, fname[file], oflags_all[i]);
			check(img1 && len1 == len0 && !memcmp(img0, img1, len0),
			      "%s: the map changed (%ld -> %ld bytes)", where, len0, len1);
			free(img1);
		}
	}
	if (!c->disturbed)
		check(stat_value("generation:") == gen0, "%s: generation moved without a reset",
		      c->where);
	free(img0);
}

/* A valid reset with tracing off: empties the map and bumps the generation. */
static void reset_check(struct ctx *c)
{
	long gen = stat_value("generation:");
	int fd = open(T "stack_map", O_WRONLY | O_TRUNC);
	long ret = write(fd, "reset\n", 6);

	check(ret == 6, "%s: reset write returned %ld (%s)", c->where, ret,
	      ret < 0 ? strerror(errno) : "");
	check(lseek(fd, 0, SEEK_CUR) == 0, "%s: lseek after the reset", c->where);
	close(fd);
	if (!c->have_map)
		return;
	check(stat_value("entries:") == 0, "%s: entries after reset", c->where);
	check(stat_value("generation:") == gen + 1, "%s: generation after reset", c->where);
}

/*
 * A reset between two reads of one open stack_map or stack_map_bin: every later read,
 * pread and seek-and-read fails with ESTALE (never a listing spliced from two maps); a
 * reopened file reads the new map; a file read to its end before the reset stays at EOF.
 */
static void estale_check(void)
{
	static const int files[] = { F_MAP, F_BIN };
	static char got[1 << 20];
	char buf[64], path[128];
	int i, fd, fd_end;
	long r, len, n;

	for (i = 0; i < 2; i++) {
		char *all;

		/* More than a page of each export, so that reads after the reset need more. */
		all_events_on();
		record_some(30);
		must(T "events/enable", "0");
		snprintf(path, sizeof(path), T "%s", fname[files[i]]);
		fd = open(path, O_RDONLY);
		fd_end = open(path, O_RDONLY);
		len = slurp(path, &all);
		check(len > 8192, "estale: %s has %ld bytes before the reset", path, len);
		check(read(fd, got, 20) == 20, "estale: first read of %s", path);
		while ((r = read(fd_end, buf, sizeof(buf))) > 0)
			;
		check(r == 0, "estale: %s read to its end", path);
		must(T "stack_map", "0");
		/*
		 * What seq_file had already formatted (up to a page) still comes, and it is
		 * the old map's; then ESTALE, never records of the new map.
		 */
		n = 20;
		errno = 0;
		while (n < (long)sizeof(got) && (r = read(fd, got + n, 64)) > 0)
			n += r;
		check(r < 0 && errno == ESTALE, "estale: read of %s after a reset: %ld (%s)", path, r,
		      strerror(errno));
		check(n < len && !memcmp(got, all, n),
		      "estale: the %ld bytes read from %s are a prefix of its old content (%ld)", n,
		      path, len);
		free(all);
		errno = 0;
		r = pread(fd, buf, sizeof(buf), 10);
		check(r < 0 && errno == ESTALE, "estale: pread of %s after a reset: %ld (%s)", path,
		      r, strerror(errno));
		lseek(fd, 0, SEEK_SET);
		errno = 0;
		r = read(fd, buf, sizeof(buf));
		check(r < 0 && errno == ESTALE,
		      "estale: read of %s from 0 after a reset: %ld (%s)", path, r, strerror(errno));
		r = read(fd_end, buf, sizeof(buf));
		check(r == 0, "estale: %s read to its end stays at EOF after a reset: %ld", path, r);
		close(fd);
		close(fd_end);
		fd = open(path, O_RDONLY);
		r = read(fd, buf, sizeof(buf));
		check(files[i] == F_MAP ? r == 0 : r == 16,
		      "estale: reopened %s reads the empty map: %ld (%s)", path, r,
		      r < 0 ? strerror(errno) : "");
		close(fd);
		nr_ops += 8;
	}
}

/* A reader keeps reading a file that another thread closes. */
static void *close_reader(void *arg)
{
	int fd = *(int *)arg;
	char buf[512];

	for (int i = 0; i < 20000; i++) {
		lseek(fd, 0, SEEK_SET);
		if (read(fd, buf, sizeof(buf)) < 0 && errno == EBADF)
			break;
	}
	return NULL;
}

static void close_while_reading(struct ctx *c)
{
	for (int file = 0; file < NR_FILES; file++) {
		char path[128];
		pthread_t t;
		int fd;

		snprintf(path, sizeof(path), T "%s", fname[file]);
		fd = open(path, O_RDONLY);
		pthread_create(&t, NULL, close_reader, &fd);
		usleep(2000);
		check(close(fd) == 0, "%s: close %s while another thread reads", c->where,
		      fname[file]);
		pthread_join(t, NULL);
		nr_ops += 2;
	}
}

/* ---- disturbances: resets, option toggles, instances, buffer resizes ---- */

static atomic_int stop;
static atomic_long resets_tried;

static unsigned int rnd(unsigned int *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void *disturber(void *arg)
{
	unsigned int s = (unsigned int)(uintptr_t)arg | 1;
	char dir[64], path[128];
	int ret;

	while (!stop) {
		switch (rnd(&s) % 9) {
		case 8:
			/* A generation switch: refused while the retired map is in use. */
			ret = twrite(T "stack_map", rnd(&s) & 1 ? "next\n" : "next");
			check(!ret || ret == -EBUSY, "disturber: next failed with %s", strerror(-ret));
			break;
		case 0:
		case 1:
			resets_tried++;
			ret = twrite(T "stack_map", rnd(&s) & 1 ? "0\n" : "reset");
			if (!ret)
				resets_done++;
			else
				check(ret == -EBUSY, "disturber: reset failed with %s",
				      strerror(-ret));
			break;
		case 2:
			twrite(T "tracing_on", rnd(&s) & 1 ? "1" : "0");
			break;
		case 3:
			twrite(T "options/stacktrace", rnd(&s) & 1 ? "1" : "0");
			break;
		case 4:
			/* Turning stackmap off and on again; it never frees the map. */
			twrite(T "options/stackmap", rnd(&s) & 3 ? "1" : "0");
			break;
		case 5:
			snprintf(dir, sizeof(dir), T "instances/fo%u", rnd(&s) % 3);
			if (mkdir(dir, 0755) == 0) {
				/*
				 * An instance with a map of its own, recording ids, so that the
				 * removal below frees a map that is in use.
				 * ENODEV/ENOENT: the other disturber removed it meanwhile.
				 */
				snprintf(path, sizeof(path), "%s/trace_options", dir);
				ret = twrite(path, "stackmap");
				check(!ret || ret == -ENODEV || ret == -ENOENT,
				      "instance trace_options stackmap: %s", strerror(-ret));
				snprintf(path, sizeof(path), "%s/options/stacktrace", dir);
				twrite(path, "1");
				snprintf(path, sizeof(path), "%s/events/sched/sched_switch/enable", dir);
				twrite(path, "1");
			}
			break;
		case 6:
			snprintf(dir, sizeof(dir), T "instances/fo%u", rnd(&s) % 3);
			rmdir(dir);
			break;
		default:
			twrite(T "buffer_size_kb", rnd(&s) & 1 ? "256" : "512");
			break;
		}
		usleep(rnd(&s) % 3000);
	}
	return NULL;
}

/* Something for the stack recorder to see. */
static void *workload(void *arg)
{
	(void)arg;
	while (!stop) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		if (p > 0)
			waitpid(p, NULL, 0);
		usleep(500);
	}
	return NULL;
}

static pthread_t dthreads[3];

static void disturb_start(unsigned int seed)
{
	stop = 0;
	pthread_create(&dthreads[0], NULL, disturber, (void *)(uintptr_t)(seed * 2654435761u));
	pthread_create(&dthreads[1], NULL, disturber, (void *)(uintptr_t)(seed * 40503u + 7));
	pthread_create(&dthreads[2], NULL, workload, NULL);
}

static void disturb_stop(void)
{
	char dir[64];

	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(dthreads[i], NULL);
	for (int i = 0; i < 3; i++) {
		snprintf(dir, sizeof(dir), T "instances/fo%d", i);
		rmdir(dir);
	}
	twrite(T "buffer_size_kb", "512");
}

/* Open, read and close the five files in a loop, as the map comes into existence. */
static void *open_loop(void *arg)
{
	struct ctx c = { .where = "opened while the map is created" };
	char buf[4096], path[128];
	long n = 0;

	(void)arg;
	while (!stop) {
		int file = n++ % NR_FILES, fd;
		long r;

		snprintf(path, sizeof(path), T "%s", fname[file]);
		fd = open(path, O_RDONLY);
		expect(&c, "open", file, O_RDONLY, fd, errno, 0, NULL);
		if (fd < 0)
			continue;
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			;
		expect(&c, "read", file, O_RDONLY, r, errno, 0, NULL);
		close(fd);
	}
	return NULL;
}

/* ---- map states ---- */

static void record_some(int rounds)
{
	must(T "tracing_on", "0");
	must(T "options/stacktrace", "1");
	must(T "events/sched/sched_switch/enable", "1");
	must(T "events/syscalls/sys_enter_getpid/enable", "1");
	must(T "tracing_on", "1");
	for (int i = 0; i < rounds; i++) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
		getpid();
	}
	must(T "tracing_on", "0");
}

static void fill_map(void)
{
	long cap = -1, ent = 0;
	char *s, *p;
	int i;

	must(T "tracing_on", "0");
	must(T "options/stacktrace", "1");
	all_events_on();
	must(T "tracing_on", "1");
	for (i = 0; i < 200; i++) {
		if (slurp(T "stack_map_stat", &s) >= 0) {
			p = strstr(s, "entries:");
			if (p && sscanf(p, "entries: %ld / %ld", &ent, &cap) == 2 &&
			    (ent >= cap || stat_value("drops:") > 0)) {
				free(s);
				break;
			}
			free(s);
		}
		if (i % 10 == 0)
			progress("fill: round %d: %ld / %ld entries, %ld drops", i, ent, cap,
				 stat_value("drops:"));
		record_some(20);
		all_events_on();
		must(T "tracing_on", "1");
		if (system("ls -R /sys/kernel/tracing/events > /dev/null 2>&1; cat /proc/*/stat > /dev/null 2>&1") < 0)
			check(0, "fill: system() failed");
	}
	must(T "tracing_on", "0");
	must(T "events/enable", "0");
	progress("fill: %d rounds", i);
	check(stat_value("drops:") > 0 || ent >= cap, "map filled: %ld / %ld entries, %ld drops", ent,
	      cap, stat_value("drops:"));
}

static void pass_both(struct ctx *c, const char *state)
{
	char where[96];

	snprintf(where, sizeof(where), "%s, tracing off", state);
	c->where = where;
	c->tracing_on = 0;
	must(T "tracing_on", "0");
	table_pass(c);
	snprintf(where, sizeof(where), "%s, tracing on", state);
	c->tracing_on = 1;
	must(T "tracing_on", "1");
	table_pass(c);
	/* A reset is refused while tracing is on. */
	{
		long r = twrite(T "stack_map", "0");

		check(r == -EBUSY, "%s: reset while tracing returned %s", where, strerror(-(int)r));
	}
	must(T "tracing_on", "0");
	c->tracing_on = 0;
	note("%s: table done (%ld operations so far)", state, (long)nr_ops);
}

static int cmd_check(void)
{
	struct ctx c = { 0 };
	long gen0, gen1;

	progress("check: start");
	must(T "tracing_on", "0");
	must(T "events/enable", "0");
	must(T "options/stacktrace", "0");

	/* 1. The map was never allocated (the boot test starts with it so). */
	c.have_map = map_exists();
	check(!c.have_map, "the map does not exist before the option is first set");
	pass_both(&c, "no map");
	c.where = "no map";
	reset_check(&c);
	close_while_reading(&c);

	/* 2. Empty: the map is allocated while two threads open and read the files. */
	{
		pthread_t t[2];

		stop = 0;
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, open_loop, NULL);
		usleep(20000);
		must(T "options/stackmap", "1");
		usleep(20000);
		stop = 1;
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	}
	c.have_map = map_exists();
	check(c.have_map, "setting the option allocated the map");
	c.where = "empty";
	reset_check(&c);
	pass_both(&c, "empty map");

	/* 3. Partly filled. */
	record_some(50);
	check(stat_value("entries:") > 0, "partly filled: %ld entries", stat_value("entries:"));
	pass_both(&c, "partly filled");
	close_while_reading(&c);
	progress("partly filled: closes while reading done");
	estale_check();
	progress("partly filled: ESTALE checks done");

	/* 4. Full. */
	fill_map();
	pass_both(&c, "full map");
	c.where = "full";
	reset_check(&c);
	progress("full: reset checks done");

	/* 5. The whole table again while resets, toggles, instances and resizes go on. */
	record_some(50);
	gen0 = stat_value("generation:");
	resets_done = 0;
	disturb_start(1);
	c.disturbed = 1;
	c.where = "disturbed";
	for (int i = 0; i < 3; i++) {
		table_pass(&c);
		progress("disturbed: table pass %d done", i + 1);
	}
	disturb_stop();
	gen1 = stat_value("generation:");
	check(gen1 - gen0 == resets_done,
	      "disturbed: the generation moved by %ld, successful resets %ld", gen1 - gen0,
	      (long)resets_done);
	note("disturbed: %ld reset writes tried, %ld succeeded", (long)resets_tried,
	     (long)resets_done);

	must(T "events/enable", "0");
	must(T "options/stacktrace", "0");
	must(T "tracing_on", "1");
	printf("# %ld operations checked\n", (long)nr_ops);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* ---- random mode ---- */

struct rthread {
	pthread_t t;
	unsigned int seed;
	long ops;
};

static void *random_worker(void *arg)
{
	static const char *const writes[] = { "0", "0\n", "reset", "reset\n", "x", "",
					      "reset\n\n", "00", "0\0", "next", "next\n", "12",
					      "18\n" };
	struct rthread *rt = arg;
	unsigned int s = rt->seed | 1;
	struct ctx c = { .disturbed = 1, .where = "random" };
	int fds[8], ffile[8], fflags[8], n = 0;

	while (!stop) {
		unsigned int r = rnd(&s), op = r % 16;
		int slot = (int)((r >> 4) % 8);
		size_t sz = 1 + rnd(&s) % (rnd(&s) & 1 ? 64 : 70000);
		off_t off = (off_t)(rnd(&s) % 100000) - (rnd(&s) % 16 == 0 ? 200000 : 0);

		if (slot >= n || op == 0) {
			/* Open a new file into a slot (closing what was there). */
			int file = rnd(&s) % NR_FILES, fl = oflags_all[rnd(&s) % NR_OFLAGS];
			char path[128];
			int fd;

			snprintf(path, sizeof(path), T "%s", fname[file]);
			fd = open(path, fl);
			expect(&c, "open", file, fl, fd, errno, 0, NULL);
			if (fd < 0)
				continue;
			if (slot >= n)
				slot = n++;
			else
				close(fds[slot]);
			fds[slot] = fd;
			ffile[slot] = file;
			fflags[slot] = fl;
			continue;
		}
		switch (op) {
		case 1 ... 3:
			op_read(&c, fds[slot], ffile[slot], fflags[slot], sz, off, op - 1);
			break;
		case 4 ... 5: {
			const char *w = writes[rnd(&s) % (sizeof(writes) / sizeof(writes[0]))];
			size_t len = strlen(w) + (w[0] == '0' && w[1] == 0 && rnd(&s) % 4 == 0);

			if (!len)
				len = rnd(&s) % 2;
			op_write(&c, fds[slot], ffile[slot], fflags[slot], w, len, rnd(&s) % 3);
			break;
		}
		case 6 ... 7:
			op_lseek(&c, fds[slot], ffile[slot], fflags[slot], off, rnd(&s) % 5);
			break;
		case 8:
			close(fds[slot]);
			fds[slot] = fds[--n];
			ffile[slot] = ffile[n];
			fflags[slot] = fflags[n];
			break;
		default:
			op_misc(&c, fds[slot], ffile[slot], fflags[slot], rnd(&s) % NR_MISC,
				(long)rnd(&s));
			break;
		}
		rt->ops++;
	}
	while (n)
		close(fds[--n]);
	return NULL;
}

/* The top level records sched_switch with ids (on), or stops recording stacks (off). */
static void top_level_recording(int on)
{
	if (on) {
		must(T "options/stackmap", "1");
		must(T "options/stacktrace", "1");
		must(T "events/sched/sched_switch/enable", "1");
	} else {
		must(T "events/sched/sched_switch/enable", "0");
		must(T "options/stacktrace", "0");
		must(T "tracing_on", "1");
	}
}

/* The disturbers and @n random workers, seeded from @seed. */
static void random_start(unsigned int seed, struct rthread *rt, int n)
{
	disturb_start(seed);
	for (int i = 0; i < n; i++) {
		rt[i] = (struct rthread){ .seed = seed * 2246822519u + i * 3266489917u };
		pthread_create(&rt[i].t, NULL, random_worker, &rt[i]);
	}
}

/* Stop what random_start() started; the operations the workers did. */
static long random_stop(struct rthread *rt, int n)
{
	long total = 0;

	stop = 1;
	for (int i = 0; i < n; i++) {
		pthread_join(rt[i].t, NULL);
		total += rt[i].ops;
	}
	disturb_stop();
	return total;
}

static int cmd_random(unsigned int seed, int seconds, int nthreads)
{
	struct rthread rt[16];
	long gen0, gen1, total;
	struct timespec t0, t1;

	if (nthreads < 1 || nthreads > 16) {
		fprintf(stderr, "fileops_test: 1 to 16 threads\n");
		return 2;
	}
	printf("# random: seed %u, %d s, %d threads\n", seed, seconds, nthreads);
	must(T "tracing_on", "0");
	top_level_recording(1);
	gen0 = stat_value("generation:");
	resets_done = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	random_start(seed, rt, nthreads);
	sleep(seconds);
	total = random_stop(rt, nthreads);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	must(T "tracing_on", "0");
	gen1 = stat_value("generation:");
	check(gen1 - gen0 == resets_done, "random: the generation moved by %ld, successful resets %ld",
	      gen1 - gen0, (long)resets_done);
	top_level_recording(0);
	note("random: %ld operations in %.1f s, %ld checked results, %ld resets", total,
	     (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, (long)nr_ops,
	     (long)resets_done);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/*
 * ---- pairs mode: every id checked against the full stack recorded beside it ----
 *
 * Two instances see the same kmem events of the same threads: "pa" records stack ids with
 * definitions (stack_map_defs), "pb" full stacks. Both are read as consumed per-CPU streams
 * (per_cpu/cpuN/trace_pipe, sym-offset on, the "counter" clock), so pa's retired maps drain and
 * are recycled while a thread writes "next" to pa's stack_map as fast as it is accepted.
 * Meanwhile the random file operations and the disturbers (resets, option toggles, instances
 * with maps created and removed, buffer resizes) run on the top level, as in random mode.
 *
 * Afterwards each event of pa is paired with the event of pb that has the same text (the
 * kmem events print the object's address: live objects have distinct ones, and an address
 * allocated again after a free is so after both probes of the first allocation returned, so
 * equal texts pair in the order of the shared counter clock, whatever the CPU), and the
 * stack of pa's event, through the definition of its id (or its full stack when the map fell
 * back) must be pb's full stack. Every id must have a definition, and every definition of
 * an id and switch count the same frames: the stream never resolves an id to a stack it
 * was not recorded with. Events are only those of the workload's threads (an event filter on common_pid),
 * which start after both instances record and stop, and exit, only after both have stopped,
 * so every event has its pair: any event left unpaired, lost or unread, any mismatch fails.
 * Full ids repeat after 8192 switches: an id event is of the switch count, among those with
 * the id's bits, nearest to the highest one defined up to the event (pdef_switch()), the
 * rule of Documentation/trace/ftrace-stackmap.rst, which this implements apart from the tool.
 */
#define PA T "instances/pa/"
#define PB T "instances/pb/"
#define PAIRS_WORKERS 2

/*
 * Interned strings: event texts and stacks (frames joined by newlines), each stored once and
 * named by its index in str[] (from 1); slot[] is an open-addressing table of those indices.
 */
struct intern {
	pthread_mutex_t lock;
	char **str;
	uint64_t *hash;
	int *slot;
	unsigned int nr, cap_str, cap_slot;
};

static struct intern strs = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t fnv(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static void intern_put(int i)
{
	unsigned int j = strs.hash[i] & (strs.cap_slot - 1);

	while (strs.slot[j])
		j = (j + 1) & (strs.cap_slot - 1);
	strs.slot[j] = i;
}

/* Index (> 0) of the string s[0..len), stored once. */
static int intern(const char *s, size_t len)
{
	uint64_t h = fnv(s, len);
	unsigned int j;
	int i;

	pthread_mutex_lock(&strs.lock);
	if (2 * (strs.nr + 2) > strs.cap_slot) {
		strs.cap_slot = strs.cap_slot ? strs.cap_slot * 2 : 1 << 12;
		free(strs.slot);
		strs.slot = calloc(strs.cap_slot, sizeof(*strs.slot));
		for (i = 1; i <= (int)strs.nr; i++)
			intern_put(i);
	}
	for (j = h & (strs.cap_slot - 1); (i = strs.slot[j]); j = (j + 1) & (strs.cap_slot - 1))
		if (strs.hash[i] == h && strlen(strs.str[i]) == len && !memcmp(strs.str[i], s, len))
			goto out;
	if (strs.nr + 2 > strs.cap_str) {
		strs.cap_str = strs.cap_str ? strs.cap_str * 2 : 1 << 12;
		strs.str = realloc(strs.str, strs.cap_str * sizeof(*strs.str));
		strs.hash = realloc(strs.hash, strs.cap_str * sizeof(*strs.hash));
	}
	i = (int)++strs.nr;
	strs.str[i] = strndup(s, len);
	strs.hash[i] = h;
	strs.slot[j] = i;
out:
	pthread_mutex_unlock(&strs.lock);
	return i;
}

/* Only used after the readers have stopped. */
static const char *interned(int i)
{
	return strs.str[i];
}

/* One event of a stream: its text, and its stack (pb, pa fallback) or id (pa). */
struct pitem {
	int key;
	int stack;	/* interned frames, 0: none (yet) */
	long id;	/* pa: the id, -1: none */
	uint64_t ts;	/* the instance's "counter" trace clock */
	int cpu;
};

/* Definitions seen in pa's streams (and stack_map's stacks, with sw 0 and ts 0). */
struct pdef {
	long id;
	int stack;
	unsigned int sw;	/* the definition's switch count */
	uint64_t ts;
};

#define PAIRS_ERA_SHIFT 18	/* an id's bits 18 and up: its switch count mod 8192 */
#define PAIRS_ERA_MASK 8191u

static pthread_mutex_t defs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pdef *pdefs;	/* pairs_sort_defs(): by id and switch count */
static long nr_pdefs, cap_pdefs;
static uint64_t *pdef_ts;	/* pairs_sort_defs(): the definitions' stamps in order */
static unsigned int *pdef_swmax; /* ... and the highest switch count up to each */
static long switch_wraps;	/* id events of a switch count of 8192 or more */

static int pdef_cmp(const void *a, const void *b)
{
	const struct pdef *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int pdef_cmp_sw(const void *a, const void *b)
{
	const struct pdef *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

static int pdef_cmp_ts(const void *a, const void *b)
{
	const struct pdef *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void pdef_add(long id, unsigned int sw, uint64_t ts, int stack)
{
	pthread_mutex_lock(&defs_lock);
	if (nr_pdefs == cap_pdefs) {
		cap_pdefs = cap_pdefs ? cap_pdefs * 2 : 4096;
		pdefs = realloc(pdefs, cap_pdefs * sizeof(*pdefs));
	}
	pdefs[nr_pdefs++] = (struct pdef){ id, stack, sw, ts };
	pthread_mutex_unlock(&defs_lock);
}

/* After the readers stopped: the time line of switch counts, then the lookup order. */
static void pairs_sort_defs(void)
{
	unsigned int max = 0;

	qsort(pdefs, nr_pdefs, sizeof(*pdefs), pdef_cmp_ts);
	pdef_ts = calloc(nr_pdefs + 1, sizeof(*pdef_ts));
	pdef_swmax = calloc(nr_pdefs + 1, sizeof(*pdef_swmax));
	for (long i = 0; i < nr_pdefs; i++) {
		if (!i || pdefs[i].sw > max)
			max = pdefs[i].sw;
		pdef_ts[i] = pdefs[i].ts;
		pdef_swmax[i] = max;
	}
	qsort(pdefs, nr_pdefs, sizeof(*pdefs), pdef_cmp_sw);
}

/*
 * The switch count of an id event at @ts: of those with the id's bits, the nearest to the
 * highest count defined up to @ts (before the first definition: the first one's).
 */
static unsigned int pdef_switch(long id, uint64_t ts)
{
	long lo = 0, hi = nr_pdefs;
	unsigned int now, d;

	if (!nr_pdefs)
		return (unsigned int)(id >> PAIRS_ERA_SHIFT);
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (pdef_ts[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	now = pdef_swmax[lo ? lo - 1 : 0];
	d = ((unsigned int)(id >> PAIRS_ERA_SHIFT) - now) & PAIRS_ERA_MASK;
	return d <= PAIRS_ERA_MASK / 2 ? now + d : now - (PAIRS_ERA_MASK + 1 - d);
}

/*
 * The frames of the definitions of @id at @ts (of its switch count), which must all agree;
 * 0 if it has none, -1 if they differ.
 */
static int pdef_stack(long id, uint64_t ts)
{
	struct pdef key = { .id = id, .sw = pdef_switch(id, ts) }, *d;

	if (key.sw > PAIRS_ERA_MASK)
		switch_wraps++;
	d = bsearch(&key, pdefs, nr_pdefs, sizeof(*pdefs), pdef_cmp_sw);
	if (!d)
		return 0;
	while (d > pdefs && !pdef_cmp_sw(&d[-1], &key))
		d--;
	for (struct pdef *e = d; e < pdefs + nr_pdefs && !pdef_cmp_sw(e, &key); e++)
		if (e->stack != d->stack)
			return -1;
	return d->stack;
}

/* A reader of one instance's per-CPU stream, and the parser of its lines. */
struct preader {
	pthread_t t;
	int inst;	/* 0: pa, 1: pb */
	int cpu;
	struct pitem *items;
	long nr, cap;
	long *pending;	/* items still waiting for their stack, innermost last */
	long nr_pending, cap_pending;
	int block;	/* 0: none, 1: full stack, 2: definition */
	long block_id;
	unsigned int block_sw;
	uint64_t block_ts;
	char *frames;
	size_t flen, fcap;
	long unexpected, ids, fallbacks, nr_defs;
	/* overwrite mode: the static per-CPU trace, whose first lines can lack their event */
	int snapshot;
	long orphans;
	char bad_line[160];
};

/*
 * Something out of place: an error, but at the start of an overwritten buffer, before its
 * first event, the rest of an event whose beginning was overwritten.
 */
static void pr_unexpected(struct preader *r)
{
	if (r->snapshot && !r->nr)
		r->orphans++;
	else
		r->unexpected++;
}

static atomic_int pairs_stop, pairs_drain;
/* pairs-overwrite: small overwriting buffers, read once at the end (cmd_pairs()) */
static int pairs_overwrite;
/* pairs-wrap: record until this many switches were accepted (0: for SECONDS) */
static long pairs_until;
#define PAIRS_WRAP_PAST 64

static void pr_end_block(struct preader *r)
{
	int stack;

	if (!r->block)
		return;
	stack = intern(r->frames, r->flen);
	if (r->block == 2) {
		pdef_add(r->block_id, r->block_sw, r->block_ts, stack);
		r->nr_defs++;
	} else if (r->nr_pending) {
		r->items[r->pending[--r->nr_pending]].stack = stack;
		if (r->inst == 0)
			r->fallbacks++;
	} else {
		pr_unexpected(r);
	}
	r->block = 0;
	r->flen = 0;
}

/*
 * Split a line of the default output ("comm-pid [cpu] flags  stamp: text") into its stamp and
 * its text: the first ": " after a run of digits.
 */
static const char *pr_text(const char *l, size_t len, uint64_t *ts)
{
	for (const char *p = l; p + 1 < l + len; p++) {
		const char *q = p;

		if (p[0] != ':' || p[1] != ' ' || p == l || p[-1] < '0' || p[-1] > '9')
			continue;
		while (q > l && ((q[-1] >= '0' && q[-1] <= '9') || q[-1] == '.'))
			q--;
		*ts = 0;
		for (; q < p; q++)
			if (*q != '.')
				*ts = *ts * 10 + (*q - '0');
		return p + 2;
	}
	*ts = 0;
	return l;
}

static void pr_line(struct preader *r, const char *l, size_t len)
{
	const char *text;
	uint64_t ts;
	long id;
	unsigned int gen, sw;

	if (len > 4 && !memcmp(l, " => ", 4)) {
		if (!r->block) {
			pr_unexpected(r);
			return;
		}
		if (r->flen + len + 1 > r->fcap) {
			r->fcap = (r->flen + len + 1) * 2;
			r->frames = realloc(r->frames, r->fcap);
		}
		memcpy(r->frames + r->flen, l + 4, len - 4);
		r->flen += len - 4;
		r->frames[r->flen++] = '\n';
		return;
	}
	pr_end_block(r);
	if (!len || (r->snapshot && l[0] == '#'))
		return;
	text = pr_text(l, len, &ts);
	len -= text - l;
	l = text;
	if (len == 13 && !memcmp(l, "<stack trace>", 13)) {
		r->block = 1;
	} else if (sscanf(l, "<stack_def %ld gen %u switch %u>", &id, &gen, &sw) == 3 &&
		   r->inst == 0) {
		r->block = 2;
		r->block_id = id;
		r->block_sw = sw;
		r->block_ts = ts;
	} else if (sscanf(l, "<stack_id %ld>", &id) == 1 && r->inst == 0) {
		r->ids++;
		if (r->nr_pending)
			r->items[r->pending[--r->nr_pending]].id = id;
		else
			pr_unexpected(r);
	} else if (l[0] == '<') {
		r->unexpected++;
		snprintf(r->bad_line, sizeof(r->bad_line), "%.*s", (int)len, l);
	} else {
		if (r->nr == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 4096;
			r->items = realloc(r->items, r->cap * sizeof(*r->items));
		}
		if (r->nr_pending == r->cap_pending) {
			r->cap_pending = r->cap_pending ? r->cap_pending * 2 : 64;
			r->pending = realloc(r->pending, r->cap_pending * sizeof(*r->pending));
		}
		r->items[r->nr] = (struct pitem){ intern(l, len), 0, -1, ts, r->cpu };
		r->pending[r->nr_pending++] = r->nr++;
	}
}

static void *preader_run(void *arg)
{
	struct preader *r = arg;
	char path[128], *buf = malloc(1 << 16);
	size_t have = 0;
	int fd, idle = 0;

	snprintf(path, sizeof(path), "%sper_cpu/cpu%d/%s", r->inst ? PB : PA, r->cpu,
		 r->snapshot ? "trace" : "trace_pipe");
	fd = open(path, O_RDONLY | (r->snapshot ? 0 : O_NONBLOCK));
	check(fd >= 0, "pairs: open %s: %s", path, strerror(errno));
	if (fd < 0)
		return NULL;
	/*
	 * Once both instances have stopped recording (pairs_drain), read until the stream has
	 * stayed empty for 200 ms. Not from the workers' stop: a worker's last operation can
	 * come later than that under the debug kernel, and only into the stream of whichever
	 * instance's reader was still there to read it.
	 */
	while (!pairs_drain || idle < 20) {
		ssize_t n = read(fd, buf + have, (1 << 16) - have);
		char *p, *nl;

		if (n <= 0 && r->snapshot) {
			check(n == 0, "pairs: read %s: %s", path, strerror(errno));
			break;
		}
		if (n <= 0) {
			check(n == 0 || errno == EAGAIN || errno == EINTR, "pairs: read %s: %s",
			      path, strerror(errno));
			idle = pairs_drain ? idle + 1 : 0;
			usleep(10000);
			continue;
		}
		idle = 0;
		have += n;
		for (p = buf; (nl = memchr(p, '\n', buf + have - p)); p = nl + 1)
			pr_line(r, p, nl - p);
		have = buf + have - p;
		memmove(buf, p, have);
		if (have == 1 << 16)
			have = 0; /* a line longer than the buffer: not ours */
	}
	pr_end_block(r);
	close(fd);
	free(buf);
	return NULL;
}

/* Kernel work with many different stacks that allocate. */
static atomic_int pairs_go, pairs_ready;

static void pairs_op(unsigned int op, int n)
{
	char buf[512], path[64];
	int fd, p[2];

	switch (op % 12) {
	case 0:
		fd = open(n & 1 ? "/proc/self/status" : "/proc/meminfo", O_RDONLY);
		if (fd >= 0) {
			(void)!read(fd, buf, sizeof(buf));
			close(fd);
		}
		break;
	case 1:
		if (!pipe(p)) {
			(void)!write(p[1], "x", 1);
			(void)!read(p[0], buf, 1);
			close(p[0]);
			close(p[1]);
		}
		break;
	case 2:
		if (!socketpair(AF_UNIX, n & 1 ? SOCK_STREAM : SOCK_DGRAM, 0, p)) {
			(void)!write(p[0], "y", 1);
			(void)!read(p[1], buf, 1);
			close(p[0]);
			close(p[1]);
		}
		break;
	case 3:
		fd = epoll_create1(0);
		if (fd >= 0)
			close(fd);
		break;
	case 4: {
		pid_t c = fork();

		if (c == 0)
			_exit(0);
		if (c > 0)
			waitpid(c, NULL, 0);
		break;
	}
	case 5: {
		void *m = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (m != MAP_FAILED) {
			memset(m, 1, 65536);
			munmap(m, 65536);
		}
		break;
	}
	case 6:
		snprintf(path, sizeof(path), "/tmp/pairs.%d", n % 7);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
		if (fd >= 0) {
			(void)!write(fd, buf, 100);
			close(fd);
			unlink(path);
		}
		break;
	case 7:
		fd = open("/proc/self/maps", O_RDONLY);
		if (fd >= 0) {
			(void)!read(fd, buf, sizeof(buf));
			close(fd);
		}
		break;
	case 8:
		fd = open(T "events/kmem", O_RDONLY | O_DIRECTORY);
		if (fd >= 0) {
			(void)!syscall(SYS_getdents64, fd, buf, sizeof(buf));
			close(fd);
		}
		break;
	case 9: {
		struct stat st;

		stat(n & 1 ? "/proc/self/exe" : T "trace", &st);
		break;
	}
	case 10:
		fd = dup(1);
		if (fd >= 0)
			close(fd);
		break;
	default:
		fd = open(PA "stack_map_stat", O_RDONLY);
		if (fd >= 0) {
			(void)!read(fd, buf, sizeof(buf));
			close(fd);
		}
		break;
	}
}

static long pairs_tid[PAIRS_WORKERS];
static atomic_int pairs_parked, pairs_release;

/*
 * The workers spend credit, one operation each, that the pacer hands out only while every
 * per-CPU buffer of both instances holds less than half its size unread. Under TCG a busy
 * host slows the guest's CPUs but not its clock, so the workers' paced operations can
 * outrun readers that format full stacks; with the credit, the unread part never exceeds
 * half a buffer plus PAIRS_CREDIT operations' events, whatever the host's speed, and an
 * event lost is the kernel's loss, not the test's.
 */
#define PAIRS_CREDIT 8
static atomic_int pairs_credit;
static atomic_long pairs_held;	/* pacer passes that found a buffer half full */

static void pairs_spend(void)
{
	if (pairs_overwrite)
		return; /* the buffers overwrite: nothing to keep from filling */
	while (atomic_fetch_sub(&pairs_credit, 1) <= 0) {
		atomic_fetch_add(&pairs_credit, 1);
		if (pairs_stop)
			return;
		usleep(1000);
	}
}

/*
 * The largest unread share, in per mille, of any per-CPU buffer of either instance, whose
 * sizes in KB are @kb[0] (pa) and @kb[1] (pb).
 */
static long pairs_fill(int ncpu, const long kb[2])
{
	long worst = 0;

	for (int i = 0; i < 2; i++) {
		const char *inst = i ? PB : PA;
		char path[128];
		long bytes;

		for (int c = 0; c < ncpu && kb[i] > 0; c++) {
			snprintf(path, sizeof(path), "%sper_cpu/cpu%d/stats", inst, c);
			bytes = file_value(path, "bytes:");
			if (bytes > 0 && bytes * 1000 / (kb[i] * 1024) > worst)
				worst = bytes * 1000 / (kb[i] * 1024);
		}
	}
	return worst;
}

static void *pairs_pacer(void *arg)
{
	int ncpu = (int)(uintptr_t)arg;
	const long kb[2] = { file_value(PA "buffer_size_kb", ""), file_value(PB "buffer_size_kb", "") };

	while (!pairs_stop) {
		if (pairs_fill(ncpu, kb) < 500) {
			pairs_credit = PAIRS_CREDIT;
		} else {
			pairs_credit = 0;
			pairs_held++;
		}
		usleep(2000);
	}
	return NULL;
}

static void *pairs_worker(void *arg)
{
	unsigned int s = (unsigned int)(uintptr_t)arg * 2654435761u | 1;
	int n = 0;

	pairs_tid[(uintptr_t)arg % PAIRS_WORKERS] = (long)syscall(SYS_gettid);
	if (pairs_overwrite) {
		/*
		 * Each instance keeps the newest events of each CPU: the two are paired per
		 * CPU, so that no event may move to another CPU between the two probes.
		 */
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((uintptr_t)arg % sysconf(_SC_NPROCESSORS_ONLN), &set);
		check(!sched_setaffinity(0, sizeof(set), &set), "pairs: pin a worker: %s",
		      strerror(errno));
	}
	pairs_ready++;
	while (!pairs_go)
		usleep(1000);
	/*
	 * Paced, to leave the readers more of the CPUs: a retired map is recycled only once
	 * pa's reader has read past the switch.
	 */
	while (!pairs_stop) {
		pairs_spend();
		pairs_op(rnd(&s), n++);
		usleep(1000);
	}
	/*
	 * Parked, blocked in the kernel with nothing to allocate, until both instances have
	 * stopped: a thread's exit goes on in the kernel after pthread_join() has returned (the
	 * tid is cleared early in do_exit()), and what it allocates there would reach only the
	 * instance that stops last (docs/RELIABILITY.md: assumed, not shown, for the two
	 * unpaired pb events of a 7.3 debug-kernel run).
	 */
	pairs_parked++;
	while (!pairs_release)
		syscall(SYS_futex, &pairs_release, FUTEX_WAIT, 0, NULL, NULL, 0);
	return NULL;
}

static atomic_long pairs_next_ok;

/* Start the next generation of pa's map as often as the kernel allows. */
static void *pairs_switcher(void *arg)
{
	unsigned int s = (unsigned int)(uintptr_t)arg | 1;

	while (!pairs_stop) {
		int ret = twrite(PA "stack_map", "next");

		if (!ret)
			pairs_next_ok++;
		else
			check(ret == -EBUSY, "pairs: next: %s", strerror(-ret));
		/* Now and then every stack is defined again (a new definition period). */
		if (rnd(&s) % 64 == 0)
			check(!twrite(PA "stack_map_defs", "1"), "pairs: stack_map_defs");
		usleep(500);
	}
	return NULL;
}

/* The per-CPU stats line @key of an instance, summed over the CPUs. */
static long pairs_stat(const char *inst, int ncpu, const char *key)
{
	long sum = 0;

	for (int c = 0; c < ncpu; c++) {
		char path[128];
		long v;

		snprintf(path, sizeof(path), "%sper_cpu/cpu%d/stats", inst, c);
		v = file_value(path, key);
		if (v > 0)
			sum += v;
	}
	return sum;
}

static long inst_stat(const char *inst, const char *key)
{
	char path[128];

	snprintf(path, sizeof(path), "%sstack_map_stat", inst);
	return file_value(path, key);
}

/* Same text, and in pairs-overwrite the same CPU: events that pair up (pitem_cmp() orders each group by time). */
static int pgroup_cmp(const struct pitem *a, const struct pitem *b)
{
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (pairs_overwrite && a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return 0;
}

/* By event text (and CPU, see pgroup_cmp()), then by time: the order in which events pair up. */
static int pitem_cmp(const void *x, const void *y)
{
	const struct pitem *a = x, *b = y;
	int group = pgroup_cmp(a, b);

	if (group)
		return group;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* All the events of @n readers of one instance, sorted by pitem_cmp(). */
static struct pitem *pairs_gather(struct preader *rd, int n, long *nr)
{
	struct pitem *all;
	long k = 0;

	*nr = 0;
	for (int i = 0; i < n; i++)
		*nr += rd[i].nr;
	all = malloc((*nr + 1) * sizeof(*all));
	for (int i = 0; i < n; i++) {
		memcpy(all + k, rd[i].items, rd[i].nr * sizeof(*all));
		k += rd[i].nr;
	}
	qsort(all, *nr, sizeof(*all), pitem_cmp);
	return all;
}

/*
 * Pair pa's events with pb's: equal texts in the order of the instances' shared "counter"
 * clock. Per CPU is not enough: on 7.3 a task can move to another CPU between the two
 * instances' probes of one event.
 */
/* pa's stack_map at the end (pairs-overwrite): the stacks of the ids still in the buffer. */
static struct pdef *pmap;
static long nr_pmap, pmap_used;

static void pmap_read(void)
{
	char *txt, *line, *save = NULL, frames[16384];
	size_t flen = 0;
	long id = -1, cap = 0;

	if (slurp(PA "stack_map", &txt) < 0) {
		check(0, "pairs: read stack_map: %s", strerror(errno));
		return;
	}
	for (line = strtok_r(txt, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
		long next;
		int at = 0;

		if (!line || sscanf(line, "stack_id %ld [", &next) == 1) {
			if (id >= 0) {
				if (nr_pmap == cap) {
					cap = cap ? cap * 2 : 1024;
					pmap = realloc(pmap, cap * sizeof(*pmap));
				}
				pmap[nr_pmap++] = (struct pdef){ .id = id, .stack = intern(frames, flen) };
			}
			if (!line)
				break;
			id = next;
			flen = 0;
		} else if (id >= 0 && sscanf(line, " [%*d] %n", &at) == 0 && at > 0 &&
			   flen + strlen(line + at) + 2 < sizeof(frames)) {
			/* The frames as the trace prints them: one per line, as interned. */
			flen += sprintf(frames + flen, "%s\n", line + at);
		}
	}
	free(txt);
	qsort(pmap, nr_pmap, sizeof(*pmap), pdef_cmp);
}

static int pmap_stack(long id)
{
	struct pdef key = { .id = id }, *d = bsearch(&key, pmap, nr_pmap, sizeof(*pmap), pdef_cmp);

	return d ? d->stack : 0;
}

/* pa's event @x against pb's @y: the stack of x's id, or its full stack, must be y's. */
static void pairs_check(const struct pitem *x, const struct pitem *y, long *mismatch,
			long *unresolved)
{
	int want = x->stack;

	if (x->id >= 0) {
		want = pdef_stack(x->id, x->ts);
		if (!want && pairs_overwrite) {
			want = pmap_stack(x->id);
			pmap_used += want > 0;
		}
		if (want <= 0) {
			if (++*unresolved <= 3)
				printf("# id %ld %s\n", x->id, want ? "has definitions that differ" :
				       pairs_overwrite ? "has no definition and is not in stack_map" :
				       "has no definition");
			return;
		}
	}
	if (!want || !y->stack || want != y->stack) {
		if (++*mismatch <= 3)
			printf("# %s (cpu %d, %d)\n#   pa (id %ld):\n%s#   pb:\n%s",
			       interned(x->key), x->cpu, y->cpu, x->id,
			       want > 0 ? interned(want) : "(none)\n",
			       y->stack ? interned(y->stack) : "(none)\n");
	}
}

/*
 * Pair pa's events with pb's: equal texts in the order of the instances' shared "counter"
 * clock. Per CPU is not enough: on 7.3 a task can move to another CPU between the two
 * instances' probes of one event. In pairs-overwrite each instance kept the newest events
 * of each CPU (the workers are pinned): equal texts of one CPU pair from the newest back,
 * and the older ones that only one instance kept have no pair.
 */
static void pairs_match(struct preader *rd, int ncpu, long *paired, long *mismatch,
			long unpaired[2], long *unresolved)
{
	long na, nb, i = 0, j = 0;
	struct pitem *a = pairs_gather(rd, ncpu, &na), *b = pairs_gather(rd + ncpu, ncpu, &nb);

	while (i < na || j < nb) {
		const struct pitem *head = j >= nb || (i < na && pgroup_cmp(&a[i], &b[j]) <= 0) ?
					   &a[i] : &b[j];
		long ie = i, je = j, m;

		while (ie < na && !pgroup_cmp(&a[ie], head))
			ie++;
		while (je < nb && !pgroup_cmp(&b[je], head))
			je++;
		m = ie - i < je - j ? ie - i : je - j;
		if (pairs_overwrite) {
			/* The oldest have no pair. */
			unpaired[0] += ie - i - m;
			unpaired[1] += je - j - m;
			i = ie - m;
			j = je - m;
		}
		for (long k = 0; k < m; k++)
			pairs_check(&a[i + k], &b[j + k], mismatch, unresolved);
		*paired += m;
		i += m;
		j += m;
		for (; i < ie; i++)
			if (++unpaired[0] + unpaired[1] <= 5)
				printf("# pa event without a pair (cpu %d): %s\n", a[i].cpu,
				       interned(a[i].key));
		for (; j < je; j++)
			if (unpaired[0] + ++unpaired[1] <= 5)
				printf("# pb event without a pair (cpu %d): %s\n", b[j].cpu,
				       interned(b[j].key));
	}
	free(a);
	free(b);
}

static int cmd_pairs(unsigned int seed, int seconds, int nthreads, long min_switches)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct preader *rd = calloc(2 * ncpu, sizeof(*rd));
	pthread_t w[PAIRS_WORKERS], sw, pacer;
	struct rthread rt[16];
	long paired = 0, mismatch = 0, unpaired[2] = { 0, 0 }, unresolved = 0, events = 0, ids = 0;
	long crossed, races;
	long fallbacks = 0, defs = 0, unexpected = 0, orphans = 0, lost, unread, switches, recycled;
	long total, overrun_a;
	char filter[256];
	int len;
	static const char *const setup[][2] = {
		{ "tracing_on", "0" }, { "buffer_size_kb", NULL }, { "trace_clock", "counter" },
		{ "options/sym-offset", "1" }, { "options/overwrite", NULL },
		{ "options/stacktrace", "1" },
		{ "events/kmem/kmalloc/enable", "1" }, { "events/kmem/kmem_cache_alloc/enable", "1" },
	};

	if (nthreads < 0 || nthreads > 16) {
		fprintf(stderr, "fileops_test: 0 to 16 threads\n");
		return 2;
	}
	printf("# pairs: seed %u, %d s, %d random threads, %d CPUs\n", seed, seconds, nthreads,
	       ncpu);
	rmdir(PA);
	rmdir(PB);
	check(!mkdir(PA, 0755) && !mkdir(PB, 0755), "pairs: mkdir instances: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		const char *inst = i ? PB : PA;

		for (size_t k = 0; k < sizeof(setup) / sizeof(setup[0]); k++) {
			char path[128];

			snprintf(path, sizeof(path), "%s%s", inst, setup[k][0]);
			if (!strcmp(setup[k][0], "options/overwrite"))
				must(path, pairs_overwrite ? "1" : "0");
			/*
			 * pb holds full stacks, 25 times the bytes of pa's ids. Overwriting,
			 * pa wraps often, so that its retired maps are recycled.
			 */
			else if (!setup[k][1] && pairs_overwrite)
				must(path, i ? "1024" : "64");
			else
				must(path, setup[k][1] ? setup[k][1] : i ? "16384" : "2048");
		}
	}
	must(PA "options/stackmap", "1");
	must(PA "stack_map_defs", "1");
	for (int i = 0; i < 2 * ncpu; i++) {
		rd[i].inst = i / ncpu;
		rd[i].cpu = i % ncpu;
		rd[i].snapshot = pairs_overwrite;
		/* Overwriting buffers are read once, at the end. */
		if (!pairs_overwrite)
			pthread_create(&rd[i].t, NULL, preader_run, &rd[i]);
	}
	/* The top level as random mode sets it up: a map that the disturbers' next can switch. */
	top_level_recording(1);
	random_start(seed, rt, nthreads);
	for (int i = 0; i < PAIRS_WORKERS; i++)
		pthread_create(&w[i], NULL, pairs_worker,
			       (void *)(uintptr_t)(seed * PAIRS_WORKERS + i));
	while (pairs_ready < PAIRS_WORKERS)
		usleep(1000);
	/*
	 * Only the workers' events, chosen per event by the same filter in both instances
	 * (set_event_pid would decide per CPU at each context switch, one instance after the
	 * other, and a pid reused while the list changes can leave them apart).
	 */
	len = snprintf(filter, sizeof(filter), "common_pid == %ld", pairs_tid[0]);
	for (int i = 1; i < PAIRS_WORKERS; i++)
		len += snprintf(filter + len, sizeof(filter) - len, " || common_pid == %ld",
				pairs_tid[i]);
	for (int i = 0; i < 4; i++) {
		char path[128];

		snprintf(path, sizeof(path), "%sevents/kmem/%s/filter", i & 1 ? PB : PA,
			 i & 2 ? "kmem_cache_alloc" : "kmalloc");
		must(path, filter);
	}
	must(PA "tracing_on", "1");
	must(PB "tracing_on", "1");
	pthread_create(&sw, NULL, pairs_switcher, (void *)(uintptr_t)seed);
	if (!pairs_overwrite)
		pthread_create(&pacer, NULL, pairs_pacer, (void *)(uintptr_t)ncpu);
	pairs_go = 1;
	for (long t = 0; t < seconds * 10L && !(pairs_until && pairs_next_ok >= pairs_until); t++)
		usleep(100000);
	/*
	 * The workers stop before the instances do, and exit only after both have stopped:
	 * every event they caused is in both.
	 */
	total = random_stop(rt, nthreads);
	pairs_stop = 1;
	while (pairs_parked < PAIRS_WORKERS)
		usleep(1000);
	pthread_join(sw, NULL);
	if (!pairs_overwrite)
		pthread_join(pacer, NULL);
	must(PA "tracing_on", "0");
	must(PB "tracing_on", "0");
	pairs_drain = 1;
	pairs_release = 1;
	syscall(SYS_futex, &pairs_release, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	for (int i = 0; i < PAIRS_WORKERS; i++)
		pthread_join(w[i], NULL);
	for (int i = 0; i < 2 * ncpu; i++)
		if (pairs_overwrite)
			preader_run(&rd[i]);
		else
			pthread_join(rd[i].t, NULL);
	if (pairs_overwrite)
		pmap_read();

	overrun_a = pairs_stat(PA, ncpu, "overrun:");
	lost = overrun_a + pairs_stat(PA, ncpu, "dropped events:") +
	       pairs_stat(PB, ncpu, "overrun:") + pairs_stat(PB, ncpu, "dropped events:");
	/* The readers' end left nothing behind: every event recorded was read. */
	unread = pairs_stat(PA, ncpu, "entries:") + pairs_stat(PB, ncpu, "entries:");
	switches = inst_stat(PA, "switches:");
	recycled = inst_stat(PA, "recycled:");
	crossed = inst_stat(PA, "switch_crossed:");
	races = inst_stat(PA, "switch_races:");
	pairs_sort_defs();
	pairs_match(rd, ncpu, &paired, &mismatch, unpaired, &unresolved);
	for (int c = 0; c < ncpu; c++) {
		struct preader *a = &rd[c], *b = &rd[ncpu + c];

		events += a->nr;
		ids += a->ids;
		fallbacks += a->fallbacks;
		defs += a->nr_defs;
		unexpected += a->unexpected + b->unexpected;
		orphans += a->orphans + b->orphans;
		if (a->bad_line[0] || b->bad_line[0])
			printf("# unexpected line: %s\n", a->bad_line[0] ? a->bad_line : b->bad_line);
	}
	printf("# pairs: %ld events of pa, %ld paired; %ld ids, %ld definitions, %ld full stacks in "
	       "pa; %ld switches (%ld by next), %ld recycled, %ld ids past switch 8191; %ld random "
	       "operations; workers held %ld times\n",
	       events, paired, ids, defs, fallbacks, switches, (long)pairs_next_ok, recycled,
	       switch_wraps, total, (long)pairs_held);
	/* The two races of a switch, seen run: their events are among the pairs checked. */
	printf("# pairs: switch_crossed %ld (id events whose recorder was in its section when "
	       "another context switched: the recycle waited for them), switch_races %ld\n",
	       crossed, races);
	if (pairs_overwrite) {
		/* What it is for: retired maps recycled because pa's buffers overwrote their ids. */
		printf("# pairs-overwrite: %ld events overwritten in pa; %ld kept by pa only, %ld by "
		       "pb only; %ld partial events at the buffers' start; %ld paired ids resolved "
		       "through stack_map (no definition left)\n", overrun_a, unpaired[0],
		       unpaired[1], orphans, pmap_used);
		check(overrun_a > 0 && recycled > 0 && paired > 0,
		      "pairs: pa overwrote %ld events, %ld maps recycled, %ld events paired",
		      overrun_a, recycled, paired);
	} else {
		check(lost == 0,
		      "pairs: %ld events lost (overrun or dropped) with the workers paced", lost);
		check(unread == 0,
		      "pairs: %ld events left unread in the buffers after the readers' end", unread);
		check(paired > 0 && !unpaired[0] && !unpaired[1],
		      "pairs: %ld events paired, %ld without a pair (%ld of pa, %ld of pb)", paired,
		      unpaired[0] + unpaired[1], unpaired[0], unpaired[1]);
	}
	check(unexpected == 0, "pairs: %ld lines out of place in the streams", unexpected);
	check(ids > 0 && unresolved == 0, "pairs: %ld ids, %ld without a definition or with two",
	      ids, unresolved);
	check(mismatch == 0, "pairs: %ld of %ld paired events with a stack that is not pb's",
	      mismatch, paired);
	/*
	 * A recycle that stalls stops the switches at one. The rate is the kernel's and the
	 * readers': ~6 a second on the test kernel under TCG, 0.15-0.4 on the debug kernel.
	 */
	check(switches >= min_switches && switches >= pairs_next_ok,
	      "pairs: %ld switches in %d s (at least %ld wanted), %ld next accepted", switches,
	      seconds, min_switches, (long)pairs_next_ok);
	if (pairs_until) {
		check(switch_wraps > 0, "pairs-wrap: %ld ids past switch 8191", switch_wraps);
		/* thousands of switches: a recorder in its section at one of them */
		check(crossed > 0, "pairs-wrap: switch_crossed %ld in %ld switches", crossed,
		      switches);
	}
	top_level_recording(0);
	must(PA "options/stackmap", "0");
	rmdir(PA);
	rmdir(PB);
	check(access(PA, F_OK) && access(PB, F_OK), "pairs: instances removed");
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "check"))
		return cmd_check();
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "random"))
		return cmd_random((unsigned int)strtoul(argv[2], NULL, 0), atoi(argv[3]),
				  argc == 5 ? atoi(argv[4]) : 4);
	if (argc >= 4 && argc <= 6 && !strcmp(argv[1], "pairs-overwrite"))
		pairs_overwrite = 1;
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "pairs-wrap")) {
		pairs_until = 8192 + PAIRS_WRAP_PAST;
		return cmd_pairs((unsigned int)strtoul(argv[2], NULL, 0), atoi(argv[3]),
				 argc == 5 ? atoi(argv[4]) : 0, pairs_until);
	}
	if (argc >= 4 && argc <= 6 && (!strcmp(argv[1], "pairs") || pairs_overwrite))
		return cmd_pairs((unsigned int)strtoul(argv[2], NULL, 0), atoi(argv[3]),
				 argc >= 5 ? atoi(argv[4]) : 2, argc == 6 ? atol(argv[5]) : 5);
	fprintf(stderr, "usage: fileops_test check | random SEED SECONDS [THREADS] | "
		"pairs[-overwrite] SEED SECONDS [THREADS [MIN-SWITCHES]] | "
		"pairs-wrap SEED SECONDS [THREADS]\n");
	return 2;
}
