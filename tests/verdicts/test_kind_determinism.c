/*
 * test_kind_determinism.c - every execution of a search that carries
 * lockdep-lite's graph across executions (weft run's lockdep_persist) and
 * stops only at some kinds (--kind) must re-run alone to the same trace
 * hash and verdict, from a fresh graph seeded with its report's witness:
 * what a run carries from one execution to the next may change an
 * execution only through what its replay file carries (issue 18; the
 * z12 deadlock under --kind deadlock was a false NONDETERMINISM).
 *
 * For every registered variant, for each kind it can report (its own and,
 * where that is a warning, a deadlock past it; or
 * a buggy sibling's for a fixed variant), under random, pct and plain dfs:
 * N executions, each checked with weft_check_determinism().
 * Usage: test_kind_determinism [N] [scenario[:variant]]
 */
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "check.h"

static unsigned checked, reports, continued;

static void search(const struct weft_scenario *sc, unsigned vi, enum weft_kind k,
		   const char *strategy, unsigned n)
{
	static union {
		struct weft_random r;
		struct weft_pct p;
		struct weft_dfs d;
	} st;
	const struct weft_strategy_ops *ops;
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .checks = WEFT_CHECKS_DEFAULT | WEFT_CHECK_CONTINUE_WARNINGS,
				   .lockdep_persist = true };
	const uint8_t *wl = sc->triggers ? sc->triggers[vi] : NULL;
	size_t wl_len = wl ? sc->trigger_lens[vi] : 0;

	o.continue_kinds = weft_continue_kinds(o.checks, 1ull << k);
	if (!strcmp(strategy, "random")) {
		weft_random_init(&st.r, sc, 1, NULL, 0);
		ops = &weft_strategy_random;
	} else if (!strcmp(strategy, "pct")) {
		weft_pct_init(&st.p, sc, 1, 2, NULL, 0);
		ops = &weft_strategy_pct;
	} else {
		weft_dfs_init(&st.d, sc, 1, wl, wl_len);
		ops = &weft_strategy_dfs;
	}
	weft_lockdep_reset();
	for (unsigned i = 0; i < n; i++) {
		struct weft_exec_result r;
		char why[256] = "";
		if (weft_execute(&o, ops, &st, &r) < 0)
			break;
		reports += r.kind != WEFT_KIND_NONE;
		continued += r.continued_kinds != 0;
		int rc = weft_check_determinism(&o, &r, why, sizeof(why));
		checked++;
		CHECK(rc == 0, "%s:%s --kind %s --strategy %s, execution %u: %s", sc->name,
		      sc->variants[vi].name, weft_kind_name(k), strategy, i + 1, why);
		if (rc)
			return;
		if (r.kind == k)
			return;   /* the search stops at its kind */
	}
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 150;
	const char *only = argc > 2 ? argv[2] : NULL;
	static const char *const strategies[] = { "random", "pct", "dfs" };

	for (unsigned s = 0; s < weft_nr_scenarios; s++) {
		const struct weft_scenario *sc = weft_scenarios[s];
		uint64_t kinds = 0;
		for (unsigned v = 0; v < sc->nr_variants; v++)
			if (sc->variants[v].buggy && sc->variants[v].expect_kind)
				kinds |= 1ull << sc->variants[v].expect_kind;
		for (unsigned v = 0; v < sc->nr_variants; v++) {
			char spec[160];
			snprintf(spec, sizeof(spec), "%s:%s", sc->name, sc->variants[v].name);
			if (only && strcmp(only, sc->name) && strcmp(only, spec))
				continue;
			uint64_t ks = sc->variants[v].buggy && sc->variants[v].expect_kind
					      ? 1ull << sc->variants[v].expect_kind : kinds;
			/* a variant whose own kind is a warning (z12's lockdep
			 * report): the deadlock past it too */
			if (ks & WEFT_WARNING_KINDS)
				ks |= 1ull << WEFT_KIND_DEADLOCK;
			for (; ks; ks &= ks - 1)
				for (unsigned i = 0; i < 3; i++)
					search(sc, v, (enum weft_kind)__builtin_ctzll(ks),
					       strategies[i], n);
		}
	}
	printf("%u executions re-run alone (%u with a report, %u past a warning)\n", checked,
	       reports, continued);
	CHECK(continued > 0, "no execution went past a warning: the test covers nothing");
	return check_done();
}
