/*
 * test_z12.c - ZOO Z12 (memcg lrucare charge: lock_page_cgroup() inside
 * the irq-safe zone->lru_lock, v3.3-rc1), on the installed kit:
 *  - the trigger deadlocks with 1 preemption (T0 preempted holding page
 *    0's page_cgroup lock; the end_page_writeback interrupt's delivery on
 *    CPU0 comes at a free switch), reported where the handler spins on
 *    lru_lock; the fix is clean on it;
 *  - dfs on the trigger workload: bound 0 complete and clean, bound 1 the
 *    deadlock (the minimal bound is 1);
 *  - the fix is complete and clean under dfs bound 2;
 *  - random and pct d=2 over generated workloads find the deadlock from 5
 *    seeds, every finding re-runs the same; the fix stays silent under
 *    random and pct, and the generated workloads reach the lrucare charge,
 *    the uncharge and the interrupt's rotation.
 */
#include "zoo_test.h"

#define Z12 "z12-memcg-lrucare:z12"
#define Z12_FIX "z12-memcg-lrucare:fix"

int main(void)
{
	zoo_trigger_and_fix(Z12, Z12_FIX, WEFT_KIND_DEADLOCK, 1,
			    "fbatch_move_lru", "spin_lock_irqsave");

	zoo_dfs_minimal(Z12, NULL, 1, WEFT_KIND_DEADLOCK);
	zoo_dfs_clean(Z12_FIX, NULL, 2);

	zoo_search_random_pct(Z12, 50000, WEFT_KIND_DEADLOCK);

	static const char *const must[] = {
		"commit_charge_lrucare", "lrucare_took_off_lru", "uncharge", "move_account",
		"end_page_writeback", "rotate_reclaimable_page",
	};
	zoo_silent_random_pct(Z12_FIX, must, ZOO_N(must));
	return check_done();
}
