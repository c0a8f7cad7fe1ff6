/*
 * test_determinism_check.c - the determinism decorator
 * (weft_check_determinism, core/src/search/determinism.c) is itself checked: it
 * must flag a model whose trace depends on host state (test-nondet), and
 * must pass deterministic executions of the registry's models, so a
 * decorator that compares nothing, or that always complains, fails here.
 * The same for a search's executions, which keep no trace
 * (weft_run_opts.no_trace_hash, as weft run's): the check then follows the
 * decisions to the first run's verdict and step count, and compares the
 * trace hashes of two re-runs; the re-run's result is the one a hashing
 * run of the same schedule gives.
 * Usage: test_determinism_check [forged] (forged: only the check against
 * first results with a tampered trace hash, verdict or step count, its own
 * ctest).
 */
#include <string.h>

#include <weft/strategy.h>

#include "check.h"
#include "test_scenarios.h"

/* One execution of sc:vi from a bytes input, then the decorator on it. */
static int check_once(const struct weft_scenario *sc, unsigned vi, const uint8_t *in,
		      size_t len, struct weft_exec_result *r, char *why, size_t n)
{
	static struct weft_bytes b;
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock };

	weft_bytes_init(&b, sc, in, len);
	if (weft_execute(&o, &weft_strategy_bytes, &b, r) < 0)
		return 1;
	why[0] = 0;
	return weft_check_determinism(&o, r, why, n);
}

/* The decorator compares the re-run's hash and verdict with the first
 * result's, not with a constant: a first result with a wrong hash or
 * verdict must be refused, the real one passed. (Its own ctest,
 * strategies_determinism_forged: a second test of the decorator that does
 * not depend on test-nondet.) */
static void test_forged(void)
{
	struct weft_exec_result r;
	char why[256];
	int rc;

	{
		unsigned vi;
		const struct weft_scenario *sc = weft_scenario_find("z1-lru:z1a", &vi);
		static struct weft_bytes b;
		struct weft_run_opts o = { .sc = sc, .variant = vi };
		weft_bytes_init(&b, sc, sc->triggers[vi], sc->trigger_lens[vi]);
		CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "z1a trigger ran");
		CHECK(r.kind == WEFT_KIND_DOUBLE_FREE, "z1a trigger: kind %d", r.kind);
		struct weft_exec_result forged = r;
		forged.trace_hash ^= 1;
		rc = weft_check_determinism(&o, &forged, why, sizeof(why));
		CHECK(rc == WEFT_EDESYNC, "a forged trace hash passed the check (%d)", rc);
		weft_bytes_init(&b, sc, sc->triggers[vi], sc->trigger_lens[vi]);
		weft_execute(&o, &weft_strategy_bytes, &b, &r);
		forged = r;
		forged.kind = WEFT_KIND_NONE;
		rc = weft_check_determinism(&o, &forged, why, sizeof(why));
		CHECK(rc == WEFT_EDESYNC, "a forged verdict passed the check (%d)", rc);
		weft_bytes_init(&b, sc, sc->triggers[vi], sc->trigger_lens[vi]);
		weft_execute(&o, &weft_strategy_bytes, &b, &r);
		rc = weft_check_determinism(&o, &r, why, sizeof(why));
		CHECK(rc == 0, "the real result failed the check (%d: %s)", rc, why);

		/* without a trace: the verdict and the step count are compared */
		struct weft_run_opts search = o;
		struct weft_exec_result again;
		search.no_trace_hash = true;
		weft_bytes_init(&b, sc, sc->triggers[vi], sc->trigger_lens[vi]);
		weft_execute(&search, &weft_strategy_bytes, &b, &r);
		CHECK(r.trace_hash == 0, "a run without a trace has hash %016llx",
		      (unsigned long long)r.trace_hash);
		forged = r;
		forged.steps++;
		rc = weft_check_determinism_rerun(&search, &forged, &again, why, sizeof(why));
		CHECK(rc == WEFT_EDESYNC, "a forged step count passed the check (%d)", rc);
		weft_bytes_init(&b, sc, sc->triggers[vi], sc->trigger_lens[vi]);
		weft_execute(&search, &weft_strategy_bytes, &b, &r);
		forged = r;
		forged.kind = WEFT_KIND_NONE;
		rc = weft_check_determinism_rerun(&search, &forged, &again, why, sizeof(why));
		CHECK(rc == WEFT_EDESYNC, "a forged verdict passed the check without a trace (%d)",
		      rc);
	}
}

/* The registered scenario of spec (checked: a missing one fails the test). */
static const struct weft_scenario *spec_find(const char *spec, unsigned *vi)
{
	const struct weft_scenario *sc = weft_scenario_find(spec, vi);

	CHECK(sc != NULL, "no scenario %s", spec);
	return sc;
}

/* A search's execution keeps no trace (no hash, no ring); the re-run of
 * the check gives what a hashing run of the same schedule gives. */
