// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the exporters: trace text -> records -> profile (with off-CPU
 * weights) -> every writer (folded, speedscope, pprof, perfetto, svg, diff against itself),
 * into memory. Checks the invariants that do not depend on the format: every stack
 * reference is in exactly one sample, and the folded output's counts add up to them.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "stacks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Two stacks (ids 3 and 7), the second with the trampoline sentinel. */
static const uint64_t fz_ips[] = {0xffffffff81000010ull, 0xffffffff81000020ull,
				  0xffffffff81000030ull, 0x7fffffffull};
static struct smbin_stack fz_stacks[] = {
	{.id = 3, .nr = 2, .ref_count = 1, .ips = fz_ips},
	{.id = 7, .nr = 2, .ref_count = 1, .ips = fz_ips + 2},
};

static void fz_write(struct pf *p, int fmt, enum ex_by by)
{
	struct ex_opts o = {.by = by, .color = (enum ex_color)(fmt & 1)};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	switch (fmt) {
	case 0:
		ex_write_folded(p, &o, f);
		break;
	case 1:
		ex_write_speedscope(p, &o, f);
		break;
	case 2:
		ex_write_pprof(p, &o, f);
		break;
	case 3:
		ex_write_perfetto(p, &o, f);
		break;
	case 4:
		ex_write_svg(p, &o, f);
		break;
	default:
		ex_write_diff_svg(p, p, &o, 1, f);
		break;
	}
	fclose(f);
	if (fmt == 0 && !p->opts.offcpu) {
		/* folded counts add up to the stack references */
		uint64_t sum = 0;
		char *line = buf, *sp;

		while (line && *line) {
			char *nl = strchr(line, '\n');

			if (nl)
				*nl = '\0';
			sp = strrchr(line, ' ');
			if (sp)
				sum += strtoull(sp + 1, NULL, 10);
			line = nl ? nl + 1 : NULL;
		}
		if (sum != p->nr_refs)
			abort();
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smbin_map map = {.nr = 2, .stacks = fz_stacks};
	struct pf_opts po = {.keep_events = 1, .offcpu = size & 1};
	struct ev_resolver rs;
	struct sm_frames fr;
	struct stk_set stk;
	struct tp_ctx ctx;
	struct pf p;
	uint64_t refs = 0;
	size_t i;
	int fmt;

	sm_frames_init(&fr, NULL, 0);
	tp_ctx_init(&ctx);
	/* the ids resolve against the map (a text's definitions are the input layer's: not here) */
	stk_init(&stk);
	if (stk_finish(&stk, &map, 0, 0))
		abort();
	rs = stk_resolver(&stk);
	ctx.resolver = &rs;
	if (pf_init(&p, &fr, &po) == 0 &&
	    tp_feed_records(&ctx, (const char *)data, size, pf_add_record, &p) == 0) {
		pf_finish(&p);
		for (i = 0; i < p.nsamples; i++)
			refs += p.samples[i].count;
		if (refs != p.nr_refs || p.nevents != p.nr_refs)
			abort();
		for (fmt = 0; fmt < 6; fmt++)
			fz_write(&p, fmt, (enum ex_by)((size + (size_t)fmt) % 4));
	}
	pf_free(&p);
	tp_ctx_free(&ctx);
	sm_frames_free(&fr);
	stk_free(&stk);
	return 0;
}
