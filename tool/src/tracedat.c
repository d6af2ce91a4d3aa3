// SPDX-License-Identifier: GPL-2.0
/*
 * tracedat - trace.dat reader (versions 6 and 7) and version 6 writer. See tracedat.h and
 * doc/TRACEDAT.md. Written from the trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5) manual pages;
 * ring-buffer pages are walked with libtraceevent's kbuffer, event formats and field layouts
 * come from libtraceevent's parser.
 */
#define _GNU_SOURCE
#include "tracedat.h"
#include "smbin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define TD_MAX_SECTIONS	  256 /* bound on the option-section chain of version 7 */
#define TD_MAX_EXPANSION  1024 /* decompressed size <= this * compressed size + 1 MiB */
#define TD_COMMIT_MASK	  ((1u << 27) - 1)
#define TD_MISSED_EVENTS  (1u << 31)
#define TD_PAGE_SLACK	  64 /* zeroed bytes after a page copy: kbuffer reads headers ahead */
#define TD_MAX_FORMAT_LEN (1u << 20)
#define TD_MAX_DEF_FRAMES 64 /* the frames of a stack (FTRACE_STACKMAP_BIN_MAX_DEPTH) */

/* v7 option ids (trace-cmd.dat.v7(5)) */
enum {
	TD_OPT_DONE = 0,
	TD_OPT_DATE = 1, /* ASCII "0x<hex>" microseconds, NUL-terminated (trace-cmd) */
	TD_OPT_CPUSTAT = 2,
	TD_OPT_BUFFER = 3,
	TD_OPT_TRACECLOCK = 4,
	TD_OPT_CPUCOUNT = 8,
	TD_OPT_HEADER_INFO = 16,
	TD_OPT_FTRACE_EVENTS = 17,
	TD_OPT_EVENT_FORMATS = 18,
	TD_OPT_KALLSYMS = 19,
	TD_OPT_PRINTK = 20,
	TD_OPT_CMDLINES = 21,
	TD_OPT_BUFFER_TEXT = 22,
};

/* Option DATE: "0x1a2b" (or "-0x..", or decimal) microseconds from trace time to wall clock. */
static void td_opt_date(struct td_file *td, const uint8_t *d, size_t n)
{
	char txt[32], *end;
	long long us;

	if (!n || n >= sizeof(txt))
		return;
	memcpy(txt, d, n);
	txt[n] = '\0';
	errno = 0;
	us = strtoll(txt, &end, 0);
	if (end == txt || errno || us > INT64_MAX / 1000 || us < INT64_MIN / 1000)
		return;
	td->have_date = 1;
	td->date_offset_ns = (int64_t)us * 1000;
}

enum { TD_COMP_NONE, TD_COMP_ZSTD, TD_COMP_ZLIB };

/* A bounded reader over part of the file (or of a decompressed section). */
struct td_cur {
	const uint8_t *p;
	size_t len, pos;
	uint64_t base; /* file offset of p[0], for messages */
	int be;
	struct td_err *err;
};

static int td_fail(struct td_err *err, uint64_t off, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int td_fail(struct td_err *err, uint64_t off, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->offset = off;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return ret;
}

static int cur_need(struct td_cur *c, size_t n, const char *what)
{
	if (c->len - c->pos >= n)
		return 0;
	return td_fail(c->err, c->base + c->pos, -EBADMSG, "truncated %s: %zu of %zu bytes", what,
		       c->len - c->pos, n);
}

static uint64_t td_get(const uint8_t *p, int n, int be)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

static int cur_num(struct td_cur *c, int n, uint64_t *v, const char *what)
{
	*v = 0;
	if (cur_need(c, (size_t)n, what))
		return -EBADMSG;
	*v = td_get(c->p + c->pos, n, c->be);
	c->pos += (size_t)n;
	return 0;
}

/* A NUL-terminated string; *s points into the buffer. */
static int cur_str(struct td_cur *c, const char **s, const char *what)
{
	const uint8_t *nul = memchr(c->p + c->pos, '\0', c->len - c->pos);

	*s = "";
	if (!nul)
		return td_fail(c->err, c->base + c->pos, -EBADMSG, "%s: no terminating NUL", what);
	*s = (const char *)c->p + c->pos;
	c->pos = (size_t)(nul - c->p) + 1;
	return 0;
}

/* A block of @n bytes preceded by its size (@szlen bytes). */
static int cur_block(struct td_cur *c, int szlen, const uint8_t **data, size_t *n, const char *what)
{
	uint64_t sz;

	*data = NULL;
	*n = 0;
	if (cur_num(c, szlen, &sz, what))
		return -EBADMSG;
	if (sz > c->len - c->pos)
		return td_fail(c->err, c->base + c->pos - (size_t)szlen, -EBADMSG,
			       "%s of %llu bytes runs past the end (%zu left)", what,
			       (unsigned long long)sz, c->len - c->pos);
	*data = c->p + c->pos;
	*n = (size_t)sz;
	c->pos += (size_t)sz;
	return 0;
}

int td_is_tracedat(const void *buf, size_t len)
{
	return len >= TD_MAGIC_LEN && memcmp(buf, TD_MAGIC, TD_MAGIC_LEN) == 0;
}

static char *td_own(struct td_file *td, size_t n)
{
	char **v, *p;

	v = realloc(td->owned, (td->nowned + 1) * sizeof(*v));
	if (!v)
		return NULL;
	td->owned = v;
	p = malloc(n + 1);
	if (!p)
		return NULL;
	p[n] = '\0';
	td->owned[td->nowned++] = p;
	return p;
}

/* Section bodies, the same in both versions --------------------------------------------- */

static int td_header_info(struct td_file *td, struct td_cur *c)
{
	const uint8_t *d;
	const char *s;
	size_t n;
	char *copy;

	if (cur_str(c, &s, "header_page tag"))
		return -EBADMSG;
	if (strcmp(s, "header_page"))
		return td_fail(c->err, c->base + c->pos - strlen(s) - 1, -EBADMSG,
			       "expected \"header_page\"");
	if (cur_block(c, 8, &d, &n, "header_page"))
		return -EBADMSG;
	copy = td_own(td, n);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, d, n);
	/* A header_page libtraceevent cannot parse leaves its defaults (the kernel's layout). */
	tep_parse_header_page(td->tep, copy, n, td->long_size);
	if (cur_str(c, &s, "header_event tag"))
		return -EBADMSG;
	if (strcmp(s, "header_event"))
		return td_fail(c->err, c->base + c->pos - strlen(s) - 1, -EBADMSG,
			       "expected \"header_event\"");
	return cur_block(c, 8, &d, &n, "header_event");
}

static int td_is_num(const char *p, const char *end, unsigned long *v)
{
	unsigned long n = 0;
	const char *q = p;

	while (q < end && *q >= '0' && *q <= '9' && q - p < 9)
		n = n * 10 + (unsigned long)(*q++ - '0');
	*v = n;
	return q > p && q == end;
}

/*
 * td_format_ok() - the part of a format before "print fmt:" follows the kernel's grammar:
 * "name: N", "ID: N", "format:", then empty lines and
 * "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" lines with sane numbers (an array DECL[K]
 * needs K >= 1 dividing a size >= K; size 0 only for a flexible array DECL[]). libtraceevent 1.7's field parser crashes on other input
 * (fuzz_tracedat found a NULL strcmp and a division by zero), so nothing else reaches it.
 */
