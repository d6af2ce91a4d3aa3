// SPDX-License-Identifier: GPL-2.0
/*
 * pprof exporter: a gzipped perftools.profiles.Profile (profile.proto of
 * github.com/google/pprof), encoded by hand from its published field numbers:
 *
 *   Profile:   sample_type 1, sample 2, mapping 3, location 4, function 5, string_table 6,
 *              time_nanos 9, duration_nanos 10, period_type 11, period 12, comment 13
 *   ValueType: type 1, unit 2 (string table indexes)
 *   Sample:    location_id 1 (packed, leaf first), value 2 (packed), label 3
 *   Label:     key 1, str 2, num 3
 *   Mapping:   id 1, memory_start 2, memory_limit 3, filename 5, has_functions 7
 *   Location:  id 1, mapping_id 2, address 3, line 4
 *   Line:      function_id 1
 *   Function:  id 1, name 2, system_name 3
 *
 * One sample per (stack, event type, task) with labels event, comm and pid; one mapping per
 * kernel module ("[kernel.kallsyms]" for the core kernel) spanning the addresses seen in it;
 * one location per (address, function), one function per (name, module). The string table
 * is the profile's own (index 0 is "").
 *
 * The event type is the root frame of every sample, a function "[event TYPE]" without a
 * mapping (a location per event type after the stack locations): allocation and scheduling
 * stacks then never merge into one tree node, and a flame graph or `pprof -top -cum` shows each
 * event type as its own root, as the folded export does ("TYPE;root;...;leaf"). One sample type
 * per event type would keep the totals apart too, but pprof shows one sample type at a time
 * (the last by default, -sample_index for the others) and profilers that ingest pprof
 * (Pyroscope, Parca) take one: the other event types would be hidden. The brackets keep the
 * root apart from a kernel function of the same name (kmem_cache_alloc is both).
 *
 * time_nanos is the first timestamp: on the trace clock, or wall-clock time when the profile
 * knows the offset (pf.have_wall).
 */
#define _POSIX_C_SOURCE 200809L
#include "export.h"
#include "pb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct pp_map {
	uint64_t lo, hi; /* address range seen, hi exclusive; lo == UINT64_MAX: none */
};

/* Write @len bytes gzip-compressed to @f. */
static int pp_gzip(const uint8_t *buf, size_t len, FILE *f)
{
	unsigned char out[65536];
	z_stream zs;
	int zr, ret = 0;

	memset(&zs, 0, sizeof(zs));
	/* level 1: several times faster than the default level 6, the file a little larger */
	if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = (unsigned char *)buf;
	do {
		/* feed in pieces: avail_in is a uInt */
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;
		int flush;

		zs.avail_in = (uInt)chunk;
		len -= chunk;
		flush = len ? Z_NO_FLUSH : Z_FINISH;
		do {
			zs.next_out = out;
			zs.avail_out = sizeof(out);
			zr = deflate(&zs, flush);
			if (zr == Z_STREAM_ERROR) {
				ret = -EIO;
				goto out;
			}
			if (fwrite(out, 1, sizeof(out) - zs.avail_out, f) !=
			    sizeof(out) - zs.avail_out) {
				ret = -EIO;
				goto out;
			}
		} while (zs.avail_out == 0);
	} while (len);
	if (zr != Z_STREAM_END)
		ret = -EIO;
out:
	deflateEnd(&zs);
	return ret;
}

