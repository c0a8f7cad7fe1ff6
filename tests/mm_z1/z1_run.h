/*
 * z1_run.h - drive z1-lru through the C API the way tools/cmd_run.c does:
 * one strategy state, weft_execute until a report, the budget, or (dfs)
 * the end of the bounded space.
 */
#ifndef WEFT_TEST_Z1_RUN_H
#define WEFT_TEST_Z1_RUN_H

#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "check.h"

struct z1_res {
	bool bug;
	bool complete;          /* dfs: bounded space covered */
	uint64_t execs;         /* executions run (the finding one included) */
	struct weft_exec_result r;
};

/* Workload sections (byte 0: op count; then [thread<<4 | op][arg]). */
static const uint8_t z1_wl_release_scan[] = { 0x02, 0x01, 0x00, 0x12, 0x00 };
static const uint8_t z1_wl_add_release[] = { 0x02, 0x08, 0x00, 0x21, 0x00 };
static const uint8_t z1_wl_new_truncate[] = { 0x02, 0x04, 0x00, 0x23, 0x08 };

static inline const struct weft_scenario *z1_scenario(const char *variant, unsigned *vi)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "z1-lru:%s", variant);
	const struct weft_scenario *sc = weft_scenario_find(spec, vi);
	if (!sc) {
		fprintf(stderr, "no scenario %s\n", spec);
		exit(2);
	}
	return sc;
}

typedef void (*z1_after_fn)(const struct weft_exec_result *r, void *ctx);

static inline struct z1_res z1_loop(const struct weft_run_opts *o,
				    const struct weft_strategy_ops *ops, void *st, uint64_t max,
				    z1_after_fn after, void *ctx)
{
	struct z1_res res;

	memset(&res, 0, sizeof(res));
	while (res.execs < max) {
		if (weft_execute(o, ops, st, &res.r) < 0)
			break;
		res.execs++;
		if (after)
			after(&res.r, ctx);
		if (res.r.kind != WEFT_KIND_NONE) {
			res.bug = true;
			break;
		}
	}
	return res;
}

static inline struct z1_res z1_dfs(const char *variant, enum weft_lock_model lock, unsigned bound,
				   const uint8_t *wl, size_t wl_len, z1_after_fn after, void *ctx)
{
	static struct weft_dfs d;
	unsigned vi;
	const struct weft_scenario *sc = z1_scenario(variant, &vi);
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = lock };

	weft_dfs_init(&d, sc, bound, wl, wl_len);
	struct z1_res res = z1_loop(&o, &weft_strategy_dfs, &d, UINT64_MAX, after, ctx);
	res.complete = d.complete && !res.bug;
	return res;
}

static inline struct z1_res z1_random(const char *variant, enum weft_lock_model lock,
				      uint64_t seed, const uint8_t *wl, size_t wl_len, uint64_t max)
{
	static struct weft_random rs;
	unsigned vi;
	const struct weft_scenario *sc = z1_scenario(variant, &vi);
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = lock };

	weft_random_init(&rs, sc, seed, wl, wl_len);
	return z1_loop(&o, &weft_strategy_random, &rs, max, NULL, NULL);
}

static inline struct z1_res z1_pct(const char *variant, enum weft_lock_model lock, uint64_t seed,
				   unsigned depth, const uint8_t *wl, size_t wl_len, uint64_t max)
{
	static struct weft_pct p;
	unsigned vi;
	const struct weft_scenario *sc = z1_scenario(variant, &vi);
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = lock };

	weft_pct_init(&p, sc, seed, depth, wl, wl_len);
	return z1_loop(&o, &weft_strategy_pct, &p, max, NULL, NULL);
}

/* One execution of a bytes input (workload + schedule entries). */
static inline struct z1_res z1_bytes(const char *variant, enum weft_lock_model lock,
				     const uint8_t *in, size_t len)
{
	static struct weft_bytes b;
	unsigned vi;
	const struct weft_scenario *sc = z1_scenario(variant, &vi);
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = lock };

	weft_bytes_init(&b, sc, in, len);
	return z1_loop(&o, &weft_strategy_bytes, &b, 1, NULL, NULL);
}

/* A counter of the last execution's world, by its --stats name. */
static inline uint64_t z1_stat(const char *variant, const char *name)
{
	unsigned vi;
	const struct weft_scenario *sc = z1_scenario(variant, &vi);
	const char *names[64];
	uint64_t vals[64];
	unsigned n = sc->stats(weft_last_world(), names, vals, 64);

	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return vals[i];
	fprintf(stderr, "no counter %s\n", name);
	exit(2);
}

#endif
