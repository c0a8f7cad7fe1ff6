/*
 * z2_test_util.h - the z2-swap-batch tests' names for the shared model-test
 * helpers (tests/mm_run.h), bound to the scenario.
 */
#ifndef WEFT_Z2_TEST_UTIL_H
#define WEFT_Z2_TEST_UTIL_H

#include <stdio.h>

#include "mm_run.h"

#define Z2_SCENARIO "z2-swap-batch"

static inline const struct weft_scenario *z2_scenario(const char *variant, unsigned *vi)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "%s:%s", Z2_SCENARIO, variant);
	return weft_scenario_find(spec, vi);
}

static inline double z2_now(void)
{
	return mm_now();
}


/* strategy: "random", "pct" (depth = param), "dfs" (bound = param), or
 * "bytes" (wl = the whole input, one execution). wl: fixed workload bytes
 * or NULL (generated). */
static inline struct mm_outcome z2_run(const char *variant, const char *strategy,
				       uint64_t seed, unsigned param, const uint8_t *wl,
				       size_t wl_len, uint64_t budget)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "%s:%s", Z2_SCENARIO, variant);
	return mm_run(spec, strategy, seed, param, wl, wl_len, budget, WEFT_KIND_NONE, NULL);
}

/* The workload section of the scenario's trigger input. */
static inline size_t z2_trigger_workload(uint8_t *wl, size_t cap)
{
	return mm_trigger_workload(Z2_SCENARIO ":v2", wl, cap);
}

#endif
