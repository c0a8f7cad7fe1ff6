/*
 * test_z2_silent.c - no false reports: a fixed variant (v3 or per-entry)
 * under random schedules over generated workloads (or pct), N executions,
 * reports nothing. The generated workloads reach every path of the model
 * (batch fast path with and without HAS_CACHE, fallback, swap-in hits and
 * reads, splits, reclaims, return-batch flushes), and with them the
 * transient HAS_CACHE pins (slots parked in a CPU's return batch, the fast
 * path between its cluster lock and si->lock, swapcache_prepare()) that
 * the audit must not take for leaks: asserted through the counters.
 * Usage: test_z2_silent SPEC random|pct EXECUTIONS SEED
 */
#include "zoo_test.h"

int main(int argc, char **argv)
{
	static const char *const must[] = {
		"try_to_reclaim_swap_freed", "swapin_cache_hit", "swapin_read",
		"swapcache_folio_split", "swapcache_folio_reclaimed", "slots_ret_flushes",
		"batch_fast_path", "batch_fast_path_has_cache", "batch_fallback",
	};
	/* per-entry has no fast path by construction: its list stops before
	 * the batch_ counters */
	bool per_entry = argc > 1 && strstr(argv[1], ":per-entry");

	return zoo_silent_main(argc, argv, "z2-swap-batch:v3", must, ZOO_N(must) - 3 * per_entry,
			       NULL, 0);
}