int ex_write_pprof(struct pf *p, const struct ex_opts *o, FILE *f)
{
	struct pb prof, msg, sub;
	struct pp_map *maps = NULL;
	uint32_t *map_of_mod = NULL; /* module string -> mapping id (1-based), 0 none */
	uint32_t *ev_root = NULL; /* event type string -> root frame number (1-based), 0 none */
	uint32_t *ev_name = NULL; /* root frame number - 1 -> its "[event TYPE]" string */
	size_t nmaps = 0, nroots = 0, i, k;
	long s_type, s_unit, s_event, s_comm, s_pid, s_kernel, s_comment;
	int ret = -ENOMEM;

	(void)o;
	pb_init(&prof);
	pb_init(&msg);
	pb_init(&sub);
	s_type = pf_intern(p, p->opts.offcpu ? "off_cpu" : "events",
			   strlen(p->opts.offcpu ? "off_cpu" : "events"));
	s_unit = pf_intern(p, p->opts.offcpu ? "nanoseconds" : "count",
			   strlen(p->opts.offcpu ? "nanoseconds" : "count"));
	s_event = pf_intern(p, "event", 5);
	s_comm = pf_intern(p, "comm", 4);
	s_pid = pf_intern(p, "pid", 3);
	s_kernel = pf_intern(p, "[kernel.kallsyms]", strlen("[kernel.kallsyms]"));
	s_comment =
		pf_intern(p, "stackmap export " SM_VERSION, strlen("stackmap export " SM_VERSION));
	if (s_type < 0 || s_unit < 0 || s_event < 0 || s_comm < 0 || s_pid < 0 || s_kernel < 0 ||
	    s_comment < 0)
		goto out;
	/* root frames: "[event TYPE]" per event type in use, interned before the tables sized by
	 * the string count below */
	ev_root = calloc(p->strs.n + 1, sizeof(*ev_root));
	if (!ev_root)
		goto out;
	for (i = 0; i < p->nsamples; i++) {
		uint32_t t = p->samples[i].type, *nn;
		char name[600];
		long sn;
		int n;

		if (ev_root[t] || !pf_value(p, &p->samples[i]))
			continue;
		n = snprintf(name, sizeof(name), "[event %.*s]", (int)p->strs.lens[t],
			     p->strs.strs[t]);
		sn = pf_intern(p, name, (size_t)n < sizeof(name) ? (size_t)n : sizeof(name) - 1);
		if (sn < 0)
			goto out;
		nn = realloc(ev_name, (nroots + 1) * sizeof(*ev_name));
		if (!nn)
			goto out;
		ev_name = nn;
		ev_name[nroots] = (uint32_t)sn;
		ev_root[t] = (uint32_t)++nroots;
	}
	/* mappings: one per module in use, in order of first use by a function */
	map_of_mod = calloc(p->strs.n + 1, sizeof(*map_of_mod));
	maps = calloc(p->nfuncs + 1, sizeof(*maps));
	if (!map_of_mod || !maps)
		goto out;
	for (i = 0; i < p->nlocs; i++) {
		uint32_t mod = p->funcs[p->locs[i].func].module;
		struct pp_map *m;

		if (!map_of_mod[mod]) {
			maps[nmaps] = (struct pp_map){.lo = UINT64_MAX, .hi = 0};
			map_of_mod[mod] = (uint32_t)++nmaps;
		}
		m = &maps[map_of_mod[mod] - 1];
		if (p->locs[i].addr) {
			if (p->locs[i].addr < m->lo)
				m->lo = p->locs[i].addr;
			if (p->locs[i].addr + 1 > m->hi)
				m->hi = p->locs[i].addr + 1;
		}
	}

	pb_reset(&msg);
	pb_uint(&msg, 1, (uint64_t)s_type);
	pb_uint(&msg, 2, (uint64_t)s_unit);
	pb_msg(&prof, 1, &msg); /* sample_type */

	for (i = 0; i < p->nsamples; i++) {
		const struct pf_sample *s = &p->samples[i];
		const struct pf_stack *st = &p->stacks[s->stack];
		uint64_t v = pf_value(p, s);

		if (!v)
			continue;
		pb_reset(&msg);
		pb_reset(&sub);
		for (k = 0; k < st->nr; k++)
			pb_varint(&sub, (uint64_t)p->frames[st->first + k] + 1);
		pb_varint(&sub, p->nlocs + ev_root[s->type]); /* the event type, outermost */
		pb_msg(&msg, 1, &sub); /* location_id, packed */
		pb_reset(&sub);
		pb_varint(&sub, v);
		pb_msg(&msg, 2, &sub); /* value, packed */
		pb_reset(&sub);
		pb_uint(&sub, 1, (uint64_t)s_event);
		pb_uint(&sub, 2, s->type);
		pb_msg(&msg, 3, &sub);
		if (s->comm) {
			pb_reset(&sub);
			pb_uint(&sub, 1, (uint64_t)s_comm);
			pb_uint(&sub, 2, s->comm);
			pb_msg(&msg, 3, &sub);
		}
		if (s->pid != EV_PID_NONE) {
			pb_reset(&sub);
			pb_uint(&sub, 1, (uint64_t)s_pid);
			pb_int(&sub, 3, s->pid);
			pb_msg(&msg, 3, &sub);
		}
		pb_msg(&prof, 2, &msg);
	}
	for (i = 0; i < p->strs.n; i++) {
		uint32_t id = map_of_mod[i];
		const struct pp_map *m;

		if (!id)
			continue;
		m = &maps[id - 1];
		pb_reset(&msg);
		pb_uint(&msg, 1, id);
		if (m->lo != UINT64_MAX) {
			pb_uint(&msg, 2, m->lo);
			pb_uint(&msg, 3, m->hi);
		}
		pb_uint(&msg, 5, i ? i : (uint64_t)s_kernel);
		pb_uint(&msg, 7, 1); /* has_functions: nothing to symbolize */
		pb_msg(&prof, 3, &msg);
	}
	for (i = 0; i < p->nlocs; i++) {
		pb_reset(&msg);
		pb_uint(&msg, 1, i + 1);
		pb_uint(&msg, 2, map_of_mod[p->funcs[p->locs[i].func].module]);
		if (p->locs[i].addr)
			pb_uint(&msg, 3, p->locs[i].addr);
		pb_reset(&sub);
		pb_uint(&sub, 1, (uint64_t)p->locs[i].func + 1);
		pb_msg(&msg, 4, &sub);
		pb_msg(&prof, 4, &msg);
	}
	for (i = 0; i < nroots; i++) {
		pb_reset(&msg);
		pb_uint(&msg, 1, p->nlocs + i + 1);
		pb_reset(&sub);
		pb_uint(&sub, 1, p->nfuncs + i + 1);
		pb_msg(&msg, 4, &sub);
		pb_msg(&prof, 4, &msg);
	}
	for (i = 0; i < p->nfuncs; i++) {
		pb_reset(&msg);
		pb_uint(&msg, 1, i + 1);
		pb_uint(&msg, 2, p->funcs[i].name);
		pb_uint(&msg, 3, p->funcs[i].name);
		pb_msg(&prof, 5, &msg);
	}
	for (i = 0; i < nroots; i++) {
		pb_reset(&msg);
		pb_uint(&msg, 1, p->nfuncs + i + 1);
		pb_uint(&msg, 2, ev_name[i]);
		pb_uint(&msg, 3, ev_name[i]);
		pb_msg(&prof, 5, &msg);
	}
	for (i = 0; i < p->strs.n; i++)
		pb_bytes(&prof, 6, p->strs.strs[i], p->strs.lens[i]);
	if (p->ts_min != EV_TS_NONE) {
		pb_int(&prof, 9, (int64_t)p->ts_min + (p->have_wall ? p->wall_offset_ns : 0));
		pb_int(&prof, 10, (int64_t)(p->ts_max - p->ts_min));
	}
	pb_reset(&msg);
	pb_uint(&msg, 1, (uint64_t)s_type);
	pb_uint(&msg, 2, (uint64_t)s_unit);
	pb_msg(&prof, 11, &msg); /* period_type */
	pb_int(&prof, 12, 1);
	pb_reset(&sub);
	pb_varint(&sub, (uint64_t)s_comment);
	pb_msg(&prof, 13, &sub); /* comment, packed */
	if (prof.err) {
		ret = prof.err;
		goto out;
	}
	ret = pp_gzip(prof.buf, prof.len, f);
out:
	pb_free(&prof);
	pb_free(&msg);
	pb_free(&sub);
	free(maps);
	free(map_of_mod);
	free(ev_root);
	free(ev_name);
	return ret;
}
