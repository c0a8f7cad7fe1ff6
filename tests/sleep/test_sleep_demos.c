/*
 * test_sleep_demos.c - the sleeping-primitive demos (core/demo/demo_sleep.c):
 *
 *  - each buggy variant is found by dfs at its minimal preemption bound
 *    (min_preemptions) with that many preemptions, and dfs one bound lower
 *    finishes clean; random and pct (depth 2 and 3) find it from seeds 1..5
 *    within a stated budget; its trigger input reproduces it under bytes;
 *  - each fixed variant is silent and complete under dfs bound 2 with both
 *    lock models, and silent over 100 k random executions;
 *  - the dfs execution counts on the trigger workload are pinned: a
 *    sleeper that spun, or a primitive with more scheduling points, would
 *    change them (a spin-loop wait queue multiplies them);
 *  - weft_thread_pending() predicts blocking correctly on every decision of
 *    those dfs runs.
 */
#include "mm_run.h"
#include "sleep_test.h"

struct demo {
	const char *buggy;
	enum weft_kind kind;
	const char *fixed[2];
};

static const struct demo demos[] = {
	{ "demo-mutex:abba", WEFT_KIND_DEADLOCK, { "demo-mutex:ordered", NULL } },
	{ "demo-mutex:non-owner", WEFT_KIND_BAD_UNLOCK, { "demo-mutex:sem-handoff", NULL } },
	{ "demo-rwsem:recursive-read", WEFT_KIND_DEADLOCK, { "demo-rwsem:read-once", NULL } },
	{ "demo-waitq:check-then-sleep", WEFT_KIND_LOST_WAKEUP,
	  { "demo-waitq:wait-event", "demo-waitq:recheck" } },
	{ "demo-completion:reinit-late", WEFT_KIND_LOST_WAKEUP, { "demo-completion:correct", NULL } },
	{ "demo-condvar:missed-signal", WEFT_KIND_LOST_WAKEUP, { "demo-condvar:locked", NULL } },
	{ "demo-pagelock:nonatomic-flags", WEFT_KIND_LOST_WAKEUP,
	  { "demo-pagelock:atomic-flags", NULL } },
};

#define FIND_BUDGET 5000   /* every demo bug within 5 k random or pct executions */

/*
 * dfs executions on the trigger workload, under tas: to the first report
 * for buggy variants, the whole bounded space for fixed ones. Measured
 * once; a change here is a change of the primitives' scheduling points.
 */
static const struct {
	const char *spec;
	unsigned bound;
	uint64_t executions;
} pinned[] = {
	{ "demo-mutex:abba", 0, 2 },
	{ "demo-mutex:abba", 1, 6 },
	{ "demo-mutex:ordered", 1, 12 },
	{ "demo-mutex:ordered", 2, 12 },
	{ "demo-mutex:non-owner", 1, 3 },
	{ "demo-mutex:sem-handoff", 2, 8 },
	{ "demo-rwsem:recursive-read", 1, 5 },
	{ "demo-rwsem:read-once", 2, 7 },
	{ "demo-waitq:check-then-sleep", 1, 3 },
	{ "demo-waitq:wait-event", 1, 6 },
	{ "demo-waitq:wait-event", 2, 9 },
	{ "demo-waitq:recheck", 2, 9 },
	{ "demo-completion:reinit-late", 1, 3 },
	{ "demo-completion:correct", 2, 31 },
	{ "demo-condvar:missed-signal", 1, 4 },
	{ "demo-condvar:locked", 2, 10 },
	{ "demo-pagelock:nonatomic-flags", 1, 3 },
	{ "demo-pagelock:atomic-flags", 2, 12 },
};

static struct st_dfs_out dfs_on_trigger(const char *spec, unsigned bound, enum weft_lock_model lock)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	uint8_t wl[WEFT_INPUT_MAX];
	size_t n = mm_trigger_workload(spec, wl, sizeof(wl));
	struct st_dfs_out o = st_dfs_run(sc, vi, bound, lock, wl, n);

	CHECK(n > 0, "%s declares no trigger", spec);
	CHECK(o.mispredictions == 0, "%s bound %u: weft_thread_pending mispredicted: %s", spec,
	      bound, o.why);
	return o;
}

