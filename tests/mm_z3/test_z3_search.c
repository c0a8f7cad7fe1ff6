/*
 * test_z3_search.c - search budgets for Z3: pct (depth 2 and 3) on the
 * trigger workload (only the schedule varies) finds the use-after-free
 * within the budget for each of 10 seeds; prints min/median/max executions
 * and milliseconds (docs/zoo/z3.md). A random walk on the same workload is
 * measured, not asserted: T1 and T2 must wait through T0's ~100 steps of
 * swap-out and zap, which a coin flip per step practically never does.
 */
#include "z34_run.h"

int main(void)
{
	uint8_t wl[64];
	size_t wl_len = z34_trigger_workload("z3-swapoff:z3", wl, sizeof(wl));

	z34_search("z3 pct d=2, trigger workload", "z3-swapoff:z3", "pct", 2, wl, wl_len, 10,
		   20000, WEFT_KIND_USE_AFTER_FREE);
	z34_search("z3 pct d=3, trigger workload", "z3-swapoff:z3", "pct", 3, wl, wl_len, 10,
		   20000, WEFT_KIND_USE_AFTER_FREE);
	struct mm_outcome o = z34_run("z3-swapoff:z3", "random", 1, 0, wl, wl_len, 20000, NULL);
	printf("z3 random, trigger workload, seed 1: %s after %llu executions\n",
	       weft_kind_name(o.kind), (unsigned long long)o.executions);
	return check_done();
}
