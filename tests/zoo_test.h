/*
 * zoo_test.h - the checks every zoo test (tests/mm_z1 .. mm_z13) shares, on top of
 * tests/mm_run.h:
 *  - zoo_trigger_case(): a variant's trigger input and the workload it
 *    decodes to, checked present and of the expected length;
 *  - zoo_trigger(): a trigger input reports its kind (at its site) with
 *    the declared preemptions (interrupt deliveries counted as
 *    preemptions), or a fixed variant is clean on it;
 *  - zoo_dfs_minimal(): dfs covers the bound below the minimal one
 *    without a report and finds the kind at the minimal one;
 *    zoo_dfs_clean(): a fixed variant is complete and clean under dfs;
 *  - zoo_search(): random and pct find the kind from several seeds (the
 *    executions are printed: docs/zoo/z*.md quote them) and every finding
 *    re-runs to the same trace hash (weft_check_determinism: the replay
 *    check); zoo_search_budget(): a search budget, min/median/max of
 *    executions and milliseconds over seeds;
 *  - zoo_silent(), zoo_silent_main(): the fix's silence under random or
 *    pct over generated workloads, with the counters that prove the
 *    workloads reached the paths the fix must survive;
 *  - zoo_run(), zoo_stat(): one strategy on a variant until a report, and
 *    a counter of the last execution.
 */
#ifndef WEFT_ZOO_TEST_H
#define WEFT_ZOO_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "mm_run.h"

/* mm_run() stopping at the first report of any kind; stat: a counter to
 * sum over the executions, or NULL. */
static inline struct mm_outcome zoo_run(const char *spec, const char *strategy, uint64_t seed,
					unsigned param, const uint8_t *wl, size_t wl_len,
					uint64_t budget, const char *stat)
{
	return mm_run(spec, strategy, seed, param, wl, wl_len, budget, WEFT_KIND_NONE, stat);
}

/* "scenario:variant", in one of four static buffers (valid until the
 * fourth call after). */
static inline const char *zoo_spec(const char *scenario, const char *variant)
{
	static char buf[4][96];
	static unsigned next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s:%s", scenario, variant);
	return b;
}

/* Counter name of the last execution of spec's scenario (a test failure if
 * the model has no such counter). */
static inline uint64_t zoo_stat(const char *spec, const char *name)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	const char *names[96];
	uint64_t vals[96];
	unsigned n = sc && sc->stats ? sc->stats(weft_last_world(), names, vals, 96) : 0;

	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return vals[i];
	CHECK(0, "%s has no counter %s", spec, name);
	return 0;
}

/* A buggy variant's recorded trigger (the scenario table's input, for the
 * bytes strategy) and the workload that input decodes to (for dfs and the
 * searchers). */
struct zoo_trigger_case {
	const struct weft_scenario *sc;
	unsigned vi;
	const uint8_t *input;
	size_t input_len;
	uint8_t wl[64];
	size_t wl_len;
};

/* Fills *t for spec; false, after a test failure, if spec has no trigger or
 * its workload is not wl_bytes long (1 + 2 bytes an op). */
static inline bool zoo_trigger_case(const char *spec, size_t wl_bytes, struct zoo_trigger_case *t)
{
	memset(t, 0, sizeof(*t));
	t->sc = weft_scenario_find(spec, &t->vi);
	CHECK(t->sc && t->sc->triggers && t->sc->triggers[t->vi], "%s has a trigger", spec);
	if (!t->sc || !t->sc->triggers || !t->sc->triggers[t->vi])
		return false;
	t->input = t->sc->triggers[t->vi];
	t->input_len = t->sc->trigger_lens[t->vi];
	t->wl_len = mm_trigger_workload(spec, t->wl, sizeof(t->wl));
	CHECK(t->wl_len == wl_bytes, "%s: trigger workload is %zu bytes, want %zu", spec,
	      t->wl_len, wl_bytes);
	return t->wl_len == wl_bytes;
}

