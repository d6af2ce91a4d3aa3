// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap report: attribute the stack references of a trace (<stack_id N> entries and
 * full-stack fallback blocks) to their events and show the most frequent stacks per event.
 */
#define _GNU_SOURCE
#include "report_dat.h"
#include "stackmap.h"
#include "trace_parse.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REP_DEFAULT_TOP 5

/* One (event type, stack) pair and how many references it got. */
struct rep_ent {
	uint32_t event;
	uint32_t full; /* 0: val is a stack id; 1: val indexes rep.full */
	uint32_t val;
	uint64_t count;
};

struct rep {
	const struct smbin_map *map;
	struct tp_strtab full; /* full stacks keyed by their frames joined with '\n' */
	struct rep_ent *ents; /* distinct (event, stack) pairs in first-seen order */
	size_t nents, cap;
	struct htab idx; /* over ents, hashed by rep_hash() */
	uint64_t refs_id, refs_full, refs_missing;
	char *joinbuf;
	size_t joincap;
};

static uint64_t rep_hash(uint32_t ev, uint32_t full, uint32_t val)
{
	uint64_t h = ((uint64_t)ev << 33 | (uint64_t)full << 32 | val) * 0x9E3779B97F4A7C15ull;

	return h ^ (h >> 31);
}

static int rep_ent_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct rep_ent *e = &((const struct rep *)ctx)->ents[idx], *k = key;

	return e->event == k->event && e->full == k->full && e->val == k->val;
}

