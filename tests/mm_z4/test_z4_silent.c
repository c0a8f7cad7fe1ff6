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
		"skip_swapcache_reads", "swapcache_prepare_backoffs", "fault_retries",
		"skip_swapcache_pte_changed", "checked_reads", "writes", "swapin_cache_hit",
		"folios_swapped_out", "swapcache_folio_reclaimed",
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
		if (!strcmp(names[k], "swap_alloc_failed") || !strcmp(names[k], "fault_left_for_later"))
			printf("  %-28s %llu\n", names[k], (unsigned long long)sum[k]);
	return check_done();
}
