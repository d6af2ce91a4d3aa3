// SPDX-License-Identifier: GPL-2.0
/*
 * plugin_stackmap - libtraceevent plugin that prints ftrace's kernel_stack_id events as the
 * symbolized stack they stand for, in the shape trace-cmd prints kernel_stack events:
 *
 *   kernel_stack_id:      <stack_id 42>
 *   => schedule (ffffffff81e3a1c8)
 *   => schedule_timeout (ffffffff81e40b7e)
 *
 * and the kernel_stack_def events (the stack definitions written with stack_map_defs set) as
 * their id, generation, switch count (kernels with map switches) and frames in the same shape:
 *
 *   kernel_stack_def:     <stack_def 42 gen 0 switch 0>
 *   => schedule (ffffffff81e3a1c8)
 *   => schedule_timeout (ffffffff81e40b7e)
 *
 * An id is resolved from the definitions printed so far, of the generation of the latest one
 * and, when they carry switch counts, of the count with the id's bits nearest to the highest
 * one printed in that generation (the rule of the tool's man page, INPUT), so that an id that
 * comes back after 8192 switches is not taken for its earlier stack (trace-cmd report prints in
 * timestamp order: a definition another CPU commits a little after a use of its id is not seen
 * yet, the tool's first pass sees it), else from a
 * stack_map_bin file: the plugin option "stackmap:file" (trace-cmd report -O
 * stackmap:file=PATH), else $STACKMAP_MAP, else stack_map_bin in the directory of the trace.dat
 * being read (found from the command line of trace-cmd report or kernelshark). The map is
 * looked for only when an id has no definition, so a recording whose definitions cover its ids
 * needs none. Symbols come from the tep handle, i.e. the kallsyms saved in the trace.dat.
 * Without a map (and no definition) the plugin says so once on stderr and prints the bare id.
 *
 * Buffers (ftrace instances, trace-cmd record -B NAME; each has its own stack map, so ids of
 * two instances are unrelated): trace-cmd report prints the events of every buffer of a
 * trace.dat through this one plugin, and a handler gets the record, the event and the tep
 * handle, which trace-cmd shares among the buffers of a file (the record's offset is not a
 * file offset once the data was decompressed): nothing a handler gets names the buffer. So
 * when the trace.dat holds more than one buffer, the plugin reads it first with the tool's
 * reader (src/tracedat.c) and notes the buffer of every stack id and definition record by
 * (CPU, time stamp, id); a handler finds its record's buffer there, and keeps definitions and
 * the switch count per buffer. A record it cannot place (two buffers with the same key, or
 * time stamps that trace-cmd shifted) uses the definitions of records it could not place
 * either, and the plugin says so once. The stack_map_bin next to the trace.dat is the top
 * level's and resolves its ids only; the option's or $STACKMAP_MAP's resolves every buffer's
 * (pass an instance's map that way). The man page says the same.
 *
 * KernelShark shows each event's info as one line, where the "=> frame" lines overlap. The
 * one-line form (plugin option "stackmap:oneline", trace-cmd report -O stackmap:oneline=1, or
 * STACKMAP_ONELINE=1 in the environment, which KernelShark passes on) prints the frames on
 * the event's line, innermost first, joined by " <- ":
 *
 *   kernel_stack_id:      <stack_id 42> schedule <- schedule_timeout <- ffffffff81e40b7e
 *   kernel_stack_def:     <stack_def 42 gen 0 switch 0> schedule <- schedule_timeout <- ...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "htab.h"
#include "smbin.h"
#include "tracedat.h"

/* Built with -fvisibility=hidden: libtraceevent looks up these three only. */
#define PM_EXPORT __attribute__((visibility("default")))

PM_EXPORT int TEP_PLUGIN_LOADER(struct tep_handle *tep);
PM_EXPORT void TEP_PLUGIN_UNLOADER(struct tep_handle *tep);

