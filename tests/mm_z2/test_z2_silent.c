/*
 * test_z2_silent.c - no false reports: a fixed variant (v3 or per-entry)
 * under random schedules over generated workloads (or pct), N executions,
 * reports nothing. The generated workloads reach every path of the model
 * (batch fast path with and without HAS_CACHE, fallback, swap-in hits and
 * reads, splits, reclaims, return-batch flushes), and with them the
 * transient HAS_CACHE pins (slots parked in a CPU's return batch, the fast
 * path between its cluster lock and si->lock, swapcache_prepare()) that
 * the audit must not take for leaks: asserted through the counters.
 * Usage: test_z2_silent VARIANT random|pct EXECUTIONS SEED
 */
#include <stdlib.h>

#include "z2_test_util.h"

int main(int argc, char **argv)
{
	const char *variant = argc > 1 ? argv[1] : "v3";
	const char *strategy = argc > 2 ? argv[2] : "random";
	uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 0) : 100000;
	uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 7;
	struct mm_counters c = { 0 };
	char spec[64];

	snprintf(spec, sizeof(spec), "%s:%s", Z2_SCENARIO, variant);
	mm_silent(spec, strategy, n, seed, &c);
	static const char *const must[] = {
		"batch_fast_path", "batch_fast_path_has_cache", "batch_fallback",
		"try_to_reclaim_swap_freed", "swapin_cache_hit", "swapin_read",
		"swapcache_folio_split", "swapcache_folio_reclaimed", "slots_ret_flushes",
	};
	/* per-entry has no fast path by construction */
	for (unsigned m = 0; m < sizeof(must) / sizeof(must[0]); m++)
		if (strcmp(variant, "per-entry") || strncmp(must[m], "batch_", 6))
			mm_require_counters(spec, &c, &must[m], 1);
	return check_done();
}
