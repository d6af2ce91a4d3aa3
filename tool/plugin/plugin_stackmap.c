// SPDX-License-Identifier: GPL-2.0
/*
 * plugin_stackmap - libtraceevent plugin that prints ftrace's kernel_stack_id events as the
 * symbolized stack they stand for, in the shape trace-cmd prints kernel_stack events:
 *
 *   kernel_stack_id:      <stack_id 42>
 *   => schedule (ffffffff81e3a1c8)
 *   => schedule_timeout (ffffffff81e40b7e)
 *
 * The stacks come from a stack_map_bin file: the plugin option "stackmap:file" (trace-cmd
 * report -O stackmap:file=PATH), else $STACKMAP_MAP, else stack_map_bin in the directory of the
 * trace.dat being read (found from the command line of trace-cmd report or kernelshark).
 * Symbols come from the tep handle, i.e. the kallsyms saved in the trace.dat. Without a map
 * the plugin says so once on stderr and prints the bare id.
 *
 * KernelShark shows each event's info as one line, where the "=> frame" lines overlap. The
 * one-line form (plugin option "stackmap:oneline", trace-cmd report -O stackmap:oneline=1, or
 * STACKMAP_ONELINE=1 in the environment, which KernelShark passes on) prints the frames on
 * the event's line, innermost first, joined by " <- ":
 *
 *   kernel_stack_id:      <stack_id 42> schedule <- schedule_timeout <- ffffffff81e40b7e
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "smbin.h"

int TEP_PLUGIN_LOADER(struct tep_handle *tep);
void TEP_PLUGIN_UNLOADER(struct tep_handle *tep);

struct tep_plugin_option TEP_PLUGIN_OPTIONS[] = {
	{
		.name = "file",
		.plugin_alias = "stackmap",
		.description = "stack_map_bin that resolves the stack ids (default: $STACKMAP_MAP, "
			       "or stack_map_bin next to the trace.dat)",
		.value = "", /* non-NULL: a string option */
	},
	{
		.name = "oneline",
		.plugin_alias = "stackmap",
		.description = "print the frames on the event's line, innermost first, joined by "
			       "' <- ' (for KernelShark; also $STACKMAP_ONELINE=1)",
		.value = NULL, /* NULL: a boolean option, in .set */
	},
	{.name = NULL},
};

static struct {
	int tried; /* 1 once loading was attempted */
	int ok;
	struct smbin_map map;
	char path[4096];
} pm;

/* The trace.dat the host program reads: trace-cmd report [-i] FILE, kernelshark FILE. */
static void pm_input_from_cmdline(char *out, size_t size)
{
	char buf[16384], *args[256];
	size_t n, i, nargs = 0;
	const char *input = NULL;
	FILE *f = fopen("/proc/self/cmdline", "rb");

	snprintf(out, size, "trace.dat");
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (i = 0; i < n && nargs < 256; i += strlen(buf + i) + 1)
		args[nargs++] = buf + i;
	for (i = 1; i < nargs; i++) {
		size_t len = strlen(args[i]);

		if (!strcmp(args[i], "-i") && i + 1 < nargs) {
			input = args[++i];
		} else if (!strncmp(args[i], "-i", 2) && len > 2) {
			input = args[i] + 2;
		} else if (len > 4 && !strcmp(args[i] + len - 4, ".dat") &&
			   (i == 0 || strcmp(args[i - 1], "-o"))) {
			if (!input)
				input = args[i];
		}
	}
	if (input)
		snprintf(out, size, "%s", input);
}

static void pm_load(void)
{
	const char *opt = TEP_PLUGIN_OPTIONS[0].value, *env = getenv("STACKMAP_MAP"), *slash;
	struct smbin_err err;
	char input[4096];
	size_t len;
	char *buf;
	int ret;

	pm.tried = 1;
	if (opt && *opt) {
		snprintf(pm.path, sizeof(pm.path), "%s", opt);
	} else if (env && *env) {
		snprintf(pm.path, sizeof(pm.path), "%s", env);
	} else {
		pm_input_from_cmdline(input, sizeof(input));
		slash = strrchr(input, '/');
		snprintf(pm.path, sizeof(pm.path), "%.*sstack_map_bin",
			 slash ? (int)(slash - input + 1) : 0, input);
	}
	ret = smbin_read_file(pm.path, &buf, &len);
	if (ret) {
		fprintf(stderr,
			"plugin_stackmap: no stack map: %s: %s (stack ids print bare; pass -O "
			"stackmap:file=PATH)\n",
			pm.path, strerror(-ret));
		return;
	}
	ret = smbin_decode_owned(buf, len, &pm.map, &err);
	if (ret) {
		fprintf(stderr,
			"plugin_stackmap: no stack map: %s: offset %llu: %s (stack ids print "
			"bare)\n",
			pm.path, (unsigned long long)err.offset,
			ret == -EBADMSG ? err.msg : strerror(-ret));
		smbin_free(&pm.map);
		return;
	}
	pm.ok = 1;
}

static const struct smbin_stack *pm_find(uint32_t id)
{
	size_t lo = 0, hi = pm.map.nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm.map.stacks[mid].id == id)
			return &pm.map.stacks[mid];
		if (pm.map.stacks[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The one-line form: the plugin option, else STACKMAP_ONELINE (non-empty, not "0"). */
static int pm_oneline(void)
{
	const char *env = getenv("STACKMAP_ONELINE");

	if (TEP_PLUGIN_OPTIONS[1].set)
		return 1;
	return env && *env && strcmp(env, "0") != 0;
}

static int pm_handler(struct trace_seq *s, struct tep_record *record, struct tep_event *event,
		      void *context)
{
	const struct smbin_stack *st;
	unsigned long long val;
	uint32_t i;
	int oneline;

	(void)context;
	if (tep_get_field_val(s, event, "stack_id", record, &val, 1))
		return 0;
	trace_seq_printf(s, "<stack_id %d>", (int)val);
	if (!pm.tried)
		pm_load();
	if (!pm.ok)
		return 0;
	st = pm_find((uint32_t)val);
	if (!st) {
		trace_seq_puts(s, " (missing from the map)");
		return 0;
	}
	oneline = pm_oneline();
	for (i = 0; i < st->nr; i++) {
		unsigned long long addr = st->ips[i];
		const char *func, *sep = oneline ? (i ? " <- " : " ") : "\n=> ";

		if (addr == SMBIN_TRAMPOLINE) {
			trace_seq_printf(s, "%s[FTRACE TRAMPOLINE]", sep);
			continue;
		}
		func = tep_find_function(event->tep, addr);
		if (func && oneline)
			trace_seq_printf(s, "%s%s", sep, func);
		else if (func)
			trace_seq_printf(s, "%s%s (%llx)", sep, func, addr);
		else
			trace_seq_printf(s, "%s%llx", sep, addr);
	}
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	tep_plugin_add_options("stackmap", TEP_PLUGIN_OPTIONS);
	tep_register_event_handler(tep, -1, "ftrace", "kernel_stack_id", pm_handler, NULL);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	tep_unregister_event_handler(tep, -1, "ftrace", "kernel_stack_id", pm_handler, NULL);
	tep_plugin_remove_options(TEP_PLUGIN_OPTIONS);
	if (pm.ok)
		smbin_free(&pm.map);
	memset(&pm, 0, sizeof(pm));
}
