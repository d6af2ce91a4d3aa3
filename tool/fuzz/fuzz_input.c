// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the input layer (input.h): kind detection from the content, then the
 * record stream of a trace text or a trace.dat with its attribution. Checks what every
 * command relies on: a failure is an exit code with a message, never a crash; every record
 * has a type name; every stack reference is counted once; an input with no event is refused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz_in {
	uint64_t refs, events, lost;
};

static int fz_on_record(void *arg, const struct ev_record *r)
{
	struct fz_in *c = arg;

	if (!r->type_name || !memchr(r->comm, '\0', sizeof(r->comm)))
		abort();
	if ((r->flags & EV_F_LOST) && r->stack.kind != EV_STACK_NONE)
		abort(); /* a loss marker never carries a stack */
	if ((r->flags & EV_F_UNATTRIBUTED) && strcmp(r->type_name, EV_TYPE_LOST) &&
	    strcmp(r->type_name, EV_TYPE_UNATTRIBUTED))
		abort(); /* an unattributed reference never takes a real event's name */
	if (r->flags & EV_F_LOST)
		c->lost++;
	else if (!(r->flags & (EV_F_EXTRA | EV_F_UNATTRIBUTED)))
		c->events++;
	if (r->stack.kind != EV_STACK_NONE)
		c->refs++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in c = {0};
	struct in_src in;
	int ret;

	sm_opts.quiet = 1; /* the layer's messages: keep the fuzzer's output readable */
	ret = in_open_mem(&in, "fuzz", "input", data, size, NULL);
	if (ret != 0 && ret != SM_EXIT_DATA && ret != SM_EXIT_USAGE)
		abort();
	if (!ret) {
		ret = in_feed(&in, fz_on_record, &c);
		if (ret != 0 && ret != SM_EXIT_DATA && ret != SM_EXIT_USAGE)
			abort();
		if (!ret && (c.refs != in.st.refs || c.events != in.st.events ||
			     c.lost != in.st.lost_markers || (!c.events && !c.refs && !c.lost)))
			abort();
	}
	in_close(&in);
	return 0;
}
