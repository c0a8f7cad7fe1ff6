/*
 * z5_test_util.h - the z5-tmpfs-truncate tests' names for the shared model-test
 * helpers (tests/mm_run.h), bound to the scenario.
 */
#ifndef WEFT_Z5_TEST_UTIL_H
#define WEFT_Z5_TEST_UTIL_H

#include <stdio.h>

#include "mm_run.h"

#define Z5_SCENARIO "z5-tmpfs-truncate"

static inline const struct weft_scenario *z5_scenario(const char *variant, unsigned *vi)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "%s:%s", Z5_SCENARIO, variant);
	return weft_scenario_find(spec, vi);
}

static inline double z5_now(void)
{
	return mm_now();
}


/* strategy: "random", "pct" (depth = param), "dfs" (bound = param), or
 * "bytes" (wl = the whole input, one execution). wl: fixed workload bytes
 * or NULL (generated). */
static inline struct mm_outcome z5_run(const char *variant, const char *strategy,
				       uint64_t seed, unsigned param, const uint8_t *wl,
				       size_t wl_len, uint64_t budget)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "%s:%s", Z5_SCENARIO, variant);
	return mm_run(spec, strategy, seed, param, wl, wl_len, budget, WEFT_KIND_NONE, NULL);
}

/* The workload section of a variant's trigger input. */
static inline size_t z5_trigger_workload(const char *variant, uint8_t *wl, size_t cap)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "%s:%s", Z5_SCENARIO, variant);
	return mm_trigger_workload(spec, wl, cap);
}

/* A model counter of the last execution. */
static inline uint64_t z5_stat_of(const char *name)
{
	unsigned vi;
	const struct weft_scenario *sc = z5_scenario("fix", &vi);
	const char *names[96];
	uint64_t vals[96];
	unsigned n = sc->stats(weft_last_world(), names, vals, 96);

	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return vals[i];
	CHECK(0, "no counter %s", name);
	return 0;
}

#endif
