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
	unsigned vi;
	const struct weft_scenario *sc = z5_scenario("fix", &vi);
	struct weft_random r;
	struct weft_pct p;
	const struct weft_strategy_ops *ops = &weft_strategy_random;
	void *st = &r;
	struct weft_exec_result res;
	const char *names[64];
	uint64_t vals[64], sum[64] = { 0 };
	unsigned nst = 0;
	uint64_t done = 0;

	CHECK(sc && !sc->variants[vi].buggy, "fix is a fixed variant");
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
	double t0 = z5_now();
	for (; done < n; done++) {
		if (weft_execute(&o, ops, st, &res) != 0) {
			CHECK(0, "weft_execute failed at execution %llu", (unsigned long long)done);
			break;
		}
		if (res.kind != WEFT_KIND_NONE) {
			CHECK(0, "fix %s execution %llu: %s: %s: %s", strategy,
			      (unsigned long long)done + 1, weft_kind_name(res.kind),
			      res.report.object, res.report.msg);
			break;
		}
		nst = sc->stats(weft_last_world(), names, vals, 64);
		for (unsigned k = 0; k < nst; k++)
			sum[k] += vals[k];
	}
	printf("fix: %llu %s executions clean in %.2f s\n", (unsigned long long)done, strategy,
	       z5_now() - t0);
	static const char *const must[] = {
		"shmem_getpage_new", "shmem_swapin_cache_hit", "shmem_swapin_read",
		"shmem_swapin_raced", "shmem_writepage", "shmem_writepage_beyond_eof",
		"truncate_page_cache_page", "truncate_swap_entry",
		"free_swap_and_cache_dropped_page", "free_swap_and_cache_page_busy",
		"swapcache_page_reclaimed", "swapcache_page_busy",
	};
	for (unsigned m = 0; m < sizeof(must) / sizeof(must[0]); m++) {
		uint64_t v = 0;
		for (unsigned k = 0; k < nst; k++)
			if (!strcmp(names[k], must[m]))
				v = sum[k];
		CHECK(v > 0, "counter %s never moved: the workloads miss a path", must[m]);
		printf("  %-36s %llu\n", must[m], (unsigned long long)v);
	}
	return check_done();
}
