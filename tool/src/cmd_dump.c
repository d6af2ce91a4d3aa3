// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap dump: decode stack_map_bin and print it as the kernel's text export, as JSON or as
 * collapsed ("folded") stacks.
 */
#define _GNU_SOURCE
#include "input.h"
#include "stackmap.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum dump_mode { DUMP_TEXT, DUMP_JSON, DUMP_FOLDED };
enum dump_sort { SORT_ID, SORT_REF, SORT_DEPTH };

static int dump_cmp_ref(const void *a, const void *b)
{
	const struct smbin_stack *x = *(const struct smbin_stack *const *)a;
	const struct smbin_stack *y = *(const struct smbin_stack *const *)b;

	if (x->ref_count != y->ref_count)
		return x->ref_count > y->ref_count ? -1 : 1;
	return x->id < y->id ? -1 : (x->id > y->id);
}

static int dump_cmp_depth(const void *a, const void *b)
{
	const struct smbin_stack *x = *(const struct smbin_stack *const *)a;
	const struct smbin_stack *y = *(const struct smbin_stack *const *)b;

	if (x->nr != y->nr)
		return x->nr > y->nr ? -1 : 1;
	return x->id < y->id ? -1 : (x->id > y->id);
}

static void dump_text(struct sm_out *o, struct sm_frames *fr, const struct smbin_stack *s)
{
	uint32_t j;

	sm_out_str(o, "stack_id ");
	sm_out_u64(o, s->id);
	sm_out_str(o, " [ref ");
	sm_out_u64(o, s->ref_count);
	sm_out_str(o, ", depth ");
	sm_out_u64(o, s->nr);
	sm_out_str(o, "]\n");
	for (j = 0; j < s->nr; j++) {
		sm_out_str(o, "  [");
		sm_out_u64(o, j);
		sm_out_str(o, "] ");
		sm_out_frame(o, fr, s->ips[j], SM_FRAME_FULL);
		sm_out_chr(o, '\n');
	}
	sm_out_chr(o, '\n');
}

/* Bytes that are not valid UTF-8 become U+FFFD, so the JSON output is always valid UTF-8. */
static const char *dump_utf8(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	for (; *p && n + 4 < size; p++) {
		size_t len = *p < 0x80		   ? 1
			     : (*p & 0xe0) == 0xc0 ? 2
			     : (*p & 0xf0) == 0xe0 ? 3
			     : (*p & 0xf8) == 0xf0 ? 4
						   : 0;
		size_t k;

		for (k = 1; len && k < len; k++)
			if ((p[k] & 0xc0) != 0x80)
				len = 0;
		if (len == 2 && *p < 0xc2)
			len = 0; /* overlong */
		if (!len) {
			memcpy(buf + n, "\xef\xbf\xbd", 3);
			n += 3;
			continue;
		}
		memcpy(buf + n, p, len);
		n += len;
		p += len - 1;
	}
	buf[n] = '\0';
	return buf;
}

static json_object *dump_json_str(const char *s)
{
	char buf[1024 * 3 + 8];

	return json_object_new_string(dump_utf8(s, buf, sizeof(buf)));
}

