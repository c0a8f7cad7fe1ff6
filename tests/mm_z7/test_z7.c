/*
 * test_z7.c - ZOO Z7 (swap count continuation), on the installed kit:
 *  - the triggers report swap-slot-leak with 1 preemption (z7, z7-small),
 *    and the fixed variants are clean on the same inputs;
 *  - dfs on the trigger workloads: bound 0 finds nothing and covers the
 *    space, bound 1 finds the leak (the minimal bound is 1);
 *  - the fixes are clean and complete under dfs bound 1 (real constants)
 *    and bound 2 (small constants) on the trigger workloads;
 *  - the deep state: random and pct d=2 over generated workloads do not
 *    reach z7 (real constants) in 20 k executions each, and the fixes
 *    stay silent under random over generated workloads;
 *  - the encoding: a slot duplicated past SWAP_MAP_MAX carries into a
 *    continuation page and borrows back when freed, serially.
 */
#include "mm_run.h"

static void trigger(const char *spec, enum weft_kind want)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	struct weft_bytes b;
	struct weft_exec_result r;
	struct weft_run_opts o;

	CHECK(sc && sc->triggers && sc->triggers[vi], "%s has a trigger", spec);
	if (!sc)
		return;
	o = (struct weft_run_opts){ .sc = sc, .variant = vi, .lock = sc->default_lock };
	weft_bytes_init(&b, sc, sc->triggers[vi], sc->trigger_lens[vi]);
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute");
	CHECK(r.kind == want, "%s trigger: %s (%s)", spec, weft_kind_name(r.kind), r.report.msg);
	if (want != WEFT_KIND_NONE)
		CHECK(r.preemptions == 1, "%s trigger: %u preemptions", spec, r.preemptions);
}

static void dfs(const char *spec, unsigned bound, enum weft_kind want, bool complete)
{
	uint8_t wl[128];
	size_t n = mm_trigger_workload(spec, wl, sizeof(wl));
	struct mm_outcome o = mm_run(spec, "dfs", 0, bound, wl, n, 1000000, WEFT_KIND_NONE, NULL);

	CHECK(o.kind == want, "%s dfs bound %u: %s", spec, bound, weft_kind_name(o.kind));
	if (complete)
		CHECK(o.complete, "%s dfs bound %u: not complete", spec, bound);
	printf("%s dfs bound %u: %s after %llu executions%s\n", spec, bound,
	       weft_kind_name(o.kind), (unsigned long long)o.executions,
	       o.complete ? " (complete)" : "");
}

static void carry_and_borrow(void)
{
	/* serially: T0 dups slot 0 eight times (2 -> carry), frees them all */
	static const uint8_t in[] = { 2, 0x00, 0x70, 0x01, 0x70 };
	struct mm_outcome o = mm_run("z7-swapcont:z7-small", "bytes", 0, 0, in, sizeof(in), 1,
				     WEFT_KIND_NONE, "swap_count_continued");
	CHECK(o.kind == WEFT_KIND_NONE, "serial carry/borrow: %s", weft_kind_name(o.kind));
	CHECK(o.stat >= 6, "the continuation was walked %llu times", (unsigned long long)o.stat);
	o = mm_run("z7-swapcont:z7-small", "bytes", 0, 0, in, 3, 1, WEFT_KIND_NONE,
		   "continuation_pages_added");
	CHECK(o.kind == WEFT_KIND_NONE && o.stat >= 1, "a continuation page was added");
}

int main(void)
{
	trigger("z7-swapcont:z7", WEFT_KIND_SLOT_LEAK);
	trigger("z7-swapcont:z7-small", WEFT_KIND_SLOT_LEAK);
	trigger("z7-swapcont:fix", WEFT_KIND_NONE);
	trigger("z7-swapcont:fix-small", WEFT_KIND_NONE);
	dfs("z7-swapcont:z7-small", 0, WEFT_KIND_NONE, true);
	dfs("z7-swapcont:z7-small", 1, WEFT_KIND_SLOT_LEAK, false);
	dfs("z7-swapcont:z7", 0, WEFT_KIND_NONE, true);
	dfs("z7-swapcont:z7", 1, WEFT_KIND_SLOT_LEAK, false);
	dfs("z7-swapcont:fix", 1, WEFT_KIND_NONE, true);
	dfs("z7-swapcont:fix-small", 2, WEFT_KIND_NONE, true);
	carry_and_borrow();

	/* the deep state is out of reach of blind search */
	for (unsigned s = 0; s < 2; s++) {
		struct mm_outcome o = mm_run("z7-swapcont:z7", s ? "pct" : "random", 1, 2, NULL, 0,
					     20000, WEFT_KIND_SLOT_LEAK, NULL);
		CHECK(o.kind == WEFT_KIND_NONE, "%s reached z7's deep state",
		      s ? "pct" : "random");
	}
	struct mm_counters c;
	memset(&c, 0, sizeof(c));
	mm_silent("z7-swapcont:fix", "random", 20000, 7, &c);
	memset(&c, 0, sizeof(c));
	mm_silent("z7-swapcont:fix-small", "random", 50000, 7, &c);
	memset(&c, 0, sizeof(c));
	mm_silent("z7-swapcont:fix-small", "pct", 20000, 11, &c);
	return check_done();
}
