/*
 * test_z5_search.c - search budgets for z5-tmpfs-truncate:z5: pct (depth 2
 * and 3) over generated workloads and pct d=2 on the trigger workload each
 * find swap-count-underflow within Z5_BUDGET executions for every one of
 * 10 seeds. The random walk is measured, not asserted (Z5_RANDOM_BUDGET):
 * the window is one scheduling point of writepage, and the truncate must
 * win about ten coin flips in a row after it. Prints min/median/max
 * executions and ms and how many seeds found it (docs/zoo/z5.md).
 */
#include "zoo_test.h"

#define Z5 "z5-tmpfs-truncate:z5"

static void search(const char *label, const char *strategy, unsigned depth, const uint8_t *wl,
		   size_t wl_len)
{
	zoo_search_budget(&(struct zoo_budget){
		.label = label, .spec = Z5, .strategy = strategy, .param = depth, .wl = wl,
		.wl_len = wl_len, .nseeds = 10, .budget = 20000, .want = WEFT_KIND_SWAP_UNDERFLOW,
		.measured_only = !strcmp(strategy, "random") });
}

int main(void)
{
	uint8_t wl[64];
	size_t wl_len = mm_trigger_workload(Z5, wl, sizeof(wl));

	search("z5 random, generated", "random", 0, NULL, 0);
	search("z5 pct d=2, generated", "pct", 2, NULL, 0);
	search("z5 pct d=3, generated", "pct", 3, NULL, 0);
	search("z5 random, trigger workload", "random", 0, wl, wl_len);
	search("z5 pct d=2, trigger workload", "pct", 2, wl, wl_len);
	return check_done();
}
