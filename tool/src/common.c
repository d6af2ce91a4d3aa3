// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the stackmap subcommands: messages, symbol loading, buffered output and
 * the per-address frame formatting cache.
 */
#define _GNU_SOURCE
#include "stackmap.h"
#include "tracedat.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sm_opts sm_opts;

void sm_err(const char *fmt, ...)
{
	va_list ap;

	if (sm_opts.quiet)
		return;
	fflush(stdout);
	fputs("stackmap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int sm_sym_option(int c, const char *arg)
{
	switch (c) {
	case 0x100:
		sm_opts.kallsyms = arg;
		sm_opts.no_kallsyms = 0;
		return 1;
	case 0x101:
		sm_opts.no_kallsyms = 1;
		return 1;
	case 0x102:
		sm_opts.vmlinux = arg;
		return 1;
	case 0x103:
		sm_opts.lines = 1;
		return 1;
	case 0x104:
		sm_opts.tracefs = arg;
		return 1;
	default:
		return 0;
	}
}

int sm_parse_uint(const char *s, unsigned long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

void *sm_grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	char *n;

	if (need <= *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	n = realloc(arr, ncap * elem);
	if (!n)
		return NULL;
	memset(n + *cap * elem, 0, (ncap - *cap) * elem);
	*cap = ncap;
	return n;
}

char *sm_path_join(const char *dir, const char *name)
{
	size_t d = strlen(dir), n = d + strlen(name) + 2;
	char *p = malloc(n);

	/* (no second slash after a directory that ends in one, as sm_sibling() gives) */
	if (p)
		snprintf(p, n, "%s%s%s", dir, d && dir[d - 1] == '/' ? "" : "/", name);
	return p;
}

char *sm_tracefs_file(const char *name)
{
	return sm_path_join(sm_opts.tracefs ? sm_opts.tracefs : "/sys/kernel/tracing", name);
}

int sm_join_frames(char **buf, size_t *cap, const char *const *frames, size_t nr, size_t *len)
{
	size_t need = 1, n, i;

	for (i = 0; i < nr; i++)
		need += strlen(frames[i]) + 1;
	if (need > *cap) {
		char *b = realloc(*buf, need);

		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = need;
	}
	*len = 0;
	for (i = 0; i < nr; i++) {
		n = strlen(frames[i]);
		memcpy(*buf + *len, frames[i], n);
		*len += n;
		(*buf)[(*len)++] = '\n';
	}
	return 0;
}

int sm_load_syms(struct syms *s, int *have_syms)
{
	return sm_load_syms_text(s, have_syms, NULL, 0, NULL);
}

int sm_load_syms_text(struct syms *s, int *have_syms, const char *text, size_t len,
		      const char *what)
{
	const char *ks = sm_opts.kallsyms;
	struct syms_err err = {0};
	int ret, dflt = 0;

	syms_init(s);
	*have_syms = 0;
	if (!ks && !sm_opts.no_kallsyms && text) {
		char *copy = malloc(len + 1);

		if (!copy) {
			sm_err("out of memory");
			return SM_EXIT_USAGE;
		}
		memcpy(copy, text, len);
		copy[len] = '\0';
		ret = syms_load_kallsyms_owned(s, copy, len, &err);
		if (ret && ret != -ENODATA) {
			sm_err("%s: kallsyms: %s", what, err.msg);
			syms_free(s);
			return SM_EXIT_USAGE;
		}
		if (ret) /* zero addresses (kptr_restrict at record time): no symbols */
			syms_free(s);
		else
			*have_syms = 1;
		ks = NULL;
		dflt = 1;
	} else if (!ks && !sm_opts.no_kallsyms && access("/proc/kallsyms", R_OK) == 0) {
		ks = "/proc/kallsyms";
		dflt = 1;
	}
	if (ks && !sm_opts.no_kallsyms) {
		ret = syms_load_kallsyms(s, ks, &err);
		if (ret == -ENODATA && dflt) {
			/* Default source without usable addresses: silently run without symbols. */
			syms_free(s);
		} else if (ret) {
			sm_err("%s: %s", ks, err.msg);
			syms_free(s);
			return SM_EXIT_USAGE;
		} else {
			*have_syms = 1;
		}
	}
	if (sm_opts.vmlinux) {
		ret = syms_load_elf(s, sm_opts.vmlinux, sm_opts.lines, &err);
		if (ret) {
			sm_err("%s: %s", sm_opts.vmlinux, err.msg);
			syms_free(s);
			return SM_EXIT_USAGE;
		}
		*have_syms = 1;
	} else if (sm_opts.lines) {
		sm_err("--lines needs --vmlinux");
		syms_free(s);
		return SM_EXIT_USAGE;
	}
	syms_finish(s);
	return 0;
}

/* 1 when @path starts with the trace.dat magic, 0 when not, -errno when unreadable. */
int sm_is_tracedat(const char *path)
{
	char head[TD_MAGIC_LEN];
	ssize_t n;
	int fd;

	if (!strcmp(path, "-"))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n < 0)
		return -errno;
	return td_is_tracedat(head, (size_t)n);
}

/* DIR/name for the directory that holds @file. */
char *sm_sibling(const char *file, const char *name)
{
	const char *slash = strrchr(file, '/');
	size_t n = slash ? (size_t)(slash - file) + 1 : 0, len = n + strlen(name) + 1;
	char *p = malloc(len);

	if (p) {
		memcpy(p, file, n);
		strcpy(p + n, name);
	}
	return p;
}

int sm_syms_check_map(const struct syms *s, const struct smbin_map *map)
{
	struct syms_match m = {0};
	size_t i;

	for (i = 0; i < map->nr; i++)
		if (syms_mismatch(s, map->stacks[i].ips, map->stacks[i].nr, &m))
			return 0;
	if (!syms_match_suspect(&m))
		return 0;
	sm_err("warning: %zu of %zu frames resolve to no kernel symbol or lie more than 64 KiB "
	       "into one: the symbols do not belong to this recording (another kernel or boot?)",
	       m.unresolved + m.far, m.n);
	return 1;
}

static char sm_map_error[512];

void sm_map_error_flush(void)
{
	if (sm_map_error[0])
		sm_err("%s", sm_map_error);
	sm_map_error[0] = '\0';
}

int sm_load_map_buf(const char *what, const void *data, size_t len, struct smbin_map *map,
		    int defer)
{
	struct smbin_err err;
	char *buf = malloc(len + 1);
	int ret;

	memset(map, 0, sizeof(*map));
	if (!buf) {
		sm_err("out of memory");
		return SM_EXIT_USAGE;
	}
	memcpy(buf, data, len);
	ret = smbin_decode_owned(buf, len, map, &err);
	if (ret == -EBADMSG) {
		snprintf(sm_map_error, sizeof(sm_map_error), "%s: offset %llu: %s", what,
			 (unsigned long long)err.offset, err.msg);
		if (!defer)
			sm_map_error_flush();
		return SM_EXIT_DATA;
	}
	if (ret) {
		sm_err("%s: %s", what, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	return 0;
}

int sm_load_map(const char *path, struct smbin_map *map, int defer)
{
	struct smbin_err err;
	size_t len;
	char *buf;
	int ret;

	memset(map, 0, sizeof(*map));
	ret = smbin_read_file(path, &buf, &len);
	if (ret) {
		sm_err("%s: %s", path, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	ret = smbin_decode_owned(buf, len, map, &err);
	if (ret == -EBADMSG) {
		snprintf(sm_map_error, sizeof(sm_map_error), "%s: offset %llu: %s", path,
			 (unsigned long long)err.offset, err.msg);
		if (!defer)
			sm_map_error_flush();
		return SM_EXIT_DATA;
	}
	if (ret) {
		sm_err("%s: %s", path, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	return 0;
}

/* Buffered output --------------------------------------------------------------------- */

#define SM_OUT_CAP (1u << 16)

int sm_out_init(struct sm_out *o, FILE *f)
{
	o->f = f;
	o->len = 0;
	o->cap = SM_OUT_CAP;
	o->buf = malloc(o->cap);
	return o->buf ? 0 : -ENOMEM;
}

void sm_out_flush(struct sm_out *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
}

int sm_out_done(struct sm_out *o)
{
	int ret;

	sm_out_flush(o);
	free(o->buf);
	o->buf = NULL;
	ret = fflush(o->f) || ferror(o->f) ? -EIO : 0;
	return ret;
}

void sm_out_mem(struct sm_out *o, const char *s, size_t n)
{
	if (o->len + n > o->cap) {
		sm_out_flush(o);
		if (n > o->cap) {
			fwrite(s, 1, n, o->f);
			return;
		}
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void sm_out_str(struct sm_out *o, const char *s)
{
	sm_out_mem(o, s, strlen(s));
}

void sm_out_chr(struct sm_out *o, char c)
{
	if (o->len == o->cap)
		sm_out_flush(o);
	o->buf[o->len++] = c;
}

void sm_out_u64(struct sm_out *o, uint64_t v)
{
	char tmp[24];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sm_out_mem(o, tmp + i, sizeof(tmp) - (size_t)i);
}

static const char sm_hexdig[] = "0123456789abcdef";

void sm_out_hex16(struct sm_out *o, uint64_t v)
{
	char tmp[18];
	int i;

	tmp[0] = '0';
	tmp[1] = 'x';
	for (i = 17; i >= 2; i--) {
		tmp[i] = sm_hexdig[v & 0xf];
		v >>= 4;
	}
	sm_out_mem(o, tmp, sizeof(tmp));
}

void sm_out_fmt(struct sm_out *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(tmp)) {
		char *big = malloc((size_t)n + 1);

		if (!big)
			return;
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sm_out_mem(o, big, (size_t)n);
		free(big);
		return;
	}
	sm_out_mem(o, tmp, (size_t)n);
}

/* Frame formatting cache -------------------------------------------------------------- */

void sm_frames_init(struct sm_frames *fr, const struct syms *syms, int lines)
{
	memset(fr, 0, sizeof(*fr));
	fr->syms = syms;
	fr->lines = lines;
	htab_init(&fr->idx, 1024);
}

void sm_frames_free(struct sm_frames *fr)
{
	free(fr->ents);
	htab_free(&fr->idx);
	free(fr->text);
	memset(fr, 0, sizeof(*fr));
}

static int sm_frame_format(struct sm_frames *fr, uint64_t addr, enum sm_frame_style style,
			   char *buf, size_t len)
{
	const struct syms_sym *sym;
	const char *file;
	uint64_t off;
	int n, line;

	if (addr == SMBIN_TRAMPOLINE) {
		snprintf(buf, len, "[FTRACE TRAMPOLINE]");
		return 1;
	}
	sym = fr->syms ? syms_lookup(fr->syms, addr, &off) : NULL;
	if (!sym) {
		snprintf(buf, len, "0x%016llx", (unsigned long long)addr);
		return 0;
	}
	if (style == SM_FRAME_FOLDED)
		n = snprintf(buf, len, "%s", sym->name);
	else
		n = snprintf(buf, len, "%s+0x%llx/0x%llx", sym->name, (unsigned long long)off,
			     (unsigned long long)sym->size);
	if (sym->mod && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " [%s]", sym->mod);
	if (style == SM_FRAME_FULL && fr->lines && n >= 0 && (size_t)n < len &&
	    syms_srcline(fr->syms, addr, &file, &line) == 0)
		snprintf(buf + n, len - (size_t)n, " %s:%d", file, line);
	return 1;
}

static uint64_t sm_frame_hash(uint64_t addr, unsigned int style)
{
	uint64_t h = (addr ^ style) * 0x9E3779B97F4A7C15ull;

	return h ^ (h >> 29);
}

struct sm_frame_key {
	uint64_t addr;
	unsigned int folded;
};

static int sm_frame_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct sm_frame_ent *e = &((const struct sm_frames *)ctx)->ents[idx];
	const struct sm_frame_key *k = key;

	return e->addr == k->addr && e->style == k->folded;
}

static const char *sm_frame_len(struct sm_frames *fr, uint64_t addr, enum sm_frame_style style,
				int *resolved, size_t *lenp)
{
	static char scratch[1024];
	struct sm_frame_key key;
	struct sm_frame_ent *e;
	uint32_t idx;
	uint64_t h;
	size_t j, n;
	int res;

	key.addr = addr;
	key.folded = style == SM_FRAME_FOLDED;
	h = sm_frame_hash(addr, style);
	if (htab_reserve(&fr->idx))
		goto uncached;
	idx = htab_find(&fr->idx, h, sm_frame_eq, fr, &key, &j);
	if (idx != HTAB_NONE) {
		e = &fr->ents[idx];
		if (resolved)
			*resolved = e->resolved;
		*lenp = e->len;
		return fr->text + e->off;
	}
	if (fr->nents == fr->cap) {
		size_t ncap = fr->cap ? fr->cap * 2 : 512;

		e = realloc(fr->ents, ncap * sizeof(*e));
		if (!e)
			goto uncached;
		fr->ents = e;
		fr->cap = ncap;
	}
	res = sm_frame_format(fr, addr, style, scratch, sizeof(scratch));
	n = strlen(scratch) + 1;
	if (fr->tlen + n > UINT32_MAX)
		goto uncached;
	if (fr->tlen + n > fr->tcap) {
		size_t ncap = fr->tcap ? fr->tcap * 2 : 65536;
		char *t;

		while (ncap < fr->tlen + n)
			ncap *= 2;
		t = realloc(fr->text, ncap);
		if (!t)
			goto uncached;
		fr->text = t;
		fr->tcap = ncap;
	}
	memcpy(fr->text + fr->tlen, scratch, n);
	e = &fr->ents[fr->nents];
	e->addr = addr;
	e->style = key.folded;
	e->resolved = res != 0;
	e->off = (uint32_t)fr->tlen;
	e->len = (uint16_t)(n - 1);
	fr->tlen += n;
	htab_insert_at(&fr->idx, j, h, (uint32_t)fr->nents++);
	if (resolved)
		*resolved = res;
	*lenp = n - 1;
	return fr->text + e->off;
uncached:
	res = sm_frame_format(fr, addr, style, scratch, sizeof(scratch));
	if (resolved)
		*resolved = res;
	*lenp = strlen(scratch);
	return scratch;
}

const char *sm_frame(struct sm_frames *fr, uint64_t addr, enum sm_frame_style style, int *resolved)
{
	size_t len;

	return sm_frame_len(fr, addr, style, resolved, &len);
}

void sm_out_frame(struct sm_out *o, struct sm_frames *fr, uint64_t addr, enum sm_frame_style style)
{
	size_t len;
	const char *s = sm_frame_len(fr, addr, style, NULL, &len);

	sm_out_mem(o, s, len);
}
