// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap export: write a recording as folded stacks, speedscope JSON, pprof, a Perfetto
 * trace or an interactive SVG flame graph. stackmap diff: compare two recordings by frames.
 *
 * The whole input is read and checked before anything is written (but for a Perfetto trace
 * going to a temporary file, written as the input is read: ex_stream_perfetto()); the output
 * goes to a temporary file next to -o FILE's final target that is renamed over it only when
 * complete (outfile.h), so a failed export leaves no partial file.
 */
#define _GNU_SOURCE
#include "export.h"
#include "input.h"
#include "outfile.h"
#include "stackmap.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum ex_format { EXF_FOLDED, EXF_SPEEDSCOPE, EXF_PPROF, EXF_PERFETTO, EXF_SVG };

static const char *const ex_format_names[] = {"folded", "speedscope", "pprof", "perfetto", "svg"};

/* One recording, opened by the input layer and aggregated into a profile. */
struct ex_input {
	struct in_src in;
	struct sm_frames fr;
	struct pf pf;
	int opened;
};

static void ex_input_free(struct ex_input *x)
{
	pf_free(&x->pf);
	if (x->opened)
		sm_frames_free(&x->fr);
	in_close(&x->in);
	memset(x, 0, sizeof(*x));
}

/*
 * Load @input with @map_opt and @buffer into @x; with @feed, read the records (else the caller
 * feeds them). Return 0 or an exit code after one message.
 */
