// SPDX-License-Identifier: GPL-2.0
/*
 * Parser for ftrace trace text and trace-cmd report text; see trace_parse.h.
 *
 * Line shapes handled (COMM may contain spaces and dashes; FLAGS is optional):
 *   COMM-PID [CPU] FLAGS TIMESTAMP: EVENT: fields...
 *   COMM-PID [CPU] FLAGS TIMESTAMP: func <-parent          (function tracer: "function")
 *   COMM-PID [CPU] FLAGS TIMESTAMP: <stack_id N>
 *   COMM-PID [CPU] FLAGS TIMESTAMP: <stack trace>          followed by " => frame" lines
 *   COMM-PID [CPU] TIMESTAMP: kernel_stack: <stack trace > (trace-cmd)
 */
#define _POSIX_C_SOURCE 200809L
#include "trace_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int tp_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int tp_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static int tp_starts(const char *p, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && memcmp(p, lit, n) == 0;
}

/* Length of a "DIGITS[.DIGITS]:" timestamp at p, including the colon, or 0. */
static size_t tp_timestamp(const char *p, size_t len)
{
	size_t i = 0;

	while (i < len && tp_isdigit(p[i]))
		i++;
	if (!i)
		return 0;
	if (i < len && p[i] == '.') {
		size_t d = ++i;

		while (i < len && tp_isdigit(p[i]))
			i++;
		if (i == d)
			return 0;
	}
	if (i < len && p[i] == ':')
		return i + 1;
	return 0;
}

/*
 * Find "[CPU]" followed by an optional flags token and a timestamp. On success set *cpu and
 * return the offset just after the timestamp's colon; return 0 when the line has no header.
 */
static size_t tp_header(const char *p, size_t len, int *cpu)
{
	size_t i;

	for (i = 0; i < len; i++) {
		size_t j = i + 1, k, ts;
		long v = 0;
		int tok;

		if (p[i] != '[' || (i > 0 && !tp_isspace(p[i - 1])))
			continue;
		while (j < len && tp_isdigit(p[j])) {
			if (v <= TP_MAX_CPU)
				v = v * 10 + (p[j] - '0');
			j++;
		}
		if (j == i + 1 || j >= len || p[j] != ']')
			continue;
		k = j + 1;
		/* up to one flags token before the timestamp */
		for (tok = 0; tok < 2; tok++) {
			while (k < len && tp_isspace(p[k]))
				k++;
			ts = tp_timestamp(p + k, len - k);
			if (ts) {
				*cpu = v > TP_MAX_CPU ? -1 : (int)v;
				return k + ts;
			}
			while (k < len && !tp_isspace(p[k]))
				k++;
		}
	}
	return 0;
}

/* Classify the text after the timestamp (or a whole line without header). */
static void tp_body(const char *p, size_t len, struct tp_line *out)
{
	size_t i, w;

	while (len && tp_isspace(*p)) {
		p++;
		len--;
	}
	while (len && tp_isspace(p[len - 1]))
		len--;
	if (tp_starts(p, len, "<stack_id ")) {
		uint64_t v = 0;

		i = strlen("<stack_id ");
		w = i;
		while (i < len && tp_isdigit(p[i]) && v <= UINT32_MAX) {
			v = v * 10 + (uint64_t)(p[i] - '0');
			i++;
		}
		if (i == w || v > UINT32_MAX || i >= len || p[i] != '>') {
			out->kind = TP_BAD_STACK_ID;
			return;
		}
		out->kind = TP_STACK_ID;
		out->stack_id = (uint32_t)v;
		return;
	}
	if (tp_starts(p, len, "<stack trace")) {
		out->kind = TP_STACK_START;
		return;
	}
	if (tp_starts(p, len, "<user stack trace")) {
		out->kind = TP_USER_STACK_START;
		return;
	}
	/*
	 * event name: the word before the first ':' (no white space inside), or before '(' for
	 * syscall events ("sys_openat(dfd: ffffff9c, ...)")
	 */
	for (w = 0; w < len && p[w] != ':' && p[w] != '(' && !tp_isspace(p[w]); w++)
		;
	if (w < len && (p[w] == ':' || p[w] == '(') && w > 0) {
		const char *rest = p + w + 1;
		size_t rlen = len - w - 1;

		while (rlen && tp_isspace(*rest)) {
			rest++;
			rlen--;
		}
		/* "kernel_stack: <stack trace >" and "stack_id: <stack_id N>" (trace-cmd) */
		if (tp_starts(rest, rlen, "<stack_id ") || tp_starts(rest, rlen, "<stack trace") ||
		    tp_starts(rest, rlen, "<user stack trace")) {
			tp_body(rest, rlen, out);
			return;
		}
		out->kind = TP_EVENT;
		out->name = p;
		out->name_len = w;
		return;
	}
	out->kind = TP_EVENT;
	for (i = 0; i + 3 <= len; i++) {
		if (p[i] == ' ' && p[i + 1] == '<' && p[i + 2] == '-') {
			out->name = "function";
			out->name_len = strlen("function");
			return;
		}
	}
	if (w == 0) {
		out->name = "unknown";
		out->name_len = strlen("unknown");
		return;
	}
	out->name = p;
	out->name_len = w;
}

