// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap - read and summarise the ftrace stackmap exports.
 *
 * Entry point: parses the global options and dispatches to one file per subcommand.
 */
#define _GNU_SOURCE
#include "stackmap.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char sm_usage_text[] =
	"Usage: stackmap [GLOBAL OPTIONS] COMMAND [OPTIONS] [ARGS]\n"
	"\n"
	"Decode and summarise the ftrace stackmap exports (stack_map_bin, stack_map_stat)\n"
	"and traces (trace.dat or trace text) that carry <stack_id N> events.\n"
	"\n"
	"Commands (stackmap COMMAND -h shows the options of one):\n"
	"  dump [INPUT]         decode a stack_map_bin, or the map of a recording\n"
	"  report [INPUT]       the stacks of a recording per event type, per function, as JSON\n"
	"  record -- COMMAND    trace COMMAND with stackmap + stacktrace into trace.dat and the "
	"map\n"
	"  stat [FILE]          show stack_map_stat with fill ratio and ring-buffer bytes saved\n"
	"  export --format FMT [-o FILE] [OPTIONS] [INPUT]\n"
	"                       write a recording as folded, speedscope, pprof, perfetto or svg\n"
	"                       (flame graph)\n"
	"      --by KEY         root of the stacks: event (default), comm, pid or none\n"
	"                       (speedscope: one profile per event type, comm or comm-pid)\n"
	"      --weight W       count (default) or offcpu (ns off CPU after each sched_switch)\n"
	"      --color KEY      svg colours: event (default) or module\n"
	"      --title TEXT     svg title, speedscope name\n"
	"      --map FILE       the stack_map_bin of INPUT\n"
	"      --buffer NAME    the buffer of a trace.dat to read (see below)\n"
	"  diff [--format folded|svg] [--normalize] [-o FILE] A B\n"
	"                       compare two recordings by frames: 'path countA countB' lines\n"
	"                       or a differential flame graph; --normalize scales A to B\n"
	"\n"
	"INPUT of every reading command: a trace.dat (stackmap record, trace-cmd record), a\n"
	"directory written by record (DIR/trace.dat, else DIR/trace), a tracefs trace or\n"
	"trace-cmd report text, or - (standard input); the kind comes from the content. Without\n"
	"INPUT: ./trace.dat, else ./stackmap.data. The map: --map FILE, else the one inside the\n"
	"trace.dat, else stack_map_bin beside INPUT; the symbols: the options below, else the\n"
	"kallsyms inside the trace.dat, else kallsyms beside INPUT; the live stack_map_bin and\n"
	"/proc/kallsyms only for an INPUT inside tracefs. Stack definitions in the recording\n"
	"(record --defs: kernel_stack_def, <stack_def N gen G switch S>) resolve its ids\n"
	"before the map does; a recording they cover needs no map (man stackmap, INPUT). A\n"
	"trace.dat holds a buffer per ftrace instance (trace-cmd record -B NAME); --buffer\n"
	"NAME reads one (\"\" is the top level), by default the top level if it holds data,\n"
	"else the one buffer with data; the map inside and beside a recording is the top\n"
	"level's (man stackmap, INPUT, Buffers).\n"
	"\n"
	"Global options (also accepted after the command):\n"
	"  --kallsyms FILE      symbols from a kallsyms file (default: as above)\n"
	"  --no-kallsyms        do not read any kallsyms file\n"
	"  --vmlinux FILE       symbols from the ELF .symtab of FILE\n"
	"  --lines              append file:line from the DWARF of --vmlinux\n"
	"  --tracefs DIR        tracefs directory of record and of the live files of dump and\n"
	"                       stat (also $STACKMAP_TRACEFS; default /sys/kernel/tracing)\n"
	"  -h, --help           show this help\n"
	"  -V, --version        show the version (also after the command)\n"
	"\n"
	"Exit status: 0 success, 1 malformed input data, 2 usage error, unreadable file or\n"
	"missing kernel support.\n";

static const char sm_sym_help[] = "\n"
				  "Symbol options: --kallsyms FILE, --no-kallsyms, --vmlinux FILE, "
				  "--lines (see stackmap -h).\n";

struct sm_cmd_help {
	const char *name;
	const char *text;
};

