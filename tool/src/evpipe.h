/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evpipe.h - a reader of records on a thread of its own, its records delivered in order to a
 * callback on the calling thread.
 *
 * Decoding a trace.dat and consuming its records (counting, symbolising, encoding an export)
 * each take about half of a reading command's time; on two threads they overlap. The reader
 * runs on a second thread and hands copies of its records over in batches; the calling thread
 * calls @fn on each, in the reader's order, so a consumer sees exactly the records, in exactly
 * the order, that the reader would have given it directly. What the reader's records point to
 * (type_name, stack.frames, stack.addrs) is copied with them, as events.h allows a reader to
 * reuse it after the callback.
 *
 * Return values are those of the direct call: a nonzero return of @fn stops the reader (its
 * callback returns that value, as if @fn had returned it there) and is returned; else the
 * reader's own return value. The reader and its state belong to its thread until evpipe_run()
 * returns; @fn runs on the calling thread only.
 *
 * STACKMAP_THREADS=1 in the environment, or a machine with one CPU online, calls the reader
 * directly with @fn (no thread); any other value, or none, uses the pipeline.
 */
#ifndef EVPIPE_H
#define EVPIPE_H

#include "events.h"

typedef int (*evpipe_reader)(void *ctx, ev_fn fn, void *fn_arg);

int evpipe_run(evpipe_reader reader, void *ctx, ev_fn fn, void *fn_arg);

#endif /* EVPIPE_H */
