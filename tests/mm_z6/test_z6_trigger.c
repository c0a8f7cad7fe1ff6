/*
 * test_z6_trigger.c - Z6 on hand-written inputs: each buggy variant's
 * trigger reports its kind at the expected site with 1 preemption; the
 * fixed variant is clean on both; dfs bound 0 covers each trigger
 * workload completely without a report and bound 1 finds the expected
 * kind; the fixed variant is clean and complete under dfs bound 2 on both
 * workloads; the fixed variant's counters show the speculative get failing
 * on a frozen page and the free waiting for a grace period.
 */
#include "z6_test_util.h"

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
		unsigned vi;
		const struct weft_scenario *sc = z6_scenario(k->variant, &vi);
		uint8_t wl[64];
		size_t wl_len = z6_trigger_workload(k->variant, wl, sizeof(wl));
		struct mm_outcome o;

		CHECK(sc && sc->triggers && sc->triggers[vi] && wl_len == 5,
		      "%s has a 2-op trigger", k->variant);
		if (!sc || !wl_len)
			continue;
		CHECK(sc->variants[vi].expect_kind == k->kind && sc->variants[vi].min_preemptions == 1,
		      "%s: variant table says %s", k->variant,
		      weft_kind_name(sc->variants[vi].expect_kind));

		/* the trigger input itself */
		o = z6_run(k->variant, "bytes", 0, 0, sc->triggers[vi], sc->trigger_lens[vi], 1);
		CHECK(o.kind == k->kind, "%s trigger: %s (%s)", k->variant, weft_kind_name(o.kind),
		      o.r.report.msg);
		CHECK(o.r.preemptions == 1, "%s trigger: %u preemptions", k->variant,
		      o.r.preemptions);
		CHECK(o.r.report.here.valid && o.r.report.here.site &&
		      !strcmp(o.r.report.here.site->func, k->func) &&
		      !strncmp(o.r.report.here.site->what, k->what, strlen(k->what)),
		      "%s trigger reported at %s: %s", k->variant,
		      o.r.report.here.site ? o.r.report.here.site->func : "?",
		      o.r.report.here.site ? o.r.report.here.site->what : "?");
		CHECK(!strncmp(o.r.report.object, "page 0", 6), "%s: object '%s'", k->variant,
		      o.r.report.object);
		CHECK(o.r.report.other.valid && o.r.report.other.tid != o.r.report.here.tid,
		      "%s: the other side is the other thread", k->variant);
		printf("%s trigger: %s on %s: %s\n", k->variant, weft_kind_name(o.kind),
		       o.r.report.object, o.r.report.msg);
		o = z6_run("fix", "bytes", 0, 0, sc->triggers[vi], sc->trigger_lens[vi], 1);
		CHECK(o.kind == WEFT_KIND_NONE, "fix on the %s trigger: %s (%s)", k->variant,
		      weft_kind_name(o.kind), o.r.report.msg);

		/* minimal bound: 0 is clean and complete, 1 finds it */
		o = z6_run(k->variant, "dfs", 0, 0, wl, wl_len, 1000000);
		CHECK(o.kind == WEFT_KIND_NONE && o.complete, "%s dfs 0: %s complete %d",
		      k->variant, weft_kind_name(o.kind), o.complete);
		o = z6_run(k->variant, "dfs", 0, 1, wl, wl_len, 1000000);
		CHECK(o.kind == k->kind && o.r.preemptions == 1, "%s dfs 1: %s, %u preemptions",
		      k->variant, weft_kind_name(o.kind), o.r.preemptions);
		printf("%s: dfs bound 1 found %s after %llu executions (%.3f ms)\n", k->variant,
		       weft_kind_name(o.kind), (unsigned long long)o.executions, o.seconds * 1e3);

		/* the fixed variant on the same workload, bound 2, complete */
		o = z6_run("fix", "dfs", 0, 2, wl, wl_len, 1000000);
		CHECK(o.kind == WEFT_KIND_NONE && o.complete, "fix dfs 2 on the %s workload: %s (%s) "
		      "complete %d", k->variant, weft_kind_name(o.kind), o.r.report.msg, o.complete);
		printf("fix: dfs bound 2 on the %s workload: %llu executions, %.3f s, complete\n",
		       k->variant, (unsigned long long)o.executions, o.seconds);
	}

	/* fix, z6a's schedule: the speculative get fails on the frozen page,
	 * the free waits for T0's read-side section, T0 ends it */
	unsigned vi;
	const struct weft_scenario *sc = z6_scenario("z6a", &vi);
	struct mm_outcome o = z6_run("fix", "bytes", 0, 0, sc->triggers[vi], sc->trigger_lens[vi], 1);
	CHECK(o.kind == WEFT_KIND_NONE, "fix: %s", weft_kind_name(o.kind));
	CHECK(z6_stat_of("page_cache_get_speculative_failed") == 1, "fix: speculative get failed once");
	CHECK(z6_stat_of("rcu_deferred_frees") == 1 && z6_stat_of("rcu_grace_period_frees") == 1,
	      "fix: the free waited for the grace period");
	CHECK(z6_stat_of("remove_mapping_freed") == 1, "fix: the page was removed and freed");
	return check_done();
}