/* The trigger input of input_of run on spec: kind with pre preemptions,
 * reported at func/what (a prefix; func NULL: anywhere); WEFT_KIND_NONE:
 * clean. Returns the outcome. */
static inline struct mm_outcome zoo_trigger(const char *spec, const char *input_of,
					    enum weft_kind kind, unsigned pre, const char *func,
					    const char *what)
{
	unsigned vi, ti;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	const struct weft_scenario *tsc = weft_scenario_find(input_of, &ti);
	struct mm_outcome o;

	memset(&o, 0, sizeof(o));
	CHECK(sc && tsc && tsc->triggers && tsc->triggers[ti], "%s has a trigger", input_of);
	if (!sc || !tsc || !tsc->triggers || !tsc->triggers[ti])
		return o;
	o = mm_run(spec, "bytes", 0, 0, tsc->triggers[ti], tsc->trigger_lens[ti], 1,
		   WEFT_KIND_NONE, NULL);
	CHECK(o.r.kind == kind, "%s on %s's trigger: %s (%s)", spec, input_of,
	      weft_kind_name(o.r.kind), o.r.report.msg);
	if (kind == WEFT_KIND_NONE || o.r.kind != kind)
		return o;
	CHECK(o.r.preemptions == pre, "%s trigger: %u preemptions, want %u", spec,
	      o.r.preemptions, pre);
	if (func)
		CHECK(o.r.report.here.valid && o.r.report.here.site &&
		      !strcmp(o.r.report.here.site->func, func) &&
		      !strncmp(o.r.report.here.site->what, what, strlen(what)),
		      "%s trigger reported at %s: %s", spec,
		      o.r.report.here.site ? o.r.report.here.site->func : "?",
		      o.r.report.here.site ? o.r.report.here.site->what : "?");
	printf("%s trigger: %s on %s, %u preemptions, %u steps: %s\n", spec, weft_kind_name(o.kind),
	       o.r.report.object, o.r.preemptions, o.r.steps, o.r.report.msg);
	return o;
}

/* spec's own trigger: kind with pre preemptions, reported in func at
 * what (zoo_trigger()); and fix, spec's fixed variant, clean on it. */
static inline void zoo_trigger_and_fix(const char *spec, const char *fix, enum weft_kind kind,
				       unsigned pre, const char *func, const char *what)
{
	zoo_trigger(spec, spec, kind, pre, func, what);
	zoo_trigger(fix, spec, WEFT_KIND_NONE, 0, NULL, NULL);
}

/* The workload section of a hex string ("" for none). */
static inline size_t zoo_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (; hex[2 * n] && hex[2 * n + 1] && n < cap; n++) {
		unsigned v;

		sscanf(hex + 2 * n, "%2x", &v);
		out[n] = (uint8_t)v;
	}
	return n;
}

/* A workload argument: hex bytes, or "scenario:variant" for the workload
 * of that variant's trigger, or NULL for spec's own trigger workload. */
static inline size_t zoo_workload(const char *spec, const char *w, uint8_t *out, size_t cap)
{
	if (!w)
		return mm_trigger_workload(spec, out, cap);
	return strchr(w, ':') ? mm_trigger_workload(w, out, cap) : zoo_hex(w, out, cap);
}

/* dfs on a workload (zoo_workload()): below min complete
 * and clean, at min the kind with exactly min preemptions. Returns the
 * executions to the finding. */
static inline uint64_t zoo_dfs_minimal(const char *spec, const char *wl_hex, unsigned min,
				       enum weft_kind kind)
{
	uint8_t wl[128];
	size_t n = zoo_workload(spec, wl_hex, wl, sizeof(wl));
	struct mm_outcome o;

