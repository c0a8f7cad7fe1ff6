/*
 * z6_test_util.h - the z6-spec-pagecache tests' names for the shared model-test
 * helpers (tests/mm_run.h), bound to the scenario.
 */
#ifndef WEFT_Z6_TEST_UTIL_H
#define WEFT_Z6_TEST_UTIL_H

#include <stdio.h>

#include "mm_run.h"

#define Z6_SCENARIO "z6-spec-pagecache"

static inline const struct weft_scenario *z6_scenario(const char *variant, unsigned *vi)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "%s:%s", Z6_SCENARIO, variant);
	return weft_scenario_find(spec, vi);
}

static inline double z6_now(void)
{
	return mm_now();
}

/* Stop at the first report of this kind (WEFT_KIND_NONE: of any kind). */
static enum weft_kind z6_until_kind;

/* strategy: "random", "pct" (depth = param), "dfs" (bound = param), or
 * "bytes" (wl = the whole input, one execution). wl: fixed workload bytes
 * or NULL (generated). */
static inline struct mm_outcome z6_run(const char *variant, const char *strategy,
				       uint64_t seed, unsigned param, const uint8_t *wl,
				       size_t wl_len, uint64_t budget)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "%s:%s", Z6_SCENARIO, variant);
	return mm_run(spec, strategy, seed, param, wl, wl_len, budget, z6_until_kind, NULL);
}

/* The workload section of a variant's trigger input. */
static inline size_t z6_trigger_workload(const char *variant, uint8_t *wl, size_t cap)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "%s:%s", Z6_SCENARIO, variant);
	return mm_trigger_workload(spec, wl, cap);
}

/* A model counter of the last execution. */
static inline uint64_t z6_stat_of(const char *name)
{
	unsigned vi;
	const struct weft_scenario *sc = z6_scenario("fix", &vi);
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
