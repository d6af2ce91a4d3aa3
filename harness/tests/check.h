/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal test reporting shared by the harness programs. A test is a function run by
 * run_test(); it passes when none of its CHECK()s failed. A program ends with
 * check_summary(), which prints "RESULT <tests passed> <tests failed>" for
 * scripts/run-tests.sh and returns the exit status.
 */
#ifndef HARNESS_CHECK_H
#define HARNESS_CHECK_H

#include <stdio.h>

extern unsigned long check_passed, check_failed;
extern const char *check_test;

#define CHECK(cond, ...)							\
	do {									\
		if (cond) {							\
			check_passed++;						\
		} else {							\
			check_failed++;						\
			fprintf(stderr, "FAIL %s (%s:%d): %s: ", check_test,	\
				__FILE__, __LINE__, #cond);			\
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
		}								\
	} while (0)

#define CHECK_EQ(a, b)								\
	do {									\
		long long __a = (long long)(a), __b = (long long)(b);		\
		CHECK(__a == __b, "%s = %lld, expected %s = %lld", #a, __a, #b, __b); \
	} while (0)

#define CHECK_DEFINE()								\
	unsigned long check_passed, check_failed, tests_passed, tests_failed;	\
	const char *check_test = "?"

extern unsigned long tests_passed, tests_failed;

/* Run one named test: it passes when none of its CHECK()s failed. */
static inline void run_test(const char *name, void (*fn)(void))
{
	unsigned long before = check_failed;

	check_test = name;
	fn();
	if (check_failed == before) {
		tests_passed++;
		printf("PASS %s\n", name);
	} else {
		tests_failed++;
		printf("FAIL %s\n", name);
	}
	fflush(stdout);
}

static inline int check_summary(const char *prog)
{
	printf("%s: %lu tests passed, %lu failed (%lu checks passed, %lu failed)\n", prog,
	       tests_passed, tests_failed, check_passed, check_failed);
	printf("RESULT %lu %lu\n", tests_passed, tests_failed);
	return tests_failed ? 1 : 0;
}

#endif /* HARNESS_CHECK_H */
