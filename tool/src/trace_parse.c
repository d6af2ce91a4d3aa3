// SPDX-License-Identifier: GPL-2.0
/*
 * Parser for ftrace trace text and trace-cmd report text; see trace_parse.h.
 *
 * Line shapes handled (COMM may contain spaces and dashes; FLAGS is optional):
 *   COMM-PID [CPU] FLAGS TIMESTAMP: EVENT: fields...
 *   COMM-PID [CPU] FLAGS TIMESTAMP: func <-parent          (function tracer: "function")
 *   COMM-PID [CPU] FLAGS TIMESTAMP: <stack_id N>
 *   COMM-PID [CPU] FLAGS TIMESTAMP: <stack trace>          followed by " => frame" lines
 *   COMM-PID [CPU] FLAGS TIMESTAMP: <stack_def N gen G switch S> then " => frame" lines
 *   COMM-PID [CPU] TIMESTAMP: kernel_stack: <stack trace > (trace-cmd)
 */
#define _GNU_SOURCE /* memmem */
#include "trace_parse.h"
#include "smbin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int tp_isspace(char c)
{
	/* ' ' and '\t' '\n' '\v' '\f' '\r' (9 to 13) */
	return c == ' ' || (unsigned char)(c - '\t') <= '\r' - '\t';
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
 * Find "[CPU]" followed by an optional flags token and a timestamp. On success set *cpu, *br
 * (offset of the '['), *ts (offset of the timestamp) and return the offset just after the
 * timestamp's colon; return 0 when the line has no header.
 */
static size_t tp_header(const char *p, size_t len, int *cpu, size_t *br, size_t *tsoff)
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
				*br = i;
				*tsoff = k;
				return k + ts;
			}
			while (k < len && !tp_isspace(p[k]))
				k++;
		}
	}
	return 0;
}

/* Digits at p: their value (saturated) and count. */
static size_t tp_digits(const char *p, size_t len, uint64_t *v)
{
	size_t i = 0;

	*v = 0;
	while (i < len && tp_isdigit(p[i])) {
		if (*v < UINT64_MAX / 10)
			*v = *v * 10 + (uint64_t)(p[i] - '0');
		i++;
	}
	return i;
}

/*
 * The kernel's "CPU:N [LOST M EVENTS]" or "CPU:N [LOST EVENTS]", trace-cmd's
 * "CPU:N [M EVENTS DROPPED]" or "CPU:N [EVENTS DROPPED]" (no count: 0): 1 with out->cpu and
 * out->lost set.
 */
