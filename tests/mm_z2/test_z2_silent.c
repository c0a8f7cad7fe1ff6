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
	unsigned vi;
	const struct weft_scenario *sc = z2_scenario(variant, &vi);
	struct weft_random r;
	struct weft_pct p;
	const struct weft_strategy_ops *ops = &weft_strategy_random;
	void *st = &r;
	struct weft_exec_result res;
	const char *names[64];
	uint64_t vals[64], sum[64] = { 0 };
	unsigned nst = 0;
	uint64_t done = 0;

	CHECK(sc && !sc->variants[vi].buggy, "%s is a fixed variant", variant);
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
	double t0 = z2_now();
	for (; done < n; done++) {
		if (weft_execute(&o, ops, st, &res) != 0) {
			CHECK(0, "weft_execute failed at execution %llu", (unsigned long long)done);
			break;
		}
		if (res.kind != WEFT_KIND_NONE) {
			CHECK(0, "%s %s execution %llu: %s: %s: %s", variant, strategy,
			      (unsigned long long)done + 1, weft_kind_name(res.kind),
			      res.report.object, res.report.msg);
			break;
		}
		nst = sc->stats(weft_last_world(), names, vals, 64);
		for (unsigned k = 0; k < nst; k++)
			sum[k] += vals[k];
	}
	printf("%s: %llu %s executions clean in %.2f s\n", variant, (unsigned long long)done,
	       strategy, z2_now() - t0);
	static const char *const must[] = {
		"batch_fast_path", "batch_fast_path_has_cache", "batch_fallback",
		"try_to_reclaim_swap_freed", "swapin_cache_hit", "swapin_read",
		"swapcache_folio_split", "swapcache_folio_reclaimed", "slots_ret_flushes",
	};
	for (unsigned m = 0; m < sizeof(must) / sizeof(must[0]); m++) {
		uint64_t v = 0;
		for (unsigned k = 0; k < nst; k++)
			if (!strcmp(names[k], must[m]))
				v = sum[k];
		/* per-entry has no fast path by construction */
		if (!strcmp(variant, "per-entry") && !strncmp(must[m], "batch_", 6))
			continue;
		CHECK(v > 0, "%s: counter %s never moved: the workloads miss a path", variant,
		      must[m]);
		printf("  %-28s %llu\n", must[m], (unsigned long long)v);
	}
	return check_done();
}
