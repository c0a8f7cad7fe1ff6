/*
 * z34_run.h - helpers of the Z3 and Z4 tests: run one strategy on a
 * scenario:variant until a report, the budget, or (dfs) the end; sum a
 * model counter over every execution.
 */
#ifndef WEFT_Z34_RUN_H
#define WEFT_Z34_RUN_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/strategy.h>

#include "check.h"

struct z34_outcome {
	enum weft_kind kind;
	uint64_t executions;        /* up to and including the first report */
	bool complete;              /* dfs only */
	struct weft_exec_result r;
	double seconds;
	uint64_t stat;              /* the counter asked for, summed */
};

static inline double z34_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The value of counter name in the last execution's world (0 if none). */
static inline uint64_t z34_last_stat(const struct weft_scenario *sc, const char *name)
{
	const char *names[96];
	uint64_t vals[96];
	unsigned n = sc->stats(weft_last_world(), names, vals, 96);

	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return vals[i];
	return 0;
}

/* strategy: "random", "pct" (depth = param), "dfs" (bound = param) or
 * "bytes" (wl = the whole input). wl: fixed workload bytes or NULL. */
static inline struct z34_outcome z34_run(const char *spec, const char *strategy, uint64_t seed,
					 unsigned param, const uint8_t *wl, size_t wl_len,
					 uint64_t budget, const char *stat)
{
	static union {
		struct weft_random r;
		struct weft_pct p;
		struct weft_dfs d;
		struct weft_bytes b;
	} st;
	struct z34_outcome out;
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
		ops = &weft_strategy_dfs;
	} else {
		weft_bytes_init(&st.b, sc, wl, wl_len);
		ops = &weft_strategy_bytes;
		budget = 1;
	}
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock };
	double t0 = z34_now();
	for (uint64_t i = 0; i < budget; i++) {
		if (weft_execute(&o, ops, &st, &out.r) < 0)
			break;
		out.executions++;
		if (stat)
			out.stat += z34_last_stat(sc, stat);
		if (out.r.kind != WEFT_KIND_NONE) {
			out.kind = out.r.kind;
			break;
		}
	}
	out.seconds = z34_now() - t0;
	if (ops == &weft_strategy_dfs)
		out.complete = st.d.complete;
	return out;
}

/* The workload section of spec's trigger input; returns its length. */
static inline size_t z34_trigger_workload(const char *spec, uint8_t *wl, size_t cap)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	struct weft_input in;

	if (!sc || !sc->triggers || !sc->triggers[vi])
		return 0;
	weft_input_decode(&in, sc->triggers[vi], sc->trigger_lens[vi]);
	if (1 + 2 * (size_t)in.nr_wl_ops > cap)
		return 0;
	wl[0] = (uint8_t)in.nr_wl_ops;
	for (unsigned k = 0; k < in.nr_wl_ops; k++) {
		wl[1 + 2 * k] = in.wl[k].t_op;
		wl[2 + 2 * k] = in.wl[k].arg;
	}
	return 1 + 2 * (size_t)in.nr_wl_ops;
}

static inline int z34_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline int z34_cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Search with nseeds seeds (1..nseeds); each must find want within budget
 * executions. Prints min/median/max executions and milliseconds.
 */
static inline void z34_search(const char *label, const char *spec, const char *strategy,
			      unsigned param, const uint8_t *wl, size_t wl_len, unsigned nseeds,
			      uint64_t budget, enum weft_kind want)
{
	uint64_t ex[32];
	double ms[32];

	if (nseeds > 32)
		nseeds = 32;
	for (unsigned s = 0; s < nseeds; s++) {
		struct z34_outcome o = z34_run(spec, strategy, 1 + s, param, wl, wl_len, budget,
					       NULL);
		CHECK(o.kind == want, "%s seed %u: %s after %llu executions", label, 1 + s,
		      weft_kind_name(o.kind), (unsigned long long)o.executions);
		ex[s] = o.executions;
		ms[s] = o.seconds * 1e3;
	}
	qsort(ex, nseeds, sizeof(ex[0]), z34_cmp_u64);
	qsort(ms, nseeds, sizeof(ms[0]), z34_cmp_dbl);
	printf("%-40s executions min %llu median %llu max %llu; ms min %.2f median %.2f max %.2f\n",
	       label, (unsigned long long)ex[0], (unsigned long long)ex[nseeds / 2],
	       (unsigned long long)ex[nseeds - 1], ms[0], ms[nseeds / 2], ms[nseeds - 1]);
}

#endif
