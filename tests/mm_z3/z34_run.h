/*
 * z34_run.h - helpers of the Z3 and Z4 tests: run one strategy on a
 * scenario:variant until a report, the budget, or (dfs) the end; sum a
 * model counter over every execution.
 */
#ifndef WEFT_Z34_RUN_H
#define WEFT_Z34_RUN_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/strategy.h>

#include "mm_run.h"

/* z34_run(spec, strategy, seed, param, wl, wl_len, budget, stat): mm_run()
 * stopping at the first report of any kind. */
static inline struct mm_outcome z34_run(const char *spec, const char *strategy, uint64_t seed,
					unsigned param, const uint8_t *wl, size_t wl_len,
					uint64_t budget, const char *stat)
{
	return mm_run(spec, strategy, seed, param, wl, wl_len, budget, WEFT_KIND_NONE, stat);
}

static inline double z34_now(void)
{
	return mm_now();
}

static inline size_t z34_trigger_workload(const char *spec, uint8_t *wl, size_t cap)
{
	return mm_trigger_workload(spec, wl, cap);
}

static inline int z34_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline int z34_cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Search with nseeds seeds (1..nseeds); each must find want within budget
 * executions. Prints min/median/max executions and milliseconds.
 */
static inline void z34_search(const char *label, const char *spec, const char *strategy,
			      unsigned param, const uint8_t *wl, size_t wl_len, unsigned nseeds,
			      uint64_t budget, enum weft_kind want)
{
	uint64_t ex[32];
	double ms[32];

	if (nseeds > 32)
		nseeds = 32;
	for (unsigned s = 0; s < nseeds; s++) {
		struct mm_outcome o = z34_run(spec, strategy, 1 + s, param, wl, wl_len, budget,
					       NULL);
		CHECK(o.kind == want, "%s seed %u: %s after %llu executions", label, 1 + s,
		      weft_kind_name(o.kind), (unsigned long long)o.executions);
		ex[s] = o.executions;
		ms[s] = o.seconds * 1e3;
	}
	qsort(ex, nseeds, sizeof(ex[0]), z34_cmp_u64);
	qsort(ms, nseeds, sizeof(ms[0]), z34_cmp_dbl);
	printf("%-40s executions min %llu median %llu max %llu; ms min %.2f median %.2f max %.2f\n",
	       label, (unsigned long long)ex[0], (unsigned long long)ex[nseeds / 2],
	       (unsigned long long)ex[nseeds - 1], ms[0], ms[nseeds / 2], ms[nseeds - 1]);
}

#endif
