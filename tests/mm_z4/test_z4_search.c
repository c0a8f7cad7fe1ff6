/*
 * test_z4_search.c - search budgets for Z4: pct (depth 2 and 3) on the
 * trigger workload finds the data loss within the budget for each of 10
 * seeds; prints min/median/max executions and milliseconds
 * (docs/zoo/z4.md). A random walk on the same workload is measured, not
 * asserted.
 */
#include "../mm_z3/z34_run.h"

int main(void)
{
	uint8_t wl[64];
	size_t wl_len = z34_trigger_workload("z4-swapin-aba:z4", wl, sizeof(wl));

	z34_search("z4 pct d=2, trigger workload", "z4-swapin-aba:z4", "pct", 2, wl, wl_len, 10,
		   20000, WEFT_KIND_DATA_LOSS);
	z34_search("z4 pct d=3, trigger workload", "z4-swapin-aba:z4", "pct", 3, wl, wl_len, 10,
		   20000, WEFT_KIND_DATA_LOSS);
	struct mm_outcome o = z34_run("z4-swapin-aba:z4", "random", 1, 0, wl, wl_len, 20000,
				       NULL);
	printf("z4 random, trigger workload, seed 1: %s after %llu executions\n",
	       weft_kind_name(o.kind), (unsigned long long)o.executions);
	return check_done();
}