void tp_parse_line(const char *line, size_t len, struct tp_line *out)
{
	size_t i = 0, hdr;
	int cpu = -1;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	while (i < len && tp_isspace(line[i]))
		i++;
	if (i == len) {
		out->kind = TP_BLANK;
		return;
	}
	if (line[i] == '#') {
		out->kind = TP_COMMENT;
		return;
	}
	if (len - i >= 2 && line[i] == '=' && line[i + 1] == '>') {
		size_t e = len;

		i += 2;
		while (i < len && tp_isspace(line[i]))
			i++;
		while (e > i && tp_isspace(line[e - 1]))
			e--;
		out->kind = TP_FRAME;
		out->name = line + i;
		out->name_len = e - i;
		return;
	}
	hdr = tp_header(line, len, &cpu);
	if (!hdr) {
		out->kind = TP_OTHER;
		return;
	}
	out->cpu = cpu;
	tp_body(line + hdr, len - hdr, out);
}

/* String table ---------------------------------------------------------------------------- */

static uint64_t tp_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h ^ (h >> 32);
}

void tp_strtab_init(struct tp_strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void tp_strtab_free(struct tp_strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->lens);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static int tp_strtab_rehash(struct tp_strtab *t)
{
	size_t ncap = t->slots ? (t->mask + 1) * 2 : 64, i;
	uint32_t *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		size_t j = tp_hash(t->strs[i], t->lens[i]) & (ncap - 1);

		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = ns;
	t->mask = ncap - 1;
	return 0;
}

long tp_strtab_intern(struct tp_strtab *t, const char *s, size_t len)
{
	size_t j;
	char *copy;

	if ((!t->slots || (t->n + 1) * 2 > t->mask + 1) && tp_strtab_rehash(t))
		return -ENOMEM;
	if (t->n >= UINT32_MAX - 1)
		return -E2BIG;
	j = tp_hash(s, len) & t->mask;
	while (t->slots[j]) {
		size_t idx = t->slots[j] - 1;

		if (t->lens[idx] == len && memcmp(t->strs[idx], s, len) == 0)
			return (long)idx;
		j = (j + 1) & t->mask;
	}
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 16;
		char **ns = realloc(t->strs, ncap * sizeof(*ns));
		size_t *nl;

		if (!ns)
			return -ENOMEM;
		t->strs = ns;
		nl = realloc(t->lens, ncap * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		t->lens = nl;
		t->cap = ncap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->strs[t->n] = copy;
	t->lens[t->n] = len;
	t->slots[j] = (uint32_t)(t->n + 1);
	return (long)t->n++;
}

/* Attribution ----------------------------------------------------------------------------- */

#define TP_NO_EVENT "(no event)"

int tp_ctx_init(struct tp_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	tp_strtab_init(&ctx->events);
	ctx->last_event = -1;
	return 0;
}

static void tp_block_clear(struct tp_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->nframes; i++)
		free(ctx->frames[i]);
	ctx->nframes = 0;
	ctx->in_block = 0;
}

void tp_ctx_free(struct tp_ctx *ctx)
{
	tp_block_clear(ctx);
	free(ctx->frames);
	free(ctx->cpu_event);
	free(ctx->event_lines);
	tp_strtab_free(&ctx->events);
	memset(ctx, 0, sizeof(*ctx));
}

const char *tp_event_name(const struct tp_ctx *ctx, uint32_t idx)
{
	return idx < ctx->events.n ? ctx->events.strs[idx] : TP_NO_EVENT;
}

size_t tp_nr_events(const struct tp_ctx *ctx)
{
	return ctx->events.n;
}

static long tp_intern_event(struct tp_ctx *ctx, const char *name, size_t len)
{
	long idx = tp_strtab_intern(&ctx->events, name, len);

	if (idx < 0)
		return idx;
	if ((size_t)idx >= ctx->event_lines_cap) {
		size_t ncap = ctx->event_lines_cap ? ctx->event_lines_cap * 2 : 16;
		uint64_t *n = realloc(ctx->event_lines, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + ctx->event_lines_cap, 0, (ncap - ctx->event_lines_cap) * sizeof(*n));
		ctx->event_lines = n;
		ctx->event_lines_cap = ncap;
	}
	return idx;
}

/* Event type a stack reference on @cpu belongs to. */
static long tp_owner(struct tp_ctx *ctx, int cpu)
{
	if (cpu >= 0 && (size_t)cpu < ctx->ncpu && ctx->cpu_event[cpu] >= 0)
		return ctx->cpu_event[cpu];
	if (ctx->last_event >= 0)
		return ctx->last_event;
	ctx->unattributed++;
	return tp_intern_event(ctx, TP_NO_EVENT, strlen(TP_NO_EVENT));
}

static int tp_set_cpu_event(struct tp_ctx *ctx, int cpu, long ev)
{
	ctx->last_event = ev;
	if (cpu < 0)
		return 0;
	if ((size_t)cpu >= ctx->ncpu) {
		size_t n = (size_t)cpu + 1, i;
		long *v;

		if (n < ctx->ncpu * 2)
			n = ctx->ncpu * 2;
		v = realloc(ctx->cpu_event, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (i = ctx->ncpu; i < n; i++)
			v[i] = -1;
		ctx->cpu_event = v;
		ctx->ncpu = n;
	}
	ctx->cpu_event[cpu] = ev;
	return 0;
}

int tp_finish(struct tp_ctx *ctx, tp_stack_fn fn, void *arg)
{
	struct tp_stackref ref = {0};
	int ret = 0;

	if (ctx->in_block == 1) {
		ref.full = 1;
		ref.nr = ctx->nframes;
		ref.frames = (const char *const *)ctx->frames;
		ret = fn(arg, ctx->block_event, &ref);
	}
	tp_block_clear(ctx);
	return ret;
}

static int tp_add_frame(struct tp_ctx *ctx, const char *s, size_t len)
{
	char *copy;

	if (ctx->nframes == ctx->frames_cap) {
		size_t ncap = ctx->frames_cap ? ctx->frames_cap * 2 : 32;
		char **n = realloc(ctx->frames, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ctx->frames = n;
		ctx->frames_cap = ncap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	ctx->frames[ctx->nframes++] = copy;
	return 0;
}

int tp_feed_line(struct tp_ctx *ctx, const char *line, size_t len, tp_stack_fn fn, void *arg)
{
	struct tp_stackref ref = {0};
	struct tp_line l;
	long ev;
	int ret;

	ctx->lines++;
	tp_parse_line(line, len, &l);
	if (l.kind == TP_FRAME) {
		if (ctx->in_block == 1)
			return tp_add_frame(ctx, l.name, l.name_len);
		if (!ctx->in_block)
			ctx->stray_frames++;
		return 0;
	}
	ret = tp_finish(ctx, fn, arg);
	if (ret)
		return ret;
	switch (l.kind) {
	case TP_EVENT:
		ev = tp_intern_event(ctx, l.name, l.name_len);
		if (ev < 0)
			return (int)ev;
		ctx->event_lines[ev]++;
		return tp_set_cpu_event(ctx, l.cpu, ev);
	case TP_STACK_ID:
		ev = tp_owner(ctx, l.cpu);
		if (ev < 0)
			return (int)ev;
		ref.id = l.stack_id;
		return fn(arg, (uint32_t)ev, &ref);
	case TP_BAD_STACK_ID:
		ctx->bad_stack_ids++;
		return 0;
	case TP_STACK_START:
		ev = tp_owner(ctx, l.cpu);
		if (ev < 0)
			return (int)ev;
		ctx->in_block = 1;
		ctx->block_event = (uint32_t)ev;
		return 0;
	case TP_USER_STACK_START:
		ctx->in_block = 2;
		return 0;
	default:
		return 0;
	}
}

int tp_feed_buf(struct tp_ctx *ctx, const char *buf, size_t len, tp_stack_fn fn, void *arg)
{
	const char *p = buf, *end = buf + len;
	int ret;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		ret = tp_feed_line(ctx, p, n, fn, arg);
		if (ret)
			return ret;
		p += n + (nl ? 1 : 0);
	}
	return tp_finish(ctx, fn, arg);
}

size_t tp_frame_func(const char *frame, char *buf, size_t size)
{
	const char *mod = NULL, *p;
	size_t n = 0;

	if (!size)
		return 0;
	for (p = frame; *p && *p != '+' && *p != ' '; p++)
		;
	n = (size_t)(p - frame);
	if (n == 0) /* e.g. "<stack trace>" glitches or "[FTRACE TRAMPOLINE]" */
		n = strlen(frame);
	else if (frame[0] == '[')
		n = strlen(frame);
	else
		mod = strstr(p, " [");
	if (n >= size)
		n = size - 1;
	memcpy(buf, frame, n);
	if (mod) {
		const char *close = strchr(mod, ']');
		size_t m = close ? (size_t)(close - mod) + 1 : 0;

		if (n + m >= size)
			m = size - 1 - n;
		memcpy(buf + n, mod, m);
		n += m;
	}
	buf[n] = '\0';
	return n;
}
