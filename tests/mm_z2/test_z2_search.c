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
#include "zoo_test.h"

static const uint8_t race_wl[] = { 4, 0x00, 0x20, 0x01, 0x00, 0x04, 0x30, 0x12, 0x01 };

static void search(const char *label, const char *strategy, unsigned depth, const uint8_t *wl,
		   size_t wl_len)
{
	zoo_search_budget(&(struct zoo_budget){
		.label = label, .spec = "z2-swap-batch:v2", .strategy = strategy, .param = depth,
		.wl = wl, .wl_len = wl_len, .nseeds = 10, .budget = 5000,
		.want = WEFT_KIND_SLOT_LEAK });
}

int main(void)
{
	search("v2 random, generated workloads", "random", 0, NULL, 0);
	search("v2 pct d=2, generated workloads", "pct", 2, NULL, 0);
	search("v2 pct d=3, generated workloads", "pct", 3, NULL, 0);
	search("v2 pct d=2, race workload", "pct", 2, race_wl, sizeof(race_wl));
	return check_done();
}
