/*
 * test_dpor_demos.c - the partial-order reduction demos (core/demo/
 * demo_por.c) hold what they claim:
 *
 *  - every buggy variant is found by iterative bounding (source-DPOR at
 *    bound 0, 1, ...) exactly at its minimal preemption count, every
 *    smaller bound searched completely and clean; where plain dfs can
 *    enumerate the smaller bounds (demo-por-rw, demo-por-locks at bound
 *    0), it agrees, independently of dpor.c;
 *  - the counts the demos are for, in closed form: demo-por-writers:atomic
 *    has 2 traces (the order of the two atomic_inc()s; the ten writers of
 *    their own locations add none) and is verified in 2 executions;
 *    demo-por-locks:one-lock has 8! traces (the order of the critical
 *    sections), two-locks 4! x 4!; demo-por-rw:locked 5!/2 (T0's two
 *    critical sections in order among the readers' three);
 *  - demo-por-writers:racy is found within 100 executions (issue 13).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "check.h"

struct level {
	uint64_t execs, redundant;
	bool complete, bug;
	unsigned preemptions;
	enum weft_kind kind;
};

static struct level search(const struct weft_scenario *sc, unsigned vi, enum weft_por m,
			   unsigned bound)
{
	struct level l = { 0 };
	struct weft_dpor *d = weft_dpor_new();
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .no_trace_hash = true };
	struct weft_exec_result r;
	struct weft_dpor_stats st;

	CHECK(d && weft_dpor_reset(d, sc, m, bound, sc->default_lock, NULL, 0) == 0, "reset");
	while (weft_execute(&o, &weft_strategy_dpor, d, &r) == 0) {
		if (r.kind != WEFT_KIND_NONE) {
			l.bug = true;
			l.kind = r.kind;
			l.preemptions = r.preemptions;
			break;
		}
	}
	weft_dpor_get_stats(d, &st);
	l.execs = st.executions;
	l.redundant = st.redundant;
	l.complete = weft_dpor_complete(d);
	weft_dpor_free(d);
	return l;
}

/* Plain dfs at one bound: found a bug? (complete when not) */
static bool plain_finds(const struct weft_scenario *sc, unsigned vi, unsigned bound)
{
	static struct weft_dfs dfs;
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .no_trace_hash = true };
	struct weft_exec_result r;

	weft_dfs_init(&dfs, sc, bound, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, &dfs, &r) == 0)
		if (r.kind != WEFT_KIND_NONE)
			return true;
	CHECK(dfs.complete, "%s: plain dfs at bound %u incomplete", sc->name, bound);
	return false;
}

static const struct weft_scenario *find(const char *name, unsigned *vi)
{
	const struct weft_scenario *sc = weft_scenario_find(name, vi);

	CHECK(sc != NULL, "no scenario %s", name);
	if (!sc)
		exit(check_done());
	return sc;
}

/* Iterative bounding finds the variant at its minimal preemption count;
 * returns the executions it took. */
static uint64_t minimal(const char *name, bool plain_too)
{
	unsigned vi;
	const struct weft_scenario *sc = find(name, &vi);
	const struct weft_variant *va = &sc->variants[vi];
	uint64_t total = 0;

	for (unsigned b = 0; b <= va->min_preemptions; b++) {
		struct level l = search(sc, vi, WEFT_POR_SOURCE, b);
		total += l.execs;
		if (b < va->min_preemptions) {
			CHECK(!l.bug && l.complete, "%s: bound %u: %s", name, b,
			      l.bug ? "a bug below the minimal count" : "incomplete");
			if (plain_too)
				CHECK(!plain_finds(sc, vi, b), "%s: plain dfs finds it at bound %u", name,
				      b);
		} else {
			CHECK(l.bug && l.kind == va->expect_kind && l.preemptions == b,
			      "%s: bound %u: bug %d kind %d preemptions %u, want kind %d at %u", name,
			      b, l.bug, (int)l.kind, l.preemptions, (int)va->expect_kind, b);
			if (plain_too)
				CHECK(plain_finds(sc, vi, b), "%s: plain dfs misses it at bound %u", name,
				      b);
		}
	}
	return total;
}

static void traces(const char *name, enum weft_por m, unsigned bound, uint64_t want)
{
	unsigned vi;
	const struct weft_scenario *sc = find(name, &vi);
	struct level l = search(sc, vi, m, bound);

	CHECK(!l.bug && l.complete, "%s: %s", name, l.bug ? "bug" : "incomplete");
	CHECK(l.execs - l.redundant == want,
	      "%s, %s, bound %d: %llu executions (%llu sleep-set blocked), want %llu", name,
	      weft_por_name(m), bound == WEFT_BOUND_NONE ? -1 : (int)bound,
	      (unsigned long long)l.execs, (unsigned long long)l.redundant,
	      (unsigned long long)want);
	if (m == WEFT_POR_OPTIMAL)
		CHECK(l.redundant == 0, "%s: optimal with sleep-set blocked executions", name);
}

int main(void)
{
	weft_machine_init();

	/* bugs at 0, 1 and 2 preemptions */
	minimal("demo-por-rw:unchecked", true);
	minimal("demo-por-rw:torn", true);
	minimal("demo-por-rw:ordered", true);
	minimal("demo-por-locks:split", true);
	uint64_t n = minimal("demo-por-writers:racy", false);
	CHECK(n <= 100, "demo-por-writers:racy took %llu executions (target <= 100)",
	      (unsigned long long)n);

	/* closed forms */
	traces("demo-por-writers:atomic", WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, 2);
	traces("demo-por-writers:atomic", WEFT_POR_SOURCE, WEFT_BOUND_NONE, 2);
	traces("demo-por-locks:two-locks", WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, 24 * 24);
	traces("demo-por-locks:two-locks", WEFT_POR_SOURCE, WEFT_BOUND_NONE, 24 * 24);
	for (unsigned b = 0; b <= 2; b++)
		traces("demo-por-locks:two-locks", WEFT_POR_SOURCE, b, 24 * 24);
	traces("demo-por-locks:one-lock", WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, 40320);
	traces("demo-por-locks:one-lock", WEFT_POR_SOURCE, 1, 40320);
	traces("demo-por-rw:locked", WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, 60);
	return check_done();
}
