/*
 * test_z5_silent.c - no false reports: z5-tmpfs-truncate:fix under
 * random schedules (or pct) over generated workloads, N executions, and
 * every path of the model taken (asserted through the summed counters):
 * writepage, its abandon beyond EOF, truncate of page-cache pages and of
 * swap entries, free_swap_and_cache() dropping the swap-cache page or
 * finding it locked, swapin from the swap cache and by a read, swapin
 * losing to a truncate, swap-cache reclaim and its busy case.
 * Usage: test_z5_silent random|pct EXECUTIONS SEED
 */
#include <stdlib.h>

#include "z5_test_util.h"

int main(int argc, char **argv)
{
	const char *strategy = argc > 1 ? argv[1] : "random";
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000;
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 7;
	struct mm_counters c = { 0 };

	mm_silent(Z5_SCENARIO ":fix", strategy, n, seed, &c);
	static const char *const must[] = {
		"shmem_getpage_new", "shmem_swapin_cache_hit", "shmem_swapin_read",
		"shmem_swapin_raced", "shmem_writepage", "shmem_writepage_beyond_eof",
		"truncate_page_cache_page", "truncate_swap_entry",
		"free_swap_and_cache_dropped_page", "free_swap_and_cache_page_busy",
		"swapcache_page_reclaimed", "swapcache_page_busy",
	};
	mm_require_counters(Z5_SCENARIO ":fix", &c, must, sizeof(must) / sizeof(must[0]));
	return check_done();
}
