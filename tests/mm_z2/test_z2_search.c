/*
 * test_z2_search.c - the search budgets for Z2-v2: random and pct (depth
 * 2 and 3) over generated workloads, and pct on the fixed race workload
 * (T0 swapout/split/zap, T1 reclaim: only the schedule varies), each find
 * the slot leak within Z2_BUDGET executions for every one of 10 fixed
 * seeds. Prints min/median/max executions and seconds (docs/zoo/z2.md).
 * A random walk on the race workload is not asserted: T1 must wait
 * through T0's ~150 steps of swap-out and split, which a coin flip per
 * step practically never does (measured: none in 10 x 100000).
 */
#include <stdlib.h>

#include "z2_test_util.h"

#define Z2_SEEDS 10
#define Z2_BUDGET 5000

static const uint8_t race_wl[] = { 4, 0x00, 0x20, 0x01, 0x00, 0x04, 0x30, 0x12, 0x01 };

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
	uint64_t ex[Z2_SEEDS];
	double secs[Z2_SEEDS];

	for (unsigned s = 0; s < Z2_SEEDS; s++) {
		struct mm_outcome o = z2_run("v2", strategy, 1 + s, depth, wl, wl_len, Z2_BUDGET);
		CHECK(o.kind == WEFT_KIND_SLOT_LEAK, "%s seed %u: %s after %llu executions", label,
		      1 + s, weft_kind_name(o.kind), (unsigned long long)o.executions);
		ex[s] = o.executions;
		secs[s] = o.seconds;
	}
	qsort(ex, Z2_SEEDS, sizeof(ex[0]), cmp_u64);
	qsort(secs, Z2_SEEDS, sizeof(secs[0]), cmp_dbl);
	printf("%-34s executions min %llu median %llu max %llu; ms min %.2f median %.2f max %.2f\n",
	       label, (unsigned long long)ex[0], (unsigned long long)ex[Z2_SEEDS / 2],
	       (unsigned long long)ex[Z2_SEEDS - 1], secs[0] * 1e3, secs[Z2_SEEDS / 2] * 1e3,
	       secs[Z2_SEEDS - 1] * 1e3);
}

int main(void)
{
	search("v2 random, generated workloads", "random", 0, NULL, 0);
	search("v2 pct d=2, generated workloads", "pct", 2, NULL, 0);
	search("v2 pct d=3, generated workloads", "pct", 3, NULL, 0);
	search("v2 pct d=2, race workload", "pct", 2, race_wl, sizeof(race_wl));
	return check_done();
}
