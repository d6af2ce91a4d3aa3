// SPDX-License-Identifier: GPL-2.0
/*
 * stackmap stat: show stack_map_stat with derived figures (fill ratio, bytes saved).
 *
 * Bytes-saved estimate: an event served with an id stores a 16-byte stack-id event instead of
 * a full stack event of 16 + 8 * depth bytes of payload, so each success saves 8 * depth
 * bytes; depth is the mean depth of the stacks in --map FILE weighted by ref_count.
 */
#define _GNU_SOURCE
#include "stackmap.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define STAT_ID_EVENT_BYTES	     16.0
#define STAT_FULL_EVENT_BYTES(depth) (16.0 + 8.0 * (depth))

static int stat_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno ? -errno : (int)(end - s);
}

int cmd_stat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"map", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		SM_SYM_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const char *path = NULL, *map_path = NULL;
	char *dflt = NULL;
	uint64_t entries = 0, capacity = 0, successes = 0, drops = 0, lineno = 0;
	int have_entries = 0, have_successes = 0, ret, c;
	char *buf = NULL, *p, *save = NULL;
	struct smbin_map map = {0};
	size_t len, i;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (sm_sym_option(c, optarg))
			continue;
		switch (c) {
		case 'm':
			map_path = optarg;
			break;
		case 'h':
			sm_cmd_usage(stdout, "stat");
			return SM_EXIT_OK;
		default:
			sm_err("stat: unknown or incomplete option '%s'", argv[optind - 1]);
			return SM_EXIT_USAGE;
		}
	}
	if (optind + 1 < argc) {
		sm_err("stat: too many arguments (one FILE expected)");
		return SM_EXIT_USAGE;
	}
	if (optind < argc)
		path = argv[optind];
	if (!path) {
		/* the live file of the tracefs in use (--tracefs, $STACKMAP_TRACEFS) */
		dflt = sm_tracefs_file("stack_map_stat");
		if (!dflt)
			return SM_EXIT_USAGE;
		path = dflt;
	}
	ret = smbin_read_file(path, &buf, &len);
	if (ret) {
		sm_err("%s: %s", path, strerror(-ret));
		free(dflt);
		return SM_EXIT_USAGE;
	}
	if (memchr(buf, '\0', len)) {
		sm_err("%s: line 1: not a text file", path);
		ret = SM_EXIT_DATA;
		goto out;
	}
	if (strncmp(buf, "stackmap not initialized", strlen("stackmap not initialized")) == 0) {
		/* The kernel adds "last_error: ..." when allocating the map failed. */
		const char *why = strstr(buf, "\nlast_error:");
		int len = 0;

		if (why) {
			why += strlen("\nlast_error:");
			why += strspn(why, " ");
			len = (int)strcspn(why, "\n");
		}
		if (why)
			sm_err("%s: stackmap not initialized: %.*s", path, len, why);
		else
			sm_err("%s: stackmap not initialized (the map was never created)", path);
		ret = SM_EXIT_DATA;
		goto out;
	}
	/* First pass: check and collect the known keys; every line is echoed afterwards. */
	for (p = strtok_r(buf, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(p, ':'), *v;
		int n;

		lineno++;
		if (!colon || colon == p) {
			sm_err("%s: line %" PRIu64 ": expected 'key: value', got '%.60s'", path,
			       lineno, p);
			ret = SM_EXIT_DATA;
			goto out;
		}
		v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		*colon = '\0';
		if (strcmp(p, "entries") == 0) {
			n = stat_u64(v, &entries);
			if (n > 0) {
				v += n;
				while (*v == ' ')
					v++;
				if (*v == '/') {
					v++;
					while (*v == ' ')
						v++;
					n = stat_u64(v, &capacity);
				} else {
					n = -EINVAL;
				}
			}
			if (n <= 0) {
				sm_err("%s: line %" PRIu64 ": entries must be 'N / CAPACITY'", path,
				       lineno);
				ret = SM_EXIT_DATA;
				goto out;
			}
			have_entries = 1;
		} else if (strcmp(p, "successes") == 0 || strcmp(p, "drops") == 0) {
			int is_succ = p[0] == 's';

			if (stat_u64(v, is_succ ? &successes : &drops) <= 0) {
				sm_err("%s: line %" PRIu64 ": %s must be a number", path, lineno,
				       p);
				ret = SM_EXIT_DATA;
				goto out;
			}
			if (is_succ)
				have_successes = 1;
		}
		*colon = ':';
	}
	if (!have_entries || !have_successes) {
		sm_err("%s: line %" PRIu64 ": missing '%s' line", path, lineno,
		       have_entries ? "successes" : "entries");
		ret = SM_EXIT_DATA;
		goto out;
	}
	/* strtok_r replaced the newlines; print the lines back as they were. */
	for (i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = '\n';
	fwrite(buf, 1, len, stdout);
	if (len && buf[len - 1] != '\n')
		putchar('\n');

	printf("# derived\n");
	if (capacity)
		printf("fill:          %.1f%% (%" PRIu64 " of %" PRIu64 " stacks)\n",
		       100.0 * (double)entries / (double)capacity, entries, capacity);
	else
		printf("fill:          unknown (capacity 0)\n");
	if (successes + drops)
		printf("dedup_rate:    %.2f%% (%" PRIu64 " served with an id, %" PRIu64
		       " fell back because the map was full)\n",
		       100.0 * (double)successes / (double)(successes + drops), successes, drops);
	if (map_path) {
		uint64_t wsum = 0, wdepth = 0, dsum = 0;
		double mean, saved;

		ret = sm_load_map(map_path, &map, 0);
		if (ret)
			goto out;
		for (i = 0; i < map.nr; i++) {
			wsum += map.stacks[i].ref_count;
			wdepth += (uint64_t)map.stacks[i].ref_count * map.stacks[i].nr;
			dsum += map.stacks[i].nr;
		}
		if (wsum)
			mean = (double)wdepth / (double)wsum;
		else
			mean = map.nr ? (double)dsum / (double)map.nr : 0.0;
		saved = (double)successes * (STAT_FULL_EVENT_BYTES(mean) - STAT_ID_EVENT_BYTES);
		printf("mean_depth:    %.2f (%zu stacks in %s, weighted by ref_count)\n", mean,
		       map.nr, map_path);
		printf("bytes_saved:   %.0f (%.1f MiB) = successes * ((16 + 8 * %.2f) - 16)\n",
		       saved, saved / 1048576.0, mean);
	} else {
		printf("bytes_saved:   unknown: mean stack depth unknown (pass --map FILE); "
		       "each success saves 8 bytes per frame\n");
	}
	ret = SM_EXIT_OK;
out:
	smbin_free(&map);
	free(buf);
	free(dflt);
	return ret;
}