static void dump_json(struct sm_out *o, struct sm_frames *fr, const struct syms *syms,
		      int have_syms, const struct smbin_stack *s, int first)
{
	json_object *obj = json_object_new_object(), *ips = json_object_new_array();
	const char *file;
	char hex[24];
	uint32_t j;
	int res, line;

	json_object_object_add(obj, "id", json_object_new_int64(s->id));
	json_object_object_add(obj, "ref_count", json_object_new_int64(s->ref_count));
	json_object_object_add(obj, "depth", json_object_new_int64(s->nr));
	for (j = 0; j < s->nr; j++) {
		snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)s->ips[j]);
		json_object_array_add(ips, json_object_new_string(hex));
	}
	json_object_object_add(obj, "ips", ips);
	if (have_syms) {
		json_object *syma = json_object_new_array();

		for (j = 0; j < s->nr; j++) {
			const char *txt = sm_frame(fr, s->ips[j], SM_FRAME_FULL, &res);

			json_object_array_add(syma, res ? dump_json_str(txt) : NULL);
		}
		json_object_object_add(obj, "symbols", syma);
	}
	if (sm_opts.lines) {
		json_object *la = json_object_new_array();

		for (j = 0; j < s->nr; j++) {
			char tmp[1024];

			if (syms_srcline(syms, s->ips[j], &file, &line) == 0) {
				snprintf(tmp, sizeof(tmp), "%s:%d", file, line);
				json_object_array_add(la, dump_json_str(tmp));
			} else {
				json_object_array_add(la, NULL);
			}
		}
		json_object_object_add(obj, "lines", la);
	}
	sm_out_str(o, first ? "\n  " : ",\n  ");
	sm_out_str(o, json_object_to_json_string_ext(obj, JSON_C_TO_STRING_SPACED |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(obj);
}

static void dump_folded(struct sm_out *o, struct sm_frames *fr, const struct smbin_stack *s)
{
	uint32_t j;

	if (!s->nr)
		sm_out_str(o, "[no frames]");
	for (j = s->nr; j > 0; j--) {
		sm_out_frame(o, fr, s->ips[j - 1], SM_FRAME_FOLDED);
		if (j > 1)
			sm_out_chr(o, ';');
	}
	sm_out_chr(o, ' ');
	sm_out_u64(o, s->ref_count);
	sm_out_chr(o, '\n');
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"folded", no_argument, NULL, 'f'},
		{"top", required_argument, NULL, 'n'},
		{"sort", required_argument, NULL, 's'},
		{"map", required_argument, NULL, 'm'},
		{"buffer", required_argument, NULL, 'b'},
		{"input", required_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'},
		SM_SYM_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	enum dump_mode mode = DUMP_TEXT;
	enum dump_sort sort = SORT_ID;
	const struct smbin_stack **order = NULL;
	unsigned long top = 0;
	int have_top = 0, have_sort = 0, ret, c, nmodes = 0;
	const char *path = NULL, *map_opt = NULL, *buffer = NULL;
	char *dflt = NULL;
	struct in_src in;
	struct sm_frames fr;
	struct sm_out out = {0};
	size_t i, n;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hi:", longopts, NULL)) != -1) {
		if (sm_sym_option(c, optarg))
			continue;
		switch (c) {
		case 'j':
			mode = DUMP_JSON;
			nmodes++;
			break;
		case 'f':
			mode = DUMP_FOLDED;
			nmodes++;
			break;
		case 'n':
			if (sm_parse_uint(optarg, &top)) {
				sm_err("dump: --top needs a number, got '%s'", optarg);
				return SM_EXIT_USAGE;
			}
			have_top = 1;
			break;
		case 's':
			have_sort = 1;
			if (strcmp(optarg, "id") == 0) {
				sort = SORT_ID;
			} else if (strcmp(optarg, "ref") == 0) {
				sort = SORT_REF;
			} else if (strcmp(optarg, "depth") == 0) {
				sort = SORT_DEPTH;
			} else {
				sm_err("dump: --sort must be ref, id or depth, got '%s'", optarg);
				return SM_EXIT_USAGE;
			}
			break;
		case 'm':
			map_opt = optarg;
			break;
		case 'b':
			buffer = optarg;
			break;
		case 'i':
			if (path) {
				sm_err("dump: too many arguments (one FILE expected)");
				return SM_EXIT_USAGE;
			}
			path = optarg;
			break;
		case 'h':
			sm_cmd_usage(stdout, "dump");
			return SM_EXIT_OK;
		default:
			sm_err("dump: unknown or incomplete option '%s'", argv[optind - 1]);
			return SM_EXIT_USAGE;
		}
	}
	if (nmodes > 1) {
		sm_err("dump: --json and --folded are two outputs; choose one");
		return SM_EXIT_USAGE;
	}
	if (optind < argc && !path)
		path = argv[optind++];
	if (optind < argc) {
		sm_err("dump: too many arguments (one FILE expected)");
		return SM_EXIT_USAGE;
	}
	if (!path) {
		/* the live map of the tracefs in use (--tracefs, $STACKMAP_TRACEFS) */
		dflt = sm_tracefs_file("stack_map_bin");
		if (!dflt)
			return SM_EXIT_USAGE;
		path = dflt;
	}
	if (have_top && !have_sort)
		sort = SORT_REF;

	ret = in_open(&in, "dump", path, map_opt, buffer, IN_F_MAP_OK);
	free(dflt);
	if (ret) {
		in_close(&in);
		return ret;
	}
	if (!in.have_map && in.buffer) {
		/* (the map inside and beside a recording is the top level's) */
		sm_err("%s: buffer \"%s\": no stack map of this buffer was given (%s%sgive the "
		       "instance's with --map FILE)%s",
		       in.path, in.buffer, in.map_not_used ? in.map_not_used : "",
		       in.map_not_used ? " is the top level's; " : "",
		       in.stk.ndefs ? "; the stack definitions in the buffer resolve its ids for "
				      "report, export and diff"
				    : "");
		in_close(&in);
		return SM_EXIT_USAGE;
	}
	if (!in.have_map && in.stk.ndefs) {
		sm_err("%s: no stack map found inside or beside it (give --map FILE); the %zu "
		       "stack definitions in the recording resolve its ids for report, export and "
		       "diff",
		       in.path, in.stk.ndefs);
		in_close(&in);
		return SM_EXIT_USAGE;
	}
	if (!in.have_map) {
		sm_err("%s: no stack map found inside or beside it (give --map FILE)", in.path);
		in_close(&in);
		return SM_EXIT_USAGE;
	}
	/* JSON keeps file:line in its own "lines" array */
	sm_frames_init(&fr, in.have_syms ? &in.syms : NULL, mode == DUMP_JSON ? 0 : sm_opts.lines);
	if (sm_out_init(&out, stdout)) {
		ret = SM_EXIT_USAGE;
		goto out;
	}
	n = in.map.nr;
	if (n) {
		order = malloc(n * sizeof(*order));
		if (!order) {
			sm_err("out of memory");
			ret = SM_EXIT_USAGE;
			goto out;
		}
	}
	for (i = 0; i < n; i++)
		order[i] = &in.map.stacks[i];
	if (sort == SORT_REF)
		qsort(order, n, sizeof(*order), dump_cmp_ref);
	else if (sort == SORT_DEPTH)
		qsort(order, n, sizeof(*order), dump_cmp_depth);
	if (have_top && top < n)
		n = top;

	if (mode == DUMP_JSON)
		sm_out_chr(&out, '[');
	for (i = 0; i < n; i++) {
		if (mode == DUMP_TEXT)
			dump_text(&out, &fr, order[i]);
		else if (mode == DUMP_JSON)
			dump_json(&out, &fr, &in.syms, in.have_syms, order[i], i == 0);
		else
			dump_folded(&out, &fr, order[i]);
	}
	if (mode == DUMP_JSON)
		sm_out_str(&out, n ? "\n]\n" : "]\n");
	ret = 0;
out:
	if (out.buf && sm_out_done(&out) && !ret) {
		sm_err("dump: write error on standard output");
		ret = SM_EXIT_USAGE;
	}
	if (!ret && in.have_map && !in.have_syms && in.map.nr && !sm_opts.no_kallsyms)
		sm_err("%s: no kallsyms found (looked inside and beside it; give --kallsyms FILE): "
		       "frames are shown as addresses",
		       in.path);
	free(order);
	sm_frames_free(&fr);
	in_close(&in);
	return ret;
}
