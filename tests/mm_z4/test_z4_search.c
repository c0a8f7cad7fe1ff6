/*
 * test_z4_search.c - search budgets for Z4: pct (depth 2 and 3) on the
 * trigger workload finds the data loss within the budget for each of 10
 * seeds; prints min/median/max executions and milliseconds
 * (docs/zoo/z4.md). A random walk on the same workload is measured, not
 * asserted.
 */
#include "zoo_test.h"

int main(void)
{
	zoo_trigger_budgets("z4-swapin-aba:z4", WEFT_KIND_DATA_LOSS, 20000);
	return check_done();
}
