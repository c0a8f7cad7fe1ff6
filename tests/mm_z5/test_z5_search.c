/*
 * test_z5_search.c - search budgets for z5-tmpfs-truncate:z5: pct (depth 2
 * and 3) over generated workloads and pct d=2 on the trigger workload each
 * find swap-count-underflow within Z5_BUDGET executions for every one of
 * 10 seeds. The random walk is measured, not asserted (Z5_RANDOM_BUDGET):
 * the window is one scheduling point of writepage, and the truncate must
 * win about ten coin flips in a row after it. Prints min/median/max
 * executions and ms and how many seeds found it (docs/zoo/z5.md).
 */
#include <stdlib.h>

#include "z5_test_util.h"

#define Z5_SEEDS 10
#define Z5_BUDGET 20000
#define Z5_RANDOM_BUDGET 20000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void search(const char *label, const char *strategy, unsigned depth, const uint8_t *wl,
		   size_t wl_len)
{
	uint64_t ex[Z5_SEEDS];
	double secs[Z5_SEEDS];
	bool rnd = !strcmp(strategy, "random");
	unsigned found = 0;

	for (unsigned s = 0; s < Z5_SEEDS; s++) {
		struct mm_outcome o = z5_run("z5", strategy, 1 + s, depth, wl, wl_len,
					     rnd ? Z5_RANDOM_BUDGET : Z5_BUDGET);
		if (!rnd)
			CHECK(o.kind == WEFT_KIND_SWAP_UNDERFLOW,
			      "%s seed %u: %s after %llu executions", label, 1 + s,
			      weft_kind_name(o.kind), (unsigned long long)o.executions);
		found += o.kind == WEFT_KIND_SWAP_UNDERFLOW;
		ex[s] = o.executions;
		secs[s] = o.seconds;
	}
	qsort(ex, Z5_SEEDS, sizeof(ex[0]), cmp_u64);
	qsort(secs, Z5_SEEDS, sizeof(secs[0]), cmp_dbl);
	printf("z5 %-28s executions min %llu median %llu max %llu; ms min %.2f median %.2f "
	       "max %.2f; found by %u/%u seeds\n", label, (unsigned long long)ex[0],
	       (unsigned long long)ex[Z5_SEEDS / 2], (unsigned long long)ex[Z5_SEEDS - 1],
	       secs[0] * 1e3, secs[Z5_SEEDS / 2] * 1e3, secs[Z5_SEEDS - 1] * 1e3, found,
	       Z5_SEEDS);
}

int main(void)
{
	uint8_t wl[64];
	size_t wl_len = z5_trigger_workload("z5", wl, sizeof(wl));

	search("random, generated", "random", 0, NULL, 0);
	search("pct d=2, generated", "pct", 2, NULL, 0);
	search("pct d=3, generated", "pct", 3, NULL, 0);
	search("random, trigger workload", "random", 0, wl, wl_len);
	search("pct d=2, trigger workload", "pct", 2, wl, wl_len);
	return check_done();
}
