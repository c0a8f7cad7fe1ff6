/*
 * test_rcu_demos.c - the figures of core/demo/demo_rcu.c (docs/writing-a-
 * model.md quotes them): each buggy variant is found by dfs at its minimal
 * preemption bound on its trigger workload and not below it, and by random
 * and pct (depth 3) over generated workloads from seeds 1..5 (executions
 * to the bug printed); each fixed variant is covered completely by dfs at
 * bound 2 on the same trigger workload, and is silent under 100 k random
 * executions (and 20 k pct) over generated workloads.
 *
 * usage: test_rcu_demos [--quick]   (--quick: 10 k random, 2 k pct)
 */
#include "mm_run.h"

static const char *const buggy[] = {
	"demo-rcu:no-grace", "demo-refcount:inc", "demo-xa-split:publish-first",
	"demo-xa-split:no-split", "demo-percpu-ref:kill",
};
static const char *const fixed[] = {
	"demo-rcu:synchronize", "demo-rcu:kfree-rcu", "demo-rcu:call-rcu",
	"demo-refcount:inc-not-zero", "demo-xa-split:init-first", "demo-percpu-ref:kill-sync",
	"demo-percpu-ref:kill-confirm",
};

static void find(const char *spec)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	const struct weft_variant *va = &sc->variants[vi];
	uint8_t wl[WEFT_INPUT_MAX];
	size_t wl_len = mm_trigger_workload(spec, wl, sizeof(wl));
	unsigned k = va->min_preemptions;

	CHECK(wl_len > 1, "%s declares a trigger workload", spec);
	struct mm_outcome o = mm_run(spec, "dfs", 0, k, wl, wl_len, 1000000, WEFT_KIND_NONE, NULL);
	CHECK(o.kind == va->expect_kind && o.r.preemptions == k,
	      "%s: dfs bound %u finds %s with %u preemptions: got %s, %u", spec, k,
	      weft_kind_name(va->expect_kind), k, weft_kind_name(o.kind), o.r.preemptions);
	printf("%s: dfs bound %u: %s after %llu executions", spec, k, weft_kind_name(o.kind),
	       (unsigned long long)o.executions);
	if (k) {
		struct mm_outcome below = mm_run(spec, "dfs", 0, k - 1, wl, wl_len, 1000000,
						 WEFT_KIND_NONE, NULL);
		CHECK(below.kind == WEFT_KIND_NONE && below.complete,
		      "%s: dfs bound %u is clean and complete: %s", spec, k - 1,
		      weft_kind_name(below.kind));
		printf("; bound %u clean (%llu executions, complete)", k - 1,
		       (unsigned long long)below.executions);
	}
	printf("\n");
	for (const char *strategy = "random";; strategy = "pct") {
		uint64_t execs[5];
		for (uint64_t seed = 1; seed <= 5; seed++) {
			o = mm_run(spec, strategy, seed, 3, NULL, 0, 200000, va->expect_kind, NULL);
			CHECK(o.kind == va->expect_kind, "%s: %s seed %llu found no %s", spec,
			      strategy, (unsigned long long)seed, weft_kind_name(va->expect_kind));
			execs[seed - 1] = o.executions;
		}
		printf("  %s%s: executions to the bug, seeds 1..5: %llu %llu %llu %llu %llu\n",
		       strategy, strategy[0] == 'p' ? " d=3" : "", (unsigned long long)execs[0],
		       (unsigned long long)execs[1], (unsigned long long)execs[2],
		       (unsigned long long)execs[3], (unsigned long long)execs[4]);
		if (strategy[0] == 'p')
			break;
	}
}

/* A larger workload per scenario (two operations per thread, every kind)
 * for a second certificate. */
static const struct {
	const char *scenario;
	uint8_t wl[12];
	size_t len;
} larger[] = {
	/* T0 read, update; T1 update, read */
	{ "demo-rcu", { 4, 0x00, 0, 0x01, 0, 0x11, 0, 0x10, 0 }, 9 },
	/* T0 lookup, remove; T1 insert, lookup, remove */
	{ "demo-refcount", { 5, 0x00, 0, 0x01, 0, 0x12, 0, 0x10, 0, 0x11, 0 }, 11 },
	/* T0 split, lookup 4; T1 lookup 7, lookup 5 */
	{ "demo-xa-split", { 4, 0x01, 0, 0x00, 0, 0x10, 3, 0x10, 1 }, 9 },
	/* T0 user, user; T1 teardown, user */
	{ "demo-percpu-ref", { 4, 0x00, 0, 0x00, 0, 0x11, 0, 0x10, 0 }, 9 },
};

static void silent(const char *spec, uint64_t nrandom, uint64_t npct)
{
	uint8_t wl[WEFT_INPUT_MAX];
	size_t wl_len = mm_trigger_workload(spec, wl, sizeof(wl));

	CHECK(wl_len > 1, "%s declares a trigger workload", spec);
	struct mm_outcome o = mm_run(spec, "dfs", 0, 2, wl, wl_len, 5000000, WEFT_KIND_NONE, NULL);
	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "%s: dfs bound 2: %s (%s), complete %d",
	      spec, weft_kind_name(o.kind), o.r.report.msg, o.complete);
	printf("%s: dfs bound 2 complete and clean: %llu executions (trigger workload)", spec,
	       (unsigned long long)o.executions);
	for (unsigned i = 0; i < sizeof(larger) / sizeof(larger[0]); i++) {
		size_t n = strlen(larger[i].scenario);
		if (strncmp(spec, larger[i].scenario, n) || spec[n] != ':')
			continue;
		o = mm_run(spec, "dfs", 0, 2, larger[i].wl, larger[i].len, 5000000, WEFT_KIND_NONE,
			   NULL);
		CHECK(o.kind == WEFT_KIND_NONE && o.complete,
		      "%s: dfs bound 2, larger workload: %s (%s), complete %d", spec,
		      weft_kind_name(o.kind), o.r.report.msg, o.complete);
		printf(", %llu (a 4-5 operation workload)", (unsigned long long)o.executions);
	}
	printf("\n");
	for (const char *strategy = "random";; strategy = "pct") {
		uint64_t n = strategy[0] == 'r' ? nrandom : npct;
		o = mm_run(spec, strategy, 7, 3, NULL, 0, n, WEFT_KIND_NONE, NULL);
		CHECK(o.kind == WEFT_KIND_NONE && o.executions == n, "%s: %s: %s after %llu (%s)",
		      spec, strategy, weft_kind_name(o.kind), (unsigned long long)o.executions,
		      o.r.report.msg);
		printf("  %s: %llu executions clean in %.2f s\n", strategy,
		       (unsigned long long)o.executions, o.seconds);
		if (strategy[0] == 'p')
			break;
	}
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");

	for (unsigned i = 0; i < sizeof(buggy) / sizeof(buggy[0]); i++)
		find(buggy[i]);
	for (unsigned i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		silent(fixed[i], quick ? 10000 : 100000, quick ? 2000 : 20000);
	return check_done();
}
