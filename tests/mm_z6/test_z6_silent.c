/*
 * test_z6_silent.c - no false reports: z6-spec-pagecache:fix under
 * random schedules (or pct) over generated workloads, N executions, and
 * every path of the model taken (asserted through the summed counters):
 * failed speculative gets on frozen pages, failed rechecks, find_lock_page
 * finding the page truncated, busy removes, failed trylocks, frees that
 * wait for a grace period, truncates, adds and puts.
 * Usage: test_z6_silent SPEC random|pct EXECUTIONS SEED
 */
#include "zoo_test.h"

int main(int argc, char **argv)
{
	static const char *const must[] = {
		"find_lock_page_hit", "page_cache_get_speculative_failed",
		"find_get_page_recheck_failed", "find_lock_page_mapping_changed",
		"remove_mapping_freed", "remove_mapping_busy", "trylock_page_failed",
		"truncate_complete_page", "add_to_page_cache", "put_page",
		"rcu_deferred_frees", "rcu_grace_period_frees",
	};

	return zoo_silent_main(argc, argv, "z6-spec-pagecache:fix", must, ZOO_N(must), NULL, 0);
}
