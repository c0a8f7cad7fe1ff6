/*
 * z2_test_util.h - helpers of the Z2 tests: run one strategy on a variant
 * of z2-swap-batch until a report, the budget, or (dfs) the end.
 */
#ifndef WEFT_Z2_TEST_UTIL_H
#define WEFT_Z2_TEST_UTIL_H

#include <string.h>
#include <time.h>

#include <weft/strategy.h>

#include "check.h"

struct z2_outcome {
	enum weft_kind kind;
	uint64_t executions;        /* up to and including the first report */
	bool complete;              /* dfs only */
	struct weft_exec_result r;
	double seconds;
};

static inline const struct weft_scenario *z2_scenario(const char *variant, unsigned *vi)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "z2-swap-batch:%s", variant);
	return weft_scenario_find(spec, vi);
}

static inline double z2_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* strategy: "random", "pct", "dfs" (bound = param), or "bytes" (wl = the
 * whole input). wl: fixed workload bytes or NULL (generated). */
static inline struct z2_outcome z2_run(const char *variant, const char *strategy,
				       uint64_t seed, unsigned param, const uint8_t *wl,
				       size_t wl_len, uint64_t budget)
{
	static union {
		struct weft_random r;
		struct weft_pct p;
		struct weft_dfs d;
		struct weft_bytes b;
	} st;
	struct z2_outcome out;
	const struct weft_strategy_ops *ops;
	unsigned vi = 0;
	const struct weft_scenario *sc = z2_scenario(variant, &vi);

	memset(&out, 0, sizeof(out));
	if (!sc) {
		CHECK(sc, "no scenario z2-swap-batch:%s", variant);
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
	double t0 = z2_now();
	for (uint64_t i = 0; i < budget; i++) {
		if (weft_execute(&o, ops, &st, &out.r) < 0)
			break;
		out.executions++;
		if (out.r.kind != WEFT_KIND_NONE) {
			out.kind = out.r.kind;
			break;
		}
	}
	out.seconds = z2_now() - t0;
	if (ops == &weft_strategy_dfs)
		out.complete = st.d.complete;
	return out;
}

/* The workload section of the scenario's trigger input. */
static inline size_t z2_trigger_workload(uint8_t *wl, size_t cap)
{
	unsigned vi;
	const struct weft_scenario *sc = z2_scenario("v2", &vi);
	struct weft_input in;

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
