/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evpipe.h - a reader of records on a thread of its own, its records delivered in order to a
 * callback on the calling thread.
 *
 * In a Perfetto export, decoding a trace.dat and encoding its records take about as long as
 * each other; on two threads they overlap. The reader
 * runs on a second thread and hands copies of its records over in batches; the calling thread
 * calls @fn on each, in the reader's order, so a consumer sees exactly the records, in exactly
 * the order, that the reader would have given it directly. What the reader's records point to
 * (type_name, stack.frames, stack.addrs) is copied with them, as events.h allows a reader to
 * reuse it after the callback; stack.res points into the resolver's table, which does not
 * change while the reader runs, and is passed as it is.
 *
 * Return values are those of the direct call: a nonzero return of @fn stops the reader (its
 * callback returns that value, as if @fn had returned it there) and is returned; else the
 * reader's own return value. The reader and its state belong to its thread until evpipe_run()
 * returns; @fn runs on the calling thread only.
 *
 * With @threaded 0, or on a machine with one CPU online, the reader is called directly with
 * @fn (no thread). The pipeline pays off only for a consumer whose work is about that of the
 * decoding (the Perfetto writer): for a light one, the copies and the hand-overs cost what the
 * overlap saves (tool/README.md has the figures). STACKMAP_THREADS in the environment
 * overrides @threaded: 1 never uses the pipeline, 2 always does (the tests compare the two).
 */
#ifndef EVPIPE_H
#define EVPIPE_H

#include "events.h"

typedef int (*evpipe_reader)(void *ctx, ev_fn fn, void *fn_arg);

int evpipe_run(evpipe_reader reader, void *ctx, ev_fn fn, void *fn_arg, int threaded);

#endif /* EVPIPE_H */
