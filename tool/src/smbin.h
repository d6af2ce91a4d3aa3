/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbin - decoder for the ftrace stackmap binary export (stack_map_bin, versions 1 and 2).
 *
 * The layout is the kernel's uapi header, its rules are in the kernel's
 * Documentation/trace/ftrace-stackmap.rst ("The binary format"); doc/FORMAT.md adds examples
 * and this decoder's errors. This library never prints: every function returns 0 or a negative errno and, on a format error, fills a struct smbin_err with the byte
 * offset at which the problem was found and a one-line description.
 */
#ifndef SMBIN_H
#define SMBIN_H

#include <stddef.h>
#include <stdint.h>

/*
 * The layout is the kernel's own, from the series' include/uapi/linux/ftrace_stackmap.h
 * (extracted into build/uapi by scripts/uapi-header); these names only adapt it.
 */
#include <linux/ftrace_stackmap.h>

#define SMBIN_MAGIC ((uint32_t)FTRACE_STACKMAP_BIN_MAGIC)
/* The same four bytes read in the other byte order. */
#define SMBIN_MAGIC_SWAPPED ((uint32_t)__builtin_bswap32(FTRACE_STACKMAP_BIN_MAGIC))
#define SMBIN_VERSION	    ((unsigned int)FTRACE_STACKMAP_BIN_VERSION)
/* The version before generation switches: the header's switches field is reserved (0). */
#define SMBIN_VERSION_1 1u
/* A record's id carries its map's switch count modulo 2^13 in its bits 18 and up. */
#define SMBIN_SWITCH_SHIFT 18
#define SMBIN_SWITCH_MASK  0x1fffu
#define SMBIN_HEADER_SIZE  ((unsigned int)sizeof(struct ftrace_stackmap_bin_header))
#define SMBIN_REC_HDR_SIZE ((unsigned int)sizeof(struct ftrace_stackmap_bin_record))
#define SMBIN_MAX_DEPTH	   ((unsigned int)FTRACE_STACKMAP_BIN_MAX_DEPTH)
#define SMBIN_TRAMPOLINE   ((uint64_t)FTRACE_STACKMAP_BIN_TRAMPOLINE)
#define SMBIN_ERR_MSG_LEN  160

struct smbin_err {
	uint64_t offset; /* byte offset of the offending field or record */
	char msg[SMBIN_ERR_MSG_LEN]; /* one line, no trailing newline */
};

struct smbin_stack {
	uint32_t id;
	uint32_t nr; /* number of valid entries in ips, <= SMBIN_MAX_DEPTH */
	uint32_t ref_count;
	const uint64_t *ips; /* points into smbin_map.ips (host byte order) */
};

struct smbin_map {
	int swapped; /* 1 when the file was written in the other byte order */
	uint32_t version; /* SMBIN_VERSION_1 or SMBIN_VERSION */
	uint32_t nr_stacks_hdr; /* nr_stacks as found in the header */
	uint32_t switches; /* version 2: the switch count of the map in use (else 0) */
	size_t nr; /* records decoded (== nr_stacks_hdr on success) */
	struct smbin_stack *stacks;
	uint64_t *ips; /* all frames, records back to back (copying decode) */
	char *owned; /* the input buffer, when smbin_decode_owned() kept it */
};

/*
 * smbin_decode() - decode a complete stack_map_bin image.
 * @buf, @len: the bytes; not modified and not referenced after return.
 * @map: filled on return, also on failure: records decoded before the error stay in @map so a
 *       caller may show them. Release with smbin_free() in both cases.
 * @err: set when the return value is -EBADMSG; may be NULL.
 *
 * Return: 0, -EBADMSG for malformed input, -ENOMEM.
 */
int smbin_decode(const void *buf, size_t len, struct smbin_map *map, struct smbin_err *err);

/*
 * smbin_decode_owned() - like smbin_decode(), but takes ownership of @buf (from malloc, e.g.
 * smbin_read_file()): the frames are byte-swapped in place when needed and map->ips point
 * into it, so large maps are not copied. @buf is freed by smbin_free() (or at once on error
 * paths that did not keep it). Same return values as smbin_decode().
 */
int smbin_decode_owned(char *buf, size_t len, struct smbin_map *map, struct smbin_err *err);

/*
 * smbin_find() - the record of stack @id in @map (records are in increasing id order), or
 * NULL; its index in *@pos when @pos is not NULL. @map may be NULL.
 */
const struct smbin_stack *smbin_find(const struct smbin_map *map, uint32_t id, size_t *pos);

/* smbin_free() - release what smbin_decode() allocated; @map may be zeroed or NULL. */
void smbin_free(struct smbin_map *map);

/*
 * smbin_read_file() - read a whole file ("-" is standard input) into a malloc'ed buffer.
 * Return: 0 or a negative errno from open/read/malloc. *buf is NUL-terminated (not counted in
 * *len) so text users may treat it as a string.
 */
int smbin_read_file(const char *path, char **buf, size_t *len);

#endif /* SMBIN_H */
