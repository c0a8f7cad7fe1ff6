/*
 * props.h - what the property tests share (test_diff_rcu.c,
 * test_diff_percpu_ref.c, test_diff_refcount.c, test_diff_workqueue.c): a
 * generated program checks a family's documented guarantees itself (an
 * `assertion` report where one fails) and runs under the serial schedule,
 * seeded random ones and bounded dfs; every execution must end with the
 * verdict the program expects.
 */
#ifndef WEFT_PROPS_H
#define WEFT_PROPS_H

#include "lockstep.h"

/* var, the scenario of a props_main() test: its generated program
 * (LS_ONE_PROGRAM) on NT CPUs over the file's struct world, run by
 * prefix##_setup, prefix##_thread and prefix##_quiesce; props_main() sets
 * nr_threads from each generated program. */
#define PROPS_SCENARIO(var, name_, summary_, prefix)                              \
	static struct weft_scenario var = {                                      \
		.name = name_, .summary = summary_, LS_ONE_PROGRAM, .nr_cpus = NT,  \
		.nr_threads = 2, .world_size = sizeof(struct world),              \
		.setup = prefix##_setup, .thread = prefix##_thread,               \
		.quiesce = prefix##_quiesce,                                      \
	}

static void props_noop(const struct ls_ent *e)
{
	(void)e;
}

static const struct ls_ref props_ref = { props_noop, NULL };

struct props_out {
	uint64_t executions;
	bool dfs_complete;
	struct weft_exec_result bad;     /* the first execution with another verdict */
	bool found;                      /* some execution gave `want` (a bug expected) */
	int how;                         /* where bad came from: 0 serial, 1 random, 2 dfs */
	uint64_t seed;
};

/*
 * Runs sc (with checks) serially, nrand times with seeded random
 * schedules and under dfs at `bound` up to `cap` executions. want ==
 * WEFT_KIND_NONE: every execution must be clean (false and out->bad at the
 * first that is not); else the program has a bug: every report must be of
 * kind want (or another kind in `also`), and one must be found.
 */
static inline bool props_run(const struct weft_scenario *sc, unsigned checks, unsigned nrand,
			     uint64_t seed, unsigned bound, uint64_t cap, enum weft_kind want,
			     enum weft_kind also, struct props_out *out)
{
	static struct ls_strategy s;
	static struct weft_dfs d;
	struct weft_run_opts o = { .sc = sc, .checks = checks };
	struct weft_exec_result r;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i <= nrand + 1; i++) {
		bool is_dfs = i == nrand + 1;
		uint64_t n = 0;
		if (is_dfs)
			weft_dfs_init(&d, sc, bound, NULL, 0);
		for (;;) {
			if (is_dfs) {
				if (n >= cap || weft_execute(&o, &weft_strategy_dfs, &d, &r) != 0)
					break;
			} else {
				ls_run(&o, &props_ref, i == 0 ? LS_SERIAL : LS_UNIFORM, seed + i, &s, &r);
			}
			n++;
			out->executions++;
			bool ok = r.kind == WEFT_KIND_NONE ||
				  (want != WEFT_KIND_NONE && (r.kind == want || r.kind == also));
			out->found |= want != WEFT_KIND_NONE && r.kind == want;
			if (!ok) {
				out->bad = r;
				out->how = is_dfs ? 2 : i == 0 ? 0 : 1;
				out->seed = seed + i;
				return false;
			}
			if (!is_dfs)
				break;
		}
		if (is_dfs)
			out->dfs_complete = d.complete;
	}
	return want == WEFT_KIND_NONE || out->found;
}

/*
 * A property test's main loop: nprog generated programs (3000 at the
 * large size, 150 at the quick one; gen() makes the next and returns its
 * thread count), each clean under props_run() with the default checks,
 * 10 (large: 40) random schedules and dfs bound 1; the first failures
 * print how they were found and the program.
 */
static inline int props_main(struct weft_scenario *sc, unsigned (*gen)(void),
			     void (*print_prog)(FILE *))
{
	unsigned nprog = ls_large() ? 3000 : 150, nrand = ls_large() ? 40 : 10, failures = 0;
	uint64_t total = 0;

	weft_machine_init();
	uint64_t seed = ls_seed();
	for (unsigned p = 0; p < nprog; p++) {
		struct props_out out;
		sc->nr_threads = gen();
		bool ok = props_run(sc, WEFT_CHECKS_DEFAULT, nrand, seed * 100000 + p * 100, 1,
				    20000, WEFT_KIND_NONE, WEFT_KIND_NONE, &out);
		total += out.executions;
		CHECK(ok, "program %u: %s: %s", p, weft_kind_name(out.bad.kind), out.bad.report.msg);
		if (!ok && failures++ < 5) {
			fprintf(stderr, "   found by %s (seed %llu)\n",
				out.how == 0 ? "the serial run" : out.how == 1 ? "a random schedule" : "dfs",
				(unsigned long long)out.seed);
			print_prog(stderr);
		}
	}
	printf("%u programs (%s size), %llu executions (serial, %u random, dfs bound 1 each)\n",
	       nprog, ls_large() ? "large" : "quick", (unsigned long long)total, nrand);
	return check_done();
}

#endif
