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
		ops = &weft_strategy_dfs;
	} else {
		weft_bytes_init(&st.b, sc, wl, wl_len);
		ops = &weft_strategy_bytes;
		budget = 1;
	}
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock };
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

#endif
