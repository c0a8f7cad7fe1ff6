/*
 * test_z3_silent.c - no false reports: z3-swapoff:fix under random (or
 * pct depth 3) schedules over generated workloads, N executions, reports
 * nothing. The counters show that the workloads reached what the fix must
 * survive: swapoffs that completed, swapoffs that waited for a device
 * reference and for swap-outs in flight, swap-outs
 * refused by a closed SWP_WRITEOK gate, try_to_unuse() swapping pages back
 * in, free_swap_and_cache() reclaiming the swap cache.
 * Usage: test_z3_silent SPEC random|pct EXECUTIONS SEED
 */
#include "zoo_test.h"

int main(int argc, char **argv)
{
	static const char *const must[] = {
		"swapoff_done", "swapoff_waited_for_users", "swapoff_waited_for_swapouts",
		"swapout_device_not_writeok", "try_to_unuse_rounds", "free_swap_and_cache_reclaim",
		"swapin_read", "swapin_cache_hit", "try_to_reclaim_swap_freed",
		"swapcache_folio_reclaimed", "folios_swapped_out",
	};
	static const char *const info[] = {
		"lookup_unused_entry", "swapoff_failed", "get_swap_device_failed",
	};

	return zoo_silent_main(argc, argv, "z3-swapoff:fix", must, ZOO_N(must), info, ZOO_N(info));
}
