// SPDX-License-Identifier: GPL-2.0
/* Plain main that feeds files to a libFuzzer target, for corpus replay without clang. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		unsigned char *buf = NULL;
		size_t len = 0, cap = 0, r;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		do {
			if (cap - len < 4096) {
				cap = cap ? cap * 2 : 65536;
				buf = realloc(buf, cap);
				if (!buf)
					return 1;
			}
			r = fread(buf + len, 1, cap - len, f);
			len += r;
		} while (r > 0);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		n++;
	}
	printf("replayed %d inputs\n", n);
	return 0;
}