static int td_format_ok(const char *text, size_t n)
{
	const char *p = text, *end = text + n;
	int line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q, *br;
		unsigned long off, size, sign, k;

		if (!nl)
			nl = end;
		for (q = p; q < nl; q++)
			if ((unsigned char)*q < 0x20 ? *q != '\t' : (unsigned char)*q >= 0x7f)
				return 0;
		if (line == 0 && (nl - p < 7 || memcmp(p, "name: ", 6)))
			return 0;
		if (line == 1 && (nl - p < 5 || memcmp(p, "ID: ", 4) || !td_is_num(p + 4, nl, &k)))
			return 0;
		if (line == 2 && (nl - p != 7 || memcmp(p, "format:", 7)))
			return 0;
		if (line > 2 && nl > p) {
			const char *o = memmem(p, (size_t)(nl - p), ";\toffset:", 9);
			const char *z = o ? memmem(o, (size_t)(nl - o), ";\tsize:", 7) : NULL;
			const char *g = z ? memmem(z, (size_t)(nl - z), ";\tsigned:", 9) : NULL;

			if (nl - p < 8 || memcmp(p, "\tfield:", 7) || !o || !z || !g ||
			    nl[-1] != ';' || !td_is_num(o + 9, z, &off) ||
			    !td_is_num(z + 7, g, &size) || !td_is_num(g + 9, nl - 1, &sign) ||
			    size > 65536 || off > 65536 || sign > 1)
				return 0;
			for (q = p + 7; q < o; q++)
				if (!(*q == '_' || *q == ' ' || *q == '*' || *q == '[' ||
				      *q == ']' || (*q >= 'a' && *q <= 'z') ||
				      (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')))
					return 0;
			br = memchr(p + 7, '[', (size_t)(o - p - 7));
			if (br) {
				const char *cl = memchr(br, ']', (size_t)(o - br));

				if (!cl || memchr(cl + 1, '[', (size_t)(o - cl - 1)))
					return 0;
				if (cl > br + 1 &&
				    (!td_is_num(br + 1, cl, &k) || !k || size < k || size % k))
					return 0;
			} else if (size == 0) {
				return 0; /* only a flexible array ("buf[]") has size 0 */
			}
		}
		line++;
		p = nl + 1;
	}
	return line > 3;
}

/*
 * Parse one event format for its fields only. The "print fmt:" part is replaced by an empty
 * one: the reader never formats events, and libtraceevent 1.7's print-format parser crashes
 * on malformed input, so untrusted print formats never reach it; the rest must pass
 * td_format_ok().
 */
static void td_parse_format(struct td_file *td, const char *text, size_t n, const char *sys)
{
	static const char empty[] = "\nprint fmt: \"\"\n";
	const char *pf = memmem(text, n, "\nprint fmt:", 11);
	size_t keep = pf ? (size_t)(pf - text) : n;
	char *copy;

	if (n > TD_MAX_FORMAT_LEN || !td_format_ok(text, keep))
		return;
	copy = malloc(keep + sizeof(empty));
	if (!copy)
		return;
	memcpy(copy, text, keep);
	memcpy(copy + keep, empty, sizeof(empty));
	/* Formats libtraceevent rejects are skipped, as trace-cmd does. */
	tep_parse_event(td->tep, copy, keep + sizeof(empty) - 1, sys);
	free(copy);
}

static int td_formats(struct td_file *td, struct td_cur *c, const char *sys)
{
	uint64_t cnt, i;
	const uint8_t *d;
	size_t n;

	if (cur_num(c, 4, &cnt, "event format count"))
		return -EBADMSG;
	for (i = 0; i < cnt; i++) {
		if (cur_block(c, 8, &d, &n, "event format"))
			return -EBADMSG;
		td_parse_format(td, (const char *)d, n, sys);
	}
	return 0;
}

static int td_systems(struct td_file *td, struct td_cur *c)
{
	uint64_t cnt, i;
	const char *sys;

	if (cur_num(c, 4, &cnt, "event system count"))
		return -EBADMSG;
	for (i = 0; i < cnt; i++) {
		if (cur_str(c, &sys, "event system name"))
			return -EBADMSG;
		if (td_formats(td, c, sys))
			return -EBADMSG;
	}
	return 0;
}

static int td_kallsyms(struct td_file *td, struct td_cur *c)
{
	const uint8_t *d;
	size_t n;
	char *copy;

	if (cur_block(c, 4, &d, &n, "kallsyms"))
		return -EBADMSG;
	copy = td_own(td, n);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, d, n);
	td->kallsyms = copy;
	td->kallsyms_len = n;
	return 0;
}

static int td_cmdlines(struct td_file *td, struct td_cur *c)
{
	const uint8_t *d;
	size_t n;
	char *copy;

	if (cur_block(c, 8, &d, &n, "saved cmdlines"))
		return -EBADMSG;
	copy = td_own(td, n);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, d, n);
	td->cmdlines = copy;
	td->cmdlines_len = n;
	return 0;
}

static int td_skip_block(struct td_cur *c, int szlen, const char *what)
{
	const uint8_t *d;
	size_t n;

	return cur_block(c, szlen, &d, &n, what);
}

/* Decompression -------------------------------------------------------------------------- */

static int td_inflate(int comp, const uint8_t *src, size_t slen, uint8_t *dst, size_t dlen)
{
	if (comp == TD_COMP_ZSTD) {
		size_t r = ZSTD_decompress(dst, dlen, src, slen);

		return ZSTD_isError(r) || r != dlen ? -EBADMSG : 0;
	}
	if (comp == TD_COMP_ZLIB) {
		uLongf out = (uLongf)dlen;

		if (uncompress(dst, &out, src, (uLong)slen) != Z_OK || out != dlen)
			return -EBADMSG;
		return 0;
	}
	return -EBADMSG;
}

static int td_check_expansion(struct td_cur *c, uint64_t csize, uint64_t usize)
{
	if (usize > csize * TD_MAX_EXPANSION + (1u << 20))
		return td_fail(c->err, c->base + c->pos, -EBADMSG,
			       "compressed block of %llu bytes claims %llu bytes uncompressed",
			       (unsigned long long)csize, (unsigned long long)usize);
	return 0;
}

/* Buffers -------------------------------------------------------------------------------- */

/* "buffer \"NAME\": " before a message about a named buffer, "" for the top level's. */
static const char *td_bpre(const char *name, char *buf, size_t size)
{
	if (!*name)
		return "";
	snprintf(buf, size, "buffer \"%.64s\": ", name);
	return buf;
}

/* A new, zeroed entry at the end of td->buffers (their number is bounded by the file size). */
static struct td_buffer *td_add_buffer(struct td_file *td, const char *name, uint64_t offset)
{
	struct td_buffer *b;

	if (!(td->nbuffers & (td->nbuffers - 1))) {
		b = realloc(td->buffers,
			    (size_t)(td->nbuffers ? td->nbuffers * 2 : 1) * sizeof(*b));
		if (!b)
			return NULL;
		td->buffers = b;
	}
	b = &td->buffers[td->nbuffers++];
	memset(b, 0, sizeof(*b));
	b->name = name;
	b->offset = offset;
	return b;
}

struct td_bkey {
	uint64_t off;
	const char *name;
};

static int td_bkey_name(const void *a, const void *b)
{
	const struct td_bkey *x = a, *y = b;
	int d = strcmp(x->name, y->name);

	return d ? d : (x->off > y->off) - (x->off < y->off);
}

