// SPDX-License-Identifier: GPL-2.0
/* Protocol buffers wire-format writer; see pb.h. */
#include "pb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PB_WIRE_VARINT 0
#define PB_WIRE_LEN    2

void pb_init(struct pb *b)
{
	memset(b, 0, sizeof(*b));
}

void pb_free(struct pb *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

static int pb_reserve(struct pb *b, size_t n)
{
	size_t ncap;
	uint8_t *nb;

	if (b->err)
		return -1;
	if (b->len + n <= b->cap)
		return 0;
	ncap = b->cap ? b->cap * 2 : 256;
	while (ncap < b->len + n)
		ncap *= 2;
	nb = realloc(b->buf, ncap);
	if (!nb) {
		b->err = -ENOMEM;
		return -1;
	}
	b->buf = nb;
	b->cap = ncap;
	return 0;
}

uint8_t *pb_room(struct pb *b, size_t n)
{
	if (b->cap - b->len < n && pb_reserve(b, n))
		return NULL;
	return b->buf + b->len;
}

void pb_raw(struct pb *b, const void *p, size_t n)
{
	if (!n || (b->cap - b->len < n && pb_reserve(b, n)))
		return;
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

void pb_varint(struct pb *b, uint64_t v)
{
	if (b->cap - b->len < 10 && pb_reserve(b, 10))
		return;
	while (v >= 0x80) {
		b->buf[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->buf[b->len++] = (uint8_t)v;
}

void pb_uint(struct pb *b, uint32_t field, uint64_t v)
{
	pb_varint(b, (uint64_t)field << 3 | PB_WIRE_VARINT);
	pb_varint(b, v);
}

void pb_bytes(struct pb *b, uint32_t field, const void *p, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | PB_WIRE_LEN);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

void pb_str(struct pb *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_msg(struct pb *b, uint32_t field, const struct pb *sub)
{
	if (sub->err) {
		b->err = sub->err;
		return;
	}
	pb_bytes(b, field, sub->buf, sub->len);
}