	CHECK(wl_hex || n > 0, "%s has a trigger workload", spec);
	if (min > 0) {
		o = mm_run(spec, "dfs", 0, min - 1, wl, n, 10000000, WEFT_KIND_NONE, NULL);
		CHECK(o.kind == WEFT_KIND_NONE && o.complete,
		      "%s dfs bound %u (workload %s): %s, complete %d", spec, min - 1,
		      wl_hex ? wl_hex : "trigger", weft_kind_name(o.kind), o.complete);
		printf("%s dfs bound %u (workload %s): clean, complete, %llu executions\n", spec,
		       min - 1, wl_hex ? wl_hex : "trigger", (unsigned long long)o.executions);
	}
	o = mm_run(spec, "dfs", 0, min, wl, n, 10000000, WEFT_KIND_NONE, NULL);
	CHECK(o.kind == kind && o.r.preemptions == min,
	      "%s dfs bound %u (workload %s): %s with %u preemptions", spec, min,
	      wl_hex ? wl_hex : "trigger", weft_kind_name(o.kind), o.r.preemptions);
	printf("%s dfs bound %u (workload %s): %s after %llu executions (%.3f ms)\n", spec, min,
	       wl_hex ? wl_hex : "trigger", weft_kind_name(o.kind),
	       (unsigned long long)o.executions, o.seconds * 1e3);
	return o.executions;
}

/* A fixed variant under dfs on a workload (zoo_workload()): complete and
 * clean. Returns the executions. */
static inline uint64_t zoo_dfs_clean(const char *spec, const char *wl_hex, unsigned bound)
{
	uint8_t wl[128];
	size_t n = zoo_workload(spec, wl_hex, wl, sizeof(wl));
	struct mm_outcome o = mm_run(spec, "dfs", 0, bound, wl, n, 50000000, WEFT_KIND_NONE, NULL);

	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "%s dfs bound %u (workload %s): %s (%s), "
	      "complete %d", spec, bound, wl_hex ? wl_hex : "trigger", weft_kind_name(o.kind),
	      o.r.report.msg, o.complete);
	printf("%s dfs bound %u (workload %s): clean, complete, %llu executions, %.2f s\n", spec,
	       bound, wl_hex ? wl_hex : "trigger", (unsigned long long)o.executions, o.seconds);
	return o.executions;
}

/* A fixed variant under dfs bound 1 on workload wl: complete and clean,
 * with stat (a counter of the fix's own path) above 0 over the
 * executions ("fix: " why_not otherwise). Prints both counts. */
static inline struct mm_outcome zoo_fix_takes_path(const char *spec, const uint8_t *wl,
						   size_t wl_len, const char *stat,
						   const char *why_not)
{
	struct mm_outcome o = zoo_run(spec, "dfs", 0, 1, wl, wl_len, 1000000, stat);

	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "fix dfs 1: %s (%s) complete %d",
	      weft_kind_name(o.kind), o.r.report.msg, o.complete);
	CHECK(o.stat > 0, "fix: %s", why_not);
	printf("fix dfs bound 1 on the trigger workload: %llu executions, clean; %s %llu\n",
	       (unsigned long long)o.executions, stat, (unsigned long long)o.stat);
	return o;
}

/* The line a trigger test prints for its finding: "name trigger: kind on
 * object: message". */
static inline void zoo_print_trigger(const char *name, const struct weft_exec_result *r)
{
	printf("%s trigger: %s on %s: %s\n", name, weft_kind_name(r->kind), r->report.object,
	       r->report.msg);
}

/*
 * random (param ignored) or pct (param = depth) over generated workloads,
 * seeds 1..nseeds: each finds kind within budget executions; the finding
 * re-runs to the same trace hash. Prints the executions per seed.
 */