static void test_untraced(const char *spec)
{
	static struct weft_random st;
	unsigned vi;
	const struct weft_scenario *sc = spec_find(spec, &vi);

	if (!sc)
		return;
	struct weft_run_opts hashed = { .sc = sc, .variant = vi, .lock = sc->default_lock,
					.checks = WEFT_CHECKS_DEFAULT };
	struct weft_run_opts search = hashed;
	struct weft_exec_result h, r, again;
	struct weft_event ring[4];
	char why[256];
	search.no_trace_hash = true;
	for (unsigned seed = 1; seed <= 20; seed++) {
		weft_random_init(&st, sc, seed, NULL, 0);
		CHECK(weft_execute(&hashed, &weft_strategy_random, &st, &h) == 0, "%s ran", spec);
		CHECK(weft_last_ring(ring, 4) > 0, "%s: a hashing run kept no ring", spec);
		weft_random_init(&st, sc, seed, NULL, 0);
		CHECK(weft_execute(&search, &weft_strategy_random, &st, &r) == 0, "%s ran", spec);
		CHECK(r.trace_hash == 0 && weft_last_ring(ring, 4) == 0,
		      "%s seed %u: a run without a trace kept one", spec, seed);
		CHECK(r.kind == h.kind && r.steps == h.steps,
		      "%s seed %u: the trace changed the execution", spec, seed);
		int rc = weft_check_determinism_rerun(&search, &r, &again, why, sizeof(why));
		CHECK(rc == 0, "%s seed %u: %s", spec, seed, why);
		CHECK(again.trace_hash == h.trace_hash && again.kind == h.kind &&
		      !strcmp(again.report.msg, h.report.msg),
		      "%s seed %u: the re-run is not the hashing run (%016llx, %016llx)", spec, seed,
		      (unsigned long long)again.trace_hash, (unsigned long long)h.trace_hash);
	}
}

/* How many of 20 random executions of test-nondet's variant the check
 * refuses, the search keeping a trace or not. */
static unsigned nondet_flagged(unsigned variant, bool untraced)
{
	static struct weft_random st;
	struct weft_run_opts o = { .sc = &weft_test_scn_nondet, .variant = variant,
				   .no_trace_hash = untraced };
	struct weft_exec_result r, again;
	char why[256];
	unsigned flagged = 0;

	weft_random_init(&st, &weft_test_scn_nondet, 7, NULL, 0);
	for (unsigned i = 0; i < 20; i++) {
		if (weft_execute(&o, &weft_strategy_random, &st, &r) < 0)
			break;
		flagged += weft_check_determinism_rerun(&o, &r, &again, why, sizeof(why)) ==
			   WEFT_EDESYNC;
	}
	return flagged;
}

int main(int argc, char **argv)
{
	struct weft_exec_result r;
	char why[256];
	int rc;

	if (argc > 1 && !strcmp(argv[1], "forged")) {
		test_forged();
		return check_done();
	}
	/* the nondeterministic model: every re-run has the other parity, so
	 * every check must fail, whatever the schedule */
	static const uint8_t inputs[][4] = { { 0 }, { 0, 1, 0, 0 }, { 0, 2, 0, 0 } };
	static const size_t lens[] = { 0, 4, 4 };
	for (unsigned k = 0; k < 3; k++) {
		rc = check_once(&weft_test_scn_nondet, 0, inputs[k], lens[k], &r, why, sizeof(why));
		CHECK(rc == WEFT_EDESYNC, "test-nondet input %u: the decorator returned %d (%s)", k,
		      rc, why);
		CHECK(strstr(why, "nondeterministic") != NULL,
		      "test-nondet input %u: no explanation: '%s'", k, why);
	}
	/* under random, as weft run does after its loop, with a trace and
	 * without (as weft run searches); and a model where a value alone
	 * depends on host state: the same decisions, verdict and steps in
	 * every execution, only the trace hash shows it (against the search's
	 * own with a trace, between the two re-runs without) */
	for (unsigned variant = 0; variant < 2; variant++)
		for (int untraced = 0; untraced < 2; untraced++) {
			unsigned flagged = nondet_flagged(variant, untraced);
			CHECK(flagged == 20, "random on test-nondet:%s %s a trace: %u of 20 flagged",
			      weft_test_scn_nondet.variants[variant].name,
			      untraced ? "without" : "with", flagged);
		}
	test_untraced("z1-lru:z1a");
	test_untraced("demo-abba:abba");
	test_untraced("z4-swapin-aba:fix");

	/* deterministic models: the decorator passes, and its re-run has the
	 * same trace hash (it compared something real) */
	static const char *const specs[] = { "demo-counter:racy", "demo-abba:abba", "z1-lru:z1a",
					      "z1-lru:fix-testone", "z6-spec-pagecache:z6b" };
	for (unsigned k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		unsigned vi;
		const struct weft_scenario *sc = spec_find(specs[k], &vi);
		if (!sc)
			continue;
		static struct weft_random st;
		struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock };
		unsigned ok = 0, n = 0;
		weft_random_init(&st, sc, 1, NULL, 0);
		for (unsigned i = 0; i < 50; i++, n++) {
			if (weft_execute(&o, &weft_strategy_random, &st, &r) < 0)
				break;
			uint64_t h = r.trace_hash;
			ok += weft_check_determinism(&o, &r, why, sizeof(why)) == 0;
			CHECK(h != 0, "%s: trace hash 0", specs[k]);
		}
		CHECK(ok == n && n == 50, "%s: %u of %u executions passed the check (%s)", specs[k],
		      ok, n, why);
	}

	return check_done();
}
