/*
 * mm_run.h - what the model tests share: run one strategy on a scenario
 * variant until a report (of a given kind, or any), the budget, or (dfs)
 * the end of the bounded space; the workload section of a variant's
 * trigger input; model counters of the last execution.
 */
#ifndef WEFT_MM_RUN_H
#define WEFT_MM_RUN_H

#include <string.h>
#include <time.h>

#include <weft/strategy.h>

#include "check.h"

/* The memory model every run of this file uses (a test of a weak-memory
 * entry sets it; sc by default). */
static enum weft_memory_model mm_memory = WEFT_MEM_SC;
/* dfs: stores delayed per execution under a weak model. */
static unsigned mm_delay_bound = WEFT_DFS_DELAY_BOUND;
/* The lock model of every run (a test of lock fairness sets it; -1: the
 * scenario's default_lock). */
static int mm_lock = -1;

struct mm_outcome {
	enum weft_kind kind;
	uint64_t executions;        /* up to and including the first report */
	bool complete;              /* dfs only */
	struct weft_exec_result r;
	double seconds;
	uint64_t stat;              /* the counter asked for, summed */
};

static inline double mm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The value of counter name in the last execution's world (0 if none). */
static inline uint64_t mm_last_stat(const struct weft_scenario *sc, const char *name)
{
	const char *names[96];
	uint64_t vals[96];
	unsigned n = sc->stats ? sc->stats(weft_last_world(), names, vals, 96) : 0;

	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return vals[i];
	return 0;
}

/*
 * spec: "scenario:variant". strategy: "random", "pct" (depth = param),
 * "dfs" (bound = param) or "bytes" (wl = the whole input, one execution).
 * wl: fixed workload bytes, or NULL (generated). until: stop at the first
 * report of this kind (WEFT_KIND_NONE: of any kind). stat: a counter to sum
 * over the executions, or NULL.
 */
static inline struct mm_outcome mm_run(const char *spec, const char *strategy, uint64_t seed,
				       unsigned param, const uint8_t *wl, size_t wl_len,
				       uint64_t budget, enum weft_kind until, const char *stat)
{
	static union {
		struct weft_random r;
		struct weft_pct p;
		struct weft_dfs d;
		struct weft_bytes b;
	} st;
	struct mm_outcome out;
	const struct weft_strategy_ops *ops;
	unsigned vi = 0;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);

	memset(&out, 0, sizeof(out));
	if (!sc) {
		CHECK(sc, "no scenario %s", spec);
		return out;
	}
	if (!strcmp(strategy, "random")) {
		weft_random_init(&st.r, sc, seed, wl, wl_len);
		ops = &weft_strategy_random;
	} else if (!strcmp(strategy, "pct")) {
		weft_pct_init(&st.p, sc, seed, param, wl, wl_len);
		ops = &weft_strategy_pct;
	} else if (!strcmp(strategy, "dfs")) {
		weft_dfs_init(&st.d, sc, param, wl, wl_len);
		st.d.delay_bound = mm_delay_bound;
		ops = &weft_strategy_dfs;
	} else {
		weft_bytes_init(&st.b, sc, wl, wl_len);
		ops = &weft_strategy_bytes;
		budget = 1;
	}
	struct weft_run_opts o = { .sc = sc, .variant = vi,
				    .lock = mm_lock < 0 ? sc->default_lock
							: (enum weft_lock_model)mm_lock,
				    .memory = (uint8_t)mm_memory };
	double t0 = mm_now();
	for (uint64_t i = 0; i < budget; i++) {
		if (weft_execute(&o, ops, &st, &out.r) < 0)
			break;
		out.executions++;
		if (stat)
			out.stat += mm_last_stat(sc, stat);
		if (out.r.kind != WEFT_KIND_NONE &&
		    (until == WEFT_KIND_NONE || out.r.kind == until)) {
			out.kind = out.r.kind;
			break;
		}
	}
	out.seconds = mm_now() - t0;
	if (ops == &weft_strategy_dfs)
		out.complete = st.d.complete;
	return out;
}

/* The workload section of spec's trigger input; returns its length. */
static inline size_t mm_trigger_workload(const char *spec, uint8_t *wl, size_t cap)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);

	return sc ? weft_trigger_workload(sc, vi, wl, cap) : 0;
}

/* Model counters summed over executions. */
struct mm_counters {
	unsigned n;
	const char *names[96];
	uint64_t sum[96];
};

/*
 * The silence check of a fixed variant: n executions of spec under
 * "random" or "pct" (depth 3) from seed, over generated workloads; any
 * report is a test failure. Sums the model's counters into c (which the
 * caller zeroes) and prints the executions and the time. Returns the
 * executions done.
 */
static inline uint64_t mm_silent(const char *spec, const char *strategy, uint64_t n,
				 uint64_t seed, struct mm_counters *c)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	struct weft_random r;
	struct weft_pct p;
	const struct weft_strategy_ops *ops = &weft_strategy_random;
	void *st = &r;
	struct weft_exec_result res;
	uint64_t vals[96], done = 0;

	CHECK(sc && !sc->variants[vi].buggy, "%s is a fixed variant", spec);
	if (!sc)
		return 0;
	if (!strcmp(strategy, "pct")) {
		weft_pct_init(&p, sc, seed, 3, NULL, 0);
		ops = &weft_strategy_pct;
		st = &p;
	} else {
		weft_random_init(&r, sc, seed, NULL, 0);
	}
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				    .memory = (uint8_t)mm_memory };
	double t0 = mm_now();
	for (; done < n; done++) {
		if (weft_execute(&o, ops, st, &res) != 0) {
			CHECK(0, "weft_execute failed at execution %llu", (unsigned long long)done);
			break;
		}
		if (res.kind != WEFT_KIND_NONE) {
			CHECK(0, "%s %s execution %llu: %s: %s: %s", spec, strategy,
			      (unsigned long long)done + 1, weft_kind_name(res.kind),
			      res.report.object, res.report.msg);
			break;
		}
		c->n = sc->stats(weft_last_world(), c->names, vals, 96);
		for (unsigned k = 0; k < c->n; k++)
			c->sum[k] += vals[k];
	}
	printf("%s: %llu %s executions clean under --memory %s in %.2f s\n", spec,
	       (unsigned long long)done, strategy, weft_memory_name(mm_memory), mm_now() - t0);
	return done;
}

/* The sum of counter name (0 if the model has none). */
static inline uint64_t mm_counter(const struct mm_counters *c, const char *name)
{
	for (unsigned k = 0; k < c->n; k++)
		if (!strcmp(c->names[k], name))
			return c->sum[k];
	return 0;
}

/* Every counter in must[] moved: the generated workloads reached that path. */
static inline void mm_require_counters(const char *spec, const struct mm_counters *c,
				       const char *const *must, unsigned nmust)
{
	for (unsigned m = 0; m < nmust; m++) {
		uint64_t v = mm_counter(c, must[m]);
		CHECK(v > 0, "%s: counter %s never moved: the workloads miss a path", spec, must[m]);
		printf("  %-36s %llu\n", must[m], (unsigned long long)v);
	}
}

#endif