static inline void zoo_search(const char *spec, const char *strategy, unsigned param,
			      unsigned nseeds, uint64_t budget, enum weft_kind kind)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);

	printf("%s %s%s%.0u, generated workloads, executions to %s:", spec, strategy,
	       !strcmp(strategy, "pct") ? " d=" : "", !strcmp(strategy, "pct") ? param : 0,
	       weft_kind_name(kind));
	for (unsigned s = 1; s <= nseeds; s++) {
		struct mm_outcome o = mm_run(spec, strategy, s, param, NULL, 0, budget, kind, NULL);

		printf(" %llu", (unsigned long long)o.executions);
		CHECK(o.kind == kind, "%s %s seed %u: no %s in %llu executions", spec, strategy, s,
		      weft_kind_name(kind), (unsigned long long)budget);
		if (o.kind != kind || !sc)
			continue;
		struct weft_run_opts ro = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				     .memory = (uint8_t)mm_memory };
		char why[256];
		CHECK(weft_check_determinism(&ro, &o.r, why, sizeof(why)) == 0,
		      "%s %s seed %u: the finding does not re-run the same: %s", spec, strategy, s,
		      why);
	}
	printf("\n");
}

/* The searchers' pass the zoo tests make: random and pct d=2 over
 * generated workloads, seeds 1-5, find kind within 20000 executions
 * (random) and pct_budget (pct). */
static inline void zoo_search_random_pct(const char *spec, uint64_t pct_budget,
					 enum weft_kind kind)
{
	zoo_search(spec, "random", 0, 5, 20000, kind);
	zoo_search(spec, "pct", 2, 5, pct_budget, kind);
}

static inline int zoo_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline int zoo_cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A search budget (docs/zoo/z*.md): seeds 1..nseeds (at most 32) of one
 * strategy on one workload. */
struct zoo_budget {
	const char *label, *spec, *strategy;
	unsigned param;                      /* pct's depth */
	const uint8_t *wl;                   /* NULL: generated workloads */
	size_t wl_len;
	unsigned nseeds;
	uint64_t budget;                     /* executions per seed */
	enum weft_kind want;                 /* what each seed must find */
	enum weft_kind until;                /* a run stops at this kind only
						(WEFT_KIND_NONE: at any report) */
	bool (*accept)(enum weft_kind k);    /* instead of want: the kinds that
						count as found (the manifestations
						of one race) */
	bool measured_only;                  /* print how many seeds found it,
						assert nothing */
};

/* Prints min/median/max executions and milliseconds over the seeds and
 * how many found it; returns that number. */
static inline unsigned zoo_search_budget(const struct zoo_budget *b)
{
	uint64_t ex[32];
	double ms[32];
	unsigned found = 0, n = b->nseeds < 32 ? b->nseeds : 32;

	for (unsigned s = 0; s < n; s++) {
		struct mm_outcome o = mm_run(b->spec, b->strategy, 1 + s, b->param, b->wl,
					     b->wl_len, b->budget, b->until, NULL);
		bool ok = b->accept ? b->accept(o.kind) : o.kind == b->want;
		if (!b->measured_only)
			CHECK(ok, "%s seed %u: %s after %llu executions", b->label, 1 + s,
			      weft_kind_name(o.kind), (unsigned long long)o.executions);
		found += ok;
		ex[s] = o.executions;
		ms[s] = o.seconds * 1e3;
	}
	qsort(ex, n, sizeof(ex[0]), zoo_cmp_u64);
	qsort(ms, n, sizeof(ms[0]), zoo_cmp_dbl);
	printf("%-40s executions min %llu median %llu max %llu; ms min %.2f median %.2f max %.2f; "
	       "found by %u/%u seeds\n", b->label, (unsigned long long)ex[0],
	       (unsigned long long)ex[n / 2], (unsigned long long)ex[n - 1], ms[0], ms[n / 2],
	       ms[n - 1], found, n);
	return found;
}

/* The budgets on spec's trigger workload (only the schedule varies): pct
 * d=2 and d=3 from 10 seeds each find want within budget executions; a
 * random walk (1 seed) is measured, not asserted. */
