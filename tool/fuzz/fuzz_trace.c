// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target for the trace text parser and the stack attribution state machine. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Record interface: every record is well formed. */
static int fz_on_record(void *arg, const struct ev_record *r)
{
	uint32_t i;

	(void)arg;
	if (!r->type_name || memchr(r->comm, '\0', sizeof(r->comm)) == NULL)
		abort();
	if (r->stack.kind == EV_STACK_FULL)
		for (i = 0; i < r->stack.nr; i++)
			if (!r->stack.frames[i])
				abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_line l;
	struct tp_ctx ctx;

	tp_parse_line((const char *)data, size, &l);
	/* a name inside the input must end inside it ("function"/"unknown" are literals) */
	if (l.name && (uintptr_t)l.name >= (uintptr_t)data &&
	    (uintptr_t)l.name < (uintptr_t)data + size &&
	    (uintptr_t)l.name + l.name_len > (uintptr_t)data + size)
		abort();
	tp_ctx_init(&ctx);
	if (tp_feed_records(&ctx, (const char *)data, size, fz_on_record, NULL) == 0 &&
	    ctx.head != ctx.tail)
		abort(); /* every record delivered */
	tp_ctx_free(&ctx);
	return 0;
}
