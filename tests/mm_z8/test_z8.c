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
#include "zoo_test.h"

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

	zoo_trigger("z8-thp-split:z8", "z8-thp-split:z8", WEFT_KIND_LOST_WAKEUP, 1, NULL, NULL);
	zoo_trigger("z8-thp-split:fix", "z8-thp-split:fix", WEFT_KIND_NONE, 0, NULL, NULL);
	serial_pin("z8-thp-split:z8");
	serial_pin("z8-thp-split:fix");
	zoo_dfs_minimal("z8-thp-split:z8", NULL, 1, WEFT_KIND_LOST_WAKEUP);
	zoo_dfs_clean("z8-thp-split:fix", NULL, 2);
	blind("random", 0, 1);
	blind("random", 0, 2);
	blind("pct", 2, 1);
	zoo_silent("z8-thp-split:fix", "random", 20000, 7, must, ZOO_N(must));
	zoo_silent("z8-thp-split:fix", "pct", 20000, 11, must, ZOO_N(must));
	return check_done();
}
