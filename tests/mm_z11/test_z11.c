/*
 * test_z11.c - ZOO Z11 (lru_add_drain_all()'s piggyback with the drain
 * generation bumped after the per-CPU loop), on the installed kit:
 *  - the trigger reports the assertion in invalidate_bdev()'s
 *    remove_mapping() with 0 preemptions (the drainer's flush_work()
 *    sleep is the window); the fix is clean on it;
 *  - dfs: bound 0 finds it on the trigger workload; on a workload whose
 *    drainer has nothing to flush (T0 `drain`; T1 `add 1`, `invalidate`)
 *    bound 0 is complete and clean and bound 1 finds it;
 *  - the fix is complete and clean under dfs bound 1 on the trigger
 *    workload and bound 2 on the nothing-to-flush one;
 *  - random and pct d=2 over generated workloads find it from 5 seeds,
 *    every finding re-runs the same; the fix stays silent under random and
 *    pct, and the generated workloads reach the piggyback and the busy
 *    (legitimately) pages;
 *  - under tso and lkmm the fix stays silent too (random and pct): the
 *    oracle's "batched before (A)" is what the smp_mb() before (A) makes
 *    visible, not the machine's clock (docs/zoo/z11.md, "Under weak
 *    memory"), and the buggy variant is still found.
 */
#include "zoo_test.h"

#define Z11 "z11-lru-drain-all:z11"
#define Z11_FIX "z11-lru-drain-all:fix"
#define NOFLUSH "03040010011500"

int main(void)
{
	zoo_trigger_and_fix(Z11, Z11_FIX, WEFT_KIND_ASSERT, 0,
			    "z11_remove_mapping", "invalidate_bdev");

	zoo_dfs_minimal(Z11, NULL, 0, WEFT_KIND_ASSERT);
	zoo_dfs_minimal(Z11, NOFLUSH, 1, WEFT_KIND_ASSERT);
	zoo_dfs_clean(Z11_FIX, NULL, 1);
	zoo_dfs_clean(Z11_FIX, NOFLUSH, 2);

	zoo_search_random_pct(Z11, 20000, WEFT_KIND_ASSERT);

	static const char *const must[] = {
		"lru_add_drain_all_piggybacked", "lru_add_drain_work_queued",
		"invalidate_removed", "invalidate_busy",
	};
	zoo_silent_random_pct(Z11_FIX, must, ZOO_N(must));

	for (mm_memory = WEFT_MEM_TSO; mm_memory <= WEFT_MEM_LKMM; mm_memory++) {
		zoo_silent_random_pct(Z11_FIX, must, ZOO_N(must));
		zoo_search(Z11, "random", 0, 5, 20000, WEFT_KIND_ASSERT);
	}
	mm_memory = WEFT_MEM_SC;
	return check_done();
}
