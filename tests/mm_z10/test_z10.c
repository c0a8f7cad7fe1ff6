/*
 * test_z10.c - ZOO Z10 (try_to_unmap_cluster() mlocks pages it has not
 * locked), on the installed kit:
 *  - z10 reports the kernel's BUG_ON(!PageLocked) on its trigger with 0
 *    preemptions (the serial run), and dfs bound 0 finds it;
 *  - the NR_MLOCK drift (the audit's assertion) needs a migration holding
 *    the page lock: counting only assertion reports, dfs bound 0 covers
 *    the space clean and complete and bound 1 finds it (its minimal bound);
 *  - random and pct find both kinds; the drift replays as the race the
 *    model header draws (a mlocked page freed through bad_page());
 *  - the fix is clean on the trigger, complete under dfs bound 2, silent
 *    under random and pct over generated workloads, which reach its
 *    trylock-failed skip.
 */
#include "zoo_test.h"

/* dfs on the trigger workload, counting only reports of kind `only`
 * (WEFT_KIND_NONE: any) as in `weft run --kind`. */
static struct mm_outcome dfs(const char *spec, unsigned bound, enum weft_kind only,
			     enum weft_kind want, bool complete)
{
	uint8_t wl[128];
	size_t n = mm_trigger_workload(spec, wl, sizeof(wl));
	struct mm_outcome o = mm_run(spec, "dfs", 0, bound, wl, n, 1000000, only, NULL);

	CHECK(n > 1, "%s: trigger workload", spec);
	CHECK(o.kind == want, "%s dfs bound %u: %s", spec, bound, weft_kind_name(o.kind));
	if (complete)
		CHECK(o.complete, "%s dfs bound %u: not complete", spec, bound);
	if (want != WEFT_KIND_NONE)
		CHECK(o.r.preemptions == bound, "%s dfs bound %u: %u preemptions", spec, bound,
		      o.r.preemptions);
	printf("%s dfs bound %u (%s): %s after %llu executions%s\n", spec, bound,
	       only == WEFT_KIND_NONE ? "any kind" : weft_kind_name(only),
	       weft_kind_name(o.kind), (unsigned long long)o.executions,
	       o.complete ? " (complete)" : "");
	return o;
}

int main(void)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("z10-mlock:z10", &vi);

	CHECK(sc && sc->triggers && sc->triggers[vi], "z10 has a trigger");
	if (!sc)
		return check_done();
	struct mm_outcome o = mm_run("z10-mlock:z10", "bytes", 0, 0, sc->triggers[vi],
				     sc->trigger_lens[vi], 1, WEFT_KIND_NONE, NULL);
	CHECK(o.r.kind == WEFT_KIND_BUG_ON && o.r.preemptions == 0, "z10 trigger: %s, %u "
	      "preemptions", weft_kind_name(o.r.kind), o.r.preemptions);
	o = mm_run("z10-mlock:fix", "bytes", 0, 0, sc->triggers[vi], sc->trigger_lens[vi], 1,
		   WEFT_KIND_NONE, "mlock_vma_page_set");
	CHECK(o.r.kind == WEFT_KIND_NONE, "fix trigger: %s", weft_kind_name(o.r.kind));
	CHECK(o.stat == 2, "fix trigger: %llu pages mlocked (A, and B trylocked)",
	      (unsigned long long)o.stat);

	dfs("z10-mlock:z10", 0, WEFT_KIND_NONE, WEFT_KIND_BUG_ON, false);
	dfs("z10-mlock:z10", 0, WEFT_KIND_ASSERT, WEFT_KIND_NONE, true);
	o = dfs("z10-mlock:z10", 1, WEFT_KIND_ASSERT, WEFT_KIND_ASSERT, false);
	CHECK(strstr(o.r.report.msg, "NR_MLOCK is 2 but 1 live pages") != NULL,
	      "the drift: %s", o.r.report.msg);
	dfs("z10-mlock:fix", 1, WEFT_KIND_NONE, WEFT_KIND_NONE, true);
	dfs("z10-mlock:fix", 2, WEFT_KIND_NONE, WEFT_KIND_NONE, true);

	/* random and pct (generated workloads) find both kinds */
	for (unsigned s = 0; s < 2; s++) {
		const char *st = s ? "pct" : "random";
		o = mm_run("z10-mlock:z10", st, 1, 2, NULL, 0, 1000, WEFT_KIND_BUG_ON, NULL);
		CHECK(o.kind == WEFT_KIND_BUG_ON, "%s: bug-on: %s", st, weft_kind_name(o.kind));
		o = mm_run("z10-mlock:z10", st, 1, 2, NULL, 0, 100000, WEFT_KIND_ASSERT, NULL);
		CHECK(o.kind == WEFT_KIND_ASSERT, "%s: NR_MLOCK drift: %s", st,
		      weft_kind_name(o.kind));
		printf("z10 %s: NR_MLOCK drift after %llu executions\n", st,
		       (unsigned long long)o.executions);
	}

	static const char *const must[] = {
		"mlock_vma_page_set", "cluster_trylock_failed", "try_to_unmap_cluster",
		"shrink_page_list_trylock_failed", "migrated", "migrate_pte_changed",
		"mlock_migrate_page_moved",
	};
	struct mm_counters c;
	memset(&c, 0, sizeof(c));
	mm_silent("z10-mlock:fix", "random", 50000, 7, &c);
	mm_require_counters("z10-mlock:fix", &c, must, sizeof(must) / sizeof(must[0]));
	CHECK(mm_counter(&c, "bad_page_mlocked") == 0, "fix: an mlocked page was freed");
	zoo_silent("z10-mlock:fix", "pct", 30000, 11, NULL, 0);
	return check_done();
}
