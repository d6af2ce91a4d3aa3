// SPDX-License-Identifier: GPL-2.0
/*
 * expwall - unit-level check of the exporters' wall-clock side, which no input fills yet:
 *
 *   expwall pprof|perfetto OFFSET_NS TRACE MAP > OUT
 *
 * reads TRACE (trace text) with the stack_map_bin MAP and no symbols, sets the profile's
 * wall-clock offset (pf.have_wall, pf.wall_offset_ns) and writes the format to stdout.
 *
 *   expwall date FILE.dat
 *
 * prints what the trace.dat reader gives for trace-cmd's DATE option (td_file.have_date and
 * date_offset_ns).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "stacks.h"
#include "tracedat.h"

int main(int argc, char **argv)
{
	struct pf_opts po = {.keep_events = 1};
	struct ex_opts eo = {.by = EX_BY_EVENT};
	struct smbin_map map;
	struct sm_frames fr;
	struct ev_resolver rs;
	struct stk_set stk;
	struct tp_ctx ctx;
	struct pf p;
	char *trace, *bin;
	size_t tlen, blen;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "date")) {
		struct td_file td;
		struct td_err err = {0};

		ret = td_open_file(&td, argv[2], &err);
		if (!ret && td.have_date)
			printf("date offset %lld ns\n", (long long)td.date_offset_ns);
		else if (!ret)
			printf("no date\n");
		else
			fprintf(stderr, "expwall: %s: %s\n", argv[2], strerror(-ret));
		td_close(&td);
		return ret ? 1 : 0;
	}
	if (argc != 5 || (strcmp(argv[1], "pprof") && strcmp(argv[1], "perfetto"))) {
		fprintf(stderr, "usage: expwall pprof|perfetto OFFSET_NS TRACE MAP\n");
		return 2;
	}
	if (smbin_read_file(argv[3], &trace, &tlen) || smbin_read_file(argv[4], &bin, &blen) ||
	    smbin_decode(bin, blen, &map, NULL)) {
		fprintf(stderr, "expwall: cannot read %s or %s\n", argv[3], argv[4]);
		return 1;
	}
	sm_frames_init(&fr, NULL, 0);
	tp_ctx_init(&ctx);
	stk_init(&stk);
	ret = stk_finish(&stk, &map, 0, 0);
	rs = stk_resolver(&stk);
	ctx.resolver = &rs;
	if (!ret)
		ret = pf_init(&p, &fr, &po);
	if (!ret)
		ret = tp_feed_records(&ctx, trace, tlen, pf_add_record, &p);
	if (!ret) {
		pf_finish(&p);
		p.have_wall = 1;
		p.wall_offset_ns = strtoll(argv[2], NULL, 0);
		ret = argv[1][1] == 'p' ? ex_write_pprof(&p, &eo, stdout)
					: ex_write_perfetto(&p, &eo, stdout);
	}
	if (ret)
		fprintf(stderr, "expwall: %s\n", strerror(-ret));
	pf_free(&p);
	tp_ctx_free(&ctx);
	sm_frames_free(&fr);
	stk_free(&stk);
	smbin_free(&map);
	free(trace);
	free(bin);
	return ret ? 1 : 0;
}
