// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap record: run a command with stackmap + stacktrace enabled (and, with --defs,
 * stack_map_defs: the stacks defined in the trace itself) and save the trace, the stack map
 * exports and kallsyms. Every tracefs setting that is changed is recorded first and put back on
 * every exit path (success, failure, SIGINT/SIGTERM/SIGHUP).
 */
#define _GNU_SOURCE
#include "record_dat.h"
#include "stackmap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <tracefs.h>
#include <unistd.h>

#define REC_DEFAULT_DIR	   "stackmap.data"
#define REC_DEFAULT_EVENT  "sched:sched_switch"
#define REC_MOUNT_HINT	   "is tracefs mounted? (mount -t tracefs nodev /sys/kernel/tracing)"
#define REC_ESTALE_RETRIES 5
#define REC_POLL_NS	   (20 * 1000 * 1000) /* streaming: pause when every CPU was empty */
#define REC_WAIT_NS	   (10 * 1000 * 1000) /* otherwise: how often the command is checked */

enum rec_format { REC_DAT = 1, REC_TEXT = 2, REC_BOTH = 3 };

struct rec_event {
	char *system;
	char *event; /* NULL: every event of the system */
	bool changed;
	enum tracefs_enable_state prev;
};

struct rec_state {
	bool on_saved;
	int on_prev;
	bool stackmap_changed;
	long long stackmap_prev;
	bool defs; /* --defs: stack_map_defs = 1 */
	bool defs_changed;
	long long defs_prev;
	bool stacktrace_changed;
	bool stacktrace_prev;
	bool bufsize_changed;
	unsigned long long bufsize_prev;
	struct rec_event *events;
	size_t nevents;
};

static volatile sig_atomic_t rec_signal;

static void rec_on_signal(int sig)
{
	rec_signal = sig;
}

