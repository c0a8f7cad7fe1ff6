/*
 * test_z6_silent.c - no false reports: z6-spec-pagecache:fix under
 * random schedules (or pct) over generated workloads, N executions, and
 * every path of the model taken (asserted through the summed counters):
 * failed speculative gets on frozen pages, failed rechecks, find_lock_page
 * finding the page truncated, busy removes, failed trylocks, frees that
 * wait for a grace period, truncates, adds and puts.
 * Usage: test_z6_silent random|pct EXECUTIONS SEED
 */
#include <stdlib.h>

#include "z6_test_util.h"

int main(int argc, char **argv)
{
	const char *strategy = argc > 1 ? argv[1] : "random";
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000;
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 7;
	struct mm_counters c = { 0 };

	mm_silent(Z6_SCENARIO ":fix", strategy, n, seed, &c);
	static const char *const must[] = {
		"find_lock_page_hit", "page_cache_get_speculative_failed",
		"find_get_page_recheck_failed", "find_lock_page_mapping_changed",
		"remove_mapping_freed", "remove_mapping_busy", "trylock_page_failed",
		"truncate_complete_page", "add_to_page_cache", "put_page",
		"rcu_deferred_frees", "rcu_grace_period_frees",
	};
	mm_require_counters(Z6_SCENARIO ":fix", &c, must, sizeof(must) / sizeof(must[0]));
	return check_done();
}