static const struct sm_cmd_help sm_cmd_helps[] = {
	{"dump",
	 "Usage: stackmap dump [OPTIONS] [INPUT]\n"
	 "\n"
	 "Decode a stack_map_bin (default: the live one, TRACEFS/stack_map_bin; - reads standard\n"
	 "input), or the map of a recording INPUT, found as for every command (stackmap -h).\n"
	 "\n"
	 "  --json               JSON array, one object per stack\n"
	 "  --folded             collapsed stacks (root first) for flame graph tools\n"
	 "  --top N              only the first N stacks after sorting (implies --sort ref)\n"
	 "  --sort KEY           ref (descending ref_count), id (default) or depth\n"
	 "  --map FILE           the map of a recording INPUT\n"
	 "  --buffer NAME        the buffer of a trace.dat INPUT (\"\": the top level; default\n"
	 "                       and map: stackmap -h)\n"
	 "  -i, --input INPUT    the same as INPUT\n"
	 "  -h, --help           this help\n"},
	{"report",
	 "Usage: stackmap report [OPTIONS] [INPUT]\n"
	 "\n"
	 "Every stack reference of a recording (kernel_stack_id records or <stack_id N>\n"
	 "lines, and full-stack fallbacks) belongs to the event before it on its CPU; after\n"
	 "lost events it belongs to (lost event), before the CPU's first event to (no event).\n"
	 "Shows a header (events, CPUs, time span, lost events, stacks, map fill; with stack\n"
	 "definitions in the recording, how many ids they resolved, how many the map, how many\n"
	 "neither), then the most frequent stacks per event type with their share of all\n"
	 "references. INPUT and its map and symbols are found as for every command (stackmap -h).\n"
	 "\n"
	 "  -i, --input INPUT    the same as INPUT (--trace INPUT too)\n"
	 "  --map FILE           the stack_map_bin of INPUT\n"
	 "  --buffer NAME        the buffer of a trace.dat INPUT (\"\": the top level; default\n"
	 "                       and map: stackmap -h)\n"
	 "  --top N              stacks (or functions) shown per event type (default 5)\n"
	 "  --percent-limit P    only stacks (functions) with at least P% of the references\n"
	 "  --sort KEY           order of the event types: stacks (default), events or name\n"
	 "  --functions          per function: total (stacks through it) and self (leaf)\n"
	 "  --folded             event;root;...;leaf count lines for flame graphs\n"
	 "  --json               the same report as JSON\n"
	 "  --comm NAME, --pid PID, --cpu CPU, --event NAME\n"
	 "                       only the events of that task name, pid, CPU, event type\n"
	 "  --time START,END     only events in that range of trace timestamps (seconds;\n"
	 "                       either may be empty)\n"
	 "  -h, --help           this help\n"},
	{"record",
	 "Usage: stackmap record [OPTIONS] -- COMMAND [ARGS]\n"
	 "\n"
	 "Trace COMMAND with options/stackmap and options/stacktrace, then save DIR/trace.dat\n"
	 "(trace-cmd's format, version 6: trace-cmd report and KernelShark open it), DIR/trace\n"
	 "(text; flight mode), DIR/stack_map_bin, DIR/stack_map_stat, DIR/kallsyms and\n"
	 "DIR/cpu_stats. Every tracefs setting it changes is restored, also on SIGINT/SIGTERM/\n"
	 "SIGHUP.\n"
	 "\n"
	 "  -e, --event SYSTEM[:EVENT]  event to enable (repeatable; default sched:sched_switch)\n"
	 "  -b, --buffer-size KB  per-CPU ring buffer size\n"
	 "  -o, --output DIR     output directory (default ./stackmap.data); an earlier\n"
	 "                       recording there is moved to DIR.old first (an older DIR.old\n"
	 "                       is replaced); a DIR with files record did not write is refused\n"
	 "  -m, --mode MODE      flight (default): the ring buffer's content when COMMAND ends;\n"
	 "                       stream: pages are moved to disk while COMMAND runs, so the\n"
	 "                       recording is not limited by the buffer (lost events counted)\n"
	 "  -F, --format FMT     dat, text (the tracefs trace file, saved as DIR/trace) or both\n"
	 "                       (the default in flight mode; the text is read first); stream\n"
	 "                       mode writes dat only\n"
	 "  --defs               write 1 to TRACEFS/stack_map_defs while recording (restored\n"
	 "                       after): the first use of each stack is defined in the trace,\n"
	 "                       so the recording resolves its ids without stack_map_bin\n"
	 "  -h, --help           this help\n"},
	{"export",
	 "Usage: stackmap export --format FMT [-o FILE] [OPTIONS] [INPUT]\n"
	 "\n"
	 "Write a recording for another viewer; INPUT and its map and symbols are found as for\n"
	 "every command (stackmap -h). The output goes to a temporary name and is renamed at\n"
	 "the end, so a failure leaves no partial file. An option that does not apply to FMT\n"
	 "is refused.\n"
	 "\n"
	 "  --format FMT         folded, speedscope, pprof, perfetto or svg\n"
	 "  -o, --output FILE    output file (default: standard output)\n"
	 "  --by KEY             root of the stacks: event (default), comm, pid or none\n"
	 "                       (not pprof)\n"
	 "  --weight W           count (default) or offcpu (ns off CPU after each sched_switch;\n"
	 "                       not perfetto)\n"
	 "  --color KEY          svg colours: event (default) or module\n"
	 "  --title TEXT         svg title, speedscope name\n"
	 "  --map FILE           the stack_map_bin of INPUT\n"
	 "  --buffer NAME        the buffer of a trace.dat INPUT (\"\": the top level; default\n"
	 "                       and map: stackmap -h)\n"
	 "  -i, --input INPUT    the same as INPUT\n"
	 "  -h, --help           this help\n"},
	{"diff",
	 "Usage: stackmap diff [--format folded|svg] [--normalize] [-o FILE] A B\n"
	 "\n"
	 "Compare two recordings (each found as INPUT is, stackmap -h) by their frames: one\n"
	 "'path countA countB' line per stack, or a differential flame graph. Ids of two\n"
	 "recordings are unrelated: a stack missing from A's map is never paired with one\n"
	 "missing from B's ([unknown stack_id N] of A, ... of B).\n"
	 "\n"
	 "  --format FMT         folded (default) or svg\n"
	 "  --normalize          scale A's counts to B's total\n"
	 "  -o, --output FILE    output file (default: standard output)\n"
	 "  --by KEY             root of the stacks: event (default), comm, pid or none\n"
	 "  --weight W           count (default) or offcpu\n"
	 "  --color KEY          svg colours: event (default) or module\n"
	 "  --buffer NAME        the buffer of A and B, if trace.dat files (\"\": the top\n"
	 "                       level; default: stackmap -h)\n"
	 "  -h, --help           this help\n"},
	{"stat",
	 "Usage: stackmap stat [FILE] [--map FILE]\n"
	 "\n"
	 "Show stack_map_stat (default: the live one, TRACEFS/stack_map_stat) with the fill\n"
	 "ratio and, with --map, an estimate of the ring-buffer bytes saved.\n"
	 "\n"
	 "  --map FILE           stack_map_bin, for the mean stack depth\n"
	 "  -h, --help           this help\n"},
};

