/*
 * test_z14.c - ZOO Z14 (lru_add_drain_all()'s seqcount latch with only
 * smp_wmb(): store buffering between a caller's batch store and the
 * drainer's bump), on the installed kit:
 *  - the trigger (a genome asking for tso) reports the assertion in
 *    move_pages()' isolation with 1 preemption under tso; under sc the same
 *    input is clean, and the fix is clean on it under tso;
 *  - dfs on the trigger workload under tso and lkmm, one weak choice: bound
 *    0 is complete and clean, bound 1 finds it; under sc the buggy variant
 *    is complete and clean at bound 2 (SB needs the store buffer);
 *  - the fix is complete and clean under tso and lkmm (bound 1, one weak
 *    choice) and sc (bound 2);
 *  - random and pct d=2 over generated workloads find it under tso and
 *    lkmm from 5 seeds, every finding re-runs the same; under sc they stay
 *    silent; the fix stays silent under tso and lkmm and reaches the
 *    piggyback, the isolation, the migration and the legitimately busy
 *    pages.
 */
#include "zoo_test.h"

#define Z14 "z14-lru-drain-latch:z14"
#define Z14_FIX "z14-lru-drain-latch:fix"
#define TRIGGER_WL "03000001001300"

int main(void)
{
	mm_memory = WEFT_MEM_TSO;
	mm_delay_bound = 1;
	zoo_trigger_and_fix(Z14, Z14_FIX, WEFT_KIND_ASSERT, 1, "z14_check_busy", "move_pages");
	mm_memory = WEFT_MEM_SC;
	zoo_trigger(Z14, Z14, WEFT_KIND_NONE, 0, NULL, NULL);

	for (mm_memory = WEFT_MEM_TSO; mm_memory <= WEFT_MEM_LKMM; mm_memory++) {
		printf("--memory %s:\n", weft_memory_name(mm_memory));
		zoo_dfs_minimal(Z14, TRIGGER_WL, 1, WEFT_KIND_ASSERT);
		zoo_dfs_clean(Z14_FIX, TRIGGER_WL, 1);
		zoo_search_random_pct(Z14, 100000, WEFT_KIND_ASSERT);
	}
	mm_memory = WEFT_MEM_SC;
	zoo_dfs_clean(Z14, TRIGGER_WL, 2);
	zoo_dfs_clean(Z14_FIX, TRIGGER_WL, 2);

	mm_memory = WEFT_MEM_SC;
	zoo_silent_seeds(Z14, "random", 0, 20000);
	zoo_silent_seeds(Z14, "pct", 2, 20000);

	static const char *const must[] = {
		"lru_add_drain_all_piggybacked", "lru_add_drain_work_queued", "isolate_lru_page",
		"isolate_lru_page_busy", "migrated",
	};
	for (mm_memory = WEFT_MEM_TSO; mm_memory <= WEFT_MEM_LKMM; mm_memory++) {
		zoo_silent_random_pct(Z14_FIX, must, ZOO_N(must));
	}
	return check_done();
}