static int tp_lost(const char *p, size_t len, struct tp_line *out)
{
	uint64_t cpu, n = 0;
	size_t i = 4, d;

	if (!tp_starts(p, len, "CPU:"))
		return 0;
	d = tp_digits(p + i, len - i, &cpu);
	if (!d || cpu > TP_MAX_CPU)
		return 0;
	i += d;
	if (!tp_starts(p + i, len - i, " ["))
		return 0;
	i += 2;
	if (tp_starts(p + i, len - i, "LOST EVENTS]")) {
		n = 0;
	} else if (tp_starts(p + i, len - i, "LOST ")) {
		i += 5;
		d = tp_digits(p + i, len - i, &n);
		if (!d || !tp_starts(p + i + d, len - i - d, " EVENTS]"))
			return 0;
	} else if (!tp_starts(p + i, len - i, "EVENTS DROPPED]")) {
		d = tp_digits(p + i, len - i, &n);
		if (!d || !tp_starts(p + i + d, len - i - d, " EVENTS DROPPED]"))
			return 0;
	}
	out->kind = TP_LOST;
	out->cpu = (int)cpu;
	out->lost = n;
	return 1;
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
	/* an event the printer had no format for: trace-cmd's and the kernel's spellings */
	if (tp_starts(p, len, "[UNKNOWN EVENT]") || tp_starts(p, len, "Unknown type ")) {
		out->kind = TP_EVENT;
		out->name = EV_TYPE_UNKNOWN;
		out->name_len = strlen(EV_TYPE_UNKNOWN);
		return;
	}
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
	if (tp_starts(p, len, "<stack_def ")) {
		uint64_t id, gen, sw = 0;
		size_t d, ds = 0;

		out->kind = TP_BAD_STACK_DEF;
		i = strlen("<stack_def ");
		d = tp_digits(p + i, len - i, &id);
		if (!d || d > 10 || id > UINT32_MAX)
			return;
		i += d;
		if (!tp_starts(p + i, len - i, " gen "))
			return;
		i += strlen(" gen ");
		d = tp_digits(p + i, len - i, &gen);
		if (!d || d > 10 || gen > UINT32_MAX)
			return;
		if (tp_starts(p + i + d, len - i - d, " switch ")) {
			i += d + strlen(" switch ");
			ds = tp_digits(p + i, len - i, &sw);
			if (!ds || ds > 10 || sw > UINT32_MAX)
				return;
			d = ds;
		}
		if (i + d >= len || p[i + d] != '>')
			return;
		out->kind = TP_STACK_DEF;
		out->stack_id = (uint32_t)id;
		out->gen = (uint32_t)gen;
		out->sw = (uint32_t)sw;
		out->sw_known = ds > 0;
		/* plugin_stackmap's one-line form: the frames after it, joined by " <- " */
		for (i += d + 1; i < len && tp_isspace(p[i]); i++)
			;
		out->fields = p + i;
		out->fields_len = len - i;
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
		    tp_starts(rest, rlen, "<user stack trace") ||
		    tp_starts(rest, rlen, "<stack_def ")) {
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

/* "SECONDS.FRACTION" (at most 9 fraction digits are kept) to nanoseconds. */
static uint64_t tp_ts_ns(const char *p, size_t len)
{
	uint64_t s = 0, f = 0;
	size_t i = 0, d = 0;

	while (i < len && tp_isdigit(p[i])) {
		if (s < UINT64_MAX / 100)
			s = s * 10 + (uint64_t)(p[i] - '0');
		i++;
	}
	if (i >= len || p[i] != '.')
		return s; /* a counter clock: plain integer, passed through */
	for (i++; i < len && tp_isdigit(p[i]); i++) {
		if (d < 9) {
			f = f * 10 + (uint64_t)(p[i] - '0');
			d++;
		}
	}
	for (; d < 9; d++)
		f *= 10;
	if (s > (UINT64_MAX - f) / 1000000000ull)
		return EV_TS_NONE - 1;
	return s * 1000000000ull + f;
}

static int32_t tp_atoi32(const char *p, size_t len, size_t *used)
{
	int64_t v = 0;
	size_t i = 0;
	int neg = 0;

	if (i < len && p[i] == '-') {
		neg = 1;
		i++;
	}
	while (i < len && tp_isdigit(p[i])) {
		if (v <= INT32_MAX)
			v = v * 10 + (p[i] - '0');
		i++;
	}
	if (used)
		*used = i;
	if (v > INT32_MAX)
		v = INT32_MAX;
	return (int32_t)(neg ? -v : v);
}

/* "  COMM-PID (TGID) " before the '[': task name, pid and (record-tgid) tgid. */
static void tp_task(const char *p, size_t len, struct tp_line *out)
{
	size_t s = 0, e = len, d;

	while (s < e && tp_isspace(p[s]))
		s++;
	while (e > s && tp_isspace(p[e - 1]))
		e--;
	if (e > s && p[e - 1] == ')') {
		size_t o = e - 1;

		while (o > s && p[o] != '(')
			o--;
		if (p[o] == '(') {
			size_t t = o + 1, used;

			while (t < e && tp_isspace(p[t]))
				t++;
			if (t < e && tp_isdigit(p[t])) {
				int32_t v = tp_atoi32(p + t, e - t, &used);

				out->tgid = v;
			}
			e = o;
			while (e > s && tp_isspace(p[e - 1]))
				e--;
		}
	}
	for (d = e; d > s && tp_isdigit(p[d - 1]); d--)
		;
	if (d == e || d == s || p[d - 1] != '-')
		return;
	out->pid = tp_atoi32(p + d, e - d, NULL);
	out->comm = p + s;
	out->comm_len = d - 1 - s;
}

/* @task: also parse comm, pid, tgid, timestamp and the fields (the record interface). */
static void tp_parse(const char *line, size_t len, struct tp_line *out, int task)
{
	size_t i = 0, hdr, br = 0, tsoff = 0;
	int cpu = -1;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	out->pid = EV_PID_NONE;
	out->tgid = EV_PID_NONE;
	out->ts_ns = EV_TS_NONE;
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
	if (tp_lost(line + i, len - i, out))
		return;
	hdr = tp_header(line, len, &cpu, &br, &tsoff);
	if (!hdr) {
		out->kind = TP_OTHER;
		return;
	}
	out->cpu = cpu;
	if (task) {
		tp_task(line, br, out);
		out->ts_ns = tp_ts_ns(line + tsoff, hdr - tsoff);
	}
	tp_body(line + hdr, len - hdr, out);
	if (task && out->kind == TP_EVENT && out->name >= line && out->name < line + len) {
		const char *f = out->name + out->name_len;
		const char *end = line + len;

		if (f < end && (*f == ':' || *f == '('))
			f += *f == ':';
		while (f < end && tp_isspace(*f))
			f++;
		out->fields = f;
		out->fields_len = (size_t)(end - f);
	}
}

void tp_parse_line(const char *line, size_t len, struct tp_line *out)
{
	tp_parse(line, len, out, 1);
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
	htab_init(&t->idx, 64);
}

void tp_strtab_free(struct tp_strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->lens);
	htab_free(&t->idx);
	memset(t, 0, sizeof(*t));
}

struct tp_strkey {
	const char *s;
	size_t len;
};

static int tp_strtab_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct tp_strtab *t = ctx;
	const struct tp_strkey *k = key;

	return t->lens[idx] == k->len && memcmp(t->strs[idx], k->s, k->len) == 0;
}

