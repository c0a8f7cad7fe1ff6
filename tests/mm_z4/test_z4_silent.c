/*
 * test_z4_silent.c - no false reports: z4-swapin-aba:fix under random (or
 * pct depth 3) schedules over generated workloads, N executions, reports
 * nothing, neither data loss nor a livelock of the back-off. The counters
 * show the workloads reached the skip-swapcache reads, the back-offs and
 * retries of the fix, the reads the oracle checked, and the slot reuse.
 * Usage: test_z4_silent SPEC random|pct EXECUTIONS SEED
 */
#include "zoo_test.h"

int main(int argc, char **argv)
{
	static const char *const must[] = {
		"skip_swapcache_reads", "swapcache_prepare_backoffs", "fault_retries",
		"skip_swapcache_pte_changed", "checked_reads", "writes", "swapin_cache_hit",
		"folios_swapped_out", "swapcache_folio_reclaimed",
	};
	static const char *const info[] = { "swap_alloc_failed", "fault_left_for_later" };

	return zoo_silent_main(argc, argv, "z4-swapin-aba:fix", must, ZOO_N(must), info,
			       ZOO_N(info));
}
