/*
 * test_z16.c - ZOO Z16 (PageUptodate seen before the page's contents), on
 * the installed kit:
 *  - the trigger (a genome asking for lkmm: the reader's load of the
 *    contents reads the older version) reports data-loss with 0
 *    preemptions for both buggy variants (z16, wmb-only); under tso and
 *    sc it is clean, and the fix is clean on it;
 *  - dfs under lkmm, one weak choice: both buggy variants found at bound 0;
 *    the fix complete and clean at bound 2 with two weak choices; under tso
 *    and sc the buggy variants complete and clean at bound 2;
 *  - random and pct d=2 find both under lkmm from 5 seeds; under tso and
 *    sc they stay silent; the fix stays silent under lkmm and reaches the
 *    uptodate and the not-yet-uptodate reads.
 */
#include "zoo_test.h"

#define WL "0200001100"

int main(void)
{
	static const char *const bugs[] = { "z16-page-uptodate:z16", "z16-page-uptodate:wmb-only" };
	const char *fix = "z16-page-uptodate:fix";

	mm_delay_bound = 1;
	for (unsigned b = 0; b < 2; b++) {
		mm_memory = WEFT_MEM_LKMM;
		zoo_trigger(bugs[b], bugs[b], WEFT_KIND_DATA_LOSS, 0, "z16_read",
			   "do_generic_file_read");
		for (mm_memory = WEFT_MEM_SC; mm_memory <= WEFT_MEM_TSO; mm_memory++)
			zoo_trigger(bugs[b], bugs[b], WEFT_KIND_NONE, 0, NULL, NULL);
	}
	mm_memory = WEFT_MEM_LKMM;
	zoo_trigger(fix, bugs[0], WEFT_KIND_NONE, 0, NULL, NULL);

	for (unsigned b = 0; b < 2; b++) {
		mm_memory = WEFT_MEM_LKMM;
		zoo_dfs_minimal(bugs[b], WL, 0, WEFT_KIND_DATA_LOSS);
		zoo_search_random_pct(bugs[b], 100000, WEFT_KIND_DATA_LOSS);
		for (mm_memory = WEFT_MEM_SC; mm_memory <= WEFT_MEM_TSO; mm_memory++) {
			mm_delay_bound = 2;
			zoo_dfs_clean(bugs[b], WL, 2);
			mm_delay_bound = 1;
			zoo_silent_seeds(bugs[b], "random", 0, 20000);
			zoo_silent_seeds(bugs[b], "pct", 2, 20000);
		}
	}
	mm_memory = WEFT_MEM_LKMM;
	mm_delay_bound = 2;
	zoo_dfs_clean(fix, WL, 2);
	static const char *const must[] = { "page_filled", "read_uptodate", "read_not_uptodate" };
	zoo_silent_random_pct(fix, must, ZOO_N(must));
	return check_done();
}