static int ex_load(const char *cmd, const char *input, const char *map_opt, const char *buffer,
		   const struct pf_opts *po, struct ex_input *x, int feed)
{
	int ret;

	memset(x, 0, sizeof(*x));
	ret = in_open(&x->in, cmd, input, map_opt, buffer, 0);
	if (ret)
		return ret;
	sm_frames_init(&x->fr, x->in.have_syms ? &x->in.syms : NULL, 0);
	x->opened = 1;
	ret = pf_init(&x->pf, &x->fr, po);
	if (ret) {
		sm_err("%s: %s", cmd, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	if (x->in.kind == IN_DAT && x->in.td.have_date) {
		/* the recording's wall-clock reference (trace-cmd's DATE option) */
		x->pf.have_wall = 1;
		x->pf.wall_offset_ns = x->in.td.date_offset_ns;
	}
	/* the sched_switch fields serve the off-CPU weights and the Perfetto timeline only */
	x->in.no_switch_fields = !po->offcpu && !po->timeline;
	/*
	 * Only the Perfetto writer costs as much as decoding the input, so only it gains from a
	 * reader on a second thread; report, pprof and folded gained nothing measurable from one
	 * and used more CPU time (tool/README.md, "Reading a trace.dat").
	 */
	x->in.pipeline = po->timeline;
	if (!feed)
		return 0;
	ret = in_feed(&x->in, pf_add_record, &x->pf);
	if (ret)
		return ret;
	pf_finish(&x->pf);
	return 0;
}

/* Output: -o FILE as a redirection, written atomically (outfile.h); "-" or none: stdout. */
struct ex_out {
	struct sm_outfile of;
	FILE *f;
};

static int ex_out_open(struct ex_out *o, const char *path)
{
	int ret = sm_outfile_open(&o->of, path);

	o->f = o->of.f;
	if (ret) {
		sm_err("%s: %s", o->of.err_path, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	return 0;
}

static int ex_out_close(struct ex_out *o, int ok)
{
	int ret = sm_outfile_close(&o->of, ok);

	if (!ret)
		return 0;
	if (o->of.path)
		sm_err("%s: write failed: %s", o->of.err_path, strerror(-ret));
	else
		sm_err("write to standard output failed");
	return SM_EXIT_USAGE;
}

static int ex_parse_by(const char *s, enum ex_by *by)
{
	static const char *const names[] = {"none", "event", "comm", "pid"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*by = (enum ex_by)i;
			return 0;
		}
	return -EINVAL;
}

/* Messages about what the export could not attribute or see (stderr, never fatal). */
static void ex_notes(const struct ex_input *in)
{
	const struct pf *p = &in->pf;

	in_notes(&in->in);
	if (p->opts.offcpu && (p->off_open || p->off_nostack || p->off_backwards))
		sm_err("off-cpu: %llu tasks still off CPU at the end and %llu switch-outs without "
		       "a stack are not counted; %llu intervals ran backwards",
		       (unsigned long long)p->off_open, (unsigned long long)p->off_nostack,
		       (unsigned long long)p->off_backwards);
}

enum {
	EX_OPT_FORMAT = 0x200,
	EX_OPT_BY,
	EX_OPT_WEIGHT,
	EX_OPT_COLOR,
	EX_OPT_TITLE,
	EX_OPT_MAP,
	EX_OPT_NORMALIZE,
	EX_OPT_BUFFER,
};

/*
 * Perfetto has every event on its timeline: rather than keep them all, each event is written
 * as it comes, with what it refers to interned on first use. Into a temporary file (renamed
 * over -o FILE only when complete) the input is read once; written directly (standard output,
 * a FIFO), the input is first read and checked whole and then streamed in a second pass, so
 * that a bad input writes nothing there either. Return 0, a negative errno (not yet printed)
 * or the exit code of the input layer (after its message).
 */
static int ex_stream_perfetto(struct ex_input *x, const struct ex_opts *eo, struct ex_out *o)
{
	struct pt_stream *s;
	int ret;

	if (!o->of.tmp) {
		ret = in_feed(&x->in, pf_add_record, &x->pf);
		if (ret)
			return ret;
		x->pf.replay = 1;
	}
	ret = ex_perfetto_start(&x->pf, eo, o->f, &s);
	if (ret)
		return ret;
	x->pf.sink = ex_perfetto_sink;
	x->pf.sink_arg = s;
	ret = in_feed(&x->in, pf_add_record, &x->pf);
	x->pf.sink = NULL;
	pf_finish(&x->pf);
	if (ret) {
		ex_perfetto_finish(s);
		return ret;
	}
	return ex_perfetto_finish(s);
}

#define EX_GIVEN(opt) (1u << ((opt)-EX_OPT_FORMAT))

/* Options that do not apply to the chosen format are refused, never ignored. */
static int ex_check_options(const char *cmd, int fmt, unsigned int given, int offcpu)
{
	const char *bad = NULL;

	if ((given & EX_GIVEN(EX_OPT_BY)) && fmt == EXF_PPROF)
		bad = "--by (pprof keeps comm and pid as sample labels)";
	else if ((given & EX_GIVEN(EX_OPT_COLOR)) && fmt != EXF_SVG)
		bad = "--color (svg only)";
	else if ((given & EX_GIVEN(EX_OPT_TITLE)) && fmt != EXF_SVG && fmt != EXF_SPEEDSCOPE)
		bad = "--title (svg and speedscope only)";
	else if (offcpu && fmt == EXF_PERFETTO)
		bad = "--weight offcpu (the Perfetto timeline shows the switches themselves)";
	else if ((given & EX_GIVEN(EX_OPT_NORMALIZE)) && strcmp(cmd, "diff"))
		bad = "--normalize (diff only)";
	if (!bad)
		return 0;
	sm_err("%s: %s does not apply to --format %s", cmd, bad, ex_format_names[fmt]);
	return SM_EXIT_USAGE;
}

static int ex_run(int argc, char **argv, int diff)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, EX_OPT_FORMAT},
		{"output", required_argument, NULL, 'o'},
		{"by", required_argument, NULL, EX_OPT_BY},
		{"weight", required_argument, NULL, EX_OPT_WEIGHT},
		{"color", required_argument, NULL, EX_OPT_COLOR},
		{"title", required_argument, NULL, EX_OPT_TITLE},
		{"map", required_argument, NULL, EX_OPT_MAP},
		{"normalize", no_argument, NULL, EX_OPT_NORMALIZE},
		{"buffer", required_argument, NULL, EX_OPT_BUFFER},
		{"input", required_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'},
		SM_SYM_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const char *cmd = diff ? "diff" : "export", *out_path = NULL, *map_opt = NULL;
	const char *buffer = NULL;
	const char *input = NULL, *inputs[2];
	unsigned int given = 0; /* EX_OPT_* bits of the options on the command line */
	struct ex_opts eo = {.by = EX_BY_EVENT, .color = EX_COLOR_EVENT};
	struct pf_opts po = {0};
	struct ex_input in[2];
	int fmt = diff ? EXF_FOLDED : -1, normalize = 0, ret = 0, c, i, nin = 0;
	struct ex_out out;

	memset(in, 0, sizeof(in));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:i:", longopts, NULL)) != -1) {
		if (sm_sym_option(c, optarg))
			continue;
		if (c >= EX_OPT_FORMAT && c <= EX_OPT_NORMALIZE)
			given |= 1u << (c - EX_OPT_FORMAT);
		switch (c) {
		case 'i':
			if (diff) {
				sm_err("diff: -i does not apply (give the two recordings A B)");
				return SM_EXIT_USAGE;
			}
			if (input) {
				sm_err("export: one input only (got '%s' and '%s')", input, optarg);
				return SM_EXIT_USAGE;
			}
			input = optarg;
			break;
		case EX_OPT_FORMAT:
			for (fmt = 0; fmt <= EXF_SVG; fmt++)
				if (strcmp(optarg, ex_format_names[fmt]) == 0)
					break;
			if (fmt > EXF_SVG || (diff && fmt != EXF_FOLDED && fmt != EXF_SVG)) {
				sm_err("%s: unknown format '%s' (%s)", cmd, optarg,
				       diff ? "folded or svg"
					    : "folded, speedscope, pprof, perfetto or svg");
				return SM_EXIT_USAGE;
			}
			break;
		case 'o':
			out_path = optarg;
			break;
		case EX_OPT_BY:
			if (ex_parse_by(optarg, &eo.by)) {
				sm_err("%s: --by takes event, comm, pid or none, got '%s'", cmd,
				       optarg);
				return SM_EXIT_USAGE;
			}
			break;
		case EX_OPT_WEIGHT:
			if (strcmp(optarg, "offcpu") == 0) {
				po.offcpu = 1;
			} else if (strcmp(optarg, "count") == 0) {
				po.offcpu = 0;
			} else {
				sm_err("%s: --weight takes count or offcpu, got '%s'", cmd, optarg);
				return SM_EXIT_USAGE;
			}
			break;
		case EX_OPT_COLOR:
			if (strcmp(optarg, "event") == 0) {
				eo.color = EX_COLOR_EVENT;
			} else if (strcmp(optarg, "module") == 0) {
				eo.color = EX_COLOR_MODULE;
			} else {
				sm_err("%s: --color takes event or module, got '%s'", cmd, optarg);
				return SM_EXIT_USAGE;
			}
			break;
		case EX_OPT_TITLE:
			eo.title = optarg;
			break;
		case EX_OPT_MAP:
			map_opt = optarg;
			break;
		case EX_OPT_NORMALIZE:
			normalize = 1;
			break;
		case EX_OPT_BUFFER:
			buffer = optarg;
			break;
		case 'h':
			sm_cmd_usage(stdout, cmd);
			return SM_EXIT_OK;
		default:
			sm_err("%s: unknown or incomplete option '%s'", cmd, argv[optind - 1]);
			return SM_EXIT_USAGE;
		}
	}
	if (fmt < 0) {
		sm_err("export: needs --format folded|speedscope|pprof|perfetto|svg");
		return SM_EXIT_USAGE;
	}
	ret = ex_check_options(cmd, fmt, given, po.offcpu);
	if (ret)
		return ret;
	if (diff && argc - optind != 2) {
		sm_err("diff: needs two recordings A B (trace.dat files, recording directories or "
		       "trace texts)");
		return SM_EXIT_USAGE;
	}
	if (!diff) {
		if (optind < argc && !input)
			input = argv[optind++];
		if (optind < argc) {
			sm_err("export: unexpected argument '%s' (one input only)", argv[optind]);
			return SM_EXIT_USAGE;
		}
	}
	if (diff && map_opt) {
		sm_err("diff: --map does not apply (each recording's map is found with it)");
		return SM_EXIT_USAGE;
	}
	inputs[0] = diff ? argv[optind] : input;
	inputs[1] = diff ? argv[optind + 1] : NULL;
	po.timeline = fmt == EXF_PERFETTO;
	for (i = 0; i < (diff ? 2 : 1); i++) {
		po.unknown_tag = diff ? (i ? "B" : "A") : NULL;
		ret = ex_load(cmd, inputs[i], map_opt, buffer, &po, &in[i], fmt != EXF_PERFETTO);
		nin++;
		if (ret)
			goto out;
	}
	ret = ex_out_open(&out, out_path);
	if (ret)
		goto out;
	if (diff && fmt == EXF_SVG)
		ret = ex_write_diff_svg(&in[0].pf, &in[1].pf, &eo, normalize, out.f);
	else if (diff)
		ret = ex_write_diff_folded(&in[0].pf, &in[1].pf, &eo, normalize, out.f);
	else if (fmt == EXF_FOLDED)
		ret = ex_write_folded(&in[0].pf, &eo, out.f);
	else if (fmt == EXF_SPEEDSCOPE)
		ret = ex_write_speedscope(&in[0].pf, &eo, out.f);
	else if (fmt == EXF_PPROF)
		ret = ex_write_pprof(&in[0].pf, &eo, out.f);
	else if (fmt == EXF_PERFETTO)
		ret = ex_stream_perfetto(&in[0], &eo, &out);
	else
		ret = ex_write_svg(&in[0].pf, &eo, out.f);
	if (ret > 0) { /* the input layer's exit code, after its message */
		ex_out_close(&out, 0);
		goto out;
	}
	if (ret) {
		sm_err("%s: %s", cmd, strerror(-ret));
		ex_out_close(&out, 0);
		ret = SM_EXIT_USAGE;
		goto out;
	}
	ret = ex_out_close(&out, 1);
	for (i = 0; !ret && i < nin; i++)
		ex_notes(&in[i]);
out:
	for (i = 0; i < nin; i++)
		ex_input_free(&in[i]);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	return ex_run(argc, argv, 0);
}

int cmd_diff(int argc, char **argv)
{
	return ex_run(argc, argv, 1);
}