PM_EXPORT struct tep_plugin_option TEP_PLUGIN_OPTIONS[] = {
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

/* A definition seen: (buffer, gen, sw, id) and its frames in pm.ips. */
struct pm_def {
	uint32_t buf, id, gen, sw, nr;
	size_t first;
};

/* The buffers told apart; one more state for the records that could not be placed. */
#define PM_MAX_BUFS 64
#define PM_UNPLACED PM_MAX_BUFS

/* What was printed of one buffer: the generation of its latest definition, and whether its
 * definitions carry switch counts and the highest in that generation. */
struct pm_state {
	uint32_t gen;
	int sw_known;
	uint32_t sw;
};

/* A stack id or definition record of the trace.dat and its buffer (buf PM_UNPLACED: the key
 * is in two buffers). */
struct pm_place {
	uint64_t ts;
	uint32_t id;
	int32_t cpu;
	uint32_t buf;
};

static struct {
	int tried; /* 1 once loading was attempted */
	int ok;
	int explicit_map; /* the map is the option's or $STACKMAP_MAP's: every buffer's */
	struct smbin_map map;
	char path[4096];
	/* the definitions printed so far */
	struct pm_def *defs;
	size_t ndefs, defs_cap;
	uint64_t *ips;
	size_t nips, ips_cap;
	struct htab idx;
	struct pm_state st[PM_MAX_BUFS + 1];
	/* the trace.dat's buffers (pm_scan()): nbufs 0 when it could not be read */
	int scanned;
	int nbufs;
	int top; /* the top level's buffer, -1 when the file has none */
	struct pm_place *places;
	size_t nplaces, places_cap;
	struct htab pidx;
	int warned_unplaced;
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

static uint64_t pm_place_hash(int cpu, uint64_t ts, uint32_t id)
{
	return htab_hash_gen_id((uint32_t)(ts >> 32) ^ (uint32_t)cpu * 0x85EBCA6Bu,
				(uint32_t)ts ^ id * 0xC2B2AE35u);
}

static int pm_place_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pm_place *p = &pm.places[idx], *k = key;

	(void)ctx;
	return p->ts == k->ts && p->id == k->id && p->cpu == k->cpu;
}

/* td_cpu_iterate() callback: note the buffer (*arg) of every stack id and definition. */
static int pm_scan_rec(void *arg, const struct td_rec *rec)
{
	struct pm_place key = {.ts = rec->ts, .id = rec->stack_id, .cpu = rec->cpu};
	uint64_t h;
	size_t pos;
	uint32_t i;

	if (rec->kind != TD_STACK_ID && rec->kind != TD_STACK_DEF)
		return 0;
	key.buf = *(const uint32_t *)arg;
	h = pm_place_hash(key.cpu, key.ts, key.id);
	if (pm.nplaces == pm.places_cap) {
		size_t cap = pm.places_cap ? pm.places_cap * 2 : 4096;
		struct pm_place *n = realloc(pm.places, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pm.places = n;
		pm.places_cap = cap;
	}
	if (htab_reserve(&pm.pidx))
		return -ENOMEM;
	i = htab_find(&pm.pidx, h, pm_place_eq, NULL, &key, &pos);
	if (i != HTAB_NONE) {
		if (pm.places[i].buf != key.buf)
			pm.places[i].buf = PM_UNPLACED;
		return 0;
	}
	pm.places[pm.nplaces] = key;
	htab_insert_at(&pm.pidx, pos, h, (uint32_t)pm.nplaces++);
	return 0;
}

/*
 * Read the trace.dat for its buffers: their number, the top level's, and with more than one,
 * the buffer of each stack id and definition record. On failure the buffers are not told
 * apart (nbufs 0), as before the plugin read the file.
 */
static void pm_scan(void)
{
	struct td_cpu_stats cst;
	struct td_file td;
	struct td_err err;
	char input[4096];
	uint32_t b;
	int c, ret = 0;

	pm.scanned = 1;
	pm.top = -1;
	pm_input_from_cmdline(input, sizeof(input));
	memset(&td, 0, sizeof(td));
	if (td_open_file(&td, input, &err))
		return;
	for (b = 0; b < (uint32_t)td.nbuffers; b++)
		if (!td.buffers[b].name[0])
			pm.top = (int)b;
	if (td.nbuffers > PM_MAX_BUFS) {
		fprintf(stderr,
			"plugin_stackmap: %s: %d buffers, more than the %d the plugin tells "
			"apart: their definitions are mixed\n",
			input, td.nbuffers, PM_MAX_BUFS);
		td_close(&td);
		return;
	}
	for (b = 0; td.nbuffers > 1 && !ret && b < (uint32_t)td.nbuffers; b++) {
		ret = td_select(&td, (int)b, &err);
		for (c = 0; !ret && c < td.ncpus; c++)
			ret = td_cpu_iterate(&td, c, pm_scan_rec, &b, &cst, &err);
	}
	if (ret) {
		fprintf(stderr,
			"plugin_stackmap: %s: cannot read its buffers (%s): their "
			"definitions are mixed\n",
			input, ret == -EBADMSG ? err.msg : strerror(-ret));
		pm.nplaces = 0;
	} else {
		pm.nbufs = td.nbuffers;
	}
	td_close(&td);
}

/* The buffer of @record, a stack id or definition record with stack_id @id. */
static uint32_t pm_buf_of(struct tep_record *record, uint32_t id)
{
	struct pm_place key = {.ts = record->ts, .id = id, .cpu = record->cpu};
	uint32_t i;

	if (!pm.scanned)
		pm_scan();
	if (pm.nbufs == 1)
		return 0;
	i = pm.nbufs ? htab_find(&pm.pidx, pm_place_hash(key.cpu, key.ts, id), pm_place_eq, NULL,
				 &key, NULL)
		     : HTAB_NONE;
	if (i != HTAB_NONE && pm.places[i].buf != PM_UNPLACED)
		return pm.places[i].buf;
	if (pm.nbufs && !pm.warned_unplaced) {
		fprintf(stderr,
			"plugin_stackmap: a stack record at %llu on CPU %d is not where the "
			"trace.dat was read to be: the definitions of such records are mixed\n",
			record->ts, record->cpu);
		pm.warned_unplaced = 1;
	}
	return PM_UNPLACED;
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
		pm.explicit_map = 1;
	} else if (env && *env) {
		snprintf(pm.path, sizeof(pm.path), "%s", env);
		pm.explicit_map = 1;
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

static int pm_def_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct pm_def *d = &pm.defs[idx], *k = key;

	(void)ctx;
	return d->id == k->id && d->gen == k->gen && d->sw == k->sw && d->buf == k->buf;
}

static uint64_t pm_hash(const struct pm_def *k)
{
	return htab_hash_gen_id(k->gen ^ k->sw * 0x85EBCA6Bu ^ k->buf * 0x27D4EB2Fu, k->id);
}

/* The id's switch count modulo 8192. */
static uint32_t pm_id_sw(uint32_t id)
{
	return (id >> SMBIN_SWITCH_SHIFT) & SMBIN_SWITCH_MASK;
}

/* The switch count of a use of @id: with the id's bits, nearest to the highest printed. */
static uint32_t pm_use_sw(const struct pm_state *st, uint32_t id)
{
	uint32_t d = (pm_id_sw(id) - st->sw) & SMBIN_SWITCH_MASK;

	if (!st->sw_known)
		return pm_id_sw(id);
	return d <= SMBIN_SWITCH_MASK / 2 ? st->sw + d : st->sw - (SMBIN_SWITCH_MASK + 1 - d);
}

static const struct pm_def *pm_find_def(uint32_t buf, uint32_t gen, uint32_t sw, uint32_t id)
{
	struct pm_def key = {.buf = buf, .id = id, .gen = gen, .sw = sw};
	uint32_t i = htab_find(&pm.idx, pm_hash(&key), pm_def_eq, NULL, &key, NULL);

	return i == HTAB_NONE ? NULL : &pm.defs[i];
}

/* Remember a definition (a repeated one replaces the earlier: the latest printed wins). */
static void pm_add_def(uint32_t buf, uint32_t gen, uint32_t sw, uint32_t id, const uint64_t *ips,
		       uint32_t nr)
{
	struct pm_def key = {.buf = buf, .id = id, .gen = gen, .sw = sw, .nr = nr};
	uint64_t h = pm_hash(&key);
	size_t pos;
	uint32_t i;

	if (pm.nips + nr > pm.ips_cap) {
		size_t cap = pm.ips_cap ? pm.ips_cap * 2 : 1024;
		uint64_t *n;

		while (cap < pm.nips + nr)
			cap *= 2;
		n = realloc(pm.ips, cap * sizeof(*n));
		if (!n)
			return;
		pm.ips = n;
		pm.ips_cap = cap;
	}
	if (pm.ndefs == pm.defs_cap) {
		size_t cap = pm.defs_cap ? pm.defs_cap * 2 : 256;
		struct pm_def *n = realloc(pm.defs, cap * sizeof(*n));

		if (!n)
			return;
		pm.defs = n;
		pm.defs_cap = cap;
	}
	if (htab_reserve(&pm.idx))
		return;
	key.first = pm.nips;
	memcpy(pm.ips + pm.nips, ips, nr * sizeof(*ips));
	pm.nips += nr;
	i = htab_find(&pm.idx, h, pm_def_eq, NULL, &key, &pos);
	if (i != HTAB_NONE) {
		pm.defs[i] = key;
		return;
	}
	pm.defs[pm.ndefs] = key;
	htab_insert_at(&pm.idx, pos, h, (uint32_t)pm.ndefs++);
}

/* The one-line form: the plugin option, else STACKMAP_ONELINE (non-empty, not "0"). */
static int pm_oneline(void)
{
	const char *env = getenv("STACKMAP_ONELINE");

	if (TEP_PLUGIN_OPTIONS[1].set)
		return 1;
	return env && *env && strcmp(env, "0") != 0;
}

/* The frames after the event's text: "\n=> sym (addr)" lines, or " sym <- sym" (oneline). */
static void pm_frames(struct trace_seq *s, struct tep_event *event, const uint64_t *ips,
		      uint32_t nr)
{
	int oneline = pm_oneline();
	uint32_t i;

	for (i = 0; i < nr; i++) {
		unsigned long long addr = ips[i];
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
}

static int pm_handler(struct trace_seq *s, struct tep_record *record, struct tep_event *event,
		      void *context)
{
	const struct smbin_stack *st;
	const struct pm_state *bs;
	const struct pm_def *d;
	unsigned long long val;
	uint32_t sw, buf;

	(void)context;
	if (tep_get_field_val(s, event, "stack_id", record, &val, 1))
		return 0;
	trace_seq_printf(s, "<stack_id %d>", (int)val);
	buf = pm_buf_of(record, (uint32_t)val);
	bs = &pm.st[buf];
	sw = pm_use_sw(bs, (uint32_t)val);
	d = pm.ndefs ? pm_find_def(buf, bs->gen, sw, (uint32_t)val) : NULL;
	if (d) {
		pm_frames(s, event, pm.ips + d->first, d->nr);
		return 0;
	}
	if (!pm.tried)
		pm_load();
	if (!pm.ok)
		return 0;
	/* the map next to the trace.dat is the top level's */
	if (!pm.explicit_map && pm.nbufs > 1 && (int)buf != pm.top) {
		trace_seq_puts(s, " (no map of this buffer: -O stackmap:file=PATH)");
		return 0;
	}
	st = pm_find((uint32_t)val);
	/* a map that says its switch count holds that switch and the one before only */
	if (st && bs->sw_known && pm.map.version == SMBIN_VERSION && sw != pm.map.switches &&
	    sw != pm.map.switches - 1)
		st = NULL;
	if (!st) {
		trace_seq_puts(s, " (missing from the map)");
		return 0;
	}
	pm_frames(s, event, st->ips, st->nr);
	return 0;
}

/*
 * kernel_stack_def: int stack_id; u32 generation; u32 switches (kernels with map switches); int
 * size; unsigned long caller[8], where the record holds size frames (1 to 64), whatever the
 * format's [8] says.
 */
static int pm_def_handler(struct trace_seq *s, struct tep_record *record, struct tep_event *event,
			  void *context)
{
	struct tep_format_field *caller = tep_find_field(event, "caller");
	int lsize = tep_get_long_size(event->tep);
	int has_sw = tep_find_field(event, "switches") != NULL;
	unsigned long long id, gen, size, sw = 0;
	uint64_t ips[SMBIN_MAX_DEPTH];
	struct pm_state *bs;
	uint32_t i, buf;
	int32_t n;

	(void)context;
	if (tep_get_field_val(s, event, "stack_id", record, &id, 1) ||
	    tep_get_field_val(s, event, "generation", record, &gen, 1) ||
	    (has_sw && tep_get_field_val(s, event, "switches", record, &sw, 1)) ||
	    tep_get_field_val(s, event, "size", record, &size, 1))
		return 0;
	if (has_sw)
		trace_seq_printf(s, "<stack_def %d gen %u switch %u>", (int)id, (unsigned int)gen,
				 (unsigned int)sw);
	else
		trace_seq_printf(s, "<stack_def %d gen %u>", (int)id, (unsigned int)gen);
	n = (int32_t)size;
	if (!caller || caller->offset < 0 || (lsize != 4 && lsize != 8) || (int)id < 0 || n < 1 ||
	    n > (int32_t)SMBIN_MAX_DEPTH ||
	    (long long)caller->offset + (long long)n * lsize > (long long)record->size) {
		trace_seq_printf(s, " (malformed: size %d)", (int)n);
		return 0;
	}
	if (has_sw && pm_id_sw((uint32_t)id) != ((uint32_t)sw & SMBIN_SWITCH_MASK)) {
		trace_seq_puts(s, " (malformed: the id does not carry this switch count)");
		return 0;
	}
	for (i = 0; i < (uint32_t)n; i++)
		ips[i] = tep_read_number(
			event->tep, (const char *)record->data + caller->offset + i * lsize, lsize);
	if (!has_sw)
		sw = pm_id_sw((uint32_t)id);
	buf = pm_buf_of(record, (uint32_t)id);
	bs = &pm.st[buf];
	/* the highest switch count of the generation, which starts again at a reset */
	if (has_sw && (!bs->sw_known || (uint32_t)gen != bs->gen || (uint32_t)sw > bs->sw))
		bs->sw = (uint32_t)sw;
	bs->sw_known = has_sw;
	pm_add_def(buf, (uint32_t)gen, (uint32_t)sw, (uint32_t)id, ips, (uint32_t)n);
	bs->gen = (uint32_t)gen;
	pm_frames(s, event, ips, (uint32_t)n);
	return 0;
}

PM_EXPORT int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	tep_plugin_add_options("stackmap", TEP_PLUGIN_OPTIONS);
	htab_init(&pm.idx, 256);
	htab_init(&pm.pidx, 256);
	tep_register_event_handler(tep, -1, "ftrace", "kernel_stack_id", pm_handler, NULL);
	tep_register_event_handler(tep, -1, "ftrace", "kernel_stack_def", pm_def_handler, NULL);
	return 0;
}

PM_EXPORT void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	tep_unregister_event_handler(tep, -1, "ftrace", "kernel_stack_id", pm_handler, NULL);
	tep_unregister_event_handler(tep, -1, "ftrace", "kernel_stack_def", pm_def_handler, NULL);
	tep_plugin_remove_options(TEP_PLUGIN_OPTIONS);
	if (pm.ok)
		smbin_free(&pm.map);
	free(pm.defs);
	free(pm.ips);
	free(pm.places);
	htab_free(&pm.idx);
	htab_free(&pm.pidx);
	memset(&pm, 0, sizeof(pm));
}
