/*
 * decorator.h - the ops table of a test's decorator strategy: one that
 * runs another strategy (prefix##_begin, prefix##_pick, prefix##_value and
 * prefix##_end each do their part and call the inner one's) and watches
 * every step the machine records (prefix##_step, ops->on_step). Used by
 * tests/dpor/trace_class.h (trace fingerprints) and tests/sleep/sleep_test.h
 * (dfs with pending-step checks).
 */
#ifndef WEFT_TESTS_DECORATOR_H
#define WEFT_TESTS_DECORATOR_H

#include <weft/strategy.h>

#define WEFT_TEST_DECORATOR_OPS(prefix, name_)                                       \
	{                                                                            \
		.name = name_, .begin = prefix##_begin, .pick_next = prefix##_pick,  \
		.pick_value = prefix##_value, .end = prefix##_end,                   \
		.on_step = prefix##_step,                                            \
	}

#endif