static inline void zoo_trigger_budgets(const char *spec, enum weft_kind want, uint64_t budget)
{
	static const struct { const char *strategy; unsigned depth, seeds; } runs[] = {
		{ "pct", 2, 10 }, { "pct", 3, 10 }, { "random", 0, 1 },
	};
	uint8_t wl[128];
	size_t wl_len = mm_trigger_workload(spec, wl, sizeof(wl));
	char label[96];

	for (unsigned i = 0; i < 3; i++) {
		snprintf(label, sizeof(label), "%s %s d=%u, trigger workload", spec, runs[i].strategy,
			 runs[i].depth);
		zoo_search_budget(&(struct zoo_budget){
			.label = label, .spec = spec, .strategy = runs[i].strategy,
			.param = runs[i].depth, .wl = wl, .wl_len = wl_len, .nseeds = runs[i].seeds,
			.budget = budget, .want = want, .measured_only = !runs[i].depth });
	}
}

/* The fix's silence: n executions of spec under strategy from seed, and
 * every counter of must[] moved. */
static inline void zoo_silent(const char *spec, const char *strategy, uint64_t n, uint64_t seed,
			      const char *const *must, unsigned nmust)
{
	struct mm_counters c;

	memset(&c, 0, sizeof(c));
	mm_silent(spec, strategy, n, seed, &c);
	mm_require_counters(spec, &c, must, nmust);
}

/* The fix's silence the zoo tests check: 20000 executions of random from
 * seed 7, moving every counter of must[], and 20000 of pct from seed 11. */
static inline void zoo_silent_random_pct(const char *spec, const char *const *must,
					 unsigned nmust)
{
	zoo_silent(spec, "random", 20000, 7, must, nmust);
	zoo_silent(spec, "pct", 20000, 11, NULL, 0);
}

/* A buggy variant's silence where its bug cannot happen (a memory model
 * too strong for it): seeds 1-3, n executions each, every one clean. */
static inline void zoo_silent_seeds(const char *spec, const char *strategy, unsigned param,
				    uint64_t n)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct mm_outcome o = mm_run(spec, strategy, seed, param, NULL, 0, n,
					     WEFT_KIND_NONE, NULL);
		CHECK(o.kind == WEFT_KIND_NONE, "%s %s seed %llu under %s: %s (%s)", spec, strategy,
		      (unsigned long long)seed, weft_memory_name(mm_memory),
		      weft_kind_name(o.kind), o.r.report.msg);
	}
	printf("%s %s under %s: 3 x %llu executions clean\n", spec, strategy,
	       weft_memory_name(mm_memory), (unsigned long long)n);
}

/*
 * main() of a test_z*_silent program: `PROG [SPEC [random|pct [EXECUTIONS
 * [SEED [MEMORY]]]]]` (defaults: spec, random, 100000, 7, sc) is zoo_silent() with
 * must[]; the counters of info[] (legal paths that are rarer) are printed,
 * not asserted.
 */
static inline int zoo_silent_main(int argc, char **argv, const char *spec,
				  const char *const *must, unsigned nmust,
				  const char *const *info, unsigned ninfo)
{
	struct mm_counters c;

	spec = argc > 1 ? argv[1] : spec;
	if (argc > 5 && !weft_memory_parse(argv[5], &mm_memory, NULL)) {
		fprintf(stderr, "unknown memory model '%s' (sc, tso, lkmm)\n", argv[5]);
		return 2;
	}
	memset(&c, 0, sizeof(c));
	mm_silent(spec, argc > 2 ? argv[2] : "random",
		  argc > 3 ? strtoull(argv[3], NULL, 0) : 100000,
		  argc > 4 ? strtoull(argv[4], NULL, 0) : 7, &c);
	mm_require_counters(spec, &c, must, nmust);
	for (unsigned i = 0; i < ninfo; i++)
		printf("  %-36s %llu\n", info[i], (unsigned long long)mm_counter(&c, info[i]));
	return check_done();
}

#define ZOO_N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

#endif
