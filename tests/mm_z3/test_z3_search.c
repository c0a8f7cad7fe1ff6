/*
 * test_z3_search.c - search budgets for Z3: pct (depth 2 and 3) on the
 * trigger workload (only the schedule varies) finds the use-after-free
 * within the budget for each of 10 seeds; prints min/median/max executions
 * and milliseconds (docs/zoo/z3.md). A random walk on the same workload is
 * measured, not asserted: T1 and T2 must wait through T0's ~100 steps of
 * swap-out and zap, which a coin flip per step practically never does.
 */
#include "zoo_test.h"

int main(void)
{
	zoo_trigger_budgets("z3-swapoff:z3", WEFT_KIND_USE_AFTER_FREE, 20000);
	return check_done();
}
