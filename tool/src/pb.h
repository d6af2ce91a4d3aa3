/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pb - a minimal protocol buffers writer (wire format only: varints, length-delimited
 * fields, packed varints), for the pprof and Perfetto exporters.
 *
 * A struct pb is a growing byte buffer. Allocation failures are sticky: after one, every
 * call is a no-op and pb.err is -ENOMEM, so a writer checks once at the end. Nested
 * messages are built in a second struct pb and added with pb_msg().
 */
#ifndef PB_H
#define PB_H

#include <stddef.h>
#include <stdint.h>

struct pb {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

void pb_init(struct pb *b);
void pb_free(struct pb *b);
static inline void pb_reset(struct pb *b)
{
	b->len = 0;
}

void pb_raw(struct pb *b, const void *p, size_t n);
void pb_varint(struct pb *b, uint64_t v);
/* Field @field as a varint (uint64, int64 two's complement, uint32, int32, bool, enum). */
void pb_uint(struct pb *b, uint32_t field, uint64_t v);
static inline void pb_int(struct pb *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}
void pb_bytes(struct pb *b, uint32_t field, const void *p, size_t n);
void pb_str(struct pb *b, uint32_t field, const char *s);
/* A length-delimited field holding the bytes of @sub (an embedded message). */
void pb_msg(struct pb *b, uint32_t field, const struct pb *sub);

#endif /* PB_H */
