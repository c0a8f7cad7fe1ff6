/*
 * z5_test_util.h - helpers of the Z5 tests: run one strategy on a variant
 * of z5-tmpfs-truncate until a report, the budget, or (dfs) the end; the
 * workload section of a variant's trigger input; model counters.
 */
#ifndef WEFT_Z5_TEST_UTIL_H
#define WEFT_Z5_TEST_UTIL_H

#include <string.h>
#include <time.h>

#include <weft/strategy.h>

#include "check.h"

struct z5_outcome {
	enum weft_kind kind;
	uint64_t executions;        /* up to and including the first report */
	bool complete;              /* dfs only */
	struct weft_exec_result r;
	double seconds;
};

static inline const struct weft_scenario *z5_scenario(const char *variant, unsigned *vi)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "z5-tmpfs-truncate:%s", variant);
	return weft_scenario_find(spec, vi);
}

static inline double z5_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* strategy: "random", "pct" (depth = param), "dfs" (bound = param), or
 * "bytes" (wl = the whole input, one execution). wl: fixed workload bytes
 * or NULL (generated). */
/* Stop at the first report of this kind (WEFT_KIND_NONE: of any kind). */
static enum weft_kind z5_until_kind;

static inline struct z5_outcome z5_run(const char *variant, const char *strategy,
				       uint64_t seed, unsigned param, const uint8_t *wl,
				       size_t wl_len, uint64_t budget)
{
	static union {
		struct weft_random r;
		struct weft_pct p;
		struct weft_dfs d;
		struct weft_bytes b;
	} st;
	struct z5_outcome out;
	const struct weft_strategy_ops *ops;
	unsigned vi = 0;
	const struct weft_scenario *sc = z5_scenario(variant, &vi);

	memset(&out, 0, sizeof(out));
	if (!sc) {
		CHECK(sc, "no scenario z5-tmpfs-truncate:%s", variant);
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
	double t0 = z5_now();
	for (uint64_t i = 0; i < budget; i++) {
		if (weft_execute(&o, ops, &st, &out.r) < 0)
			break;
		out.executions++;
		if (out.r.kind != WEFT_KIND_NONE &&
		    (z5_until_kind == WEFT_KIND_NONE || out.r.kind == z5_until_kind)) {
			out.kind = out.r.kind;
			break;
		}
	}
	out.seconds = z5_now() - t0;
	if (ops == &weft_strategy_dfs)
		out.complete = st.d.complete;
	return out;
}

/* The workload section of a variant's trigger input. */
static inline size_t z5_trigger_workload(const char *variant, uint8_t *wl, size_t cap)
{
	unsigned vi;
	const struct weft_scenario *sc = z5_scenario(variant, &vi);
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

/* A model counter of the last execution. */
static inline uint64_t z5_stat_of(const char *name)
{
	unsigned vi;
	const struct weft_scenario *sc = z5_scenario("fix", &vi);
	const char *names[64];
	uint64_t vals[64];
	unsigned n = sc->stats(weft_last_world(), names, vals, 64);

	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return vals[i];
	CHECK(0, "no counter %s", name);
	return 0;
}

#endif
