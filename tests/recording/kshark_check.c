// SPDX-License-Identifier: GPL-2.0
/*
 * kshark_check FILE: open a trace.dat with KernelShark's own library (libkshark, the code the
 * GUI loads files with) and print "entries N id_events M resolved R": all entries loaded, the
 * kernel_stack_id entries among them, and those whose info text holds a "=> " frame line (the
 * plugin_stackmap output KernelShark shows in its info column).
 * Debian ships libkshark without headers, so the few entry points are declared here.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct kshark_context;
struct kshark_entry;

bool kshark_instance(struct kshark_context **ctx);
int kshark_open(struct kshark_context *ctx, const char *file);
ssize_t kshark_load_entries(struct kshark_context *ctx, int sd, struct kshark_entry ***rows);
char *kshark_get_event_name(const struct kshark_entry *entry);
char *kshark_get_info(const struct kshark_entry *entry);
void kshark_free(struct kshark_context *ctx);

int main(int argc, char **argv)
{
	struct kshark_context *ctx = NULL;
	struct kshark_entry **rows = NULL;
	ssize_t n, i, ids = 0, resolved = 0;
	int sd;

	if (argc != 2) {
		fprintf(stderr, "usage: kshark_check FILE\n");
		return 2;
	}
	if (!kshark_instance(&ctx)) {
		fprintf(stderr, "kshark_check: no kshark instance\n");
		return 1;
	}
	sd = kshark_open(ctx, argv[1]);
	if (sd < 0) {
		fprintf(stderr, "kshark_check: cannot open %s\n", argv[1]);
		return 1;
	}
	n = kshark_load_entries(ctx, sd, &rows);
	for (i = 0; i < n; i++) {
		char *name = kshark_get_event_name(rows[i]), *info;

		if (getenv("KS_DEBUG") && i < 4)
			fprintf(stderr, "%s\n", name ? name : "(null)");
		if (name && !strcmp(name, "ftrace/kernel_stack_id")) {
			ids++;
			info = kshark_get_info(rows[i]);
			if (info && strstr(info, "=> "))
				resolved++;
			free(info);
		}
		free(name);
		free(rows[i]);
	}
	free(rows);
	printf("entries %zd id_events %zd resolved %zd\n", n, ids, resolved);
	kshark_free(ctx);
	return n > 0 ? 0 : 1;
}