static int rec_write(const char *file, const char *val)
{
	int ret = tracefs_instance_file_write(NULL, file, val);

	if (ret < 0) {
		sm_err("record: cannot write '%s' to %s/%s: %s", val, tracefs_tracing_dir(), file,
		       strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* Put back everything that rec_apply() changed, newest first. Failures are reported. */
static int rec_restore(struct rec_state *st)
{
	char num[32];
	size_t i;
	int ret = 0;

	if (st->on_saved)
		tracefs_trace_off(NULL);
	for (i = st->nevents; i > 0; i--) {
		struct rec_event *e = &st->events[i - 1];

		if (!e->changed)
			continue;
		if (e->prev == TRACEFS_ALL_DISABLED &&
		    tracefs_event_disable(NULL, e->system, e->event) < 0) {
			sm_err("record: cannot disable event %s:%s again", e->system,
			       e->event ? e->event : "*");
			ret = -1;
		}
		e->changed = false;
	}
	if (st->stacktrace_changed) {
		if (!st->stacktrace_prev &&
		    tracefs_option_disable(NULL, TRACEFS_OPTION_STACKTRACE)) {
			sm_err("record: cannot clear options/stacktrace");
			ret = -1;
		}
		st->stacktrace_changed = false;
	}
	if (st->defs_changed) {
		/* (writing 1 again would make every stack get a definition again: not needed) */
		snprintf(num, sizeof(num), "%lld", st->defs_prev);
		if (st->defs_prev != 1 && rec_write("stack_map_defs", num))
			ret = -1;
		st->defs_changed = false;
	}
	if (st->stackmap_changed) {
		snprintf(num, sizeof(num), "%lld", st->stackmap_prev);
		if (rec_write("options/stackmap", num))
			ret = -1;
		st->stackmap_changed = false;
	}
	if (st->bufsize_changed) {
		snprintf(num, sizeof(num), "%llu", st->bufsize_prev);
		if (rec_write("buffer_size_kb", num))
			ret = -1;
		st->bufsize_changed = false;
	}
	if (st->on_saved) {
		if (st->on_prev == 1 && tracefs_trace_on(NULL) < 0) {
			sm_err("record: cannot set tracing_on back to 1");
			ret = -1;
		}
		st->on_saved = false;
	}
	return ret;
}

static int rec_apply(struct rec_state *st, unsigned long bufsize_kb)
{
	long long v;
	char num[32], *txt;
	size_t i;

	st->on_prev = tracefs_trace_is_on(NULL);
	if (st->on_prev < 0) {
		sm_err("record: cannot read %s/tracing_on", tracefs_tracing_dir());
		return -1;
	}
	st->on_saved = true;
	if (tracefs_trace_off(NULL) < 0) {
		sm_err("record: cannot turn tracing off");
		return -1;
	}
	/* Reset the map (this also clears the ring buffer); needs tracing off. */
	if (rec_write("stack_map", "0"))
		return -1;
	if (bufsize_kb) {
		txt = tracefs_instance_file_read(NULL, "buffer_size_kb", NULL);
		if (!txt) {
			sm_err("record: cannot read buffer_size_kb");
			return -1;
		}
		/* may read "7 (expanded: 1408)": the leading number is the current size */
		st->bufsize_prev = strtoull(txt, NULL, 10);
		free(txt);
		st->bufsize_changed = true;
		snprintf(num, sizeof(num), "%lu", bufsize_kb);
		if (rec_write("buffer_size_kb", num))
			return -1;
	}
	if (tracefs_instance_file_read_number(NULL, "options/stackmap", &v)) {
		sm_err("record: cannot read options/stackmap");
		return -1;
	}
	st->stackmap_prev = v;
	st->stackmap_changed = true;
	if (rec_write("options/stackmap", "1"))
		return -1;
	if (st->defs) {
		/* the first use of every stack writes its definition into the trace */
		if (tracefs_instance_file_read_number(NULL, "stack_map_defs", &v)) {
			sm_err("record: cannot read %s/stack_map_defs", tracefs_tracing_dir());
			return -1;
		}
		st->defs_prev = v;
		st->defs_changed = true;
		if (rec_write("stack_map_defs", "1"))
			return -1;
	}
	st->stacktrace_prev = tracefs_option_is_enabled(NULL, TRACEFS_OPTION_STACKTRACE);
	st->stacktrace_changed = true;
	if (tracefs_option_enable(NULL, TRACEFS_OPTION_STACKTRACE)) {
		sm_err("record: cannot set options/stacktrace");
		return -1;
	}
	for (i = 0; i < st->nevents; i++) {
		struct rec_event *e = &st->events[i];

		e->prev = tracefs_event_is_enabled(NULL, e->system, e->event);
		if (e->prev == TRACEFS_ERROR) {
			sm_err("record: no event %s:%s in %s/events", e->system,
			       e->event ? e->event : "*", tracefs_tracing_dir());
			return -1;
		}
		e->changed = true;
		if (tracefs_event_enable(NULL, e->system, e->event) < 0) {
			sm_err("record: cannot enable event %s:%s", e->system,
			       e->event ? e->event : "*");
			return -1;
		}
	}
	if (tracefs_trace_on(NULL) < 0) {
		sm_err("record: cannot turn tracing on");
		return -1;
	}
	return 0;
}

/* Copy @src to @dir/@name. -ESTALE (map reset during the read) restarts from scratch. */
static int rec_copy(const char *src, const char *dir, const char *name, size_t *copied)
{
	char dst[4096], buf[65536];
	int in = -1, out = -1, tries, ret = 0;
	ssize_t n;

	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	for (tries = 0; tries < REC_ESTALE_RETRIES; tries++) {
		*copied = 0;
		in = open(src, O_RDONLY | O_CLOEXEC);
		if (in < 0)
			return -errno;
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out < 0) {
			ret = -errno;
			close(in);
			return ret;
		}
		ret = 0;
		for (;;) {
			n = read(in, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				ret = -errno;
				break;
			}
			if (n == 0)
				break;
			if (write(out, buf, (size_t)n) != n) {
				ret = -EIO;
				break;
			}
			*copied += (size_t)n;
		}
		close(in);
		if (close(out) && !ret)
			ret = -EIO;
		if (ret != -ESTALE)
			break;
	}
	return ret;
}

static int rec_save(const char *dir, const char *ksyms, int with_trace)
{
	static const char *const files[] = {"trace", "stack_map_bin", "stack_map_stat"};
	size_t i, copied;
	char *src;
	int ret;

	for (i = with_trace ? 0 : 1; i < sizeof(files) / sizeof(files[0]); i++) {
		src = tracefs_get_tracing_file(files[i]);
		if (!src)
			return -1;
		ret = rec_copy(src, dir, files[i], &copied);
		if (ret) {
			sm_err("record: cannot save %s: %s", src, strerror(-ret));
			tracefs_put_tracing_file(src);
			return -1;
		}
		printf("stackmap: saved %s/%s (%zu bytes)\n", dir, files[i], copied);
		tracefs_put_tracing_file(src);
	}
	ret = rec_copy(ksyms, dir, "kallsyms", &copied);
	if (ret) {
		sm_err("record: cannot save %s: %s", ksyms, strerror(-ret));
		return -1;
	}
	printf("stackmap: saved %s/kallsyms (%zu bytes)\n", dir, copied);
	return 0;
}

/* Streaming: move ready pages to disk while the command runs. */
static int rec_stream_poll(struct rdat *rd)
{
	struct timespec ts = {0, REC_POLL_NS};
	long n = rdat_drain(rd, 64);

	if (n < 0) {
		sm_err("record: reading trace_pipe_raw: %s", strerror((int)-n));
		return -1;
	}
	/*
	 * Nothing ready: sleep in poll() until a CPU's buffer reaches buffer_percent (the
	 * kernel's wake-up for trace_pipe_raw readers) or REC_POLL_NS pass. A plain file (the
	 * tests' fake tracefs) polls readable at once, hence the sleep after an empty poll.
	 */
	if (n == 0 && rdat_wait(rd, (int)(REC_POLL_NS / 1000000)) > 0 && rdat_drain(rd, 64) == 0)
		nanosleep(&ts, NULL);
	return 0;
}

/* Run argv; return its wait status, or -1 if it could not be started. With @rd, stream. */
static int rec_run(char **argv, struct rdat *rd)
{
	int pipefd[2], status = 0, err = 0;
	bool forwarded = false;
	pid_t pid;
	ssize_t n;

	if (pipe2(pipefd, O_CLOEXEC)) {
		sm_err("record: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		sm_err("record: fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		close(pipefd[0]);
		execvp(argv[0], argv);
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	do {
		n = read(pipefd[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(pid, NULL, 0);
		sm_err("record: cannot run '%s': %s", argv[0], strerror(err));
		return -1;
	}
	/*
	 * Poll instead of blocking in waitpid(): a signal that arrives before the wait (e.g. while
	 * reading the exec status above) would otherwise not be forwarded until the command ends.
	 */
	for (;;) {
		struct timespec ts = {0, REC_WAIT_NS};
		pid_t w;

		if (rec_signal && !forwarded) {
			/* Stop the workload; the trace gathered so far is still saved. */
			kill(pid, rec_signal == SIGINT ? SIGINT : SIGTERM);
			forwarded = true;
		}
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			sm_err("record: waitpid: %s", strerror(errno));
			return -1;
		}
		if (w == 0 && rd && rec_stream_poll(rd))
			rd = NULL; /* stop streaming, keep waiting for the command */
		else if (w == 0 && !rd)
			nanosleep(&ts, NULL);
	}
	return status;
}

/* Drain what is left, write trace.dat and report the kernel's counters. */
static int rec_save_dat(struct rdat *rd, const char *dir, const char *ksyms,
			const struct rec_state *st, int stream)
{
	struct rdat_event *ev = calloc(st->nevents + 1, sizeof(*ev));
	uint64_t bytes = 0, pages = 0, read = 0, lost = 0, left = 0;
	struct rdat_stats cs;
	long n;
	size_t i;
	int cpu, ret;

	if (!ev)
		return -1;
	for (i = 0; i < st->nevents; i++)
		ev[i] = (struct rdat_event){st->events[i].system, st->events[i].event};
	/*
	 * DIR/cpu_stats: in flight mode the counters before the buffer is read (entries and bytes
	 * describe what it held, as reading per_cpu/cpuN/stats after a text-only record did);
	 * in stream mode after the last read (read + lost = written).
	 */
	if (!stream && rdat_save_stats(rd, dir)) {
		sm_err("record: cannot write %s/cpu_stats", dir);
		free(ev);
		return -1;
	}
	n = rdat_drain(rd, -1);
	if (n < 0) {
		sm_err("record: reading trace_pipe_raw: %s", strerror((int)-n));
		free(ev);
		return -1;
	}
	for (cpu = 0; cpu < rd->ncpus; cpu++) {
		pages += rd->pages[cpu];
		if (rdat_cpu_stats(cpu, &cs) == 0) {
			read += cs.read;
			lost += cs.overrun + cs.dropped + cs.commit_overrun;
			left += cs.entries;
		}
	}
	if (stream && rdat_save_stats(rd, dir)) {
		sm_err("record: cannot write %s/cpu_stats", dir);
		free(ev);
		return -1;
	}
	ret = rdat_finish(rd, dir, ksyms, ev, st->nevents, &bytes);
	free(ev);
	if (ret) {
		sm_err("record: cannot write %s/trace.dat: %s", dir, strerror(-ret));
		return -1;
	}
	printf("stackmap: saved %s/trace.dat (%llu bytes, %llu pages from %d CPUs)\n", dir,
	       (unsigned long long)bytes, (unsigned long long)pages, rd->ncpus);
	printf("stackmap: kernel counters (per_cpu/*/stats): %llu events read, %llu lost%s, %llu "
	       "left in the buffer\n",
	       (unsigned long long)read, (unsigned long long)lost,
	       !lost	? ""
	       : stream ? " (not read in time)"
			: " (overwritten: the buffer wrapped)",
	       (unsigned long long)left);
	return 0;
}

static bool rec_exists(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/*
 * The names a recording leaves in -o DIR, and the temporaries of an interrupted one
 * (record_dat.c): a directory that holds only these (regular files) was written by record.
 */
static bool rec_own_name(const char *name)
{
	static const char *const names[] = {"trace",	      "trace.dat", "stack_map_bin",
					    "stack_map_stat", "kallsyms",  "cpu_stats",
					    ".trace.dat.tmp"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return !strncmp(name, ".stackmap-cpu.", 14);
}

/*
 * Return: 0 when @dir does not exist or is empty, 1 when it holds only what record writes, -1
 * after a message naming the first entry record did not write (or why @dir cannot be read).
 * With @remove, record's files are unlinked as they are seen (call it only after a check).
 */
static int rec_dir_check(const char *dir, bool remove)
{
	char path[4096];
	struct dirent *de;
	struct stat st;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		sm_err("record: %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!rec_own_name(de->d_name) || lstat(path, &st) || !S_ISREG(st.st_mode)) {
			sm_err("record: %s was not written by stackmap record: not touching %s "
			       "(remove it or choose another -o DIR)",
			       path, dir);
			closedir(d);
			return -1;
		}
		if (remove && unlink(path)) {
			sm_err("record: cannot remove %s: %s", path, strerror(errno));
			closedir(d);
			return -1;
		}
		n = 1;
	}
	closedir(d);
	return n;
}

/*
 * -o DIR belongs to record: an earlier recording in it moves to DIR.old (replacing an older
 * DIR.old, as perf does with perf.data.old), so no file of an earlier run stays in DIR; a
 * directory (or a DIR.old) with anything else in it is refused.
 * rec_check_dir() runs before tracefs is touched: Return: -1 after a message (refused), 0 when
 * DIR is ready (created if missing, or empty), 1 when an earlier recording must move first;
 * rec_move_dir() then moves it once the set-up succeeded, so a failed set-up leaves it in place.
 */
static int rec_dir_old(const char *dir, char *old, size_t size)
{
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	snprintf(old, size, "%.*s.old", (int)len, dir);
	return rec_dir_check(old, false);
}

static int rec_check_dir(const char *dir)
{
	char old[4096];
	int r = rec_dir_check(dir, false);

	if (r > 0)
		return rec_dir_old(dir, old, sizeof(old)) < 0 ? -1 : 1;
	if (r == 0 && mkdir(dir, 0755) && errno != EEXIST) {
		sm_err("record: cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	return r;
}

static int rec_move_dir(const char *dir)
{
	char old[4096];
	int r = rec_dir_old(dir, old, sizeof(old));

	if (r < 0 || (r > 0 && rec_dir_check(old, true) < 0))
		return -1;
	if ((rmdir(old) && errno != ENOENT) || rename(dir, old)) {
		sm_err("record: cannot move %s to %s: %s", dir, old, strerror(errno));
		return -1;
	}
	sm_err("record: moved the earlier recording in %s to %s", dir, old);
	if (mkdir(dir, 0755)) {
		sm_err("record: cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int rec_add_event(struct rec_state *st, const char *spec)
{
	const char *colon = strchr(spec, ':');
	struct rec_event *n, *e;

	if (!*spec || colon == spec || (colon && !colon[1])) {
		sm_err("record: -e needs SYSTEM:EVENT or SYSTEM, got '%s'", spec);
		return -1;
	}
	n = realloc(st->events, (st->nevents + 1) * sizeof(*n));
	if (!n)
		return -1;
	st->events = n;
	e = &st->events[st->nevents++];
	memset(e, 0, sizeof(*e));
	e->system = colon ? strndup(spec, (size_t)(colon - spec)) : strdup(spec);
	e->event = colon ? strdup(colon + 1) : NULL;
	return e->system ? 0 : -1;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"event", required_argument, NULL, 'e'},
		{"buffer-size", required_argument, NULL, 'b'},
		{"output", required_argument, NULL, 'o'},
		{"mode", required_argument, NULL, 'm'},
		{"format", required_argument, NULL, 'F'},
		{"defs", no_argument, NULL, 0x200},
		{"help", no_argument, NULL, 'h'},
		SM_SYM_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const char *outdir = REC_DEFAULT_DIR, *ksyms = "/proc/kallsyms", *tdir;
	struct sigaction sa, old_int, old_term, old_hup;
	struct rec_state st = {0};
	struct rdat rd = {0};
	int stream = 0, format = 0, rd_open = 0; /* 0: the default for the mode */
	unsigned long bufsize = 0;
	int ret = SM_EXIT_USAGE, c, status, move_dir;
	char *dircopy = NULL;
	size_t i;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+he:b:o:m:F:", longopts, NULL)) != -1) {
		if (sm_sym_option(c, optarg))
			continue;
		switch (c) {
		case 'e':
			if (rec_add_event(&st, optarg))
				goto out;
			break;
		case 'b':
			if (sm_parse_uint(optarg, &bufsize) || !bufsize) {
				sm_err("record: -b needs a size in KB, got '%s'", optarg);
				goto out;
			}
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'm':
			if (!strcmp(optarg, "stream") || !strcmp(optarg, "flight")) {
				stream = optarg[0] == 's';
			} else {
				sm_err("record: --mode must be stream or flight, got '%s'", optarg);
				goto out;
			}
			break;
		case 'F':
			if (!strcmp(optarg, "dat")) {
				format = REC_DAT;
			} else if (!strcmp(optarg, "text")) {
				format = REC_TEXT;
			} else if (!strcmp(optarg, "both")) {
				format = REC_BOTH;
			} else {
				sm_err("record: --format must be dat, text or both, got '%s'",
				       optarg);
				goto out;
			}
			break;
		case 0x200:
			st.defs = true;
			break;
		case 'h':
			sm_cmd_usage(stdout, "record");
			ret = SM_EXIT_OK;
			goto out;
		default:
			sm_err("record: unknown or incomplete option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (optind >= argc) {
		sm_err("record: no command given (usage: stackmap record [OPTIONS] -- COMMAND...)");
		goto out;
	}
	/*
	 * Flight mode keeps the text trace by default (scripts and older readers use DIR/trace)
	 * and adds trace.dat; streaming can only write trace.dat.
	 */
	if (!format)
		format = stream ? REC_DAT : REC_BOTH;
	if (stream && format != REC_DAT) {
		sm_err("record: --mode stream writes trace.dat only (the text trace would be "
		       "empty: "
		       "streaming consumes the buffer)");
		goto out;
	}
	if (sm_opts.kallsyms)
		ksyms = sm_opts.kallsyms;
	if (!st.nevents && rec_add_event(&st, REC_DEFAULT_EVENT))
		goto out;

	if (sm_opts.tracefs) {
		struct stat tst;

		if (stat(sm_opts.tracefs, &tst) || !S_ISDIR(tst.st_mode)) {
			sm_err("record: %s: no such directory; " REC_MOUNT_HINT, sm_opts.tracefs);
			goto out;
		}
		dircopy = strdup(sm_opts.tracefs);
		if (!dircopy || tracefs_set_tracing_dir(dircopy)) {
			sm_err("record: cannot use tracefs directory %s", sm_opts.tracefs);
			goto out;
		}
	}
	tdir = tracefs_tracing_dir();
	if (!tdir) {
		sm_err("record: tracefs not found; " REC_MOUNT_HINT);
		goto out;
	}
	/* an empty mount point (/sys/kernel/tracing without tracefs) or any other directory */
	if (!rec_exists(tdir, "tracing_on") || !rec_exists(tdir, "trace")) {
		sm_err("record: %s: not a tracefs (no tracing_on); " REC_MOUNT_HINT, tdir);
		goto out;
	}
	if (!rec_exists(tdir, "stack_map") || !rec_exists(tdir, "options/stackmap")) {
		sm_err("this kernel has no stackmap support (no options/stackmap in %s)", tdir);
		goto out;
	}
	if (st.defs && !rec_exists(tdir, "stack_map_defs")) {
		sm_err("record: --defs: %s/stack_map_defs does not exist (a kernel without stack "
		       "definitions in the trace)",
		       tdir);
		goto out;
	}
	move_dir = rec_check_dir(outdir);
	if (move_dir < 0)
		goto out;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rec_on_signal; /* no SA_RESTART: waitpid() must see EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);

	if (rec_apply(&st, bufsize) || rec_signal) {
		if (rec_signal)
			sm_err("record: interrupted by signal %d during set-up", (int)rec_signal);
		rec_restore(&st);
		goto out_sig;
	}
	if (move_dir && rec_move_dir(outdir)) {
		rec_restore(&st);
		goto out_sig;
	}
	if (format & REC_DAT) {
		int err = rdat_open(&rd, outdir);

		rd_open = 1;
		if (err) {
			sm_err("record: cannot open %s/per_cpu/cpu*/trace_pipe_raw: %s", tdir,
			       strerror(-err));
			rec_restore(&st);
			goto out_sig;
		}
	}
	/* the wall-clock reference (trace.dat option DATE); without one the file has none */
	if (format & REC_DAT)
		(void)rdat_measure_date(&rd);
	status = rec_run(argv + optind, stream ? &rd : NULL);
	tracefs_trace_off(NULL);
	if (status < 0) {
		rec_restore(&st);
		goto out_sig;
	}
	if (WIFEXITED(status))
		printf("stackmap: command exited with status %d\n", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("stackmap: command killed by signal %d\n", WTERMSIG(status));
	/* the text (a non-consuming read) first: reading the binary pages empties the buffer */
	if (rec_save(outdir, ksyms, format & REC_TEXT) ||
	    ((format & REC_DAT) && rec_save_dat(&rd, outdir, ksyms, &st, stream))) {
		rec_restore(&st);
		goto out_sig;
	}
	ret = rec_restore(&st) ? SM_EXIT_USAGE : SM_EXIT_OK;
	if (ret == SM_EXIT_OK)
		printf("stackmap: tracefs settings restored; view with: stackmap report -i %s\n",
		       outdir);
out_sig:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
out:
	if (rd_open)
		rdat_close(&rd);
	for (i = 0; i < st.nevents; i++) {
		free(st.events[i].system);
		free(st.events[i].event);
	}
	free(st.events);
	free(dircopy);
	return ret;
}
