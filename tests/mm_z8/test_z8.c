/*
 * test_z8.c - ZOO Z8 (THP split publishes tail pages before they are
 * initialised), on the installed kit:
 *  - the trigger reports lost-wakeup with 1 preemption (z8); the fix is
 *    clean on the same input;
 *  - serially (no preemption) the getter pins and locks a split tail: the
 *    clean runs exercise the getter, not only its misses;
 *  - dfs on the trigger workload: bound 0 covers the space without a
 *    report, bound 1 finds the lost wakeup (the minimal bound is 1); the
 *    fix is clean and complete at bound 2;
 *  - random and pct d=2 over generated workloads find it;
 *  - the fix stays silent under random and pct over generated workloads,
 *    and those workloads both pin tails and miss frozen ones.
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
	uint8_t wl[64];
	size_t n = mm_trigger_workload(spec, wl, sizeof(wl));
	struct mm_outcome o = mm_run(spec, "dfs", 0, bound, wl, n, 1000000, WEFT_KIND_NONE, NULL);

	CHECK(n > 0, "%s: a trigger workload", spec);
	CHECK(o.kind == want, "%s dfs bound %u: %s", spec, bound, weft_kind_name(o.kind));
	if (complete)
		CHECK(o.complete, "%s dfs bound %u: not complete", spec, bound);
	if (want != WEFT_KIND_NONE)
		CHECK(o.r.preemptions == bound, "%s dfs bound %u: found with %u preemptions", spec,
		      bound, o.r.preemptions);
	printf("%s dfs bound %u: %s after %llu executions%s\n", spec, bound,
	       weft_kind_name(o.kind), (unsigned long long)o.executions,
	       o.complete ? " (complete)" : "");
}

/* Serially, T1 locking tail 3 after the split pins it (both variants). */
static void serial_pin(const char *spec)
{
	static const uint8_t in[] = { 2, 0x10, 0x02, 0x11, 0x00 };   /* T1: lock 3, wait 1 */
	struct mm_outcome o = mm_run(spec, "bytes", 0, 0, in, sizeof(in), 1, WEFT_KIND_NONE,
				     "speculative_pins");

	CHECK(o.kind == WEFT_KIND_NONE, "%s serial: %s (%s)", spec, weft_kind_name(o.kind),
	      o.r.report.msg);
	CHECK(o.stat == 2, "%s serial: %llu pins, want 2", spec, (unsigned long long)o.stat);
	o = mm_run(spec, "bytes", 0, 0, in, sizeof(in), 1, WEFT_KIND_NONE, "split_tails");
	CHECK(o.stat == 3, "%s serial: %llu tails split, want 3", spec, (unsigned long long)o.stat);
}

static void blind(const char *strategy, unsigned param, uint64_t seed)
{
	struct mm_outcome o = mm_run("z8-thp-split:z8", strategy, seed, param, NULL, 0, 200000,
				     WEFT_KIND_LOST_WAKEUP, NULL);

	CHECK(o.kind == WEFT_KIND_LOST_WAKEUP, "%s seed %llu: %s in %llu executions", strategy,
	      (unsigned long long)seed, weft_kind_name(o.kind), (unsigned long long)o.executions);
	printf("z8 %s seed %llu: %s after %llu executions\n", strategy, (unsigned long long)seed,
	       weft_kind_name(o.kind), (unsigned long long)o.executions);
}

int main(void)
{
	static const char *const must[] = { "split_tails", "speculative_pins",
					    "speculative_misses" };
	struct mm_counters c;

	trigger("z8-thp-split:z8", WEFT_KIND_LOST_WAKEUP);
	trigger("z8-thp-split:fix", WEFT_KIND_NONE);
	serial_pin("z8-thp-split:z8");
	serial_pin("z8-thp-split:fix");
	dfs("z8-thp-split:z8", 0, WEFT_KIND_NONE, true);
	dfs("z8-thp-split:z8", 1, WEFT_KIND_LOST_WAKEUP, false);
	dfs("z8-thp-split:fix", 2, WEFT_KIND_NONE, true);
	blind("random", 0, 1);
	blind("random", 0, 2);
	blind("pct", 2, 1);
	memset(&c, 0, sizeof(c));
	mm_silent("z8-thp-split:fix", "random", 20000, 7, &c);
	mm_require_counters("z8-thp-split:fix", &c, must, 3);
	memset(&c, 0, sizeof(c));
	mm_silent("z8-thp-split:fix", "pct", 20000, 11, &c);
	mm_require_counters("z8-thp-split:fix", &c, must, 3);
	return check_done();
}
