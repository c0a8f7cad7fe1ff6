/*
 * test_z4_search.c - search budgets for Z4: pct (depth 2 and 3) on the
 * trigger workload finds the data loss within the budget for each of 10
 * seeds; prints min/median/max executions and milliseconds
 * (docs/zoo/z4.md). A random walk on the same workload is measured, not
 * asserted.
 */
#include "zoo_test.h"

static void search(const char *label, const char *strategy, unsigned depth, unsigned nseeds)
{
	uint8_t wl[64];
	size_t wl_len = mm_trigger_workload("z4-swapin-aba:z4", wl, sizeof(wl));

	zoo_search_budget(&(struct zoo_budget){
		.label = label, .spec = "z4-swapin-aba:z4", .strategy = strategy, .param = depth, .wl = wl,
		.wl_len = wl_len, .nseeds = nseeds, .budget = 20000, .want = WEFT_KIND_DATA_LOSS,
		.measured_only = !strcmp(strategy, "random") });
}

int main(void)
{
	search("z4 pct d=2, trigger workload", "pct", 2, 10);
	search("z4 pct d=3, trigger workload", "pct", 3, 10);
	search("z4 random, trigger workload", "random", 0, 1);
	return check_done();
}
