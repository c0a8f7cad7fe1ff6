/*
 * test_z9.c - ZOO Z9 (swap-in ABA through the swap cache), on the
 * installed kit:
 *  - the triggers (Hugh's race: B preempted between lookup_swap_cache()
 *    and lock_page()) report data-loss with 1 preemption on z9 and fix1;
 *    the fix backs off on its trigger (page_private(page) != entry);
 *  - dfs on the trigger workload: bound 0 covers the space clean, bound 1
 *    finds the bug (the minimal bound is 1) on both buggy variants;
 *  - the fix is clean and complete under dfs bound 1 and 2;
 *  - pct d=2 finds both buggy variants on the trigger workload, and z9 on
 *    generated workloads; the fix stays silent under pct on the trigger
 *    workload (taking its page_private() check) and under random and pct
 *    over generated workloads (which take its PageSwapCache() check).
 */
#include "zoo_test.h"

/* pct d=2 on the trigger workload finds the race (its priority change
 * point is the one preemption); uniform random does not: B must stay off
 * the CPU for ~150 decisions while A and C run (docs/zoo/z9.md). */
static void blind(const char *spec, uint64_t seed, bool generated)
{
	uint8_t wl[128];
	size_t n = generated ? 0 : mm_trigger_workload(spec, wl, sizeof(wl));
	struct mm_outcome o = mm_run(spec, "pct", seed, 2, generated ? NULL : wl, n, 200000,
				     WEFT_KIND_NONE, NULL);

	CHECK(o.kind == WEFT_KIND_DATA_LOSS, "%s pct d=2 seed %llu (%s workload): %s", spec,
	      (unsigned long long)seed, generated ? "generated" : "trigger",
	      weft_kind_name(o.kind));
	printf("%s pct d=2 seed %llu, %s workload: %s after %llu executions\n", spec,
	       (unsigned long long)seed, generated ? "generated" : "trigger",
	       weft_kind_name(o.kind), (unsigned long long)o.executions);
}

int main(void)
{
	zoo_trigger("z9-swapcache-aba:z9", "z9-swapcache-aba:z9", WEFT_KIND_DATA_LOSS, 1, NULL,
		    NULL);
	zoo_trigger("z9-swapcache-aba:fix1", "z9-swapcache-aba:fix1", WEFT_KIND_DATA_LOSS, 1, NULL,
		    NULL);
	struct mm_outcome o = zoo_trigger("z9-swapcache-aba:fix", "z9-swapcache-aba:fix",
					  WEFT_KIND_NONE, 0, NULL, NULL);
	CHECK(o.r.preemptions == 1 &&
	      zoo_stat("z9-swapcache-aba:fix", "do_swap_page_private_changed") >= 1,
	      "fix trigger: %u preemptions, backs off on page_private()", o.r.preemptions);

	zoo_dfs_minimal("z9-swapcache-aba:z9", NULL, 1, WEFT_KIND_DATA_LOSS);
	zoo_dfs_minimal("z9-swapcache-aba:fix1", NULL, 1, WEFT_KIND_DATA_LOSS);
	zoo_dfs_clean("z9-swapcache-aba:fix", NULL, 1);
	uint64_t nb2 = zoo_dfs_clean("z9-swapcache-aba:fix", NULL, 2);
	CHECK(nb2 > 100000, "fix dfs bound 2: only %llu executions", (unsigned long long)nb2);

	blind("z9-swapcache-aba:z9", 1, false);
	blind("z9-swapcache-aba:fix1", 1, false);
	blind("z9-swapcache-aba:fix1", 2, false);
	blind("z9-swapcache-aba:z9", 4, true);

	/* the fix under pct on the trigger workload: silent, and the race
	 * reaches its page_private() check */
	{
		uint8_t wl[128];
		size_t n = mm_trigger_workload("z9-swapcache-aba:fix", wl, sizeof(wl));
		o = mm_run("z9-swapcache-aba:fix", "pct", 1, 2, wl, n, 20000,
			   WEFT_KIND_NONE, "do_swap_page_private_changed");
		CHECK(o.kind == WEFT_KIND_NONE, "fix pct d=2 trigger workload: %s",
		      weft_kind_name(o.kind));
		CHECK(o.stat > 0, "fix pct d=2: page_private() check never taken");
		printf("fix pct d=2, trigger workload: clean in %llu executions, %llu backed off "
		       "on page_private\n", (unsigned long long)o.executions,
		       (unsigned long long)o.stat);
	}

	/* the fix: silent, and the generated workloads reach both checks */
	static const char *const must[] = {
		"lookup_swap_cache_hit", "read_swap_cache_async_read",
		"do_swap_page_not_swapcache",
		"reuse_swap_page", "do_wp_page_copy", "pageout", "remove_mapping_freed",
		"checked_reads", "writes",
	};
	struct mm_counters c;
	zoo_silent("z9-swapcache-aba:fix", "random", 30000, 7, NULL, 0);
	memset(&c, 0, sizeof(c));
	mm_silent("z9-swapcache-aba:fix", "random", 30000, 8, &c);
	mm_silent("z9-swapcache-aba:fix", "random", 30000, 9, &c);
	mm_require_counters("z9-swapcache-aba:fix", &c, must, sizeof(must) / sizeof(must[0]));
	zoo_silent("z9-swapcache-aba:fix", "pct", 20000, 11, NULL, 0);
	return check_done();
}