void sm_usage(FILE *f)
{
	fputs(sm_usage_text, f);
}

void sm_cmd_usage(FILE *f, const char *cmd)
{
	size_t i;

	for (i = 0; i < sizeof(sm_cmd_helps) / sizeof(sm_cmd_helps[0]); i++) {
		if (!strcmp(sm_cmd_helps[i].name, cmd)) {
			fputs(sm_cmd_helps[i].text, f);
			if (strcmp(cmd, "record"))
				fputs(sm_sym_help, f);
			return;
		}
	}
	sm_usage(f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		SM_SYM_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const char *cmd;
	int c;

	sm_opts.tracefs = getenv("STACKMAP_TRACEFS");
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		if (sm_sym_option(c, optarg))
			continue;
		switch (c) {
		case 'h':
			sm_usage(stdout);
			return SM_EXIT_OK;
		case 'V':
			printf("stackmap %s\n", SM_VERSION);
			return SM_EXIT_OK;
		default:
			sm_err("unknown or incomplete option '%s' (see stackmap --help)",
			       argv[optind - 1]);
			return SM_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		sm_err("no command given (see stackmap --help)");
		return SM_EXIT_USAGE;
	}
	cmd = argv[optind];
	/* -V and --version also after the command (up to a "--": record's COMMAND follows it) */
	for (c = optind + 1; c < argc && strcmp(argv[c], "--"); c++) {
		if (!strcmp(argv[c], "-V") || !strcmp(argv[c], "--version")) {
			printf("stackmap %s\n", SM_VERSION);
			return SM_EXIT_OK;
		}
	}
	argc -= optind;
	argv += optind;
	optind = 0; /* reinitialise getopt for the subcommand */
	if (strcmp(cmd, "dump") == 0)
		return cmd_dump(argc, argv);
	if (strcmp(cmd, "report") == 0)
		return cmd_report(argc, argv);
	if (strcmp(cmd, "record") == 0)
		return cmd_record(argc, argv);
	if (strcmp(cmd, "stat") == 0)
		return cmd_stat(argc, argv);
	if (strcmp(cmd, "export") == 0)
		return cmd_export(argc, argv);
	if (strcmp(cmd, "diff") == 0)
		return cmd_diff(argc, argv);
	if (strcmp(cmd, "help") == 0) {
		if (argc > 1)
			sm_cmd_usage(stdout, argv[1]);
		else
			sm_usage(stdout);
		return SM_EXIT_OK;
	}
	sm_err("unknown command '%s' (see stackmap --help)", cmd);
	return SM_EXIT_USAGE;
}