static int rep_count(struct rep *r, uint32_t ev, uint32_t full, uint32_t val)
{
	struct rep_ent key = {.event = ev, .full = full, .val = val, .count = 1};
	uint64_t h = rep_hash(ev, full, val);
	uint32_t idx;
	size_t j;
	int ret;

	ret = htab_reserve(&r->idx);
	if (ret)
		return ret;
	idx = htab_find(&r->idx, h, rep_ent_eq, r, &key, &j);
	if (idx != HTAB_NONE) {
		r->ents[idx].count++;
		return 0;
	}
	if (r->nents == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 512;
		struct rep_ent *n = realloc(r->ents, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->ents = n;
		r->cap = ncap;
	}
	r->ents[r->nents] = key;
	htab_insert_at(&r->idx, j, h, (uint32_t)r->nents++);
	return 0;
}

static const struct smbin_stack *rep_find(const struct smbin_map *map, uint32_t id)
{
	size_t lo = 0, hi = map ? map->nr : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map->stacks[mid].id == id)
			return &map->stacks[mid];
		if (map->stacks[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int rep_on_stack(void *arg, uint32_t ev, const struct tp_stackref *ref)
{
	struct rep *r = arg;
	size_t len;
	long idx;

	if (!ref->full) {
		r->refs_id++;
		if (!rep_find(r->map, ref->id))
			r->refs_missing++;
		return rep_count(r, ev, 0, ref->id);
	}
	r->refs_full++;
	if (sm_join_frames(&r->joinbuf, &r->joincap, ref->frames, ref->nr, &len))
		return -ENOMEM;
	idx = tp_strtab_intern(&r->full, r->joinbuf, len);
	if (idx < 0)
		return (int)idx;
	return rep_count(r, ev, 1, (uint32_t)idx);
}

/* Per event type totals, used to order the output. */
struct rep_event {
	uint32_t idx;
	uint64_t refs;
	uint64_t lines;
	const char *name;
};

static int rep_event_cmp(const void *a, const void *b)
{
	const struct rep_event *x = a, *y = b;

	if (x->refs != y->refs)
		return x->refs > y->refs ? -1 : 1;
	return strcmp(x->name, y->name);
}

static uint32_t *rep_rank; /* event index -> output position, for rep_ent_cmp */

static int rep_ent_cmp(const void *a, const void *b)
{
	const struct rep_ent *x = a, *y = b;

	if (x->event != y->event)
		return rep_rank[x->event] < rep_rank[y->event] ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->full != y->full)
		return x->full < y->full ? -1 : 1;
	return x->val < y->val ? -1 : (x->val > y->val);
}

static int rep_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : (x > y);
}

/* Iterate the '\n'-terminated frames of a full stack, leaf first. */
static size_t rep_split(const char *joined, const char **starts, size_t *lens, size_t max)
{
	size_t n = 0;
	const char *p = joined, *nl;

	while (*p && n < max && (nl = strchr(p, '\n')) != NULL) {
		starts[n] = p;
		lens[n] = (size_t)(nl - p);
		n++;
		p = nl + 1;
	}
	return n;
}

static void rep_folded_line(struct sm_out *o, struct sm_frames *fr, struct rep *r,
			    const char *evname, const struct rep_ent *e)
{
	const struct smbin_stack *s;
	uint32_t j;

	sm_out_str(o, evname);
	if (e->full) {
		const char *joined = r->full.strs[e->val];
		size_t cnt = 0, k;
		const char *p;
		char fbuf[512], frame[512];

		for (p = joined; *p; p++)
			cnt += *p == '\n';
		/* frames are leaf first; the folded line is root first */
		for (k = cnt; k > 0; k--) {
			const char *st = joined;
			size_t idx = 0, len;

			while (idx < k - 1) {
				st = strchr(st, '\n') + 1;
				idx++;
			}
			len = (size_t)(strchr(st, '\n') - st);
			if (len >= sizeof(frame))
				len = sizeof(frame) - 1;
			memcpy(frame, st, len);
			frame[len] = '\0';
			tp_frame_func(frame, fbuf, sizeof(fbuf));
			sm_out_chr(o, ';');
			sm_out_str(o, fbuf);
		}
	} else {
		s = rep_find(r->map, e->val);
		if (!s) {
			sm_out_fmt(o, ";[missing stack_id %u]", e->val);
		} else {
			for (j = s->nr; j > 0; j--) {
				sm_out_chr(o, ';');
				sm_out_str(o, sm_frame(fr, s->ips[j - 1], SM_FRAME_FOLDED, NULL));
			}
		}
	}
	sm_out_chr(o, ' ');
	sm_out_u64(o, e->count);
	sm_out_chr(o, '\n');
}

static void rep_text_stack(struct sm_out *o, struct sm_frames *fr, struct rep *r,
			   const struct rep_ent *e, uint64_t total)
{
	const struct smbin_stack *s;
	const char *starts[4096];
	size_t lens[4096], n, k;
	uint32_t j;

	sm_out_fmt(o, "  %8llu %5.1f%%  ", (unsigned long long)e->count,
		   total ? 100.0 * (double)e->count / (double)total : 0.0);
	if (e->full) {
		n = rep_split(r->full.strs[e->val], starts, lens, 4096);
		sm_out_fmt(o, "full stack #%u (kernel fell back to a full stack, depth %zu)\n",
			   e->val + 1, n);
		for (k = 0; k < n; k++) {
			sm_out_fmt(o, "        [%zu] ", k);
			sm_out_mem(o, starts[k], lens[k]);
			sm_out_chr(o, '\n');
		}
		return;
	}
	s = rep_find(r->map, e->val);
	if (!s) {
		sm_out_fmt(o, "stack_id %u (missing from the map)\n", e->val);
		return;
	}
	sm_out_fmt(o, "stack_id %u [ref %u, depth %u]\n", s->id, s->ref_count, s->nr);
	for (j = 0; j < s->nr; j++) {
		sm_out_fmt(o, "        [%u] ", j);
		sm_out_str(o, sm_frame(fr, s->ips[j], SM_FRAME_FULL, NULL));
		sm_out_chr(o, '\n');
	}
}

static int rep_print(struct rep *r, struct tp_ctx *ctx, struct sm_frames *fr, int folded,
		     unsigned long top, int have_top)
{
	size_t nev = tp_nr_events(ctx), nent = 0, i, k, nmiss = 0, nmiss_ids = 0;
	struct rep_event *evs = NULL;
	struct rep_ent *ents = NULL;
	uint32_t *miss = NULL;
	struct sm_out out;
	int ret = -ENOMEM;

	if (sm_out_init(&out, stdout))
		return -ENOMEM;
	evs = calloc(nev + 1, sizeof(*evs));
	rep_rank = calloc(nev + 1, sizeof(*rep_rank));
	ents = calloc(r->nents + 1, sizeof(*ents));
	miss = calloc(r->nents + 1, sizeof(*miss));
	if (!evs || !rep_rank || !ents || !miss)
		goto out;
	for (i = 0; i < nev; i++) {
		evs[i].idx = (uint32_t)i;
		evs[i].name = tp_event_name(ctx, (uint32_t)i);
		evs[i].lines = ctx->event_lines[i];
	}
	for (i = 0; i < r->nents; i++) {
		ents[nent++] = r->ents[i];
		evs[r->ents[i].event].refs += r->ents[i].count;
		if (!r->ents[i].full && !rep_find(r->map, r->ents[i].val))
			miss[nmiss++] = r->ents[i].val;
	}
	qsort(miss, nmiss, sizeof(*miss), rep_u32_cmp);
	for (i = 0; i < nmiss; i++)
		if (i == 0 || miss[i] != miss[i - 1])
			nmiss_ids++;
	qsort(evs, nev, sizeof(*evs), rep_event_cmp);
	for (i = 0; i < nev; i++)
		rep_rank[evs[i].idx] = (uint32_t)i;
	qsort(ents, nent, sizeof(*ents), rep_ent_cmp);

	if (!folded) {
		uint64_t lines = 0;

		for (i = 0; i < nev; i++)
			lines += evs[i].lines;
		sm_out_fmt(&out,
			   "# %llu events, %llu stack references (%llu by id, %llu full stacks), "
			   "%zu distinct stacks\n",
			   (unsigned long long)lines,
			   (unsigned long long)(r->refs_id + r->refs_full),
			   (unsigned long long)r->refs_id, (unsigned long long)r->refs_full, nent);
	}
	k = 0;
	for (i = 0; i < nev; i++) {
		size_t shown = 0, distinct = 0, first = k;
		const char *name = evs[i].name;
		unsigned long limit = have_top ? top : (folded ? (unsigned long)-1 : top);

		while (k < nent && ents[k].event == evs[i].idx) {
			distinct++;
			k++;
		}
		if (!folded)
			sm_out_fmt(&out, "\n%s: %llu events, %llu stacks, %zu distinct\n", name,
				   (unsigned long long)evs[i].lines,
				   (unsigned long long)evs[i].refs, distinct);
		for (shown = 0; shown < distinct && shown < limit; shown++) {
			if (folded)
				rep_folded_line(&out, fr, r, name, &ents[first + shown]);
			else
				rep_text_stack(&out, fr, r, &ents[first + shown], evs[i].refs);
		}
		if (!folded && shown < distinct)
			sm_out_fmt(&out, "  ... %zu more distinct stacks (see --top)\n",
				   distinct - shown);
	}
	if (r->refs_missing) {
		if (!folded)
			sm_out_fmt(&out,
				   "\n%llu events reference %zu stack ids missing from the map\n",
				   (unsigned long long)r->refs_missing, nmiss_ids);
		sm_out_flush(&out);
		fflush(stdout);
		sm_err("%llu events reference %zu stack ids missing from the map",
		       (unsigned long long)r->refs_missing, nmiss_ids);
	}
	if (ctx->bad_stack_ids) {
		if (!folded)
			sm_out_fmt(&out, "%llu malformed <stack_id> lines ignored\n",
				   (unsigned long long)ctx->bad_stack_ids);
		sm_out_flush(&out);
		sm_err("%llu malformed <stack_id> lines ignored",
		       (unsigned long long)ctx->bad_stack_ids);
	}
	ret = sm_out_done(&out);
	out.buf = NULL;
out:
	if (out.buf)
		sm_out_done(&out);
	free(evs);
	free(rep_rank);
	rep_rank = NULL;
	free(ents);
	free(miss);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"trace", required_argument, NULL, 't'},
		{"map", required_argument, NULL, 'm'},
		{"input", required_argument, NULL, 'i'},
		{"top", required_argument, NULL, 'n'},
		{"folded", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		SM_SYM_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	char *trace_path = NULL, *map_path = NULL, *ks_path = NULL, *buf = NULL;
	unsigned long top = REP_DEFAULT_TOP;
	int folded = 0, have_top = 0, have_syms = 0, ret, c;
	const char *dir = NULL;
	struct smbin_map map = {0};
	struct rep r = {0};
	struct sm_frames fr;
	struct syms syms;
	struct tp_ctx ctx;
	struct td_file td = {0};
	struct td_err terr = {0};
	struct rd_stats rst;
	int is_dat = 0, map_sibling = 0;
	char what[4200];
	size_t len;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hi:", longopts, NULL)) != -1) {
		if (sm_sym_option(c, optarg))
			continue;
		switch (c) {
		case 't':
			free(trace_path);
			trace_path = strdup(optarg);
			break;
		case 'm':
			free(map_path);
			map_path = strdup(optarg);
			break;
		case 'i':
			dir = optarg;
			break;
		case 'n':
			if (sm_parse_uint(optarg, &top)) {
				sm_err("report: --top needs a number, got '%s'", optarg);
				ret = SM_EXIT_USAGE;
				goto out_args;
			}
			have_top = 1;
			break;
		case 'f':
			folded = 1;
			break;
		case 'h':
			sm_cmd_usage(stdout, "report");
			ret = SM_EXIT_OK;
			goto out_args;
		default:
			sm_err("report: unknown or incomplete option '%s'", argv[optind - 1]);
			ret = SM_EXIT_USAGE;
			goto out_args;
		}
	}
	if (optind < argc && !trace_path) {
		trace_path = strdup(argv[optind]);
		optind++;
	}
	if (optind < argc) {
		sm_err("report: unexpected argument '%s'", argv[optind]);
		ret = SM_EXIT_USAGE;
		goto out_args;
	}
	if (dir) {
		if (!trace_path) {
			trace_path = sm_path_join(dir, "trace.dat");
			if (trace_path && access(trace_path, F_OK)) {
				free(trace_path);
				trace_path = sm_path_join(dir, "trace");
			}
		}
		if (!map_path)
			map_path = sm_path_join(dir, "stack_map_bin");
		ks_path = sm_path_join(dir, "kallsyms");
		if (ks_path && !sm_opts.kallsyms && !sm_opts.no_kallsyms &&
		    access(ks_path, R_OK) == 0)
			sm_opts.kallsyms = ks_path;
	}
	if (trace_path) {
		is_dat = sm_is_tracedat(trace_path);
		if (is_dat < 0) {
			sm_err("%s: %s", trace_path, strerror(-is_dat));
			ret = SM_EXIT_USAGE;
			goto out_args;
		}
		/* a trace.dat's map is the stack_map_bin next to it, else the one inside it */
		if (is_dat && !map_path) {
			map_path = sm_sibling(trace_path, "stack_map_bin");
			map_sibling = 1;
		}
	}
	if (!trace_path || !map_path) {
		sm_err("report: needs --trace FILE and --map FILE (or -i DIR, or a trace.dat)");
		ret = SM_EXIT_USAGE;
		goto out_args;
	}
	if (is_dat) {
		ret = td_open_file(&td, trace_path, &terr);
		if (ret) {
			if (ret == -EBADMSG || ret == -EPROTONOSUPPORT)
				sm_err("%s: offset %llu: %s", trace_path,
				       (unsigned long long)terr.offset, terr.msg);
			else
				sm_err("%s: %s", trace_path, strerror(-ret));
			ret = ret == -EBADMSG || ret == -EPROTONOSUPPORT ? SM_EXIT_DATA
									 : SM_EXIT_USAGE;
			td_close(&td);
			goto out_args;
		}
	}

	ret = sm_load_syms_text(&syms, &have_syms, is_dat ? td.kallsyms : NULL, td.kallsyms_len,
				trace_path);
	if (ret) {
		td_close(&td);
		goto out_args;
	}
	sm_frames_init(&fr, have_syms ? &syms : NULL, sm_opts.lines);
	tp_ctx_init(&ctx);
	tp_strtab_init(&r.full);
	htab_init(&r.idx, 1024);
	if (map_sibling && access(map_path, F_OK) && td.stackmap) {
		snprintf(what, sizeof(what), "%s (stack map inside)", trace_path);
		ret = sm_load_map_buf(what, td.stackmap, td.stackmap_len, &map, 0);
	} else {
		ret = sm_load_map(map_path, &map, 0);
	}
	if (ret)
		goto out;
	r.map = &map;
	if (is_dat) {
		ret = rd_feed(&td, &ctx, &fr, rep_on_stack, &r, &rst, &terr);
		if (ret == -EBADMSG) {
			sm_err("%s: offset %llu: %s", trace_path, (unsigned long long)terr.offset,
			       terr.msg);
			ret = SM_EXIT_DATA;
			goto out;
		}
		if (!ret && rst.missed_pages)
			sm_err("%s: the kernel lost events before %llu ring-buffer pages (%llu "
			       "lost events counted where the page had room for the count)",
			       trace_path, (unsigned long long)rst.missed_pages,
			       (unsigned long long)rst.missed_events);
	} else {
		ret = smbin_read_file(trace_path, &buf, &len);
		if (ret) {
			sm_err("%s: %s", trace_path, strerror(-ret));
			ret = SM_EXIT_USAGE;
			goto out;
		}
		ret = tp_feed_buf(&ctx, buf, len, rep_on_stack, &r);
	}
	if (!ret)
		ret = rep_print(&r, &ctx, &fr, folded, top, have_top);
	if (ret) {
		sm_err("report: %s", strerror(-ret));
		ret = SM_EXIT_USAGE;
	}
out:
	free(buf);
	free(r.ents);
	htab_free(&r.idx);
	free(r.joinbuf);
	tp_strtab_free(&r.full);
	tp_ctx_free(&ctx);
	smbin_free(&map);
	sm_frames_free(&fr);
	syms_free(&syms);
	td_close(&td);
out_args:
	free(trace_path);
	free(map_path);
	free(ks_path);
	return ret;
}
