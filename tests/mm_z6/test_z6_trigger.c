/*
 * test_z6_trigger.c - Z6 on hand-written inputs: each buggy variant's
 * trigger reports its kind at the expected site with 1 preemption; the
 * fixed variant is clean on both; dfs bound 0 covers each trigger
 * workload completely without a report and bound 1 finds the expected
 * kind; the fixed variant is clean and complete under dfs bound 2 on both
 * workloads; the fixed variant's counters show the speculative get failing
 * on a frozen page and the free waiting for a grace period.
 */
#include "zoo_test.h"

#define Z6 "z6-spec-pagecache"

struct z6_case {
	const char *variant;
	enum weft_kind kind;
	const char *func;       /* function of the reporting site */
	const char *what;       /* its operation text (prefix) */
};

static const struct z6_case cases[] = {
	{ "z6a", WEFT_KIND_DOUBLE_FREE, "z6_free_page", "free_page: page already freed" },
	{ "z6b", WEFT_KIND_USE_AFTER_FREE, "z6_lookup", "READ_ONCE(p->mapping)" },
};

int main(void)
{
	for (unsigned c = 0; c < 2; c++) {
		const struct z6_case *k = &cases[c];
		const char *spec = zoo_spec(Z6, k->variant);
		unsigned vi;
		const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
		uint8_t wl[64];

		CHECK(sc && mm_trigger_workload(spec, wl, sizeof(wl)) == 5, "%s has a 2-op trigger",
		      spec);
		if (!sc)
			continue;
		CHECK(sc->variants[vi].expect_kind == k->kind && sc->variants[vi].min_preemptions == 1,
		      "%s: variant table says %s", k->variant,
		      weft_kind_name(sc->variants[vi].expect_kind));

		/* the trigger input itself, and the fix on it */
		struct mm_outcome o = zoo_trigger(spec, spec, k->kind, 1, k->func, k->what);
		CHECK(!strncmp(o.r.report.object, "page 0", 6), "%s: object '%s'", k->variant,
		      o.r.report.object);
		CHECK(o.r.report.other.valid && o.r.report.other.tid != o.r.report.here.tid,
		      "%s: the other side is the other thread", k->variant);
		zoo_trigger(Z6 ":fix", spec, WEFT_KIND_NONE, 0, NULL, NULL);

		/* minimal bound: 0 is clean and complete, 1 finds it; the fixed
		 * variant on the same workload, bound 2, complete */
		zoo_dfs_minimal(spec, NULL, 1, k->kind);
		zoo_dfs_clean(Z6 ":fix", spec, 2);
	}

	/* fix, z6a's schedule: the speculative get fails on the frozen page,
	 * the free waits for T0's read-side section, T0 ends it */
	zoo_trigger(Z6 ":fix", Z6 ":z6a", WEFT_KIND_NONE, 0, NULL, NULL);
	CHECK(zoo_stat(Z6 ":fix", "page_cache_get_speculative_failed") == 1,
	      "fix: speculative get failed once");
	CHECK(zoo_stat(Z6 ":fix", "rcu_deferred_frees") == 1 &&
	      zoo_stat(Z6 ":fix", "rcu_grace_period_frees") == 1,
	      "fix: the free waited for the grace period");
	CHECK(zoo_stat(Z6 ":fix", "remove_mapping_freed") == 1, "fix: the page was removed and freed");
	/* WEFT_MM_STATS_FN(): the page model's rows follow the model's */
	CHECK(zoo_stat(Z6 ":fix", "page_free") >= 1, "fix: the page model counted the free");
	return check_done();
}
