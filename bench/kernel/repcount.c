// SPDX-License-Identifier: GPL-2.0
/*
 * bench/kernel/repcount.c: what one "rep movsb" of N bytes costs on the guest's clock
 * (run by guest.sh; built static by run.sh). Under QEMU's -icount shift=0 the clock counts
 * instructions, and this shows how a copy such as the full stack's memcpy() (gcc inlines
 * it as rep movsb in the kernel) is counted: prints "REP bytes ns_per_copy" for 0, 8, 384
 * (a 48-frame stack), 1024 and 4096 bytes.
 */
#include <stdio.h>
#include <time.h>

#define COPIES 10000

static char dst[4096], src[4096];

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void)
{
	static const long sizes[] = { 0, 8, 384, 1024, 4096 };
	unsigned int k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		long long t0 = now_ns(), t1;
		int i;

		for (i = 0; i < COPIES; i++) {
			void *d = dst, *s = src;
			long c = sizes[k];

			asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
		}
		t1 = now_ns();
		printf("REP %ld %.1f\n", sizes[k], (double)(t1 - t0) / COPIES);
	}
	return 0;
}
