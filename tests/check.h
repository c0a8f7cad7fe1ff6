/*
 * check.h - the smallest test harness: CHECK(cond, fmt...) records a
 * failure with file:line and goes on; check_done() prints "N passed,
 * N failed" and returns the exit code.
 */
#ifndef WEFT_CHECK_H
#define WEFT_CHECK_H

#include <stdio.h>

static unsigned check_passed, check_failed;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond) {                                                    \
			check_passed++;                                        \
		} else {                                                       \
			check_failed++;                                        \
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fprintf(stderr, "\n");                                 \
		}                                                              \
	} while (0)

static inline int check_done(void)
{
	printf("%u passed, %u failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
