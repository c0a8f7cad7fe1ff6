/*
 * test_z3_search.c - search budgets for Z3: pct (depth 2 and 3) on the
 * trigger workload (only the schedule varies) finds the use-after-free
 * within the budget for each of 10 seeds; prints min/median/max executions
 * and milliseconds (docs/zoo/z3.md). A random walk on the same workload is
 * measured, not asserted: T1 and T2 must wait through T0's ~100 steps of
 * swap-out and zap, which a coin flip per step practically never does.
 */
#include "zoo_test.h"

static void search(const char *label, const char *strategy, unsigned depth, unsigned nseeds)
{
	uint8_t wl[64];
	size_t wl_len = mm_trigger_workload("z3-swapoff:z3", wl, sizeof(wl));

	zoo_search_budget(&(struct zoo_budget){
		.label = label, .spec = "z3-swapoff:z3", .strategy = strategy, .param = depth, .wl = wl,
		.wl_len = wl_len, .nseeds = nseeds, .budget = 20000, .want = WEFT_KIND_USE_AFTER_FREE,
		.measured_only = !strcmp(strategy, "random") });
}

int main(void)
{
	search("z3 pct d=2, trigger workload", "pct", 2, 10);
	search("z3 pct d=3, trigger workload", "pct", 3, 10);
	search("z3 random, trigger workload", "random", 0, 1);
	return check_done();
}
