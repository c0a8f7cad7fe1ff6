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
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	struct weft_random r;
	struct weft_pct p;
	const struct weft_strategy_ops *ops = &weft_strategy_random;
	void *st = &r;
	struct weft_exec_result res;
	const char *names[96];
	uint64_t vals[96], sum[96] = { 0 };
	unsigned nst = 0;
	uint64_t done = 0;

	CHECK(sc && !sc->variants[vi].buggy, "%s is a fixed variant", spec);
	if (!sc)
		return check_done();
	if (!strcmp(strategy, "pct")) {
		weft_pct_init(&p, sc, seed, 3, NULL, 0);
		ops = &weft_strategy_pct;
		st = &p;
	} else {
		weft_random_init(&r, sc, seed, NULL, 0);
	}
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock };
	double t0 = z34_now();
	for (; done < n; done++) {
		if (weft_execute(&o, ops, st, &res) != 0) {
			CHECK(0, "weft_execute failed at execution %llu", (unsigned long long)done);
			break;
		}
		if (res.kind != WEFT_KIND_NONE) {
			CHECK(0, "%s %s execution %llu: %s: %s: %s", spec, strategy,
			      (unsigned long long)done + 1, weft_kind_name(res.kind),
			      res.report.object, res.report.msg);
			break;
		}
		nst = sc->stats(weft_last_world(), names, vals, 96);
		for (unsigned k = 0; k < nst; k++)
			sum[k] += vals[k];
	}
	printf("%s: %llu %s executions clean in %.2f s\n", spec, (unsigned long long)done,
	       strategy, z34_now() - t0);
	static const char *const must[] = {
		"swapoff_done", "swapoff_waited_for_users", "swapoff_waited_for_swapouts",
		"swapout_device_not_writeok", "try_to_unuse_rounds", "free_swap_and_cache_reclaim",
		"swapin_read", "swapin_cache_hit", "try_to_reclaim_swap_freed",
		"swapcache_folio_reclaimed", "folios_swapped_out",
	};
	for (unsigned m = 0; m < sizeof(must) / sizeof(must[0]); m++) {
		uint64_t v = 0;
		for (unsigned k = 0; k < nst; k++)
			if (!strcmp(names[k], must[m]))
				v = sum[k];
		CHECK(v > 0, "%s: counter %s never moved: the workloads miss a path", spec, must[m]);
		printf("  %-28s %llu\n", must[m], (unsigned long long)v);
	}
	/* informational: legal paths that are rarer */
	for (unsigned k = 0; k < nst; k++)
		if (!strcmp(names[k], "lookup_unused_entry") || !strcmp(names[k], "swapoff_failed") ||
		    !strcmp(names[k], "get_swap_device_failed"))
			printf("  %-28s %llu\n", names[k], (unsigned long long)sum[k]);
	return check_done();
}