static void test_buggy(const struct demo *d)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(d->buggy, &vi);
	unsigned min = sc->variants[vi].min_preemptions;
	struct st_dfs_out o;

	CHECK(sc->variants[vi].expect_kind == d->kind, "%s declares %s", d->buggy,
	      weft_kind_name(sc->variants[vi].expect_kind));
	o = dfs_on_trigger(d->buggy, min, WEFT_LOCK_TAS);
	CHECK(o.r.kind == d->kind && o.r.preemptions == min,
	      "%s: dfs bound %u: %s with %u preemptions", d->buggy, min, weft_kind_name(o.r.kind),
	      o.r.preemptions);
	if (min > 0) {
		o = dfs_on_trigger(d->buggy, min - 1, WEFT_LOCK_TAS);
		CHECK(o.r.kind == WEFT_KIND_NONE && o.complete,
		      "%s: dfs bound %u: %s, complete %d", d->buggy, min - 1,
		      weft_kind_name(o.r.kind), o.complete);
	}
	/* the trigger input itself, under bytes */
	struct mm_outcome b = mm_run(d->buggy, "bytes", 0, 0, sc->triggers[vi],
				     sc->trigger_lens[vi], 1, WEFT_KIND_NONE, NULL);
	CHECK(b.kind == d->kind, "%s: trigger gives %s", d->buggy, weft_kind_name(b.kind));
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct mm_outcome r = mm_run(d->buggy, "random", seed, 0, NULL, 0, FIND_BUDGET,
					     WEFT_KIND_NONE, NULL);
		CHECK(r.kind == d->kind, "%s: random seed %llu: %s after %llu", d->buggy,
		      (unsigned long long)seed, weft_kind_name(r.kind),
		      (unsigned long long)r.executions);
		for (unsigned depth = 2; depth <= 3; depth++) {
			r = mm_run(d->buggy, "pct", seed, depth, NULL, 0, FIND_BUDGET, WEFT_KIND_NONE,
				   NULL);
			CHECK(r.kind == d->kind, "%s: pct d=%u seed %llu: %s after %llu", d->buggy,
			      depth, (unsigned long long)seed, weft_kind_name(r.kind),
			      (unsigned long long)r.executions);
		}
	}
}

static void test_fixed(const char *spec)
{
	for (int lock = 0; lock < 2; lock++) {
		struct st_dfs_out o = dfs_on_trigger(spec, 2, (enum weft_lock_model)lock);
		CHECK(o.r.kind == WEFT_KIND_NONE && o.complete, "%s (%s): dfs bound 2: %s (%s)",
		      spec, lock ? "ticket" : "tas", weft_kind_name(o.r.kind), o.r.report.msg);
	}
	struct mm_outcome r = mm_run(spec, "random", 7, 0, NULL, 0, 100000, WEFT_KIND_NONE, NULL);
	CHECK(r.kind == WEFT_KIND_NONE && r.executions == 100000,
	      "%s: random: %s after %llu executions", spec, weft_kind_name(r.kind),
	      (unsigned long long)r.executions);
	printf("%s: dfs bound 2 complete and clean (tas, ticket); 100000 random clean in %.2f s\n",
	       spec, r.seconds);
}

static void test_pinned(void)
{
	for (unsigned i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
		struct st_dfs_out o = dfs_on_trigger(pinned[i].spec, pinned[i].bound, WEFT_LOCK_TAS);
		CHECK(o.executions == pinned[i].executions,
		      "%s: dfs bound %u: %llu executions, pinned %llu", pinned[i].spec,
		      pinned[i].bound, (unsigned long long)o.executions,
		      (unsigned long long)pinned[i].executions);
	}
}

int main(void)
{
	weft_machine_init();
	for (unsigned i = 0; i < sizeof(demos) / sizeof(demos[0]); i++) {
		test_buggy(&demos[i]);
		for (int f = 0; f < 2 && demos[i].fixed[f]; f++)
			test_fixed(demos[i].fixed[f]);
	}
	test_pinned();
	return check_done();
}
