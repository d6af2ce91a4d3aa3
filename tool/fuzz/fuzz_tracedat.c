// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the trace.dat reader, the ring-buffer page walk and the first pass that
 * collects the stack definitions. An input that starts with the trace.dat magic is a whole file
 * (td_open_mem), whose buffers (the top level and the instances) are read one after the other;
 * anything else is one CPU of raw ring-buffer pages (4096 bytes each, as trace_pipe_raw
 * returns them) decoded with the formats of fz_formats.h, so mutations hit the page and record
 * decoding directly.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "report_dat.h"
#include "tracedat.h"
#include "fz_formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz_state {
	const struct td_file *td;
	uint64_t sum;
};

static int fz_on_rec(void *arg, const struct td_rec *r)
{
	struct fz_state *s = arg;
	const uint8_t *p = r->data;
	uint32_t i;

	if (r->size < 0 || (r->size && !p))
		abort();
	/* touch every byte: ASan reports a record that points outside its page copy */
	for (i = 0; i < (uint32_t)r->size; i++)
		s->sum += p[i];
	if (r->kind != TD_BAD && !r->event)
		abort();
	if (r->kind == TD_EVENT && r->event->name)
		s->sum += strlen(r->event->name);
	if (r->kind == TD_STACK || r->kind == TD_STACK_DEF) {
		if (r->nr > s->td->page_size / 4 ||
		    (r->kind == TD_STACK_DEF && (!r->nr || r->nr > 64)))
			abort();
		for (i = 0; i < r->nr; i++)
			s->sum += r->ips[i];
	}
	return 0;
}

/* the event model: records carry a type name, stacks are addresses */
static int fz_on_ev(void *arg, const struct ev_record *r)
{
	uint64_t *n = arg;

	if (!r->type_name || !memchr(r->comm, '\0', sizeof(r->comm)) ||
	    (r->stack.kind == EV_STACK_FULL && r->stack.nr && !r->stack.addrs))
		abort();
	(*n)++;
	return 0;
}

/* One buffer of @td, selected: its CPUs, the definitions' pass, the event model. */
static int fz_buffer(struct td_file *td, struct fz_state *s, size_t size, struct td_err *err)
{
	struct td_cpu_stats st;
	int ret = 0, i;

	for (i = 0; !ret && i < td->ncpus; i++) {
		ret = td_cpu_iterate(td, i, fz_on_rec, s, &st, err);
		if (ret && ret != -EBADMSG && ret != -ENOMEM)
			abort();
	}
	if (!ret) {
		/* the input layer's first pass: the definitions, 1 to 64 frames each */
		ret = rd_scan_defs(td, fz_on_rec, s, err);
		if (ret && ret != -EBADMSG && ret != -ENOMEM)
			abort();
	}
	if (!ret) {
		uint64_t n = 0;

		/* with and without the task fields (RD_F_NO_TASK_FIELDS), by the input's size */
		ret = rd_feed_records(td, fz_on_ev, &n, size & 1, NULL, err);
		if (ret && ret != -EBADMSG && ret != -ENOMEM)
			abort();
	}
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_state s = {0};
	struct td_file td;
	struct td_err err;
	int ret, b, def;

	memset(&err, 0, sizeof(err));
	if (td_is_tracedat(data, size))
		ret = td_open_mem(&td, data, size, &err);
	else
		ret = td_open_raw(&td, data, size, 4096, fz_formats);
	if (ret && ret != -EBADMSG && ret != -EPROTONOSUPPORT && ret != -ENOMEM)
		abort();
	if (ret && !memchr(err.msg, '\0', sizeof(err.msg)))
		abort();
	s.td = &td;
	if (!ret) {
		/* a file has at least one buffer, and the default is one of them or ambiguous */
		def = td_buffer_default(&td);
		if (td.nbuffers < 1 || def < -1 || def >= td.nbuffers ||
		    td_buffer_find(&td, td.buffers[def < 0 ? 0 : def].name) < 0)
			abort();
	}
	for (b = 0; !ret && b < td.nbuffers; b++) {
		ret = td_select(&td, b, &err);
		if (ret && ret != -EBADMSG && ret != -ENOMEM)
			abort();
		if (!ret && (td.cpus != td.buffers[b].cpus || td.ncpus != td.buffers[b].ncpus))
			abort();
		if (!ret)
			ret = fz_buffer(&td, &s, size, &err);
	}
	td_close(&td);
	return (int)(s.sum & 0);
}
