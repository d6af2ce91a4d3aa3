// SPDX-License-Identifier: GPL-2.0
/*
 * The input layer: naming, kind detection, map and symbol resolution, and the record stream
 * that every reading command uses. See input.h for the rules.
 */
#define _GNU_SOURCE
#include "input.h"
#include "evpipe.h"
#include "trace_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IN_DEFAULT_DAT "trace.dat"
#define IN_DEFAULT_DIR "stackmap.data"

static const char *const in_tracefs_dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

/* 1 when @path (a file that exists) lies inside a tracefs directory: a live capture. */
static int in_is_live(const char *path)
{
	char real[PATH_MAX], dir[PATH_MAX];
	size_t i, n;

	if (!realpath(path, real))
		return 0;
	for (i = 0; i <= sizeof(in_tracefs_dirs) / sizeof(in_tracefs_dirs[0]); i++) {
		const char *d = i ? in_tracefs_dirs[i - 1] : sm_opts.tracefs;

		if (!d || !realpath(d, dir))
			continue;
		n = strlen(dir);
		if (!strncmp(real, dir, n) && real[n] == '/')
			return 1;
	}
	return 0;
}

static int in_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* What a file that is not a trace is, from its first bytes; NULL when it may be a trace. */
static const char *in_what_not(const unsigned char *b, size_t n)
{
	uint32_t m;
	size_t i;

	if (n == 0)
		return "an empty file";
	if (n >= 4) {
		memcpy(&m, b, 4);
		if (m == SMBIN_MAGIC || m == SMBIN_MAGIC_SWAPPED)
			return "a stack_map_bin";
		if (!memcmp(b, "\177ELF", 4))
			return "an ELF file";
	}
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return "a gzip file";
	/* a kallsyms listing: "HEX T name" on its first line */
	for (i = 0;
	     i < n && i < 17 && ((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f')); i++)
		;
	if (i >= 8 && i < 17 && i + 3 < n && b[i] == ' ' && b[i + 2] == ' ' &&
	    ((b[i + 1] | 0x20) >= 'a' && (b[i + 1] | 0x20) <= 'z'))
		return "a kallsyms file";
	if (n >= 9 && !memcmp(b, "stack_id ", 9))
		return "a stack_map listing";
	if (memchr(b, '\0', n < 4096 ? n : 4096))
		return "binary data (a damaged trace.dat?)";
	return NULL;
}

/* The map, once: from @path, or from @data (the copy inside the trace.dat). */
static int in_load_map(struct in_src *in, const char *path, const void *data, size_t len,
		       const char *inside_of)
{
	char what[PATH_MAX + 32];
	int ret;

	if (path) {
		ret = sm_load_map(path, &in->map, 0);
		in->map_from = strdup(path);
	} else {
		snprintf(what, sizeof(what), "%s (stack map inside)", inside_of);
		ret = sm_load_map_buf(what, data, len, &in->map, 0);
		in->map_from = strdup(what);
	}
	if (ret)
		return ret;
	in->have_map = 1;
	return 0;
}

static int in_find_map(struct in_src *in, const char *map_opt)
{
	char *beside;
	int ret;

	if (map_opt)
		return in_load_map(in, map_opt, NULL, 0, NULL);
	if (in->buffer) {
		/* the map inside and beside the recording is the top level's: not this buffer's */
		beside = in->dir ? sm_path_join(in->dir, "stack_map_bin") : NULL;
		if (in->td.stackmap)
			ret = asprintf(&in->map_not_used, "the stack map inside %s", in->path);
		else if (beside && in_exists(beside))
			ret = asprintf(&in->map_not_used, "%s", beside);
		else
			ret = 0;
		free(beside);
		return ret < 0 ? SM_EXIT_USAGE : 0;
	}
	if (in->kind == IN_DAT && in->td.stackmap)
		return in_load_map(in, NULL, in->td.stackmap, in->td.stackmap_len, in->path);
	if (in->dir) {
		beside = sm_path_join(in->dir, "stack_map_bin");
		if (!beside)
			return SM_EXIT_USAGE;
		ret = in_exists(beside) ? in_load_map(in, beside, NULL, 0, NULL) : 0;
		free(beside);
		if (ret || in->have_map)
			return ret;
	}
	if (in->live) {
		beside = sm_tracefs_file("stack_map_bin");
		if (!beside)
			return SM_EXIT_USAGE;
		sm_err("%s: a live capture: the map is %s", in->path, beside);
		ret = in_load_map(in, beside, NULL, 0, NULL);
		free(beside);
		return ret;
	}
	return 0;
}

/*
 * From stack_map_stat, when one is at hand: the definitions the kernel lost ("defs_lost: N"),
 * and with a map, its fill ("entries: N / CAPACITY") and its generation ("generation: N").
 */
static void in_find_stat(struct in_src *in)
{
	char *path = NULL, *buf = NULL, *p;
	unsigned long long n, cap, gen, lost;
	size_t len;

	if (in->buffer)
		return; /* the stack_map_stat beside the recording is the top level's */
	if (in->live)
		path = sm_tracefs_file("stack_map_stat");
	else if (in->dir)
		path = sm_path_join(in->dir, "stack_map_stat");
	if (!path || !in_exists(path) || smbin_read_file(path, &buf, &len)) {
		free(buf);
		free(path);
		return;
	}
	p = strstr(buf, "defs_lost:");
	if (p && (p == buf || p[-1] == '\n') && sscanf(p, "defs_lost: %llu", &lost) == 1) {
		in->defs_lost_known = 1;
		in->defs_lost = lost;
	}
	if (in->have_map) {
		p = strstr(buf, "entries:");
		if (p && (p == buf || p[-1] == '\n') &&
		    sscanf(p, "entries: %llu / %llu", &n, &cap) == 2 && cap) {
			in->map_entries = n;
			in->map_capacity = cap;
		}
		p = strstr(buf, "generation:");
		if (p && (p == buf || p[-1] == '\n') && sscanf(p, "generation: %llu", &gen) == 1) {
			in->map_gen_known = 1;
			in->map_gen = (uint32_t)gen; /* the definitions carry the low 32 bits */
		}
	}
	free(buf);
	free(path);
}

/* One symbol source into in->syms; -ENODATA (zero addresses) is "no symbols" when @soft. */
static int in_syms_kallsyms(struct in_src *in, const char *path, char *owned, size_t len,
			    const char *what, int soft)
{
	struct syms_err err = {0};
	int ret;

	ret = owned ? syms_load_kallsyms_owned(&in->syms, owned, len, &err)
		    : syms_load_kallsyms(&in->syms, path, &err);
	if (ret == -ENODATA && soft) {
		sm_err("%s: the kallsyms has no addresses (recorded with kptr_restrict?): frames "
		       "are shown as addresses",
		       what);
		return 0;
	}
	if (ret) {
		sm_err("%s: %s", what, err.msg);
		return SM_EXIT_USAGE;
	}
	in->have_syms = 1;
	in->syms_from = strdup(what);
	return 0;
}

static int in_find_syms(struct in_src *in)
{
	char *beside = NULL, *copy;
	char what[PATH_MAX + 32];
	struct syms_err err = {0};
	int ret = 0;

	if (sm_opts.lines && !sm_opts.vmlinux) {
		sm_err("--lines needs --vmlinux");
		return SM_EXIT_USAGE;
	}
	if (sm_opts.kallsyms && !sm_opts.no_kallsyms) {
		ret = in_syms_kallsyms(in, sm_opts.kallsyms, NULL, 0, sm_opts.kallsyms, 0);
	} else if (!sm_opts.no_kallsyms && !sm_opts.vmlinux) {
		if (in->kind == IN_DAT && in->td.kallsyms) {
			copy = malloc(in->td.kallsyms_len + 1);
			if (!copy)
				return SM_EXIT_USAGE;
			memcpy(copy, in->td.kallsyms, in->td.kallsyms_len);
			copy[in->td.kallsyms_len] = '\0';
			snprintf(what, sizeof(what), "%s (kallsyms inside)", in->path);
			ret = in_syms_kallsyms(in, NULL, copy, in->td.kallsyms_len, what, 1);
		} else if (in->dir && (beside = sm_path_join(in->dir, "kallsyms")) &&
			   in_exists(beside)) {
			ret = in_syms_kallsyms(in, beside, NULL, 0, beside, 1);
		} else if (in->live) {
			sm_err("%s: a live capture: the symbols are /proc/kallsyms", in->path);
			ret = in_syms_kallsyms(in, "/proc/kallsyms", NULL, 0, "/proc/kallsyms", 1);
		}
	}
	free(beside);
	if (ret)
		return ret;
	if (sm_opts.vmlinux) {
		ret = syms_load_elf(&in->syms, sm_opts.vmlinux, sm_opts.lines, &err);
		if (ret) {
			sm_err("%s: %s", sm_opts.vmlinux, err.msg);
			return SM_EXIT_USAGE;
		}
		in->have_syms = 1;
		if (!in->syms_from)
			in->syms_from = strdup(sm_opts.vmlinux);
	}
	syms_finish(&in->syms);
	return 0;
}

/*
 * The symbols against the map's frames, or without a map those of the trace.dat's definitions:
 * a warning when they do not belong to the recording.
 */
static void in_check_syms(const struct in_src *in)
{
	struct smbin_map view = {0};
	size_t i;

	if (in->have_syms && in->have_map) {
		sm_syms_check_map(&in->syms, &in->map);
		return;
	}
	if (!in->have_syms || !in->stk.finished || !in->stk.addr_defs)
		return;
	view.stacks = calloc(in->stk.ndefs, sizeof(*view.stacks));
	if (!view.stacks)
		return;
	for (i = 0; i < in->stk.ndefs; i++)
		view.stacks[i] = (struct smbin_stack){.id = in->stk.defs[i].id,
						      .nr = in->stk.defs[i].nr,
						      .ips = in->stk.defs[i].addrs};
	view.nr = in->stk.ndefs;
	sm_syms_check_map(&in->syms, &view);
	free(view.stacks);
}

/* The first pass: the recording's stack definitions into in->stk. */
static int in_text_def(void *arg, const struct tp_def *d)
{
	const struct stk_def sd = {.id = d->id,
				   .gen = d->gen,
				   .sw = d->sw,
				   .sw_known = d->sw_known,
				   .ts_ns = d->ts_ns,
				   .nr = d->nr,
				   .texts = d->frames,
				   .lens = d->lens};

	return stk_add_def(arg, &sd);
}

static int in_dat_def(void *arg, const struct td_rec *r)
{
	const struct stk_def sd = {.id = r->stack_id,
				   .gen = r->gen,
				   .sw = r->sw,
				   .sw_known = r->sw_known,
				   .ts_ns = r->ts,
				   .nr = r->nr,
				   .addrs = r->ips};

	return stk_add_def(arg, &sd);
}

static int in_scan_defs(struct in_src *in)
{
	struct td_err err = {0};
	int ret;

	if (in->kind == IN_TEXT)
		ret = tp_scan_defs(in->text, in->text_len, in_text_def, &in->stk);
	else
		ret = rd_scan_defs(&in->td, in_dat_def, &in->stk, &err);
	if (ret == -EBADMSG) {
		sm_err("%s: offset %llu: %s", in->path, (unsigned long long)err.offset, err.msg);
		return SM_EXIT_DATA;
	}
	if (!ret)
		ret = stk_finish(&in->stk, in->have_map ? &in->map : NULL, in->map_gen_known,
				 in->map_gen);
	if (ret) {
		sm_err("%s: %s", in->path, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	return 0;
}

static int in_fail(struct in_src *in, const char *what)
{
	sm_err("%s: %s, not a trace", in->path, what);
	return SM_EXIT_DATA;
}

/*
 * The names of @td's buffers for messages, "" (the top level) first as in the file: all, or
 * with @holders those that hold data except buffer @skip. NULL when memory is short.
 */
static char *in_buffer_list(const struct td_file *td, int holders, int skip)
{
	char *s = NULL, *t;
	int i, n = 0;

	for (i = 0; i < td->nbuffers; i++) {
		const struct td_buffer *b = &td->buffers[i];

		if (i == skip || (holders && !b->data_size))
			continue;
		if (asprintf(&t, "%s%s\"%s\"%s", s ? s : "", n++ ? ", " : "", b->name,
			     *b->name ? "" : " (the top level)") < 0) {
			free(s);
			return NULL;
		}
		free(s);
		s = t;
	}
	return s ? s : strdup("none");
}

/*
 * The buffer of a trace.dat that is read: @want (--buffer), else td_buffer_default(); then
 * in->buffer names it unless it is the top level.
 */
static int in_pick_buffer(struct in_src *in, const char *want)
{
	struct td_err err = {0};
	char *list;
	int idx, ret;

	idx = want ? td_buffer_find(&in->td, want) : td_buffer_default(&in->td);
	if (idx < 0) {
		list = in_buffer_list(&in->td, !want, -1);
		if (want)
			sm_err("%s: no buffer \"%s\" (its buffers: %s)", in->path, want,
			       list ? list : "?");
		else
			sm_err("%s: several buffers hold data (%s): choose one with --buffer NAME",
			       in->path, list ? list : "?");
		free(list);
		return SM_EXIT_USAGE;
	}
	ret = td_select(&in->td, idx, &err);
	if (ret == -EBADMSG) {
		sm_err("%s: offset %llu: %s", in->path, (unsigned long long)err.offset, err.msg);
		return SM_EXIT_DATA;
	}
	if (ret) {
		sm_err("%s: %s", in->path, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	if (*in->td.buffers[idx].name) {
		in->buffer = in->td.buffers[idx].name;
	} else if (!want && in->td.nbuffers > 1) {
		/* the top level by default: said once when other buffers hold data too */
		in->others = in_buffer_list(&in->td, 1, idx);
		if (in->others && !strcmp(in->others, "none")) {
			free(in->others);
			in->others = NULL;
		}
	}
	return 0;
}

/* Kind, map and symbols of the bytes now in in->text (or the mapped trace.dat). */
static int in_setup(struct in_src *in, const char *map_opt, const char *buffer, unsigned int flags)
{
	const unsigned char *b = (const unsigned char *)in->text;
	size_t n = in->text_len;
	const char * not ;
	int ret;

	if (in->kind == IN_DAT) {
		ret = in_pick_buffer(in, buffer);
		if (ret)
			return ret;
	}
	if (in->kind != IN_DAT) {
		not = in_what_not(b, n);
		/* dump: anything binary is a stack_map_bin, whose decoder says what is wrong */
		if ((flags & IN_F_MAP_OK) && (!n || memchr(b, '\0', n < 4096 ? n : 4096) ||
					      (not &&!strcmp(not, "a stack_map_bin")))) {
			in->kind = IN_MAP;
			ret = sm_load_map_buf(in->path, in->text, in->text_len, &in->map, 0);
			if (ret)
				return ret;
			in->have_map = 1;
			in->map_from = strdup(in->path);
			if (map_opt) {
				sm_err("%s: --map is for a trace; give the map as the input",
				       in->cmd);
				return SM_EXIT_USAGE;
			}
		} else if (not ) {
			return in_fail(in, not );
		} else {
			in->kind = IN_TEXT;
		}
		if (buffer) {
			sm_err("%s: --buffer is for a trace.dat, and %s is %s", in->cmd, in->path,
			       in->kind == IN_MAP ? "a stack_map_bin"
						  : "a trace text (one instance's events)");
			return SM_EXIT_USAGE;
		}
	}
	if (in->kind != IN_MAP) {
		ret = in_find_map(in, map_opt);
		if (ret)
			return ret;
		in_find_stat(in);
		/* (dump shows the map: it needs the definitions only when there is none) */
		if (!(flags & IN_F_MAP_OK) || !in->have_map) {
			ret = in_scan_defs(in);
			if (ret)
				return ret;
		}
	}
	if (!(flags & IN_F_NO_SYMS)) {
		ret = in_find_syms(in);
		if (ret)
			return ret;
		in_check_syms(in);
	}
	htab_init(&in->missing_idx, 64);
	return 0;
}

static int in_open_dat(struct in_src *in)
{
	struct td_err err = {0};
	int ret = td_open_file(&in->td, in->path, &err);

	if (ret == -EBADMSG || ret == -EPROTONOSUPPORT) {
		sm_err("%s: offset %llu: %s", in->path, (unsigned long long)err.offset, err.msg);
		return SM_EXIT_DATA;
	}
	if (ret) {
		sm_err("%s: %s", in->path, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	in->kind = IN_DAT;
	return 0;
}

int in_open(struct in_src *in, const char *cmd, const char *arg, const char *map_opt,
	    const char *buffer, unsigned int flags)
{
	struct stat st;
	int ret;

	memset(in, 0, sizeof(*in));
	syms_init(&in->syms); /* in_close() may run before the symbols are loaded */
	stk_init(&in->stk);
	in->cmd = cmd;
	if (!arg) {
		if (in_exists(IN_DEFAULT_DAT)) {
			arg = IN_DEFAULT_DAT;
		} else if (in_exists(IN_DEFAULT_DIR)) {
			arg = IN_DEFAULT_DIR;
		} else {
			sm_err("%s: no input: neither ./%s nor ./%s exists (give FILE, DIR or -)",
			       cmd, IN_DEFAULT_DAT, IN_DEFAULT_DIR);
			return SM_EXIT_USAGE;
		}
	}
	in->name = strdup(arg);
	if (!in->name)
		return SM_EXIT_USAGE;
	if (!strcmp(arg, "-")) {
		in->is_stdin = 1;
		in->path = strdup("(standard input)");
		ret = smbin_read_file("-", &in->text, &in->text_len);
		if (ret) {
			sm_err("standard input: %s", strerror(-ret));
			return SM_EXIT_USAGE;
		}
		if (td_is_tracedat(in->text, in->text_len)) {
			struct td_err err = {0};

			ret = td_open_mem(&in->td, in->text, in->text_len, &err);
			if (ret) {
				sm_err("%s: offset %llu: %s", in->path,
				       (unsigned long long)err.offset,
				       ret == -ENOMEM ? "out of memory" : err.msg);
				return ret == -ENOMEM ? SM_EXIT_USAGE : SM_EXIT_DATA;
			}
			in->kind = IN_DAT;
		}
		return in_setup(in, map_opt, buffer, flags);
	}
	if (stat(arg, &st)) {
		sm_err("%s: %s", arg, strerror(errno));
		return SM_EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode)) {
		in->dir = strdup(arg);
		in->path = sm_path_join(arg, "trace.dat");
		if (in->path && !in_exists(in->path)) {
			free(in->path);
			in->path = sm_path_join(arg, "trace");
			if (in->path && !in_exists(in->path)) {
				sm_err("%s: a directory without trace.dat or trace", arg);
				return SM_EXIT_USAGE;
			}
		}
	} else {
		in->path = strdup(arg);
		in->dir = sm_sibling(arg, "");
		if (in->dir && !in->dir[0]) {
			free(in->dir);
			in->dir = strdup(".");
		}
	}
	if (!in->path || !in->dir)
		return SM_EXIT_USAGE;
	in->live = in_is_live(in->path);
	ret = sm_is_tracedat(in->path);
	if (ret < 0) {
		sm_err("%s: %s", in->path, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	if (ret == 1) {
		ret = in_open_dat(in);
	} else {
		ret = smbin_read_file(in->path, &in->text, &in->text_len);
		if (ret) {
			sm_err("%s: %s", in->path, strerror(-ret));
			return SM_EXIT_USAGE;
		}
	}
	return ret ? ret : in_setup(in, map_opt, buffer, flags);
}

int in_open_mem(struct in_src *in, const char *cmd, const char *name, const void *buf, size_t len,
		const char *map_opt)
{
	memset(in, 0, sizeof(*in));
	syms_init(&in->syms); /* in_close() may run before the symbols are loaded */
	stk_init(&in->stk);
	in->cmd = cmd;
	in->name = strdup(name);
	in->path = strdup(name);
	in->text = malloc(len + 1);
	if (!in->name || !in->path || !in->text)
		return SM_EXIT_USAGE;
	memcpy(in->text, buf, len);
	in->text[len] = '\0';
	in->text_len = len;
	if (td_is_tracedat(in->text, len)) {
		struct td_err err = {0};
		int ret = td_open_mem(&in->td, in->text, len, &err);

		if (ret)
			return ret == -ENOMEM ? SM_EXIT_USAGE : SM_EXIT_DATA;
		in->kind = IN_DAT;
	}
	return in_setup(in, map_opt, NULL, IN_F_NO_SYMS);
}

static int in_missing_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct in_src *)ctx)->missing[idx] == *(const uint64_t *)key;
}

static int in_note_missing(struct in_src *in, uint32_t gen, uint32_t id)
{
	uint64_t key = (uint64_t)gen << 32 | id, h = htab_hash_gen_id(gen, id);
	uint64_t *n;
	size_t j;
	int ret;

	in->st.refs_missing++;
	ret = htab_reserve(&in->missing_idx);
	if (ret)
		return ret;
	if (htab_find(&in->missing_idx, h, in_missing_eq, in, &key, &j) != HTAB_NONE)
		return 0;
	n = sm_grow(in->missing, &in->missing_cap, in->nmissing + 1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	in->missing = n;
	in->missing[in->nmissing] = key;
	htab_insert_at(&in->missing_idx, j, h, (uint32_t)in->nmissing++);
	return 0;
}

/* A reference resolved to @res: counted once per stack of the table, by where it came from. */
static void in_note_resolved(struct in_src *in, const struct ev_idstack *res)
{
	uint32_t i = res->index;

	if (!in->seen || in->seen[i / 8] >> (i % 8) & 1)
		return;
	in->seen[i / 8] |= (uint8_t)(1u << (i % 8));
	if (res->from == EV_FROM_DEF)
		in->st.ids_def++;
	else
		in->st.ids_map++;
}

/* Every record passes here: the counts of in_stats, then the consumer. */
static int in_on_record(void *arg, const struct ev_record *r)
{
	struct in_src *in = arg;
	struct in_stats *st = &in->st;
	int ret;

	if (r->cpu >= st->ncpus)
		st->ncpus = r->cpu + 1;
	if (r->ts_ns != EV_TS_NONE) {
		if (st->ts_first == EV_TS_NONE || r->ts_ns < st->ts_first)
			st->ts_first = r->ts_ns;
		if (r->ts_ns > st->ts_last)
			st->ts_last = r->ts_ns;
	}
	if (r->flags & EV_F_LOST) {
		st->lost_markers++;
		st->lost_events += r->lost;
		return in->fn(in->fn_arg, r);
	}
	if (!(r->flags & (EV_F_EXTRA | EV_F_UNATTRIBUTED))) {
		st->events++;
		if (r->type_name[0] == '(' && !strcmp(r->type_name, EV_TYPE_UNKNOWN))
			st->unknown_events++;
	}
	if (r->stack.kind != EV_STACK_NONE) {
		st->refs++;
		if (r->flags & EV_F_UNATTRIBUTED) {
			if (r->type_name[0] == '(' && !strcmp(r->type_name, EV_TYPE_LOST))
				st->after_loss++;
			else
				st->unattributed++;
		}
		if (r->stack.kind == EV_STACK_ID) {
			st->refs_id++;
			if (r->stack.res) {
				in_note_resolved(in, r->stack.res);
			} else {
				ret = in_note_missing(in, r->stack.gen, r->stack.id);
				if (ret)
					return ret;
			}
		} else {
			st->refs_full++;
		}
	}
	return in->fn(in->fn_arg, r);
}

static int in_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : (x > y);
}

/* The two readers, for evpipe_run(): the trace.dat's, and the text's. */
struct in_reader {
	struct in_src *in;
	struct td_err err;
	struct tp_ctx ctx;
	struct ev_resolver resolver;
};

static int in_read_dat(void *arg, ev_fn fn, void *fn_arg)
{
	struct in_reader *rd = arg;
	struct in_src *in = rd->in;

	return rd_feed_records(&in->td, fn, fn_arg,
			       (in->no_task_fields ? RD_F_NO_TASK_FIELDS : 0) |
				       (in->no_switch_fields ? RD_F_NO_SWITCH_FIELDS : 0),
			       &rd->resolver, &rd->err);
}

static int in_read_text(void *arg, ev_fn fn, void *fn_arg)
{
	struct in_reader *rd = arg;

	return tp_feed_records(&rd->ctx, rd->in->text, rd->in->text_len, fn, fn_arg);
}

int in_feed(struct in_src *in, ev_fn fn, void *arg)
{
	struct in_reader rd = {.in = in};
	struct td_err *err = &rd.err;
	struct tp_ctx *ctx = &rd.ctx;
	int ret;

	if (in->kind == IN_MAP) {
		sm_err("%s: %s: a stack_map_bin, not a trace", in->cmd, in->path);
		return SM_EXIT_DATA;
	}
	memset(&in->st, 0, sizeof(in->st));
	in->st.ts_first = EV_TS_NONE;
	in->fn = fn;
	in->fn_arg = arg;
	if (!in->stk.finished &&
	    stk_finish(&in->stk, in->have_map ? &in->map : NULL, in->map_gen_known, in->map_gen)) {
		sm_err("%s: %s", in->cmd, strerror(ENOMEM));
		return SM_EXIT_USAGE;
	}
	rd.resolver = stk_resolver(&in->stk);
	free(in->seen); /* (a second feed counts again) */
	in->seen = calloc(stk_total(&in->stk) / 8 + 1, 1);
	if (!in->seen) {
		sm_err("%s: %s", in->cmd, strerror(ENOMEM));
		return SM_EXIT_USAGE;
	}
	if (in->kind == IN_DAT) {
		ret = evpipe_run(in_read_dat, &rd, in_on_record, in, in->pipeline);
		if (ret == -EBADMSG) {
			sm_err("%s: offset %llu: %s", in->path, (unsigned long long)err->offset,
			       err->msg);
			return SM_EXIT_DATA;
		}
	} else {
		tp_ctx_init(ctx);
		ctx->resolver = &rd.resolver;
		ret = evpipe_run(in_read_text, &rd, in_on_record, in, in->pipeline);
		in->torn_line = ctx->torn_line;
		if (!ret && ctx->bad_reason) {
			sm_err("%s:%llu: %s", in->path, (unsigned long long)ctx->bad_line,
			       ctx->bad_reason);
			tp_ctx_free(ctx);
			return SM_EXIT_DATA;
		}
		tp_ctx_free(ctx);
	}
	if (ret) {
		sm_err("%s: %s: %s", in->cmd, in->path, strerror(ret < 0 ? -ret : EINVAL));
		return SM_EXIT_USAGE;
	}
	if (!in->st.events && !in->st.refs && !in->st.lost_markers) {
		char *list = in->kind == IN_DAT && in->td.nbuffers > 1 && !in->buffer
				     ? in_buffer_list(&in->td, 0, -1)
				     : NULL;

		if (in->buffer)
			sm_err("%s: buffer \"%s\" has no events", in->path, in->buffer);
		else if (list)
			sm_err("%s: the top level's buffer has no events (its buffers: %s)",
			       in->path, list);
		else if (in->kind == IN_DAT)
			sm_err("%s: a trace.dat without events", in->path);
		else
			sm_err("%s: no trace events in this text: not a trace (a tracefs trace, "
			       "trace-cmd report text or a trace.dat)",
			       in->path);
		free(list);
		return SM_EXIT_DATA;
	}
	if (in->nmissing)
		qsort(in->missing, in->nmissing, sizeof(*in->missing), in_u64_cmp);
	in->st.ids_missing = in->nmissing;
	return 0;
}

void in_notes(const struct in_src *in)
{
	const struct in_stats *st = &in->st;

	if (in->torn_line)
		sm_err("warning: %s:%llu: the last line has no newline (a torn copy of a live "
		       "file?): ignored",
		       in->path, (unsigned long long)in->torn_line);
	if (st->lost_markers)
		sm_err("%s: the kernel lost events at %llu places (%llu lost events counted where "
		       "the kernel had room for the count)",
		       in->path, (unsigned long long)st->lost_markers,
		       (unsigned long long)st->lost_events);
	if (st->after_loss)
		sm_err("%s: %llu stack references of lost events are shown as " EV_TYPE_LOST,
		       in->path, (unsigned long long)st->after_loss);
	if (st->unattributed)
		sm_err("%s: %llu stack references with no earlier event on their CPU (overwritten "
		       "in the ring buffer) are shown as " EV_TYPE_UNATTRIBUTED,
		       in->path, (unsigned long long)st->unattributed);
	if (st->unknown_events)
		sm_err("%s: %llu events of a type without a format are shown as " EV_TYPE_UNKNOWN,
		       in->path, (unsigned long long)st->unknown_events);
	if (in->others)
		sm_err("%s: the top level's buffer was read; %s also hold%s data (choose with "
		       "--buffer NAME)",
		       in->path, in->others, strchr(in->others, ',') ? "" : "s");
	if (st->refs_missing && !in->have_map && in->buffer)
		sm_err("%s: buffer \"%s\": %llu stack references to %zu ids have %sno stack map "
		       "of this buffer was given (%s%sgive the instance's with --map FILE): shown "
		       "as "
		       "[unknown stack_id N]",
		       in->path, in->buffer, (unsigned long long)st->refs_missing, st->ids_missing,
		       in->stk.ndefs ? "no definition in the buffer, and " : "",
		       in->map_not_used ? in->map_not_used : "",
		       in->map_not_used ? " is the top level's; " : "");
	else if (st->refs_missing && !in->have_map && in->stk.ndefs)
		sm_err("%s: %llu stack references to %zu ids have no definition in the recording "
		       "and no stack map was found (looked inside and beside it; give --map FILE): "
		       "shown as [unknown stack_id N]",
		       in->path, (unsigned long long)st->refs_missing, st->ids_missing);
	else if (st->refs_missing && !in->have_map)
		sm_err("%s: no stack map found (looked inside and beside it; give --map FILE): "
		       "%llu stack references to %zu ids are shown as [unknown stack_id N]",
		       in->path, (unsigned long long)st->refs_missing, st->ids_missing);
	else if (st->refs_missing && in->stk.ndefs)
		sm_err("%s: %llu stack references to %zu ids have no definition in the recording "
		       "and are not in %s (stacks of generation %u): shown as [unknown stack_id N]",
		       in->path, (unsigned long long)st->refs_missing, st->ids_missing,
		       in->map_from, in->stk.map_gen);
	else if (st->refs_missing)
		sm_err("%s: %llu stack references to %zu ids missing from %s are shown as "
		       "[unknown stack_id N]",
		       in->path, (unsigned long long)st->refs_missing, st->ids_missing,
		       in->map_from);
	if (st->refs_missing && in->stk.ndefs && st->lost_markers)
		sm_err("%s: the definitions of those ids are most likely among the events the "
		       "kernel lost (at %llu places): a larger buffer keeps them (a stack_map_bin "
		       "saved at the end holds the stacks of the last two map switches only)",
		       in->path, (unsigned long long)st->lost_markers);
	if (st->refs_missing && in->stk.ndefs && in->defs_lost_known && in->defs_lost)
		sm_err("%s: the kernel counted %llu definitions that found no room in its buffer "
		       "(stack_map_stat's defs_lost): an id used before its stack's next "
		       "definition "
		       "has none in the recording",
		       in->path, (unsigned long long)in->defs_lost);
	else if (st->refs_missing && in->stk.ndefs && in->defs_lost_known && !st->lost_markers)
		sm_err("%s: the kernel lost no definition (stack_map_stat's defs_lost is 0) and "
		       "the "
		       "recording no event: those ids were recorded before stack_map_defs was set, "
		       "or their definitions left the buffer before it was read (a stack_map_bin "
		       "saved before the buffer is read holds them)",
		       in->path);
	if (st->refs_missing && in->stk.map_sw_known &&
	    (in->stk.defs_sw_max > in->map.switches || in->stk.defs_sw_max + 1 < in->map.switches))
		sm_err("%s: %s holds the maps of switch %u and the one before, generation %u; the "
		       "recording's "
		       "definitions reach switch %u: it was saved %s the recording, and resolves "
		       "only ids of the switches it holds",
		       in->path, in->map_from, in->map.switches, in->stk.map_gen,
		       in->stk.defs_sw_max,
		       in->stk.defs_sw_max > in->map.switches ? "before the end of" : "after");
	if (in->stk.dup_differ && in->stk.sw_defs)
		sm_err("%s: %llu stacks are defined under a generation, switch count and id that "
		       "an "
		       "earlier definition gave another stack (a kernel bug?): a reference uses "
		       "the "
		       "latest definition not after it",
		       in->path, (unsigned long long)in->stk.dup_differ);
	else if (in->stk.dup_differ)
		sm_err("%s: %llu stacks are defined under a generation and id that an earlier "
		       "definition gave another stack (an id comes back after 8192 map switches): "
		       "a reference uses the latest definition not after it",
		       in->path, (unsigned long long)in->stk.dup_differ);
	if (in->stk.map_differ)
		sm_err("%s: %zu stack definitions of generation %u differ from %s (the lowest: "
		       "stack_id %u): the definitions are used (a kernel bug?)",
		       in->path, in->stk.map_differ, in->stk.map_gen, in->map_from,
		       in->stk.map_differ_id);
	/* (frames are addresses: the map's, or a trace.dat's definitions; text ones are names) */
	if (st->refs_id && !in->have_syms && !sm_opts.no_kallsyms &&
	    (in->stk.ndefs ? st->ids_map || (in->stk.addr_defs && st->ids_def) : in->have_map))
		sm_err("%s: no kallsyms found (looked inside and beside it; give --kallsyms FILE): "
		       "frames are shown as addresses",
		       in->path);
}

void in_close(struct in_src *in)
{
	td_close(&in->td);
	free(in->text);
	smbin_free(&in->map);
	syms_free(&in->syms);
	htab_free(&in->missing_idx);
	free(in->missing);
	free(in->seen);
	stk_free(&in->stk);
	free(in->name);
	free(in->path);
	free(in->dir);
	free(in->map_from);
	free(in->syms_from);
	free(in->map_not_used);
	free(in->others);
	memset(in, 0, sizeof(*in));
}
