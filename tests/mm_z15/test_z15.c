/*
 * test_z15.c - ZOO Z15 (page_ref_unfreeze() as a plain atomic_set(): the
 * restored count overtakes the migration's slot store), on the installed
 * kit:
 *  - the trigger (a genome asking for lkmm) reports the assertion in
 *    find_get_page() with 1 preemption under lkmm; under tso and sc the
 *    same input is clean (stores keep their order there); both fixes are
 *    clean on it;
 *  - dfs on the trigger workload under lkmm, one weak choice: bound 0
 *    complete and clean, bound 1 finds it; under tso and sc the buggy
 *    variant is complete and clean at bound 1 (one delayed store) and 2;
 *  - both fixes complete and clean under lkmm at bound 1, sc at bound 2;
 *  - random and pct d=2 find it under lkmm from 5 seeds, every finding
 *    re-runs the same; under tso and sc they stay silent; the fixes stay
 *    silent under lkmm and reach the migration, the frozen page and the
 *    moved-page retry.
 */
#include "zoo_test.h"

#define Z15 "z15-ref-unfreeze:z15"
#define WL "0200001100"

int main(void)
{
	static const char *const fixes[] = { "z15-ref-unfreeze:fix-mb", "z15-ref-unfreeze:fix" };

	mm_delay_bound = 1;
	mm_memory = WEFT_MEM_LKMM;
	zoo_trigger(Z15, Z15, WEFT_KIND_ASSERT, 1, "z15_lookup", "find_get_page");
	for (unsigned f = 0; f < 2; f++)
		zoo_trigger(fixes[f], Z15, WEFT_KIND_NONE, 0, NULL, NULL);
	for (mm_memory = WEFT_MEM_SC; mm_memory <= WEFT_MEM_TSO; mm_memory++)
		zoo_trigger(Z15, Z15, WEFT_KIND_NONE, 0, NULL, NULL);

	mm_memory = WEFT_MEM_LKMM;
	zoo_dfs_minimal(Z15, WL, 1, WEFT_KIND_ASSERT);
	for (unsigned f = 0; f < 2; f++)
		zoo_dfs_clean(fixes[f], WL, 1);
	zoo_search_random_pct(Z15, 100000, WEFT_KIND_ASSERT);

	mm_memory = WEFT_MEM_TSO;
	zoo_dfs_clean(Z15, WL, 1);
	zoo_silent_seeds(Z15, "random", 0, 20000);
	mm_memory = WEFT_MEM_SC;
	zoo_dfs_clean(Z15, WL, 2);
	for (unsigned f = 0; f < 2; f++)
		zoo_dfs_clean(fixes[f], WL, 2);
	zoo_silent_seeds(Z15, "random", 0, 20000);
	zoo_silent_seeds(Z15, "pct", 2, 20000);

	mm_memory = WEFT_MEM_LKMM;
	static const char *const must[] = {
		"migrated", "page_ref_freeze_failed", "page_cache_get_speculative_failed",
		"page_moved_repeat",
	};
	for (unsigned f = 0; f < 2; f++) {
		zoo_silent_random_pct(fixes[f], must, ZOO_N(must));
	}
	return check_done();
}
