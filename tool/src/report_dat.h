/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_dat - attribute the stack records of a trace.dat to their events (see report_dat.c).
 * Never prints; returns 0 or a negative errno (from the reader, the callback or -ENOMEM).
 */
#ifndef REPORT_DAT_H
#define REPORT_DAT_H

#include "events.h"
#include "stackmap.h"
#include "trace_parse.h"
#include "tracedat.h"

struct rd_stats {
	uint64_t records, events, stack_ids, full_stacks, bad_records;
	uint64_t missed_pages, missed_events;
};

/*
 * rd_feed() - walk every CPU of @td; count event records per type in @ctx (ctx->events,
 * ctx->event_lines, ctx->unattributed) and call @fn for every stack reference. Full stacks
 * are passed as frame texts formatted by @fr.
 */
int rd_feed(struct td_file *td, struct tp_ctx *ctx, struct sm_frames *fr, tp_stack_fn fn, void *arg,
	    struct rd_stats *st, struct td_err *err);

/*
 * rd_feed_records() - deliver the records of @td as struct ev_record (events.h) to @fn: CPUs
 * merged by timestamp, one record per event with the stack reference that follows it on its
 * CPU (EV_F_EXTRA for more), EV_TYPE_UNATTRIBUTED for a reference whose event is gone. Full
 * stacks come as addresses (stack.addrs, frames NULL); comm from the file's saved_cmdlines.
 */
int rd_feed_records(struct td_file *td, ev_fn fn, void *arg, struct td_err *err);

#endif /* REPORT_DAT_H */
