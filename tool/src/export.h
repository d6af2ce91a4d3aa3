/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export - writers of a struct pf (profile.h) in the formats of `stackmap export`:
 * folded stacks, speedscope JSON, pprof (gzipped profile.proto), Perfetto trace (protobuf),
 * interactive SVG flame graph; and the two-recording diff (folded and SVG).
 *
 * The writers never print: they write to @f and return 0 or a negative errno (-EIO when a
 * write failed). Output order is deterministic (sorted), so golden tests can compare bytes.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <stdio.h>

#include "profile.h"

enum ex_by {
	EX_BY_NONE, /* stacks only */
	EX_BY_EVENT, /* root split by event type (default) */
	EX_BY_COMM, /* by task name */
	EX_BY_PID, /* by task: "comm-pid" */
};

enum ex_color {
	EX_COLOR_EVENT, /* one hue per event type */
	EX_COLOR_MODULE, /* one hue per kernel module (core kernel: warm) */
};

struct ex_opts {
	enum ex_by by;
	enum ex_color color;
	const char *title; /* SVG title, speedscope name */
};

/*
 * A folded path: the root label chosen by --by (none for EX_BY_NONE) followed by the
 * stack's function names root first. Shared by folded, speedscope, svg and diff.
 */
struct ex_path {
	uint32_t nr; /* labels */
	uint32_t *labels; /* strs indexes, root first */
	uint64_t value;
	uint64_t value_a; /* diff only: the value in the first recording (value is B's) */
	uint32_t type; /* event type of the sample(s), for colouring */
};

struct ex_paths {
	struct ex_path *v;
	size_t n;
	uint32_t *labels; /* storage of all labels */
};

/*
 * Merge the samples of @p into paths under @o->by (samples of value 0 are left out), sorted
 * by their labels' text. Labels come from p->strs, so @p must stay alive; frees with
 * ex_paths_free(). Return 0 or -ENOMEM.
 */
int ex_paths_build(struct pf *p, const struct ex_opts *o, struct ex_paths *out);
void ex_paths_free(struct ex_paths *ps);

int ex_write_folded(struct pf *p, const struct ex_opts *o, FILE *f);
int ex_write_speedscope(struct pf *p, const struct ex_opts *o, FILE *f);
int ex_write_pprof(struct pf *p, const struct ex_opts *o, FILE *f);
int ex_write_perfetto(struct pf *p, const struct ex_opts *o, FILE *f);

/*
 * The Perfetto writer in three steps, so that a recording of any length streams through it:
 * ex_perfetto_start() writes the clock and defaults of the trace, ex_perfetto_sink() (a
 * pf.sink: set p->sink and p->sink_arg, then feed the input, once or, with p->replay, a second
 * time) writes each sched_switch and each sample as it comes, with the interned data (stacks,
 * frames, names) it is the first to use, ex_perfetto_finish() writes what is pending and the
 * process tree, and frees the state. ex_write_perfetto() is the three on the events stored
 * with pf_opts.keep_events.
 */
struct pt_stream;
int ex_perfetto_start(struct pf *p, const struct ex_opts *o, FILE *f, struct pt_stream **out);
int ex_perfetto_sink(void *arg, const struct pf_event *e, const struct pf_switch *w);
int ex_perfetto_finish(struct pt_stream *s);
int ex_write_svg(struct pf *p, const struct ex_opts *o, FILE *f);

/*
 * Diff of two recordings by frames (never by id): every path of @a or @b with its value in
 * each, @a scaled to @b's total when @normalize. Folded: "path VALUE_A VALUE_B" lines
 * (flamegraph.pl's difffolded input); SVG: widths from max(A, B) per path (stacks only in A stay
 * visible), colour from the change (red grew, blue shrank). Labels of @b are interned into @a's string table.
 */
int ex_diff_build(struct pf *a, struct pf *b, const struct ex_opts *o, int normalize,
		  struct ex_paths *out);
int ex_write_diff_folded(struct pf *a, struct pf *b, const struct ex_opts *o, int normalize,
			 FILE *f);
int ex_write_diff_svg(struct pf *a, struct pf *b, const struct ex_opts *o, int normalize, FILE *f);

#endif /* EXPORT_H */
