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

/*
 * rd_feed_records() - deliver the records of @td as struct ev_record (events.h) to @fn: CPUs
 * merged by timestamp, one record per event with the stack reference that follows it on its
 * CPU (EV_F_EXTRA for more), an EV_F_LOST marker before the first record of a page that
 * follows lost events, EV_TYPE_LOST / EV_TYPE_UNATTRIBUTED for a reference whose event was
 * lost / is gone, EV_TYPE_UNKNOWN for a record without a format. Full stacks come as
 * addresses (stack.addrs, frames NULL); comm from the file's saved_cmdlines. Stack
 * definitions are skipped (they are read by rd_scan_defs()); @resolver (NULL: none) sets the
 * gen and res of every stack id (events.h). The counts of what was delivered are the
 * consumer's (the input layer keeps them, input.h).
 */
int rd_feed_records(struct td_file *td, ev_fn fn, void *arg, unsigned int flags,
		    const struct ev_resolver *resolver, struct td_err *err);

/*
 * rd_scan_defs() - call @fn with every kernel_stack_def record of @td (TD_STACK_DEF: stack_id,
 * gen, nr frames in ips), CPU by CPU in buffer order: the first pass that collects the
 * definitions before any id is resolved. Nothing to do when the file has no kernel_stack_def
 * format. Return 0, @fn's nonzero return, -EBADMSG with @err (a malformed page or definition),
 * -ENOMEM.
 */
int rd_scan_defs(struct td_file *td, int (*fn)(void *arg, const struct td_rec *r), void *arg,
		 struct td_err *err);

/* rd_feed_records() @flags: the consumer reads neither comm nor the sched_switch fields */
#define RD_F_NO_TASK_FIELDS 0x1
/* ... nor the sched_switch fields (comm is filled) */
#define RD_F_NO_SWITCH_FIELDS 0x2

#endif /* REPORT_DAT_H */
