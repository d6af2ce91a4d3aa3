// SPDX-License-Identifier: GPL-2.0
/*
 * Decoder for stack_map_bin, versions 1 and 2. The layout: smbin.h and doc/FORMAT.md.
 *
 * Every length read from the input is checked against the bytes that remain before it is used,
 * and allocations are bounded by the input size, never by a count taken from the input.
 */
#define _POSIX_C_SOURCE 200809L
#include "smbin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t smbin_u32(const unsigned char *p, int swapped)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swapped ? __builtin_bswap32(v) : v;
}

static uint64_t smbin_u64(const unsigned char *p, int swapped)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swapped ? __builtin_bswap64(v) : v;
}

__attribute__((format(printf, 3, 4))) static int smbin_fail(struct smbin_err *err, uint64_t offset,
							    const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->offset = offset;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

static int smbin_decode_common(unsigned char *own, const void *buf, size_t len,
			       struct smbin_map *map, struct smbin_err *err)
{
	const unsigned char *p = own ? own : buf;
	size_t pos, max_recs, max_ips, ips_used = 0;
	uint32_t magic, version, i;
	int swapped;

	memset(map, 0, sizeof(*map));
	if (err) {
		err->offset = 0;
		err->msg[0] = '\0';
	}
	if (len < SMBIN_HEADER_SIZE)
		return smbin_fail(err, 0, "truncated header: %zu of %u bytes", len,
				  SMBIN_HEADER_SIZE);

	memcpy(&magic, p, sizeof(magic));
	if (magic == SMBIN_MAGIC)
		swapped = 0;
	else if (magic == SMBIN_MAGIC_SWAPPED)
		swapped = 1;
	else
		return smbin_fail(err, 0, "bad magic 0x%08x (expected 0x%08x in either byte order)",
				  magic, SMBIN_MAGIC);
	map->swapped = swapped;

	version = smbin_u32(p + 4, swapped);
	if (version != SMBIN_VERSION && version != SMBIN_VERSION_1)
		return smbin_fail(err, 4, "unsupported version %u (expected %u or %u)", version,
				  SMBIN_VERSION_1, SMBIN_VERSION);
	map->version = version;
	map->nr_stacks_hdr = smbin_u32(p + 8, swapped);
	/* version 1: a reserved field; version 2: the switch count of the map in use */
	map->switches = smbin_u32(p + 12, swapped);
	if (version == SMBIN_VERSION_1 && map->switches)
		return smbin_fail(err, 12, "header reserved field is 0x%08x, expected 0",
				  map->switches);

	/* Bounds from the input size, not from nr_stacks (which is untrusted). */
	max_recs = (len - SMBIN_HEADER_SIZE) / SMBIN_REC_HDR_SIZE;
	if (max_recs > map->nr_stacks_hdr)
		max_recs = map->nr_stacks_hdr;
	max_ips = (len - SMBIN_HEADER_SIZE) / sizeof(uint64_t);
	if (max_recs) {
		map->stacks = calloc(max_recs, sizeof(*map->stacks));
		if (!map->stacks)
			return -ENOMEM;
	}
	if (own) {
		/* ips point into the caller's buffer (8-byte aligned by malloc and the layout) */
		map->owned = (char *)own;
	} else if (max_ips) {
		map->ips = malloc(max_ips * sizeof(*map->ips));
		if (!map->ips)
			return -ENOMEM;
	}

	pos = SMBIN_HEADER_SIZE;
	for (i = 0; i < map->nr_stacks_hdr; i++) {
		struct smbin_stack *s;
		uint32_t id, nr, reserved, j;
		size_t need;

		if (len - pos == 0)
			return smbin_fail(err, pos,
					  "header says %u stacks but the data ends after %u",
					  map->nr_stacks_hdr, i);
		if (len - pos < SMBIN_REC_HDR_SIZE)
			return smbin_fail(err, pos,
					  "truncated record header of stack %u: %zu of %u bytes", i,
					  len - pos, SMBIN_REC_HDR_SIZE);
		id = smbin_u32(p + pos, swapped);
		nr = smbin_u32(p + pos + 4, swapped);
		reserved = smbin_u32(p + pos + 12, swapped);
		if (i > 0 && id <= map->stacks[i - 1].id)
			return smbin_fail(err, pos,
					  "stack id %u does not increase (previous id %u)", id,
					  map->stacks[i - 1].id);
		if (nr > SMBIN_MAX_DEPTH)
			return smbin_fail(err, pos + 4, "stack id %u has depth %u (maximum %u)", id,
					  nr, SMBIN_MAX_DEPTH);
		if (reserved)
			return smbin_fail(err, pos + 12,
					  "stack id %u: reserved field is 0x%08x, expected 0", id,
					  reserved);
		/* version 2: the map in use's records, and the retired map's of the switch before */
		if (version != SMBIN_VERSION_1 &&
		    ((id >> SMBIN_SWITCH_SHIFT) & SMBIN_SWITCH_MASK) !=
			    (map->switches & SMBIN_SWITCH_MASK) &&
		    ((id >> SMBIN_SWITCH_SHIFT) & SMBIN_SWITCH_MASK) !=
			    ((map->switches - 1) & SMBIN_SWITCH_MASK))
			return smbin_fail(err, pos,
					  "stack id %u is of switch %u modulo 8192, not of the "
					  "header's %u or the one before",
					  id, (id >> SMBIN_SWITCH_SHIFT) & SMBIN_SWITCH_MASK,
					  map->switches);
		need = SMBIN_REC_HDR_SIZE + (size_t)nr * sizeof(uint64_t);
		if (len - pos < need)
			return smbin_fail(err, pos,
					  "truncated record of stack id %u: %zu of %zu bytes", id,
					  len - pos, need);
		s = &map->stacks[i];
		s->id = id;
		s->nr = nr;
		s->ref_count = smbin_u32(p + pos + 8, swapped);
		if (own) {
			uint64_t *ips = (uint64_t *)(void *)(own + pos + SMBIN_REC_HDR_SIZE);

			for (j = 0; swapped && j < nr; j++)
				ips[j] = __builtin_bswap64(ips[j]);
			s->ips = ips;
		} else {
			s->ips = map->ips + ips_used;
			for (j = 0; j < nr; j++)
				map->ips[ips_used + j] =
					smbin_u64(p + pos + SMBIN_REC_HDR_SIZE + 8 * j, swapped);
		}
		ips_used += nr;
		pos += need;
		map->nr = i + 1;
	}
	if (pos != len)
		return smbin_fail(err, pos, "%zu trailing bytes after the last of %u stacks",
				  len - pos, map->nr_stacks_hdr);
	return 0;
}

int smbin_decode(const void *buf, size_t len, struct smbin_map *map, struct smbin_err *err)
{
	return smbin_decode_common(NULL, buf, len, map, err);
}

int smbin_decode_owned(char *buf, size_t len, struct smbin_map *map, struct smbin_err *err)
{
	int ret;

	if ((uintptr_t)buf % sizeof(uint64_t)) {
		ret = smbin_decode_common(NULL, buf, len, map, err);
		free(buf);
		return ret;
	}
	ret = smbin_decode_common((unsigned char *)buf, NULL, len, map, err);
	if (!map->owned)
		free(buf);
	return ret;
}

void smbin_free(struct smbin_map *map)
{
	if (!map)
		return;
	free(map->stacks);
	free(map->ips);
	free(map->owned);
	memset(map, 0, sizeof(*map));
}

int smbin_read_file(const char *path, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = NULL, *nbuf;
	struct stat st;
	int fd, ret = 0;
	ssize_t n;

	if (strcmp(path, "-") == 0) {
		fd = STDIN_FILENO;
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 2)
		cap = (size_t)st.st_size + 2; /* one read fills it; the next sees EOF */
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (cap - len < 2) {
			if (cap > SIZE_MAX / 2) {
				ret = -EFBIG;
				goto out;
			}
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	buf = NULL;
out:
	free(buf);
	if (fd != STDIN_FILENO)
		close(fd);
	return ret;
}

const struct smbin_stack *smbin_find(const struct smbin_map *map, uint32_t id, size_t *pos)
{
	size_t lo = 0, hi = map ? map->nr : 0;

	/* the ids of a map are most often 0..nr-1: then id is its own position */
	if (id < hi && map->stacks[id].id == id) {
		if (pos)
			*pos = id;
		return &map->stacks[id];
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map->stacks[mid].id == id) {
			if (pos)
				*pos = mid;
			return &map->stacks[mid];
		}
		if (map->stacks[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
