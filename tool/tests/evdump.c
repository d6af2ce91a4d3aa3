// SPDX-License-Identifier: GPL-2.0
/*
 * evdump FILE: print the records trace_parse delivers for a trace text file, one line each
 * (the event model of events.h, for golden tests), then the parser's counters.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smbin.h"
#include "trace_parse.h"

static int ed_print(void *arg, const struct ev_record *r)
{
	uint32_t i;

	(void)arg;
	printf("#%" PRIu64 " cpu=%d pid=%d tgid=%d comm='%s' ts=", r->seq, r->cpu, r->pid, r->tgid,
	       r->comm);
	if (r->ts_ns == EV_TS_NONE)
		printf("none");
	else
		printf("%" PRIu64, r->ts_ns);
	printf(" type=%s%s%s", r->type_name, r->flags & EV_F_EXTRA ? " extra" : "",
	       r->flags & EV_F_UNATTRIBUTED ? " unattributed" : "");
	if (r->flags & EV_F_LOST)
		printf(" lost=%" PRIu64, r->lost);
	if (r->flags & EV_F_SWITCH)
		printf(" switch=%s:%d[%d]:%s->%s:%d[%d]", r->sw.prev_comm, r->sw.prev_pid,
		       r->sw.prev_prio, r->sw.prev_state, r->sw.next_comm, r->sw.next_pid,
		       r->sw.next_prio);
	if (r->stack.kind == EV_STACK_ID)
		printf(" stack_id=%u", r->stack.id);
	if (r->stack.kind == EV_STACK_FULL) {
		printf(" full=%u", r->stack.nr);
		for (i = 0; i < r->stack.nr; i++)
			printf("%s%s", i ? "|" : ":", r->stack.frames[i]);
	}
	putchar('\n');
	return 0;
}

int main(int argc, char **argv)
{
	struct tp_ctx ctx;
	char *buf;
	size_t len;
	int ret;

	if (argc != 2 || smbin_read_file(argv[1], &buf, &len)) {
		fprintf(stderr, "usage: evdump TRACE\n");
		return 2;
	}
	tp_ctx_init(&ctx);
	ret = tp_feed_records(&ctx, buf, len, ed_print, NULL);
	printf("ret=%d events=%" PRIu64 " unattributed=%" PRIu64 " extra=%" PRIu64
	       " bad_stack_ids=%" PRIu64 " stray_frames=%" PRIu64 "\n",
	       ret, ctx.seq, ctx.unattributed, ctx.extra, ctx.bad_stack_ids, ctx.stray_frames);
	if (ctx.bad_reason)
		printf("bad: line %" PRIu64 " (offset %" PRIu64 "): %s\n", ctx.bad_line,
		       ctx.bad_offset, ctx.bad_reason);
	if (ctx.torn_line)
		printf("torn: line %" PRIu64 "\n", ctx.torn_line);
	tp_ctx_free(&ctx);
	free(buf);
	return ret ? 1 : 0;
}
