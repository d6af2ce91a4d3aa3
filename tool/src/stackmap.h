/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared declarations of the stackmap command-line tool: global options, subcommand entry
 * points, and the small helpers the subcommands share (buffered output, frame formatting).
 */
#ifndef STACKMAP_H
#define STACKMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "htab.h"
#include "smbin.h"
#include "syms.h"

#define SM_VERSION "1.0"

/* Exit codes: the error contract of the tool (see README.md). */
#define SM_EXIT_OK    0
#define SM_EXIT_DATA  1 /* malformed input data */
#define SM_EXIT_USAGE 2 /* bad options, unreadable files, missing kernel support */

struct sm_opts {
	const char *kallsyms; /* --kallsyms FILE */
	int no_kallsyms; /* --no-kallsyms */
	const char *vmlinux; /* --vmlinux FILE */
	int lines; /* --lines */
	const char *tracefs; /* --tracefs DIR (or STACKMAP_TRACEFS) */
	int quiet; /* sm_err() prints nothing (the fuzz targets) */
};

extern struct sm_opts sm_opts;

/* Print the --help text (main.c). */
void sm_usage(FILE *f);
/* Print the help of one command (main.c); the global help for an unknown name. */
void sm_cmd_usage(FILE *f, const char *cmd);

int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/* Messages on stderr, always prefixed with "stackmap: " and ended by a newline. */
__attribute__((format(printf, 1, 2))) void sm_err(const char *fmt, ...);

/*
 * Symbol options shared by dump, report and stat: the long options below are accepted by
 * every subcommand as well as before it. sm_sym_option() returns 1 when it consumed @c.
 */
/* clang-format off */
#define SM_SYM_LONGOPTS						\
	{ "kallsyms", required_argument, NULL, 0x100 },		\
	{ "no-kallsyms", no_argument, NULL, 0x101 },		\
	{ "vmlinux", required_argument, NULL, 0x102 },		\
	{ "lines", no_argument, NULL, 0x103 },			\
	{ "tracefs", required_argument, NULL, 0x104 }
/* clang-format on */
int sm_sym_option(int c, const char *arg);

/* Load the symbol sources named by sm_opts. Return 0 or SM_EXIT_USAGE after a message. */
int sm_load_syms(struct syms *s, int *have_syms);
/*
 * The same, but a kallsyms @text (e.g. from a trace.dat, named @what in messages) replaces the
 * /proc/kallsyms default; --kallsyms, --no-kallsyms and --vmlinux still apply.
 */
int sm_load_syms_text(struct syms *s, int *have_syms, const char *text, size_t len,
		      const char *what);

/*
 * Read and decode a map file. Return 0 or an exit code. The error line is printed at once,
 * unless @defer is set and the data is malformed: then sm_map_error_flush() prints it later,
 * after the caller has shown the records that decoded cleanly.
 */
int sm_load_map(const char *path, struct smbin_map *map, int defer);
/*
 * sm_syms_check_map() - warn on stderr when more than half of the frames of @map resolve to no
 * symbol of @s or lie more than 1 MiB into one (syms_mismatch()): the symbols most likely belong
 * to another kernel or boot than the recording. Return: 1 when it warned.
 */
int sm_syms_check_map(const struct syms *s, const struct smbin_map *map);
void sm_map_error_flush(void);
/* The same for a map held in memory (e.g. inside a trace.dat); @what names it in messages. */
int sm_load_map_buf(const char *what, const void *data, size_t len, struct smbin_map *map,
		    int defer);

/* 1 when @path starts with the trace.dat magic, 0 when not ("-" too), -errno if unreadable. */
int sm_is_tracedat(const char *path);
/* malloc'ed path of @name in the directory of @file. */
char *sm_sibling(const char *file, const char *name);

/* Buffered output for large listings. */
struct sm_out {
	FILE *f;
	char *buf;
	size_t len, cap;
};

int sm_out_init(struct sm_out *o, FILE *f);
void sm_out_flush(struct sm_out *o);
int sm_out_done(struct sm_out *o); /* flush and free; -EIO if a write failed */
void sm_out_mem(struct sm_out *o, const char *s, size_t n);
void sm_out_str(struct sm_out *o, const char *s);
void sm_out_chr(struct sm_out *o, char c);
void sm_out_u64(struct sm_out *o, uint64_t v);
void sm_out_hex16(struct sm_out *o, uint64_t v); /* 0x + 16 digits */
__attribute__((format(printf, 2, 3))) void sm_out_fmt(struct sm_out *o, const char *fmt, ...);

/* Frame styles for sm_frame(). */
enum sm_frame_style {
	SM_FRAME_FULL, /* sym+0xoff/0xsize [mod], hex when unresolved */
	SM_FRAME_FOLDED, /* sym [mod] (no offset), hex when unresolved */
};

/*
 * Formatted frames, cached per address (stacks repeat call sites a lot).
 * sm_frame() returns a NUL-terminated string valid until sm_frames_free(); resolved is set to
 * 1 when a symbol covered the address (the trampoline sentinel counts as resolved).
 */
struct sm_frame_ent {
	uint64_t addr;
	uint32_t off; /* offset of the string in sm_frames.text */
	uint16_t len; /* its length (capped by the 1 KiB format buffer) */
	uint8_t style : 1;
	uint8_t resolved : 1;
};

struct sm_frames {
	const struct syms *syms; /* NULL: no symbols */
	int lines; /* append " file:line" to FULL frames when known */
	struct sm_frame_ent *ents; /* cached frames in first-use order */
	size_t nents, cap;
	struct htab idx; /* over ents, keyed by (address, style) */
	char *text;
	size_t tlen, tcap;
};

void sm_frames_init(struct sm_frames *fr, const struct syms *syms, int lines);
const char *sm_frame(struct sm_frames *fr, uint64_t addr, enum sm_frame_style style, int *resolved);
/* Append the frame text to @o (same cache, without a strlen). */
void sm_out_frame(struct sm_out *o, struct sm_frames *fr, uint64_t addr, enum sm_frame_style style);
void sm_frames_free(struct sm_frames *fr);

/* Parse a decimal count for options such as --top; return 0 or -EINVAL. */
int sm_parse_uint(const char *s, unsigned long *out);

/*
 * Grow @arr (*@cap elements of @elem bytes, doubling) to hold @need, the new part zeroed;
 * return the array (*@cap updated) or NULL on -ENOMEM (@arr is then left as it was).
 */
void *sm_grow(void *arr, size_t *cap, size_t need, size_t elem);

/*
 * TRACEFS/NAME in a new allocation: the tracefs directory of --tracefs, $STACKMAP_TRACEFS,
 * else /sys/kernel/tracing. NULL when memory is short.
 */
char *sm_tracefs_file(const char *name);

/* "DIR/NAME" in a new allocation (free() it), or NULL when memory is short. */
char *sm_path_join(const char *dir, const char *name);

/*
 * Frame texts joined with '\n' after each (a key for a full stack) into *@buf, grown as
 * needed (*@cap is its size); the length is stored in *@len. Return 0 or -ENOMEM.
 */
int sm_join_frames(char **buf, size_t *cap, const char *const *frames, size_t nr, size_t *len);

#endif /* STACKMAP_H */
