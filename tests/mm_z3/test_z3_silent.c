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
#include "z34_run.h"

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : "z3-swapoff:fix";
	const char *strategy = argc > 2 ? argv[2] : "random";
	uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 0) : 100000;
	uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 7;
	struct mm_counters c = { 0 };

	mm_silent(spec, strategy, n, seed, &c);
	static const char *const must[] = {
		"swapoff_done", "swapoff_waited_for_users", "swapoff_waited_for_swapouts",
		"swapout_device_not_writeok", "try_to_unuse_rounds", "free_swap_and_cache_reclaim",
		"swapin_read", "swapin_cache_hit", "try_to_reclaim_swap_freed",
		"swapcache_folio_reclaimed", "folios_swapped_out",
	};
	mm_require_counters(spec, &c, must, sizeof(must) / sizeof(must[0]));
	/* informational: legal paths that are rarer */
	for (unsigned k = 0; k < c.n; k++)
		if (!strcmp(c.names[k], "lookup_unused_entry") || !strcmp(c.names[k], "swapoff_failed") ||
		    !strcmp(c.names[k], "get_swap_device_failed"))
			printf("  %-28s %llu\n", c.names[k], (unsigned long long)c.sum[k]);
	return check_done();
}
