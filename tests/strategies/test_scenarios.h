/* test_scenarios.h - the test-only scenarios of test_scenarios.c. */
#ifndef WEFT_TEST_SCENARIOS_H
#define WEFT_TEST_SCENARIOS_H

#include <weft/strategy.h>

/* T0's scheduling points in test-deep: more than WEFT_DFS_MAX_DEPTH. */
#define WEFT_TEST_DEEP_POINTS (WEFT_DFS_MAX_DEPTH + 100)

extern const struct weft_scenario weft_test_scn_nondet;
extern const struct weft_scenario weft_test_scn_deep;

#endif
