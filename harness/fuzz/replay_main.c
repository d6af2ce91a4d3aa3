// SPDX-License-Identifier: GPL-2.0
/*
 * Plain main() for the fuzz target: replays every file of the given directories (or the
 * given files) once, under any compiler, and reports one test per input.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern void (*fuzz_report)(const char *msg);

static int current_failed;

static void report(const char *msg)
{
	if (!current_failed)
		fprintf(stderr, "%s\n", msg);
	current_failed = 1;
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(len > 0 ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	current_failed = 0;
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return current_failed;
}

int main(int argc, char **argv)
{
	unsigned long passed = 0, failed = 0;
	char path[4096];
	struct dirent *de;
	struct stat sb;
	DIR *d;
	int i, r;

	fuzz_report = report;
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &sb))
			continue;
		if (!S_ISDIR(sb.st_mode)) {
			r = replay_file(argv[i]);
			printf("%s %s\n", r ? "FAIL" : "PASS", argv[i]);
			r ? failed++ : passed++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			r = replay_file(path);
			if (r)
				printf("FAIL %s\n", path);
			r ? failed++ : passed++;
		}
		if (d)
			closedir(d);
	}
	printf("fuzz replay: %lu inputs passed, %lu failed\n", passed, failed);
	printf("RESULT %lu %lu\n", passed, failed);
	return failed ? 1 : 0;
}
