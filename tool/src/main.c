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
	"and traces that carry <stack_id N> events.\n"
	"\n"
	"Commands:\n"
	"  dump [FILE|-]        decode a stack_map_bin file (default "
	"/sys/kernel/tracing/stack_map_bin)\n"
	"      --json           JSON array, one object per stack\n"
	"      --folded         collapsed stacks (root first) for flame graph tools\n"
	"      --top N          only the first N stacks after sorting (implies --sort ref)\n"
	"      --sort KEY       ref (descending ref_count), id (default) or depth (descending)\n"
	"  report --trace FILE --map FILE [--top N] [--folded]\n"
	"  report -i|--input DIR [--top N] [--folded]\n"
	"                       attribute <stack_id N> and <stack trace> entries of a trace to\n"
	"                       their events; -i DIR reads DIR/trace, DIR/stack_map_bin and\n"
	"                       DIR/kallsyms as written by record\n"
	"  record [-e SYSTEM[:EVENT]]... [-b KB] [-o DIR] -- COMMAND [ARGS]\n"
	"                       trace COMMAND with stackmap + stacktrace and save trace,\n"
	"                       stack_map_bin, stack_map_stat and kallsyms into DIR; every\n"
	"                       tracefs setting is restored, also on SIGINT/SIGTERM/SIGHUP\n"
	"      -e, --event      event to enable (repeatable; default sched:sched_switch)\n"
	"      -b, --buffer-size KB  per-CPU ring buffer size\n"
	"      -o, --output DIR output directory (default ./stackmap.data)\n"
	"  stat [FILE] [--map FILE]\n"
	"                       show stack_map_stat (default /sys/kernel/tracing/stack_map_stat)\n"
	"                       with fill ratio and an estimate of the ring-buffer bytes saved\n"
	"  export --format FMT [-o FILE] [OPTIONS] INPUT\n"
	"                       write a recording (record's DIR, or a trace file with --map) as\n"
	"                       folded, speedscope, pprof, perfetto or svg (flame graph)\n"
	"      --by KEY         root of the stacks: event (default), comm, pid or none\n"
	"      --weight W       count (default) or offcpu (ns off CPU after each sched_switch)\n"
	"      --color KEY      svg colours: event (default) or module\n"
	"      --title TEXT     svg title, speedscope name\n"
	"      --map FILE       stack_map_bin for a trace file INPUT\n"
	"  diff [--format folded|svg] [--normalize] [-o FILE] A B\n"
	"                       compare two recordings by frames: 'path countA countB' lines\n"
	"                       or a differential flame graph; --normalize scales A to B\n"
	"\n"
	"Global options (also accepted after the command):\n"
	"  --kallsyms FILE      symbols from a kallsyms file (default /proc/kallsyms if it\n"
	"                       shows addresses)\n"
	"  --no-kallsyms        do not read any kallsyms file\n"
	"  --vmlinux FILE       symbols from the ELF .symtab of FILE\n"
	"  --lines              append file:line from the DWARF of --vmlinux\n"
	"  --tracefs DIR        tracefs directory for record (also $STACKMAP_TRACEFS)\n"
	"  -h, --help           show this help\n"
	"  -V, --version        show the version\n"
	"\n"
	"Exit status: 0 success, 1 malformed input data, 2 usage error, unreadable file or\n"
	"missing kernel support.\n";

void sm_usage(FILE *f)
{
	fputs(sm_usage_text, f);
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
		sm_usage(stdout);
		return SM_EXIT_OK;
	}
	sm_err("unknown command '%s' (see stackmap --help)", cmd);
	return SM_EXIT_USAGE;
}
