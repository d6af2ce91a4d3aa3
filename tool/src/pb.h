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
#include <string.h>

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

/*
 * The direct writer, for hot paths: pb_room() returns where at least @n more bytes can be
 * written at the end of @b (NULL after an allocation failure), the pb_put_*() helpers encode
 * there and return the end of what they wrote, and the caller adds what it wrote to b->len.
 * A caller that knows a submessage's body stays below 128 bytes keeps a 1-byte slot for its
 * length and fills it in afterwards, instead of building the body apart and copying it.
 */
uint8_t *pb_room(struct pb *b, size_t n);

static inline uint8_t *pb_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Field @field as a varint (a 1-byte tag for fields below 16). */
static inline uint8_t *pb_put_uint(uint8_t *p, uint32_t field, uint64_t v)
{
	return pb_put_varint(pb_put_varint(p, (uint64_t)field << 3), v);
}

static inline uint8_t *pb_put_bytes(uint8_t *p, uint32_t field, const void *s, size_t n)
{
	p = pb_put_varint(pb_put_varint(p, (uint64_t)field << 3 | 2), n);
	memcpy(p, s, n);
	return p + n;
}

/* The encoded size of @v as a varint (1 to 10 bytes). */
static inline size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

#endif /* PB_H */