long tp_strtab_intern(struct tp_strtab *t, const char *s, size_t len)
{
	struct tp_strkey key = {s, len};
	uint64_t h = tp_hash(s, len);
	uint32_t idx;
	size_t j;
	char *copy;
	int ret;

	ret = htab_reserve(&t->idx);
	if (ret)
		return ret;
	idx = htab_find(&t->idx, h, tp_strtab_eq, t, &key, &j);
	if (idx != HTAB_NONE)
		return (long)idx;
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
	htab_insert_at(&t->idx, j, h, (uint32_t)t->n);
	return (long)t->n++;
}

/* sched_switch fields ---------------------------------------------------------------------- */

static const char *tp_find(const char *p, size_t len, const char *lit)
{
	size_t n = strlen(lit), i;

	for (i = 0; i + n <= len; i++)
		if (p[i] == lit[0] && memcmp(p + i, lit, n) == 0)
			return p + i;
	return NULL;
}

static void tp_copy(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* "KEY=VALUE" up to the next " NEXTKEY=" (or the end); *v, *vlen get the value. */
static int tp_kv(const char *p, size_t len, const char *key, const char *next, const char **v,
		 size_t *vlen)
{
	const char *k = tp_find(p, len, key), *end = p + len, *n;

	if (!k)
		return -EINVAL;
	k += strlen(key);
	n = next ? tp_find(k, (size_t)(end - k), next) : NULL;
	if (!n) {
		n = k;
		while (n < end && !tp_isspace(*n))
			n++;
	}
	*v = k;
	*vlen = (size_t)(n - k);
	return 0;
}

/*
 * tracefs: prev_comm=sh prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=.. next_pid=..
 * The keys come in this order, so each search starts where the previous value ended.
 */
static int tp_switch_tracefs(const char *p, size_t len, struct ev_switch *sw)
{
	const char *v, *arrow = tp_find(p, len, " ==> "), *cur = p, *end;
	size_t vl;

	if (!arrow)
		return -EINVAL;
	end = arrow;
	if (tp_kv(cur, (size_t)(end - cur), "prev_comm=", " prev_pid=", &v, &vl))
		return -EINVAL;
	tp_copy(sw->prev_comm, sizeof(sw->prev_comm), v, vl);
	cur = v + vl;
	if (tp_kv(cur, (size_t)(end - cur), "prev_pid=", NULL, &v, &vl) || !vl)
		return -EINVAL;
	sw->prev_pid = tp_atoi32(v, vl, NULL);
	cur = v + vl;
	if (!tp_kv(cur, (size_t)(end - cur), "prev_prio=", NULL, &v, &vl)) {
		sw->prev_prio = tp_atoi32(v, vl, NULL);
		cur = v + vl;
	}
	if (!tp_kv(cur, (size_t)(end - cur), "prev_state=", NULL, &v, &vl))
		tp_copy(sw->prev_state, sizeof(sw->prev_state), v, vl);
	cur = arrow + 5;
	end = p + len;
	if (tp_kv(cur, (size_t)(end - cur), "next_comm=", " next_pid=", &v, &vl))
		return -EINVAL;
	tp_copy(sw->next_comm, sizeof(sw->next_comm), v, vl);
	cur = v + vl;
	if (tp_kv(cur, (size_t)(end - cur), "next_pid=", NULL, &v, &vl) || !vl)
		return -EINVAL;
	sw->next_pid = tp_atoi32(v, vl, NULL);
	cur = v + vl;
	if (!tp_kv(cur, (size_t)(end - cur), "next_prio=", NULL, &v, &vl))
		sw->next_prio = tp_atoi32(v, vl, NULL);
	return 0;
}

/* trace-cmd: "COMM:PID [PRIO] STATE" or "COMM:PID [PRIO]"; state may be NULL. */
static int tp_switch_task(const char *p, size_t len, char *comm, int32_t *pid, int32_t *prio,
			  char *state)
{
	const char *br = NULL, *q, *end = p + len, *colon = NULL;
	size_t used;

	for (q = p; q + 1 < end; q++)
		if (q[0] == ' ' && q[1] == '[')
			br = q;
	if (!br)
		return -EINVAL;
	for (q = br; q > p; q--)
		if (q[-1] == ':') {
			colon = q - 1;
			break;
		}
	if (!colon || colon + 1 >= br || !tp_isdigit(colon[1]))
		return -EINVAL;
	tp_copy(comm, EV_COMM_LEN, p, (size_t)(colon - p));
	*pid = tp_atoi32(colon + 1, (size_t)(br - colon - 1), NULL);
	q = br + 2;
	*prio = tp_atoi32(q, (size_t)(end - q), &used);
	q += used;
	if (q < end && *q == ']')
		q++;
	while (q < end && tp_isspace(*q))
		q++;
	if (state) {
		const char *s = q;

		while (q < end && !tp_isspace(*q))
			q++;
		tp_copy(state, EV_STATE_LEN, s, (size_t)(q - s));
	}
	return 0;
}

static int tp_parse_switch(const char *p, size_t len, struct ev_switch *sw)
{
	const char *arrow;
	size_t ll;

	memset(sw, 0, sizeof(*sw));
	sw->prev_prio = -1;
	sw->next_prio = -1;
	while (len && tp_isspace(p[len - 1]))
		len--;
	if (tp_find(p, len, "prev_pid="))
		return tp_switch_tracefs(p, len, sw);
	arrow = tp_find(p, len, " ==> ");
	if (!arrow)
		return -EINVAL;
	ll = (size_t)(arrow - p);
	if (tp_switch_task(p, ll, sw->prev_comm, &sw->prev_pid, &sw->prev_prio, sw->prev_state))
		return -EINVAL;
	return tp_switch_task(arrow + 5, len - ll - 5, sw->next_comm, &sw->next_pid, &sw->next_prio,
			      NULL);
}

/* Attribution ----------------------------------------------------------------------------- */

int tp_ctx_init(struct tp_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	tp_strtab_init(&ctx->events);
	return 0;
}

void tp_ctx_free(struct tp_ctx *ctx)
{
	size_t i;

	for (i = 0; ctx->ring && i <= ctx->ring_mask; i++) {
		free(ctx->ring[i].text);
		free(ctx->ring[i].offs);
	}
	free(ctx->ring);
	free(ctx->cpus);
	free(ctx->fptr);
	tp_strtab_free(&ctx->events);
	memset(ctx, 0, sizeof(*ctx));
}

/* The dense index of event type @name (added if new), or a negative errno. */
static long tp_intern_event(struct tp_ctx *ctx, const char *name, size_t len)
{
	return tp_strtab_intern(&ctx->events, name, len);
}

static int tp_note_bad(struct tp_ctx *ctx, uint64_t line, uint64_t offset, const char *reason)
{
	if (!ctx->bad_reason || offset < ctx->bad_offset) {
		ctx->bad_line = line;
		ctx->bad_offset = offset;
		ctx->bad_reason = reason;
	}
	return 0;
}

static struct tp_slot *tp_at(struct tp_ctx *ctx, uint64_t pos)
{
	return &ctx->ring[pos & ctx->ring_mask];
}

/* Deliver the record at the head of the ring. */
static int tp_emit(struct tp_ctx *ctx, ev_fn fn, void *arg)
{
	struct tp_slot *s = tp_at(ctx, ctx->head);
	struct ev_record *r = &s->rec;
	int ret = 0;
	size_t i;

	ctx->head++;
	r->type_name = ctx->events.strs[r->type];
	/*
	 * Delivered while still the latest event of its CPU (the window was full): keep a copy
	 * for the references that may still follow it on that CPU.
	 */
	if (r->cpu >= 0 && (size_t)r->cpu < ctx->ncpu && ctx->cpus[r->cpu].have_event &&
	    ctx->cpus[r->cpu].slot == ctx->head - 1) {
		ctx->cpus[r->cpu].last = *r;
		ctx->cpus[r->cpu].last.stack.kind = EV_STACK_NONE;
		ctx->cpus[r->cpu].last.flags &= ~(uint32_t)EV_F_EXTRA;
	}
	if (r->stack.kind == EV_STACK_FULL) {
		if (s->noffs > ctx->fptr_cap) {
			const char **n = realloc(ctx->fptr, s->noffs * sizeof(*n));

			if (!n)
				return -ENOMEM;
			ctx->fptr = n;
			ctx->fptr_cap = s->noffs;
		}
		for (i = 0; i < s->noffs; i++)
			ctx->fptr[i] = s->text + s->offs[i];
		r->stack.nr = (uint32_t)s->noffs;
		r->stack.frames = ctx->fptr;
	}
	if (fn)
		ret = fn(arg, r);
	return ret;
}

/* Deliver every complete record at the head; all of them with @all. */
static int tp_drain(struct tp_ctx *ctx, ev_fn fn, void *arg, int all)
{
	while (ctx->head < ctx->tail) {
		struct tp_slot *s = tp_at(ctx, ctx->head);
		int ret;

		if (s->open && !all && ctx->tail - ctx->head <= TP_WINDOW)
			break;
		ret = tp_emit(ctx, fn, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* A new slot at the tail (the ring grows by doubling, keeping the order). */
static struct tp_slot *tp_push(struct tp_ctx *ctx)
{
	struct tp_slot *s;

	if (!ctx->ring || ctx->tail - ctx->head > ctx->ring_mask) {
		size_t ocap = ctx->ring ? ctx->ring_mask + 1 : 0, ncap = ocap ? ocap * 2 : 16, i;
		struct tp_slot *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		/* positions keep their absolute value: slot pos lives at pos & (ncap - 1) */
		for (i = 0; i < ocap; i++) {
			uint64_t pos = ctx->head + i;

			n[pos & (ncap - 1)] = ctx->ring[pos & (ocap - 1)];
		}
		free(ctx->ring);
		ctx->ring = n;
		ctx->ring_mask = ncap - 1;
	}
	s = tp_at(ctx, ctx->tail++);
	s->tlen = 0;
	s->noffs = 0;
	s->open = 0;
	return s;
}

static struct tp_cpu *tp_cpu(struct tp_ctx *ctx, int cpu)
{
	if (cpu < 0)
		return NULL;
	if ((size_t)cpu >= ctx->ncpu) {
		size_t n = (size_t)cpu + 1;
		struct tp_cpu *v;

		if (n < ctx->ncpu * 2)
			n = ctx->ncpu * 2;
		v = realloc(ctx->cpus, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + ctx->ncpu, 0, (n - ctx->ncpu) * sizeof(*v));
		ctx->cpus = v;
		ctx->ncpu = n;
	}
	return &ctx->cpus[cpu];
}

static void tp_fill_task(struct ev_record *r, const struct tp_line *l)
{
	r->cpu = l->cpu;
	r->pid = l->pid;
	r->tgid = l->tgid;
	r->ts_ns = l->ts_ns;
	r->comm[0] = '\0';
	if (l->comm)
		tp_copy(r->comm, sizeof(r->comm), l->comm, l->comm_len);
}

static int tp_on_event(struct tp_ctx *ctx, const struct tp_line *l, ev_fn fn, void *arg)
{
	struct tp_cpu *c = NULL;
	struct tp_slot *s;
	long ev;

	ev = tp_intern_event(ctx, l->name, l->name_len);
	if (ev < 0)
		return (int)ev;
	if (l->cpu >= 0) {
		c = tp_cpu(ctx, l->cpu);
		if (!c)
			return -ENOMEM;
		if (c->have_event && c->slot >= ctx->head)
			tp_at(ctx, c->slot)->open = 0;
		c->lost = 0;
	}
	s = tp_push(ctx);
	if (!s)
		return -ENOMEM;
	memset(&s->rec, 0, sizeof(s->rec));
	tp_fill_task(&s->rec, l);
	s->rec.seq = ctx->seq++;
	s->rec.type = (uint32_t)ev;
	if (l->name_len == strlen("sched_switch") && memcmp(l->name, "sched_switch", 12) == 0 &&
	    tp_parse_switch(l->fields, l->fields_len, &s->rec.sw) == 0)
		s->rec.flags |= EV_F_SWITCH;
	if (c) {
		s->open = 1;
		c->slot = ctx->tail - 1;
		c->have_event = 1; /* c->last is filled only if the slot is delivered early */
		c->seen = 1;
	}
	return tp_drain(ctx, fn, arg, 0);
}

/* The slot a stack reference on the line's CPU goes to (new EV_F_EXTRA/unattributed ones). */
static struct tp_slot *tp_ref_slot(struct tp_ctx *ctx, const struct tp_line *l, uint64_t *pos)
{
	struct tp_cpu *c = tp_cpu(ctx, l->cpu);
	struct tp_slot *s;
	long ev;

	if (l->cpu >= 0 && !c)
		return NULL;
	if (c && c->have_event && c->slot >= ctx->head) {
		s = tp_at(ctx, c->slot);
		if (s->rec.stack.kind == EV_STACK_NONE) {
			*pos = c->slot;
			return s;
		}
	}
	if (c && c->have_event && c->slot >= ctx->head) {
		/* the CPU's event is still waiting: copy it before tp_push() may move the ring */
		ctx->tmp = tp_at(ctx, c->slot)->rec;
		ctx->tmp.stack.kind = EV_STACK_NONE;
		ctx->tmp.flags &= ~(uint32_t)EV_F_EXTRA;
	} else if (c && c->have_event) {
		ctx->tmp = c->last;
	}
	s = tp_push(ctx);
	if (!s)
		return NULL;
	*pos = ctx->tail - 1;
	if (c && c->have_event) {
		s->rec = ctx->tmp;
		s->rec.flags |= EV_F_EXTRA;
		ctx->extra++;
		/* later references of the same event land here */
		c->slot = *pos;
		s->open = 1;
		return s;
	}
	/* no event of its own on this CPU: one that was lost, or one before the input began */
	if (c && c->lost) {
		ev = tp_intern_event(ctx, EV_TYPE_LOST, strlen(EV_TYPE_LOST));
		ctx->after_loss++;
	} else {
		ev = tp_intern_event(ctx, EV_TYPE_UNATTRIBUTED, strlen(EV_TYPE_UNATTRIBUTED));
		ctx->unattributed++;
	}
	if (ev < 0)
		return NULL;
	memset(&s->rec, 0, sizeof(s->rec));
	tp_fill_task(&s->rec, l);
	s->rec.seq = ctx->seq;
	s->rec.type = (uint32_t)ev;
	s->rec.flags = EV_F_UNATTRIBUTED;
	return s;
}

static int tp_add_frame(struct tp_slot *s, const char *f, size_t len)
{
	if (s->noffs == s->offcap) {
		size_t ncap = s->offcap ? s->offcap * 2 : 32;
		size_t *n = realloc(s->offs, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->offs = n;
		s->offcap = ncap;
	}
	if (s->tlen + len + 1 > s->tcap) {
		size_t ncap = s->tcap ? s->tcap * 2 : 1024;
		char *n;

		while (ncap < s->tlen + len + 1)
			ncap *= 2;
		n = realloc(s->text, ncap);
		if (!n)
			return -ENOMEM;
		s->text = n;
		s->tcap = ncap;
	}
	s->offs[s->noffs++] = s->tlen;
	memcpy(s->text + s->tlen, f, len);
	s->tlen += len;
	s->text[s->tlen++] = '\0';
	return 0;
}

/*
 * The frames on a definition's own line, in plugin_stackmap's one-line form
 * ("<stack_def 5 gen 0> f1 <- f2"): their number, the first @max in @frames and @lens.
 */
static uint32_t tp_inline_frames(const char *p, size_t len, const char **frames, size_t *lens,
				 uint32_t max)
{
	const char *end = p + len, *sep;
	uint32_t n = 0;

	while (p < end) {
		sep = tp_find(p, (size_t)(end - p), " <- ");
		if (n < max) {
			frames[n] = p;
			lens[n] = (size_t)((sep ? sep : end) - p);
		}
		n++;
		if (!sep)
			break;
		p = sep + 4;
	}
	return n;
}

#define TP_DEF_NO_FRAMES "<stack_def> without frames"
#define TP_DEF_TOO_DEEP	 "<stack_def> with more than 64 frames"
/* An id carries the low bits of its switch count: does the definition's count agree? */
static int tp_def_switch_ok(const struct tp_line *l)
{
	return !l->sw_known || ((l->stack_id >> SMBIN_SWITCH_SHIFT) & SMBIN_SWITCH_MASK) ==
				       (l->sw & SMBIN_SWITCH_MASK);
}

#define TP_DEF_SWITCH \
	"<stack_def> whose switch count is not the one its id carries (bits 18 and up)"
#define TP_DEF_MALFORMED \
	"malformed <stack_def> entry (expected <stack_def ID gen GENERATION [switch COUNT]>)"

/* End of an open <stack trace> block: its record may be complete now. */
static void tp_close_block(struct tp_ctx *ctx)
{
	/*
	 * a definition needs a frame (unless its frames were in a torn last line, which a copy
	 * of a live file may cut anywhere: the definition is then dropped with that line)
	 */
	if (ctx->in_block == 3 && !ctx->def_frames &&
	    !(ctx->torn_line && ctx->def_line + 1 == ctx->torn_line))
		tp_note_bad(ctx, ctx->def_line, ctx->def_offset, TP_DEF_NO_FRAMES);
	if (ctx->in_block == 1 && ctx->block_slot >= ctx->head) {
		struct tp_slot *s = tp_at(ctx, ctx->block_slot);
		int cpu = s->rec.cpu;

		/* an event slot stays open until the next event on its CPU */
		if (cpu < 0 || (size_t)cpu >= ctx->ncpu || ctx->cpus[cpu].slot != ctx->block_slot)
			s->open = 0;
	}
	ctx->in_block = 0;
}

/*
 * The kernel lost events on l->cpu: the CPU's waiting event can get no more references, and
 * a marker record goes out in its place in the input order.
 */
static int tp_on_lost(struct tp_ctx *ctx, const struct tp_line *l, ev_fn fn, void *arg)
{
	struct tp_cpu *c = tp_cpu(ctx, l->cpu);
	struct tp_slot *s;
	long ev;

	if (!c)
		return -ENOMEM;
	if (c->have_event && c->slot >= ctx->head)
		tp_at(ctx, c->slot)->open = 0;
	/* before the CPU's first event, its stacks stay "(no event)": the start of its data */
	c->lost = c->have_event || c->seen;
	c->have_event = 0;
	ctx->lost_markers++;
	ctx->lost_events += l->lost;
	ev = tp_intern_event(ctx, EV_TYPE_LOST, strlen(EV_TYPE_LOST));
	if (ev < 0)
		return (int)ev;
	s = tp_push(ctx);
	if (!s)
		return -ENOMEM;
	memset(&s->rec, 0, sizeof(s->rec));
	s->rec.cpu = l->cpu;
	s->rec.pid = EV_PID_NONE;
	s->rec.tgid = EV_PID_NONE;
	s->rec.ts_ns = EV_TS_NONE;
	s->rec.seq = ctx->seq;
	s->rec.type = (uint32_t)ev;
	s->rec.flags = EV_F_LOST;
	s->rec.lost = l->lost;
	return tp_drain(ctx, fn, arg, 0);
}

#define TP_NUL_MSG "NUL byte in trace text (binary data or a torn file)"

/* One line; @nul_checked: the caller already looked for NUL bytes in it. */
static int tp_feed(struct tp_ctx *ctx, const char *line, size_t len, ev_fn fn, void *arg,
		   int nul_checked)
{
	struct tp_line l;
	struct tp_slot *s;
	uint64_t pos;
	uint64_t off = ctx->offset;

	ctx->lines++;
	ctx->offset += len + 1;
	if (!nul_checked && memchr(line, '\0', len))
		tp_note_bad(ctx, ctx->lines, off, TP_NUL_MSG);
	tp_parse(line, len, &l, 1);
	if (l.kind == TP_FRAME) {
		if (ctx->in_block == 1)
			return tp_add_frame(tp_at(ctx, ctx->block_slot), l.name, l.name_len);
		if (ctx->in_block == 3 && ++ctx->def_frames > TP_MAX_DEF_FRAMES)
			tp_note_bad(ctx, ctx->def_line, ctx->def_offset, TP_DEF_TOO_DEEP);
		if (!ctx->in_block)
			ctx->stray_frames++;
		return 0;
	}
	tp_close_block(ctx);
	switch (l.kind) {
	case TP_EVENT:
		return tp_on_event(ctx, &l, fn, arg);
	case TP_STACK_ID:
		s = tp_ref_slot(ctx, &l, &pos);
		if (!s)
			return -ENOMEM;
		s->rec.stack.kind = EV_STACK_ID;
		s->rec.stack.id = l.stack_id;
		s->rec.stack.gen = 0;
		s->rec.stack.res = NULL;
		if (ctx->resolver)
			s->rec.stack.res = ctx->resolver->resolve(ctx->resolver->ctx, l.ts_ns,
								  l.stack_id, &s->rec.stack.gen);
		return tp_drain(ctx, fn, arg, 0);
	case TP_BAD_STACK_ID:
		ctx->bad_stack_ids++;
		return tp_note_bad(ctx, ctx->lines, off, "malformed <stack_id> entry");
	case TP_STACK_DEF:
		if (!tp_def_switch_ok(&l))
			return tp_note_bad(ctx, ctx->lines, off, TP_DEF_SWITCH);
		/* not a use of the stack and no event: tp_scan_defs() reads it */
		ctx->defs++;
		ctx->in_block = 3;
		ctx->def_line = ctx->lines;
		ctx->def_offset = off;
		ctx->def_frames = tp_inline_frames(l.fields, l.fields_len, NULL, NULL, 0);
		if (ctx->def_frames > TP_MAX_DEF_FRAMES)
			tp_note_bad(ctx, ctx->def_line, ctx->def_offset, TP_DEF_TOO_DEEP);
		return 0;
	case TP_BAD_STACK_DEF:
		return tp_note_bad(ctx, ctx->lines, off, TP_DEF_MALFORMED);
	case TP_LOST:
		return tp_on_lost(ctx, &l, fn, arg);
	case TP_STACK_START:
		s = tp_ref_slot(ctx, &l, &pos);
		if (!s)
			return -ENOMEM;
		s->rec.stack.kind = EV_STACK_FULL;
		s->open = 1;
		ctx->in_block = 1;
		ctx->block_slot = pos;
		return 0;
	case TP_USER_STACK_START:
		ctx->in_block = 2;
		return 0;
	default:
		return 0;
	}
}

int tp_feed_line_ev(struct tp_ctx *ctx, const char *line, size_t len, ev_fn fn, void *arg)
{
	return tp_feed(ctx, line, len, fn, arg, 0);
}

int tp_finish_ev(struct tp_ctx *ctx, ev_fn fn, void *arg)
{
	tp_close_block(ctx);
	return tp_drain(ctx, fn, arg, 1);
}

int tp_feed_records(struct tp_ctx *ctx, const char *buf, size_t len, ev_fn fn, void *arg)
{
	const char *p = buf, *end = buf + len, *nul = memchr(buf, '\0', len);
	int ret;

	/* one scan for NUL bytes over the whole buffer instead of one per line */
	if (nul) {
		const char *ls = nul, *q;
		uint64_t line = ctx->lines + 1;

		while (ls > buf && ls[-1] != '\n')
			ls--;
		for (q = buf; (q = memchr(q, '\n', (size_t)(ls - q))) != NULL; q++)
			line++;
		tp_note_bad(ctx, line, ctx->offset + (uint64_t)(ls - buf), TP_NUL_MSG);
	}
	while (p < end && !(ctx->bad_reason && ctx->bad_offset < ctx->offset)) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!nl) {
			/* a torn last line: not parsed, the caller warns */
			ctx->torn_line = ctx->lines + 1;
			break;
		}
		ret = tp_feed(ctx, p, n, fn, arg, 1);
		if (ret)
			return ret;
		p += n + 1;
	}
	return tp_finish_ev(ctx, fn, arg);
}

int tp_scan_defs(const char *buf, size_t len, int (*fn)(void *arg, const struct tp_def *d),
		 void *arg)
{
	static const char tag[] = "<stack_def ";
	const char *end = buf + len, *p = buf, *hit, *ls, *le, *q, *qe;
	struct tp_line l, f;
	struct tp_def *d;
	int ret = 0;

	while (end > buf && end[-1] != '\n')
		end--; /* complete lines only */
	d = malloc(sizeof(*d));
	if (!d)
		return -ENOMEM;
	while (!ret && p < end && (hit = memmem(p, (size_t)(end - p), tag, sizeof(tag) - 1))) {
		for (ls = hit; ls > p && ls[-1] != '\n'; ls--)
			;
		le = memchr(hit, '\n', (size_t)(end - hit));
		p = le + 1;
		tp_parse_line(ls, (size_t)(le - ls), &l);
		if (l.kind != TP_STACK_DEF || !tp_def_switch_ok(&l))
			continue; /* (tp_feed_line_ev() reports it) */
		d->id = l.stack_id;
		d->gen = l.gen;
		d->sw = l.sw;
		d->sw_known = l.sw_known;
		d->cpu = l.cpu;
		d->ts_ns = l.ts_ns;
		d->nr = tp_inline_frames(l.fields, l.fields_len, d->frames, d->lens,
					 TP_MAX_DEF_FRAMES);
		if (d->nr > TP_MAX_DEF_FRAMES)
			d->nr = TP_MAX_DEF_FRAMES + 1; /* (too deep: left out) */
		for (q = p; q < end; q = qe + 1) {
			qe = memchr(q, '\n', (size_t)(end - q));
			tp_parse(q, (size_t)(qe - q), &f, 0);
			if (f.kind != TP_FRAME)
				break;
			if (d->nr <= TP_MAX_DEF_FRAMES) {
				if (d->nr < TP_MAX_DEF_FRAMES) {
					d->frames[d->nr] = f.name;
					d->lens[d->nr] = f.name_len;
				}
				d->nr++;
			}
		}
		p = q;
		/* the malformed ones are the record parser's to reject */
		if (d->nr && d->nr <= TP_MAX_DEF_FRAMES)
			ret = fn(arg, d);
	}
	free(d);
	return ret;
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
