// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap export: write a recording as folded stacks, speedscope JSON, pprof, a Perfetto
 * trace or an interactive SVG flame graph. stackmap diff: compare two recordings by frames.
 *
 * The whole input is read and checked before anything is written; the output goes to a
 * temporary file next to -o FILE's final target that is renamed over it only when complete
 * (outfile.h), so a failed export leaves no partial file.
 */
#define _GNU_SOURCE
#include "export.h"
#include "outfile.h"
#include "report_dat.h"
#include "stackmap.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum ex_format { EXF_FOLDED, EXF_SPEEDSCOPE, EXF_PPROF, EXF_PERFETTO, EXF_SVG };

static const char *const ex_format_names[] = {"folded", "speedscope", "pprof", "perfetto", "svg"};

/* One recording: trace text + map + symbols, aggregated into a profile. */
struct ex_input {
	char *trace, *map_path, *ks;
	struct smbin_map map;
	struct syms syms;
	int have_syms;
	struct sm_frames fr;
	struct tp_ctx ctx;
	struct pf pf;
	char *buf;
};

static void ex_input_free(struct ex_input *in)
{
	pf_free(&in->pf);
	tp_ctx_free(&in->ctx);
	smbin_free(&in->map);
	sm_frames_free(&in->fr);
	syms_free(&in->syms);
	free(in->buf);
	free(in->trace);
	free(in->map_path);
	free(in->ks);
	memset(in, 0, sizeof(*in));
}

/* The records of a trace.dat into the profile (the map and the symbols are loaded already). */
static int ex_load_dat(struct ex_input *in, const struct pf_opts *po)
{
	struct td_file td;
	struct td_err err = {0};
	int ret;

	ret = td_open_file(&td, in->trace, &err);
	if (!ret)
		ret = pf_init(&in->pf, &in->map, &in->fr, po);
	if (!ret)
		ret = rd_feed_records(&td, pf_add_record, &in->pf, &err);
	td_close(&td);
	if (ret == -EBADMSG || ret == -EPROTONOSUPPORT) {
		sm_err("%s: offset %llu: %s", in->trace, (unsigned long long)err.offset, err.msg);
		return SM_EXIT_DATA;
	}
	if (ret) {
		sm_err("%s: %s", in->trace, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	pf_finish(&in->pf);
	return 0;
}

/*
 * Load @input (a directory written by `stackmap record`, or a trace file with @map_opt) into
 * @in. Return 0 or an exit code after one message.
 */
static int ex_load(const char *input, const char *map_opt, const struct pf_opts *po,
		   struct ex_input *in)
{
	const char *saved_ks = sm_opts.kallsyms;
	struct stat st;
	size_t len;
	int ret, is_dat = 0;

	memset(in, 0, sizeof(*in));
	tp_ctx_init(&in->ctx);
	if (stat(input, &st)) {
		sm_err("%s: %s", input, strerror(errno));
		return SM_EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode)) {
		char *dat = sm_path_join(input, "trace.dat");

		in->trace = sm_path_join(input, "trace");
		if (in->trace && dat && access(in->trace, F_OK) && !access(dat, F_OK)) {
			/* binary input: DIR/trace.dat (report_dat.c delivers its records) */
			is_dat = 1;
			free(in->trace);
			in->trace = dat;
			dat = NULL;
		}
		free(dat);
		in->map_path = map_opt ? strdup(map_opt) : sm_path_join(input, "stack_map_bin");
		in->ks = sm_path_join(input, "kallsyms");
		if (!in->trace || !in->map_path || !in->ks)
			return SM_EXIT_USAGE;
		if (!sm_opts.kallsyms && !sm_opts.no_kallsyms && access(in->ks, R_OK) == 0)
			sm_opts.kallsyms = in->ks;
	} else {
		in->trace = strdup(input);
		in->map_path = map_opt ? strdup(map_opt) : NULL;
	}
	ret = sm_load_syms(&in->syms, &in->have_syms);
	sm_opts.kallsyms = saved_ks;
	if (ret)
		return ret;
	sm_frames_init(&in->fr, in->have_syms ? &in->syms : NULL, 0);
	if (in->map_path) {
		ret = sm_load_map(in->map_path, &in->map, 0);
		if (ret)
			return ret;
	}
	if (is_dat || sm_is_tracedat(in->trace) == 1)
		return ex_load_dat(in, po);
	ret = smbin_read_file(in->trace, &in->buf, &len);
	if (ret) {
		sm_err("%s: %s", in->trace, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	ret = pf_init(&in->pf, &in->map, &in->fr, po);
	if (!ret)
		ret = tp_feed_records(&in->ctx, in->buf, len, pf_add_record, &in->pf);
	if (ret) {
		sm_err("%s: %s", in->trace, strerror(-ret));
		return SM_EXIT_USAGE;
	}
	if (in->ctx.bad_reason) {
		sm_err("%s: offset %llu: %s", in->trace, (unsigned long long)in->ctx.bad_offset,
		       in->ctx.bad_reason);
		return SM_EXIT_DATA;
	}
	pf_finish(&in->pf);
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

	if (p->nr_refs_unknown)
		sm_err("%llu stack references to %zu ids missing from the map, shown as "
		       "[unknown stack N]",
		       (unsigned long long)p->nr_refs_unknown, p->nunknown);
	if (p->nr_unattributed)
		sm_err("%llu stack references with no earlier event on their CPU, shown as "
		       "(no event)",
		       (unsigned long long)p->nr_unattributed);
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
};

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
		{"help", no_argument, NULL, 'h'},
		SM_SYM_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const char *cmd = diff ? "diff" : "export", *out_path = NULL, *map_opt = NULL;
	struct ex_opts eo = {.by = EX_BY_EVENT, .color = EX_COLOR_EVENT};
	struct pf_opts po = {0};
	struct ex_input in[2];
	int fmt = diff ? EXF_FOLDED : -1, normalize = 0, ret = 0, c, i, nin = 0;
	struct ex_out out;

	memset(in, 0, sizeof(in));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		if (sm_sym_option(c, optarg))
			continue;
		switch (c) {
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
	if (argc - optind != (diff ? 2 : 1)) {
		sm_err(diff ? "diff: needs two recordings A B (directories written by record)"
			    : "export: needs one INPUT (a directory written by record, or a trace "
			      "file)");
		return SM_EXIT_USAGE;
	}
	if (diff && map_opt) {
		sm_err("diff: --map does not apply (each recording is a directory)");
		return SM_EXIT_USAGE;
	}
	po.keep_events = fmt == EXF_PERFETTO;
	for (i = 0; i < (diff ? 2 : 1); i++) {
		ret = ex_load(argv[optind + i], map_opt, &po, &in[i]);
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
		ret = ex_write_perfetto(&in[0].pf, &eo, out.f);
	else
		ret = ex_write_svg(&in[0].pf, &eo, out.f);
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
