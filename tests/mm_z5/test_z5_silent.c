/*
 * test_z5_silent.c - no false reports: z5-tmpfs-truncate:fix under
 * random schedules (or pct) over generated workloads, N executions, and
 * every path of the model taken (asserted through the summed counters):
 * writepage, its abandon beyond EOF, truncate of page-cache pages and of
 * swap entries, free_swap_and_cache() dropping the swap-cache page or
 * finding it locked, swapin from the swap cache and by a read, swapin
 * losing to a truncate, swap-cache reclaim and its busy case.
 * Usage: test_z5_silent SPEC random|pct EXECUTIONS SEED
 */
#include "zoo_test.h"

int main(int argc, char **argv)
{
	static const char *const must[] = {
		"shmem_getpage_new", "shmem_swapin_cache_hit", "shmem_swapin_read",
		"shmem_swapin_raced", "shmem_writepage", "shmem_writepage_beyond_eof",
		"truncate_page_cache_page", "truncate_swap_entry",
		"free_swap_and_cache_dropped_page", "free_swap_and_cache_page_busy",
		"swapcache_page_reclaimed", "swapcache_page_busy",
	};

	return zoo_silent_main(argc, argv, "z5-tmpfs-truncate:fix", must, ZOO_N(must), NULL, 0);
}