static int td_bkey_off(const void *a, const void *b)
{
	const struct td_bkey *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

/*
 * No two buffers share a name; with @width (v6), no two CPU tables, each @width bytes from
 * its offset, overlap: every table is read into an array of its own, so the memory of the
 * tables stays bounded by the file size.
 */
static int td_check_buffers(struct td_file *td, uint64_t width, struct td_err *err)
{
	struct td_bkey *k = calloc((size_t)td->nbuffers + 1, sizeof(*k));
	char pre[96];
	int i, ret = 0;

	if (!k)
		return -ENOMEM;
	for (i = 0; i < td->nbuffers; i++)
		k[i] = (struct td_bkey){.off = td->buffers[i].offset, .name = td->buffers[i].name};
	qsort(k, (size_t)td->nbuffers, sizeof(*k), td_bkey_name);
	for (i = 1; i < td->nbuffers && !ret; i++)
		if (!strcmp(k[i].name, k[i - 1].name))
			ret = td_fail(err, k[i].off, -EBADMSG, "%ssecond buffer of that name",
				      *k[i].name ? td_bpre(k[i].name, pre, sizeof(pre))
						 : "buffer \"\" (the top level): ");
	if (width) {
		qsort(k, (size_t)td->nbuffers, sizeof(*k), td_bkey_off);
		for (i = 1; i < td->nbuffers && !ret; i++)
			if (k[i].off - k[i - 1].off < width)
				ret = td_fail(err, k[i].off, -EBADMSG,
					      "%sits CPU table overlaps the one at offset %llu",
					      td_bpre(k[i].name, pre, sizeof(pre)),
					      (unsigned long long)k[i - 1].off);
	}
	free(k);
	return ret;
}

int td_buffer_find(const struct td_file *td, const char *name)
{
	int i;

	for (i = 0; i < td->nbuffers; i++)
		if (!strcmp(td->buffers[i].name, name))
			return i;
	return -1;
}

int td_buffer_default(const struct td_file *td)
{
	int top = td_buffer_find(td, ""), found = -1, holders = 0, i;

	if (top >= 0 && td->buffers[top].data_size)
		return top;
	for (i = 0; i < td->nbuffers; i++) {
		if (i != top && td->buffers[i].data_size) {
			found = i;
			holders++;
		}
	}
	if (holders == 1)
		return found;
	if (holders > 1)
		return -1;
	return top >= 0 ? top : 0;
}

/* Version 7 ------------------------------------------------------------------------------ */

struct td_v7 {
	int comp;
	uint64_t sect[32]; /* section offsets by option id (16..22 used) */
	struct td_v7_bopt { /* the BUFFER options, read after the other sections */
		const uint8_t *d;
		size_t n;
		uint64_t base;
	} * bopts;
	size_t nbopts, bcap;
};

/*
 * The header of the section at @off: its id must be @want_id and its size fit in the file.
 * Return the position of its body in @*pos, its flags and size; @pre starts the messages.
 */
static int td_v7_header(struct td_file *td, uint64_t off, unsigned int want_id, const char *pre,
			size_t *pos, uint64_t *flags, uint64_t *size, struct td_err *err)
{
	struct td_cur c = {.p = td->buf, .len = td->len, .be = td->big_endian, .err = err};
	uint64_t id, strid;

	if (off > td->len)
		return td_fail(err, off, -EBADMSG, "%ssection offset %llu is past the end (%zu)",
			       pre, (unsigned long long)off, td->len);
	c.pos = (size_t)off;
	if (cur_num(&c, 2, &id, "section header") || cur_num(&c, 2, flags, "section header") ||
	    cur_num(&c, 4, &strid, "section header") || cur_num(&c, 8, size, "section header"))
		return -EBADMSG;
	if (id != want_id)
		return td_fail(err, off, -EBADMSG, "%ssection id %llu, expected %u", pre,
			       (unsigned long long)id, want_id);
	if (*size > td->len - c.pos)
		return td_fail(err, off + 8, -EBADMSG, "%ssection of %llu bytes runs past the end",
			       pre, (unsigned long long)*size);
	*pos = c.pos;
	return 0;
}

/* Open the section at @off: check its id, decompress it if needed, return a cursor on it. */
static int td_v7_section(struct td_file *td, struct td_v7 *v, uint64_t off, unsigned int want_id,
			 struct td_cur *out, struct td_err *err)
{
	struct td_cur c = {.p = td->buf, .len = td->len, .be = td->big_endian, .err = err};
	uint64_t flags, size, csize, usize;
	const uint8_t *d;
	uint8_t *u;
	int ret;

	ret = td_v7_header(td, off, want_id, "", &c.pos, &flags, &size, err);
	if (ret)
		return ret;
	if (!(flags & 1)) {
		*out = (struct td_cur){.p = td->buf + c.pos,
				       .len = (size_t)size,
				       .base = c.pos,
				       .be = td->big_endian,
				       .err = err};
		return 0;
	}
	if (v->comp == TD_COMP_NONE)
		return td_fail(err, off + 2, -EBADMSG,
			       "compressed section in an uncompressed file");
	c.len = c.pos + (size_t)size;
	if (cur_num(&c, 4, &csize, "compression header") ||
	    cur_num(&c, 4, &usize, "compression header"))
		return -EBADMSG;
	if (csize > c.len - c.pos)
		return td_fail(err, c.pos - 8, -EBADMSG,
			       "compressed size %llu runs past the section",
			       (unsigned long long)csize);
	if (td_check_expansion(&c, csize, usize))
		return -EBADMSG;
	d = c.p + c.pos;
	u = (uint8_t *)td_own(td, (size_t)usize);
	if (!u)
		return -ENOMEM;
	if (td_inflate(v->comp, d, (size_t)csize, u, (size_t)usize))
		return td_fail(err, c.pos, -EBADMSG, "section %u does not decompress", want_id);
	*out = (struct td_cur){
		.p = u, .len = (size_t)usize, .base = c.pos, .be = td->big_endian, .err = err};
	return 0;
}

static int td_v7_options(struct td_file *td, struct td_v7 *v, uint64_t off, struct td_err *err)
{
	int hops;

	for (hops = 0; off && hops < TD_MAX_SECTIONS; hops++) {
		struct td_cur c;
		uint64_t id, size, next = 0;
		int done = 0;

		if (td_v7_section(td, v, off, 0, &c, err))
			return -EBADMSG;
		while (!done) {
			const uint8_t *d;
			size_t n;

			if (cur_num(&c, 2, &id, "option id"))
				return -EBADMSG;
			if (cur_num(&c, 4, &size, "option size"))
				return -EBADMSG;
			if (size > c.len - c.pos)
				return td_fail(err, c.base + c.pos - 4, -EBADMSG,
					       "option %llu of %llu bytes runs past its section",
					       (unsigned long long)id, (unsigned long long)size);
			d = c.p + c.pos;
			n = (size_t)size;
			c.pos += n;
			if (id == TD_OPT_DONE) {
				if (n < 8)
					return td_fail(err, c.base + c.pos - n, -EBADMSG,
						       "DONE option of %zu bytes", n);
				next = td_get(d, 8, td->big_endian);
				done = 1;
			} else if (id >= TD_OPT_HEADER_INFO && id <= TD_OPT_BUFFER_TEXT) {
				if (n < 8)
					return td_fail(err, c.base + c.pos - n, -EBADMSG,
						       "option %llu of %zu bytes",
						       (unsigned long long)id, n);
				v->sect[id] = td_get(d, 8, td->big_endian);
			} else if (id == TD_OPT_STACKMAP) {
				td->stackmap = d;
				td->stackmap_len = n;
			} else if (id == TD_OPT_DATE) {
				td_opt_date(td, d, n);
			} else if (id == TD_OPT_BUFFER) {
				/* one per instance: "" is the top level (read by td_v7_buffer()) */
				if (v->nbopts == v->bcap) {
					size_t cap = v->bcap ? v->bcap * 2 : 4;
					struct td_v7_bopt *nb =
						realloc(v->bopts, cap * sizeof(*nb));

					if (!nb)
						return -ENOMEM;
					v->bopts = nb;
					v->bcap = cap;
				}
				v->bopts[v->nbopts++] = (struct td_v7_bopt){
					.d = d, .n = n, .base = c.base + c.pos - n};
			}
		}
		if (next == off)
			return td_fail(err, off, -EBADMSG, "options section points to itself");
		off = next;
	}
	if (off)
		return td_fail(err, off, -EBADMSG, "more than %d options sections",
			       TD_MAX_SECTIONS);
	return 0;
}

/* Decompress one CPU's chunks into a single buffer; @pre starts the messages. */
static int td_v7_cpu_inflate(struct td_file *td, struct td_cpu *cpu, const char *pre,
			     struct td_err *err)
{
	/* The recorded size leaves out the 4-byte chunk count, so bound by the file instead. */
	struct td_cur c = {.p = td->buf + cpu->file_offset,
			   .len = td->len - (size_t)cpu->file_offset,
			   .base = cpu->file_offset,
			   .be = td->big_endian,
			   .err = err};
	uint64_t count, i, total = 0, csize, usize;
	size_t save;
	uint8_t *out;

	if (cur_num(&c, 4, &count, "chunk count"))
		return -EBADMSG;
	save = c.pos;
	for (i = 0; i < count; i++) {
		if (cur_num(&c, 4, &csize, "chunk header") ||
		    cur_num(&c, 4, &usize, "chunk header"))
			return -EBADMSG;
		if (csize > c.len - c.pos)
			return td_fail(err, c.base + c.pos - 8, -EBADMSG,
				       "%schunk %llu of %llu bytes runs past the CPU data", pre,
				       (unsigned long long)i, (unsigned long long)csize);
		if (td_check_expansion(&c, csize, usize))
			return -EBADMSG;
		c.pos += (size_t)csize;
		total += usize;
	}
	out = (uint8_t *)td_own(td, (size_t)total);
	if (!out)
		return -ENOMEM;
	c.pos = save;
	total = 0;
	for (i = 0; i < count; i++) {
		cur_num(&c, 4, &csize, "chunk header");
		cur_num(&c, 4, &usize, "chunk header");
		if (td_inflate(td->comp, c.p + c.pos, (size_t)csize, out + total, (size_t)usize))
			return td_fail(err, c.base + c.pos, -EBADMSG,
				       "%schunk %llu of CPU %d does not decompress", pre,
				       (unsigned long long)i, cpu->cpu);
		c.pos += (size_t)csize;
		total += usize;
	}
	cpu->data = out;
	cpu->size = total;
	return 0;
}

/*
 * One BUFFER option: the offset of the buffer's flyrecord section, its name ("" for the top
 * level), clock, page size and a (CPU, offset, size) triple per CPU. Of the flyrecord section
 * only the header is read, as trace-cmd does: its flag 1 says the CPU data is compressed
 * chunks (the section itself has no compression header; an empty buffer's section is empty).
 */
static int td_v7_buffer(struct td_file *td, const struct td_v7_bopt *o, struct td_err *err)
{
	struct td_cur c = {
		.p = o->d, .len = o->n, .base = o->base, .be = td->big_endian, .err = err};
	uint64_t flyoff, psize, ncpu, i, cpu, off, size, flags, ssize;
	const char *name, *clock, *pre;
	struct td_buffer *b;
	char pb[96];
	size_t body;
	int ret;

	if (cur_num(&c, 8, &flyoff, "BUFFER option") || cur_str(&c, &name, "buffer name") ||
	    cur_str(&c, &clock, "buffer clock"))
		return -EBADMSG;
	pre = td_bpre(name, pb, sizeof(pb));
	if (cur_num(&c, 4, &psize, "buffer page size") || cur_num(&c, 4, &ncpu, "buffer CPU count"))
		return -EBADMSG;
	if (psize < 64 || psize > (1u << 24))
		return td_fail(err, c.base + c.pos - 8, -EBADMSG, "%sbuffer page size %llu", pre,
			       (unsigned long long)psize);
	if (ncpu > (c.len - c.pos) / 20)
		return td_fail(err, c.base + c.pos - 4, -EBADMSG,
			       "%sbuffer claims %llu CPUs, room for %zu", pre,
			       (unsigned long long)ncpu, (c.len - c.pos) / 20);
	ret = td_v7_header(td, flyoff, TD_OPT_BUFFER, pre, &body, &flags, &ssize, err);
	if (ret)
		return ret;
	if ((flags & 1) && td->comp == TD_COMP_NONE)
		return td_fail(err, flyoff + 2, -EBADMSG,
			       "%scompressed section in an uncompressed file", pre);
	b = td_add_buffer(td, name, o->base);
	if (!b)
		return -ENOMEM;
	b->page_size = (uint32_t)psize;
	b->compressed = flags & 1;
	b->cpus = calloc(ncpu + 1, sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	for (i = 0; i < ncpu; i++) {
		struct td_cpu *tc = &b->cpus[b->ncpus];

		cur_num(&c, 4, &cpu, "cpu");
		cur_num(&c, 8, &off, "cpu offset");
		cur_num(&c, 8, &size, "cpu size");
		if (off > td->len || size > td->len - off)
			return td_fail(
				err, c.base + c.pos - 16, -EBADMSG,
				"%sCPU %llu data (offset %llu, %llu bytes) is outside the file",
				pre, (unsigned long long)cpu, (unsigned long long)off,
				(unsigned long long)size);
		tc->cpu = (int)(cpu & 0x7fffffff);
		tc->file_offset = off;
		tc->data = td->buf + off;
		tc->size = size;
		b->ncpus++;
		b->data_size += size;
	}
	return 0;
}

static int td_v7_open(struct td_file *td, struct td_cur *c, struct td_err *err)
{
	const char *cname, *cver;
	struct td_v7 v;
	struct td_cur s;
	uint64_t optoff;
	size_t i;
	int ret;

	memset(&v, 0, sizeof(v));
	if (cur_str(c, &cname, "compression name") || cur_str(c, &cver, "compression version"))
		return -EBADMSG;
	if (!strcmp(cname, "none"))
		v.comp = TD_COMP_NONE;
	else if (!strcmp(cname, "zstd"))
		v.comp = TD_COMP_ZSTD;
	else if (!strcmp(cname, "zlib"))
		v.comp = TD_COMP_ZLIB;
	else
		return td_fail(err, c->pos - strlen(cver) - strlen(cname) - 2, -EPROTONOSUPPORT,
			       "unsupported compression \"%s\"", cname);
	td->comp = v.comp;
	if (cur_num(c, 8, &optoff, "options offset"))
		return -EBADMSG;
	ret = td_v7_options(td, &v, optoff, err);
	if (!ret && !v.sect[TD_OPT_HEADER_INFO])
		ret = td_fail(err, optoff, -EBADMSG, "no HEADER_INFO section");
	if (!ret)
		ret = td_v7_section(td, &v, v.sect[TD_OPT_HEADER_INFO], TD_OPT_HEADER_INFO, &s,
				    err);
	if (!ret)
		ret = td_header_info(td, &s);
	if (!ret && v.sect[TD_OPT_FTRACE_EVENTS]) {
		ret = td_v7_section(td, &v, v.sect[TD_OPT_FTRACE_EVENTS], TD_OPT_FTRACE_EVENTS, &s,
				    err);
		if (!ret)
			ret = td_formats(td, &s, "ftrace");
	}
	if (!ret && v.sect[TD_OPT_EVENT_FORMATS]) {
		ret = td_v7_section(td, &v, v.sect[TD_OPT_EVENT_FORMATS], TD_OPT_EVENT_FORMATS, &s,
				    err);
		if (!ret)
			ret = td_systems(td, &s);
	}
	if (!ret && v.sect[TD_OPT_KALLSYMS]) {
		ret = td_v7_section(td, &v, v.sect[TD_OPT_KALLSYMS], TD_OPT_KALLSYMS, &s, err);
		if (!ret)
			ret = td_kallsyms(td, &s);
	}
	if (!ret && v.sect[TD_OPT_CMDLINES]) {
		ret = td_v7_section(td, &v, v.sect[TD_OPT_CMDLINES], TD_OPT_CMDLINES, &s, err);
		if (!ret)
			ret = td_cmdlines(td, &s);
	}
	for (i = 0; !ret && i < v.nbopts; i++)
		ret = td_v7_buffer(td, &v.bopts[i], err);
	free(v.bopts);
	if (!ret && !td->nbuffers)
		ret = td_fail(err, 0, -EPROTONOSUPPORT,
			      "no flyrecord buffer (latency traces are not supported)");
	return ret ? ret : td_check_buffers(td, 0, err);
}

/* Version 6 ------------------------------------------------------------------------------ */

/* Options of version 6: ids and sizes; the ones read are kept, the others skipped. */
struct td_v6opts {
	uint64_t ncpu; /* CPUCOUNT, else the header's count: the entries of every CPU table */
};

static int td_v6_options(struct td_file *td, struct td_cur *c, struct td_v6opts *o,
			 struct td_err *err)
{
	/* (an instance's own options, before its table, are skipped: o is NULL) */
	uint64_t id, size, table;
	const uint8_t *d, *nul;

	for (;;) {
		if (cur_num(c, 2, &id, "option id"))
			return -EBADMSG;
		if (!id)
			return 0;
		if (cur_num(c, 4, &size, "option size") || cur_need(c, (size_t)size, "option"))
			return -EBADMSG;
		d = c->p + c->pos;
		if (!o) {
			/* skipped */
		} else if (id == TD_OPT_STACKMAP) {
			td->stackmap = d;
			td->stackmap_len = (size_t)size;
		} else if (id == TD_OPT_DATE) {
			td_opt_date(td, d, (size_t)size);
		} else if (id == TD_OPT_CPUCOUNT && size >= 4) {
			/* trace-cmd reads every CPU table with this count */
			o->ncpu = td_get(d, 4, c->be);
		} else if (id == TD_OPT_BUFFER) {
			/* an instance: the offset of its CPU table, its name */
			nul = size > 8 ? memchr(d + 8, '\0', (size_t)size - 8) : NULL;
			if (!nul || nul == d + 8)
				return td_fail(err, c->pos, -EBADMSG,
					       "BUFFER option of %llu bytes without a name",
					       (unsigned long long)size);
			table = td_get(d, 8, c->be);
			if (table > td->len - 10)
				return td_fail(
					err, c->pos, -EBADMSG,
					"buffer \"%.64s\": offset %llu is past the end (%zu)",
					(const char *)d + 8, (unsigned long long)table, td->len);
			if (!td_add_buffer(td, (const char *)d + 8, table))
				return -ENOMEM;
		}
		c->pos += (size_t)size;
	}
}

/*
 * A CPU table: "flyrecord\0" (after "options  \0" and options, which an instance's table may
 * have in trace-cmd's reader) and @ncpu (offset, size) pairs; @b gets the CPUs.
 */
static int td_v6_table(struct td_file *td, struct td_cur *c, struct td_buffer *b, uint64_t ncpu,
		       struct td_err *err)
{
	uint64_t off, size, i;
	const uint8_t *tag;
	const char *pre;
	char pb[96];

	pre = td_bpre(b->name, pb, sizeof(pb));
	if (cur_need(c, 10, "data tag"))
		return -EBADMSG;
	tag = c->p + c->pos;
	c->pos += 10;
	if (*b->name && !memcmp(tag, "options  \0", 10)) {
		if (td_v6_options(td, c, NULL, err) || cur_need(c, 10, "data tag"))
			return -EBADMSG;
		tag = c->p + c->pos;
		c->pos += 10;
	}
	if (!memcmp(tag, "latency  \0", 10))
		return td_fail(err, c->pos - 10, -EPROTONOSUPPORT,
			       "%slatency-format trace (text), not a flyrecord", pre);
	if (memcmp(tag, "flyrecord\0", 10))
		return td_fail(err, c->pos - 10, -EBADMSG,
			       *pre ? "%sexpected \"flyrecord\""
				    : "%sexpected \"options\", \"latency\" or \"flyrecord\"",
			       pre);
	if (ncpu > (c->len - c->pos) / 16)
		return td_fail(err, c->pos, -EBADMSG, "%s%llu CPUs but room for %zu", pre,
			       (unsigned long long)ncpu, (c->len - c->pos) / 16);
	b->cpus = calloc(ncpu + 1, sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	b->page_size = td->page_size;
	for (i = 0; i < ncpu; i++) {
		cur_num(c, 8, &off, "cpu offset");
		cur_num(c, 8, &size, "cpu size");
		if (off > td->len || size > td->len - off)
			return td_fail(
				err, c->pos - 16, -EBADMSG,
				"%sCPU %llu data (offset %llu, %llu bytes) is outside the file",
				pre, (unsigned long long)i, (unsigned long long)off,
				(unsigned long long)size);
		b->cpus[i] = (struct td_cpu){
			.cpu = (int)i, .data = td->buf + off, .size = size, .file_offset = off};
		b->data_size += size;
	}
	b->ncpus = (int)ncpu;
	return 0;
}

static int td_v6_open(struct td_file *td, struct td_cur *c, struct td_err *err)
{
	struct td_v6opts o = {0};
	struct td_buffer *top;
	const uint8_t *tag;
	int ret, i, named;

	ret = td_header_info(td, c);
	if (!ret)
		ret = td_formats(td, c, "ftrace");
	if (!ret)
		ret = td_systems(td, c);
	if (!ret)
		ret = td_kallsyms(td, c);
	if (!ret)
		ret = td_skip_block(c, 4, "printk formats");
	if (!ret)
		ret = td_cmdlines(td, c);
	if (!ret)
		ret = cur_num(c, 4, &o.ncpu, "CPU count");
	if (ret)
		return ret;
	if (cur_need(c, 10, "data tag"))
		return -EBADMSG;
	tag = c->p + c->pos;
	if (!memcmp(tag, "options  \0", 10)) {
		c->pos += 10;
		ret = td_v6_options(td, c, &o, err);
		if (ret)
			return ret;
	}
	/* the top level's table follows; the instances' BUFFER options came first */
	named = td->nbuffers;
	top = td_add_buffer(td, "", c->pos);
	if (!top)
		return -ENOMEM;
	ret = td_v6_table(td, c, top, o.ncpu, err);
	/* (before the instances' tables are read: their arrays fit in the file that way) */
	if (!ret)
		ret = td_check_buffers(td, 10 + 16 * o.ncpu, err);
	for (i = 0; !ret && i < named; i++) {
		c->pos = (size_t)td->buffers[i].offset;
		ret = td_v6_table(td, c, &td->buffers[i], o.ncpu, err);
	}
	if (!ret && named) {
		/* file order: the top level first */
		struct td_buffer t = td->buffers[named];

		memmove(td->buffers + 1, td->buffers, (size_t)named * sizeof(t));
		td->buffers[0] = t;
	}
	return ret;
}

/* Common --------------------------------------------------------------------------------- */

static void td_find_stack_events(struct td_file *td)
{
	struct tep_format_field *f;
	struct tep_event *e;

	td->id_stack_id = td->id_kernel_stack = td->id_user_stack = td->id_stack_def = -1;
	td->def_sw_off = -1;
	e = tep_find_event_by_name(td->tep, "ftrace", "kernel_stack_id");
	f = e ? tep_find_field(e, "stack_id") : NULL;
	if (f && f->size >= 1 && f->size <= 8 && f->offset >= 0) {
		td->id_stack_id = e->id;
		td->stack_id_off = f->offset;
		td->stack_id_size = f->size;
	}
	e = tep_find_event_by_name(td->tep, "ftrace", "kernel_stack");
	f = e ? tep_find_field(e, "size") : NULL;
	if (f && f->size == 4 && f->offset >= 0) {
		td->kstack_size_off = f->offset;
		f = tep_find_field(e, "caller");
		if (f && f->offset >= 0) {
			td->id_kernel_stack = e->id;
			td->kstack_caller_off = f->offset;
		}
	}
	e = tep_find_event_by_name(td->tep, "ftrace", "user_stack");
	if (e)
		td->id_user_stack = e->id;
	/*
	 * int stack_id; u32 generation; u32 switches (kernels with map switches); int size;
	 * unsigned long caller[8] (really [size])
	 */
	e = tep_find_event_by_name(td->tep, "ftrace", "kernel_stack_def");
	if (e) {
		struct tep_format_field *id = tep_find_field(e, "stack_id");
		struct tep_format_field *gen = tep_find_field(e, "generation");
		struct tep_format_field *size = tep_find_field(e, "size");
		struct tep_format_field *caller = tep_find_field(e, "caller");
		struct tep_format_field *sw = tep_find_field(e, "switches");

		td->id_stack_def = e->id;
		td->def_sw_off = sw && sw->size == 4 && sw->offset >= 0 ? sw->offset : -1;
		td->def_ok = id && id->size == 4 && id->offset >= 0 && gen && gen->size == 4 &&
			     gen->offset >= 0 && size && size->size == 4 && size->offset >= 0 &&
			     caller && caller->offset >= 0;
		if (td->def_ok) {
			td->def_id_off = id->offset;
			td->def_gen_off = gen->offset;
			td->def_size_off = size->offset;
			td->def_caller_off = caller->offset;
		}
	}
}

int td_open_mem(struct td_file *td, const void *buf, size_t len, struct td_err *err)
{
	struct td_cur c = {.p = buf, .len = len, .err = err};
	uint64_t psize;
	const char *ver;
	int ret;

	memset(td, 0, sizeof(*td));
	td->buf = buf;
	td->len = len;
	td->id_stack_id = td->id_kernel_stack = td->id_user_stack = td->id_stack_def = -1;
	td->def_sw_off = -1;
	td->sel = -1;
	if (!td_is_tracedat(buf, len))
		return td_fail(err, 0, -EBADMSG, "not a trace.dat file (bad magic)");
	c.pos = TD_MAGIC_LEN;
	if (cur_str(&c, &ver, "version"))
		return -EBADMSG;
	if (strcmp(ver, "6") && strcmp(ver, "7"))
		return td_fail(err, TD_MAGIC_LEN, -EPROTONOSUPPORT,
			       "unsupported trace.dat version \"%.20s\" (6 and 7 are read)", ver);
	td->version = ver[0] - '0';
	if (cur_need(&c, 6, "file header"))
		return -EBADMSG;
	td->big_endian = c.p[c.pos] != 0;
	td->long_size = c.p[c.pos + 1];
	c.pos += 2;
	c.be = td->big_endian;
	if (td->long_size != 4 && td->long_size != 8)
		return td_fail(err, c.pos - 1, -EBADMSG, "long size %d (expected 4 or 8)",
			       td->long_size);
	cur_num(&c, 4, &psize, "page size");
	if (psize < 64 || psize > (1u << 24))
		return td_fail(err, c.pos - 4, -EBADMSG, "page size %llu",
			       (unsigned long long)psize);
	td->page_size = (uint32_t)psize;
	td->tep = tep_alloc();
	if (!td->tep)
		return -ENOMEM;
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_file_bigendian(td->tep, td->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(td->tep, td->long_size);
	tep_set_page_size(td->tep, (int)td->page_size);
	ret = td->version == 6 ? td_v6_open(td, &c, err) : td_v7_open(td, &c, err);
	if (ret)
		return ret;
	td_find_stack_events(td);
	return 0;
}

int td_open_raw(struct td_file *td, const void *pages, size_t len, uint32_t page_size,
		const char *const *formats)
{
	const uint16_t probe = 1;
	size_t i;

	memset(td, 0, sizeof(*td));
	td->version = 6;
	td->big_endian = *(const uint8_t *)&probe != 1;
	td->long_size = (int)sizeof(long);
	td->page_size = page_size;
	if (page_size < 64)
		return -EINVAL;
	td->sel = -1;
	td->tep = tep_alloc();
	td->buffers = calloc(1, sizeof(*td->buffers));
	if (!td->tep || !td->buffers)
		return -ENOMEM;
	td->nbuffers = 1;
	td->buffers[0] = (struct td_buffer){.name = "", .page_size = page_size, .ncpus = 1};
	td->buffers[0].cpus = calloc(1, sizeof(struct td_cpu));
	if (!td->buffers[0].cpus)
		return -ENOMEM;
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_long_size(td->tep, td->long_size);
	tep_set_page_size(td->tep, (int)page_size);
	for (i = 0; formats && formats[i]; i++) {
		const char *nl = strchr(formats[i], '\n');
		char sys[64];

		if (!nl || (size_t)(nl - formats[i]) >= sizeof(sys))
			return -EINVAL;
		memcpy(sys, formats[i], (size_t)(nl - formats[i]));
		sys[nl - formats[i]] = '\0';
		td_parse_format(td, nl + 1, strlen(nl + 1), sys);
	}
	td->buffers[0].cpus[0] = (struct td_cpu){.cpu = 0, .data = pages, .size = len};
	td->buffers[0].data_size = len;
	td_find_stack_events(td);
	return td_select(td, 0, NULL);
}

int td_open_file(struct td_file *td, const char *path, struct td_err *err)
{
	struct stat st;
	void *m;
	int fd, ret;

	memset(td, 0, sizeof(*td));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (st.st_size == 0) {
		close(fd);
		return td_fail(err, 0, -EBADMSG, "empty file");
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ret = m == MAP_FAILED ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	ret = td_open_mem(td, m, (size_t)st.st_size, err);
	td->map = m;
	return ret;
}

int td_select(struct td_file *td, int idx, struct td_err *err)
{
	struct td_buffer *b;
	char pb[96];
	int i, ret;

	if (idx < 0 || idx >= td->nbuffers)
		return -EINVAL;
	b = &td->buffers[idx];
	for (i = 0; b->compressed && !b->inflated && i < b->ncpus; i++) {
		if (!b->cpus[i].size)
			continue;
		ret = td_v7_cpu_inflate(td, &b->cpus[i], td_bpre(b->name, pb, sizeof(pb)), err);
		if (ret)
			return ret;
	}
	b->inflated = 1;
	td->sel = idx;
	td->cpus = b->cpus;
	td->ncpus = b->ncpus;
	td->page_size = b->page_size;
	tep_set_page_size(td->tep, (int)b->page_size);
	return 0;
}

void td_close(struct td_file *td)
{
	size_t i;
	int b;

	if (td->tep)
		tep_free(td->tep);
	for (i = 0; i < td->nowned; i++)
		free(td->owned[i]);
	free(td->owned);
	for (b = 0; b < td->nbuffers; b++)
		free(td->buffers[b].cpus);
	free(td->buffers);
	if (td->map)
		munmap(td->map, td->len);
	memset(td, 0, sizeof(*td));
}

static struct tep_event *td_find_event(struct td_file *td, int id)
{
	unsigned int i = (unsigned int)id % TD_EV_CACHE;

	if (td->ev_cache[i].id1 != id + 1) {
		td->ev_cache[i].ev = tep_find_event(td->tep, id);
		td->ev_cache[i].id1 = id + 1;
	}
	return td->ev_cache[i].ev;
}

static void td_decode(struct td_file *td, struct td_rec *r, uint64_t *ips, size_t ips_cap)
{
	const uint8_t *d = r->data;
	uint64_t nr, avail, i, v;

	r->kind = TD_BAD;
	r->event = NULL;
	if (r->size < 2)
		return;
	r->type = (int)td_get(d, 2, td->big_endian);
	if (r->type == td->id_stack_id) {
		if (td->stack_id_off + td->stack_id_size > r->size)
			return;
		r->stack_id =
			(uint32_t)td_get(d + td->stack_id_off, td->stack_id_size, td->big_endian);
		r->kind = TD_STACK_ID;
	} else if (r->type == td->id_kernel_stack) {
		if (td->kstack_caller_off > r->size || td->kstack_size_off + 4 > r->size)
			return;
		nr = td_get(d + td->kstack_size_off, 4, td->big_endian);
		avail = (uint64_t)(r->size - td->kstack_caller_off) / (uint64_t)td->long_size;
		if (nr > avail)
			nr = avail;
		if (nr > ips_cap)
			nr = ips_cap;
		for (i = 0; i < nr; i++) {
			v = td_get(d + td->kstack_caller_off + i * (uint64_t)td->long_size,
				   td->long_size, td->big_endian);
			if (v == (td->long_size == 8 ? UINT64_MAX : UINT32_MAX))
				break;
			ips[i] = v;
		}
		r->nr = (uint32_t)i;
		r->ips = ips;
		r->kind = TD_STACK;
	} else if (r->type == td->id_user_stack) {
		r->kind = TD_USER_STACK;
	} else if (r->type == td->id_stack_def) {
		r->kind = TD_STACK_DEF; /* checked and read by td_decode_def() */
	} else {
		r->kind = TD_EVENT;
	}
	r->event = td_find_event(td, r->type);
	if (!r->event)
		r->kind = TD_BAD;
}

struct td_iter {
	struct td_file *td;
	const struct td_cpu *cpu;
	struct kbuffer *kb;
	uint8_t *page; /* copy of the current page plus TD_PAGE_SLACK zeroed bytes */
	uint64_t *ips;
	size_t ips_cap;
	uint64_t off; /* offset of the current page in the CPU data */
	uint8_t *end; /* end of the committed data of the current page */
	uint64_t nev, limit; /* records of the current page, and the bound on them */
	int in_page;
	int missed; /* the current page follows lost events: flag its first record */
	uint64_t missed_events;
	uint64_t released; /* CPU data below this offset was handed back (td_iter_release) */
	struct td_cpu_stats st;
	char pre[96]; /* "buffer \"NAME\": " before the messages of a named buffer's CPU */
};

/*
 * A file mapped by td_open_file() would stay resident as the readers walk it, so that a
 * report's memory grew with the file (377 MB for a 5-million-event trace.dat, measured with
 * /usr/bin/time -v). Each page is copied before it is decoded, so the mapped pages behind the
 * copy can be dropped; they read back from the file if a second walk needs them.
 */
static void td_iter_release(struct td_iter *it, uint64_t upto)
{
	/*
	 * In 4 MiB pieces, aligned to 4 MiB: each madvise() flushes the TLB (an IPI to every CPU
	 * the process ran on) and splits a transparent huge page it cuts into. Released every
	 * 64 KiB, those took 35% of `export --format pprof` on the 5-million-event trace.dat
	 * (perf record: smp_call_function_many_cond, pmdp_huge_clear_flush); the cost in memory
	 * is at most 4 MiB per CPU stream still mapped.
	 */
	const uintptr_t chunk = (uintptr_t)4 << 20;
	uintptr_t base = (uintptr_t)it->cpu->data, from, to;

	if (!it->td->map || upto < it->released + chunk)
		return;
	from = (base + it->released + chunk - 1) & ~(chunk - 1);
	to = (base + upto) & ~(chunk - 1);
	if (to <= from)
		return;
	madvise((void *)from, to - from, MADV_DONTNEED);
	it->released = to - base;
}

int td_iter_open(struct td_file *td, int idx, struct td_iter **out)
{
	struct td_iter *it = calloc(1, sizeof(*it));

	*out = NULL;
	if (!it)
		return -ENOMEM;
	it->td = td;
	it->cpu = &td->cpus[idx];
	if (td->sel >= 0 && *td->buffers[td->sel].name)
		td_bpre(td->buffers[td->sel].name, it->pre, sizeof(it->pre));
	it->ips_cap = td->page_size / 4;
	it->kb = kbuffer_alloc(td->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			       td->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	it->page = calloc(1, td->page_size + TD_PAGE_SLACK);
	it->ips = calloc(it->ips_cap, sizeof(*it->ips));
	if (!it->kb || !it->page || !it->ips) {
		td_iter_close(it);
		return -ENOMEM;
	}
	*out = it;
	return 0;
}

void td_iter_close(struct td_iter *it)
{
	if (!it)
		return;
	if (it->kb)
		kbuffer_free(it->kb);
	free(it->page);
	free(it->ips);
	free(it);
}

const struct td_cpu_stats *td_iter_stats(const struct td_iter *it)
{
	return &it->st;
}

/* Load the page at it->off (or the next non-empty one). 1: loaded, 0: end of data. */
static int td_iter_page(struct td_iter *it, struct td_err *err)
{
	struct td_file *td = it->td;
	const struct td_cpu *cpu = it->cpu;
	size_t hdr = 8 + (size_t)td->long_size;

	for (; it->off < cpu->size; it->off += td->page_size) {
		uint64_t left = cpu->size - it->off, commit;
		size_t n = left < td->page_size ? (size_t)left : td->page_size;

		if (n < hdr)
			return td_fail(err, cpu->file_offset + it->off, -EBADMSG,
				       "%sCPU %d: truncated page: %zu of %zu header bytes", it->pre,
				       cpu->cpu, n, hdr);
		memcpy(it->page, cpu->data + it->off, n);
		memset(it->page + n, 0, td->page_size + TD_PAGE_SLACK - n);
		td_iter_release(it, it->off + n);
		commit = td_get(it->page + 8, td->long_size, td->big_endian);
		if ((commit & TD_COMMIT_MASK) > n - hdr)
			return td_fail(err, cpu->file_offset + it->off + 8, -EBADMSG,
				       "%sCPU %d: page commit %llu exceeds the %zu data bytes",
				       it->pre, cpu->cpu,
				       (unsigned long long)(commit & TD_COMMIT_MASK), n - hdr);
		it->st.pages++;
		if ((commit & TD_COMMIT_MASK) == 0)
			continue;
		if (kbuffer_load_subbuffer(it->kb, it->page) < 0)
			return td_fail(err, cpu->file_offset + it->off, -EBADMSG,
				       "%sCPU %d: page does not load", it->pre, cpu->cpu);
		if (commit & TD_MISSED_EVENTS) {
			int m = kbuffer_missed_events(it->kb);

			it->st.missed_pages++;
			if (m > 0)
				it->st.missed_events += (uint64_t)m;
			it->missed = 1;
			it->missed_events = m > 0 ? (uint64_t)m : 0;
		}
		it->end = it->page + hdr + (commit & TD_COMMIT_MASK);
		it->limit = (commit & TD_COMMIT_MASK) / 4 + 1;
		it->nev = 0;
		return 1;
	}
	return 0;
}

/*
 * A kernel_stack_def record: stack_id, generation and size frames of caller[] (the format says
 * caller[8]; the record is as long as its frames). Anything that would read outside the record
 * or is not a stack (1 to 64 frames) is an error with the offset of the field.
 */
static int td_decode_def(struct td_iter *it, struct td_rec *r, struct td_err *err)
{
	const struct td_file *td = it->td;
	const uint8_t *d = r->data;
	uint64_t off = it->cpu->file_offset + it->off + (uint64_t)(d - it->page), need, i;
	int cpu = it->cpu->cpu;
	int32_t id, size;

	if (!td->def_ok)
		return td_fail(err, off, -EBADMSG,
			       "%sCPU %d: kernel_stack_def record, but its format lacks the 4-byte "
			       "fields stack_id, generation, size or the array caller",
			       it->pre, cpu);
	if (td->def_id_off + 4 > r->size || td->def_gen_off + 4 > r->size ||
	    td->def_size_off + 4 > r->size || td->def_caller_off > r->size ||
	    (td->def_sw_off >= 0 && td->def_sw_off + 4 > r->size))
		return td_fail(
			err, off, -EBADMSG,
			"%sCPU %d: kernel_stack_def record of %d bytes is shorter than its fields",
			it->pre, cpu, r->size);
	id = (int32_t)td_get(d + td->def_id_off, 4, td->big_endian);
	size = (int32_t)td_get(d + td->def_size_off, 4, td->big_endian);
	if (id < 0)
		return td_fail(err, off + (uint64_t)td->def_id_off, -EBADMSG,
			       "%sCPU %d: kernel_stack_def with a negative stack_id %d", it->pre,
			       cpu, id);
	off += (uint64_t)td->def_size_off;
	if (size <= 0)
		return td_fail(
			err, off, -EBADMSG,
			"%sCPU %d: kernel_stack_def of stack_id %d: size %d (a stack has 1 to "
			"%d frames)",
			it->pre, cpu, id, size, TD_MAX_DEF_FRAMES);
	if (size > TD_MAX_DEF_FRAMES)
		return td_fail(err, off, -EBADMSG,
			       "%sCPU %d: kernel_stack_def of stack_id %d: size %d exceeds the %d "
			       "frames of a stack",
			       it->pre, cpu, id, size, TD_MAX_DEF_FRAMES);
	need = (uint64_t)size * (uint64_t)td->long_size;
	if (need > (uint64_t)(r->size - td->def_caller_off) || (size_t)size > it->ips_cap)
		return td_fail(
			err, off, -EBADMSG,
			"%sCPU %d: kernel_stack_def of stack_id %d: size %d needs %llu bytes of "
			"frames, the record has %d",
			it->pre, cpu, id, size, (unsigned long long)need,
			r->size - td->def_caller_off);
	for (i = 0; i < (uint64_t)size; i++)
		it->ips[i] = td_get(d + td->def_caller_off + i * (uint64_t)td->long_size,
				    td->long_size, td->big_endian);
	r->stack_id = (uint32_t)id;
	r->gen = (uint32_t)td_get(d + td->def_gen_off, 4, td->big_endian);
	r->sw_known = td->def_sw_off >= 0;
	r->sw = r->sw_known ? (uint32_t)td_get(d + td->def_sw_off, 4, td->big_endian) : 0;
	/* an id carries the low bits of its switch count */
	if (r->sw_known && (((uint32_t)id >> SMBIN_SWITCH_SHIFT) & SMBIN_SWITCH_MASK) !=
				   (r->sw & SMBIN_SWITCH_MASK))
		return td_fail(
			err, off - (uint64_t)td->def_size_off + (uint64_t)td->def_sw_off, -EBADMSG,
			"%sCPU %d: kernel_stack_def of stack_id %d: switch count %u, but the "
			"id carries %u (its bits 18 and up)",
			it->pre, cpu, id, r->sw,
			((uint32_t)id >> SMBIN_SWITCH_SHIFT) & SMBIN_SWITCH_MASK);
	r->nr = (uint32_t)size;
	r->ips = it->ips;
	return 0;
}

int td_iter_next(struct td_iter *it, struct td_rec *r, struct td_err *err)
{
	size_t hdr = 8 + (size_t)it->td->long_size;
	unsigned long long ts;
	void *data;
	int ret, size;

	for (;;) {
		if (!it->in_page) {
			ret = td_iter_page(it, err);
			if (ret <= 0)
				return ret;
			it->in_page = 1;
			data = kbuffer_read_event(it->kb, &ts);
		} else {
			data = kbuffer_next_event(it->kb, &ts);
		}
		if (data && it->nev < it->limit)
			break;
		it->in_page = 0;
		it->off += it->td->page_size;
	}
	it->nev++;
	size = kbuffer_event_size(it->kb);
	if ((uint8_t *)data < it->page + hdr || size < 0 || (uint8_t *)data + size > it->end)
		return td_fail(err,
			       it->cpu->file_offset + it->off +
				       (uint64_t)((uint8_t *)data - it->page),
			       -EBADMSG, "%sCPU %d: record of %d bytes runs past the page", it->pre,
			       it->cpu->cpu, size);
	memset(r, 0, sizeof(*r));
	r->cpu = it->cpu->cpu;
	r->ts = ts;
	r->data = data;
	r->size = size;
	td_decode(it->td, r, it->ips, it->ips_cap);
	if (r->kind == TD_STACK_DEF) {
		ret = td_decode_def(it, r, err);
		if (ret)
			return ret;
	}
	r->missed = it->missed;
	r->missed_events = it->missed_events;
	it->missed = 0;
	it->st.records++;
	return 1;
}

int td_cpu_iterate(struct td_file *td, int idx, td_rec_fn fn, void *arg, struct td_cpu_stats *st,
		   struct td_err *err)
{
	struct td_iter *it;
	struct td_rec r;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = td_iter_open(td, idx, &it);
	if (ret)
		return ret;
	while ((ret = td_iter_next(it, &r, err)) == 1) {
		ret = fn(arg, &r);
		if (ret)
			break;
	}
	*st = it->st;
	td_iter_close(it);
	return ret;
}

/* Writer --------------------------------------------------------------------------------- */

struct td_wbuf {
	int fd;
	uint64_t pos;
	uint8_t buf[65536];
	size_t len;
	int err;
};

static void wb_flush(struct td_wbuf *w)
{
	size_t done = 0;

	while (!w->err && done < w->len) {
		ssize_t n = write(w->fd, w->buf + done, w->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			w->err = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	w->len = 0;
}

static void wb_mem(struct td_wbuf *w, const void *p, size_t n)
{
	const uint8_t *s = p;

	while (n) {
		size_t k = sizeof(w->buf) - w->len;

		if (k > n)
			k = n;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		w->pos += k;
		s += k;
		n -= k;
		if (w->len == sizeof(w->buf))
			wb_flush(w);
	}
}

static void wb_num(struct td_wbuf *w, uint64_t v, int n)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	wb_mem(w, b, (size_t)n);
}

static void wb_zero(struct td_wbuf *w, uint64_t n)
{
	static const uint8_t z[4096];

	while (n) {
		size_t k = n < sizeof(z) ? (size_t)n : sizeof(z);

		wb_mem(w, z, k);
		n -= k;
	}
}

static uint64_t td_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

int td_write_v6(int fd, const struct td_write_info *wi)
{
	const uint16_t probe = 1;
	struct td_wbuf *w;
	uint64_t off;
	size_t i, j, nsys = 0, nftrace = 0;
	uint8_t cbuf[65536];
	int cpu, ret;

	if (*(const uint8_t *)&probe != 1)
		return -EOPNOTSUPP; /* the writer emits little-endian files only */
	if (!wi->page_size || wi->ncpus < 0)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	wb_mem(w, TD_MAGIC, TD_MAGIC_LEN);
	wb_mem(w, "6", 2);
	wb_num(w, 0, 1); /* little endian */
	wb_num(w, sizeof(long), 1);
	wb_num(w, wi->page_size, 4);
	wb_mem(w, "header_page", 12);
	wb_num(w, wi->header_page_len, 8);
	wb_mem(w, wi->header_page, wi->header_page_len);
	wb_mem(w, "header_event", 13);
	wb_num(w, wi->header_event_len, 8);
	wb_mem(w, wi->header_event, wi->header_event_len);
	for (i = 0; i < wi->nformats; i++) {
		if (!strcmp(wi->formats[i].system, "ftrace"))
			nftrace++;
		else if (i == 0 || !strcmp(wi->formats[i - 1].system, "ftrace") ||
			 strcmp(wi->formats[i].system, wi->formats[i - 1].system))
			nsys++;
	}
	wb_num(w, nftrace, 4);
	for (i = 0; i < wi->nformats; i++) {
		if (strcmp(wi->formats[i].system, "ftrace"))
			continue;
		wb_num(w, wi->formats[i].len, 8);
		wb_mem(w, wi->formats[i].text, wi->formats[i].len);
	}
	wb_num(w, nsys, 4);
	for (i = 0; i < wi->nformats; i = j) {
		const char *sys = wi->formats[i].system;

		for (j = i; j < wi->nformats && !strcmp(wi->formats[j].system, sys); j++)
			;
		if (!strcmp(sys, "ftrace"))
			continue;
		wb_mem(w, sys, strlen(sys) + 1);
		wb_num(w, j - i, 4);
		for (size_t k = i; k < j; k++) {
			wb_num(w, wi->formats[k].len, 8);
			wb_mem(w, wi->formats[k].text, wi->formats[k].len);
		}
	}
	wb_num(w, wi->kallsyms_len, 4);
	wb_mem(w, wi->kallsyms, wi->kallsyms_len);
	wb_num(w, wi->printk_len, 4);
	wb_mem(w, wi->printk, wi->printk_len);
	wb_num(w, wi->cmdlines_len, 8);
	wb_mem(w, wi->cmdlines, wi->cmdlines_len);
	wb_num(w, (uint64_t)wi->ncpus, 4);
	wb_mem(w, "options  ", 10);
	if (wi->have_date) {
		char date[32];
		int64_t us = wi->date_offset_ns / 1000;
		int dl = us < 0 ? snprintf(date, sizeof(date), "-0x%llx", -(unsigned long long)us)
				: snprintf(date, sizeof(date), "0x%llx", (unsigned long long)us);

		wb_num(w, TD_OPT_DATE, 2);
		wb_num(w, (uint64_t)dl + 1, 4);
		wb_mem(w, date, (size_t)dl + 1);
	}
	if (wi->trace_clock) {
		wb_num(w, TD_OPT_TRACECLOCK, 2);
		wb_num(w, strlen(wi->trace_clock) + 1, 4);
		wb_mem(w, wi->trace_clock, strlen(wi->trace_clock) + 1);
	}
	if (wi->stackmap) {
		wb_num(w, TD_OPT_STACKMAP, 2);
		wb_num(w, wi->stackmap_len, 4);
		wb_mem(w, wi->stackmap, wi->stackmap_len);
	}
	for (cpu = 0; wi->cpustats && cpu < wi->ncpus; cpu++) {
		char head[32];
		size_t hl, sl;

		if (!wi->cpustats[cpu])
			continue;
		hl = (size_t)snprintf(head, sizeof(head), "CPU: %d\n", cpu);
		sl = strlen(wi->cpustats[cpu]);
		wb_num(w, TD_OPT_CPUSTAT, 2);
		wb_num(w, hl + sl + 1, 4);
		wb_mem(w, head, hl);
		wb_mem(w, wi->cpustats[cpu], sl + 1);
	}
	wb_num(w, 0, 2);
	wb_mem(w, "flyrecord", 10);
	off = td_align(w->pos + 16 * (uint64_t)wi->ncpus, wi->page_size);
	for (cpu = 0; cpu < wi->ncpus; cpu++) {
		wb_num(w, off, 8);
		wb_num(w, wi->cpu_sizes[cpu], 8);
		off = td_align(off + wi->cpu_sizes[cpu], wi->page_size);
	}
	for (cpu = 0; cpu < wi->ncpus; cpu++) {
		uint64_t left = wi->cpu_sizes[cpu];

		wb_zero(w, td_align(w->pos, wi->page_size) - w->pos);
		if (lseek(wi->cpu_fds[cpu], 0, SEEK_SET) < 0 && !w->err)
			w->err = -errno;
		while (left && !w->err) {
			ssize_t n = read(wi->cpu_fds[cpu], cbuf,
					 left < sizeof(cbuf) ? (size_t)left : sizeof(cbuf));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				w->err = n < 0 ? -errno : -EIO;
				break;
			}
			wb_mem(w, cbuf, (size_t)n);
			left -= (uint64_t)n;
		}
	}
	wb_flush(w);
	ret = w->err;
	free(w);
	return ret;
}
