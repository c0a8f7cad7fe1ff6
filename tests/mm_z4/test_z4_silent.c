/*
 * test_z4_silent.c - no false reports: z4-swapin-aba:fix under random (or
 * pct depth 3) schedules over generated workloads, N executions, reports
 * nothing, neither data loss nor a livelock of the back-off. The counters
 * show the workloads reached the skip-swapcache reads, the back-offs and
 * retries of the fix, the reads the oracle checked, and the slot reuse.
 * Usage: test_z4_silent SPEC random|pct EXECUTIONS SEED
 */
#include "../mm_z3/z34_run.h"

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : "z4-swapin-aba:fix";
	const char *strategy = argc > 2 ? argv[2] : "random";
	uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 0) : 100000;
	uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 7;
	struct mm_counters c = { 0 };

	mm_silent(spec, strategy, n, seed, &c);
	static const char *const must[] = {
		"skip_swapcache_reads", "swapcache_prepare_backoffs", "fault_retries",
		"skip_swapcache_pte_changed", "checked_reads", "writes", "swapin_cache_hit",
		"folios_swapped_out", "swapcache_folio_reclaimed",
	};
	mm_require_counters(spec, &c, must, sizeof(must) / sizeof(must[0]));
	/* informational: legal paths that are rarer */
	for (unsigned k = 0; k < c.n; k++)
		if (!strcmp(c.names[k], "swap_alloc_failed") || !strcmp(c.names[k], "fault_left_for_later"))
			printf("  %-28s %llu\n", c.names[k], (unsigned long long)c.sum[k]);
	return check_done();
}
