/*
 * zoo_ctx_checks.h - the checks the zoo entries with CPU contexts (Z11 ..
 * Z13: interrupts, per-CPU batches, work items) share, on top of
 * tests/mm_run.h: a trigger input reports its kind at its site with the
 * declared preemptions (interrupt deliveries counted as preemptions); dfs
 * covers the bound below the minimal one without a report and finds the
 * kind at the minimal one; a fixed variant is complete and clean under
 * dfs; random and pct find the kind from several seeds (the executions
 * are printed: docs/zoo/z1N.md quotes them) and every finding re-runs to
 * the same trace hash (weft_check_determinism).
 */
#ifndef WEFT_ZOO_CTX_CHECKS_H
#define WEFT_ZOO_CTX_CHECKS_H

#include <stdio.h>

#include "mm_run.h"

/* The trigger input of spec: kind at func/what (a prefix) with pre
 * preemptions; WEFT_KIND_NONE: clean. */
static inline void zc_trigger(const char *spec, const char *input_of, enum weft_kind kind,
			      unsigned pre, const char *func, const char *what)
{
	unsigned vi, ti;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	const struct weft_scenario *tsc = weft_scenario_find(input_of, &ti);
	struct mm_outcome o;

	CHECK(sc && tsc && tsc->triggers && tsc->triggers[ti], "%s has a trigger", input_of);
	if (!sc || !tsc || !tsc->triggers || !tsc->triggers[ti])
		return;
	o = mm_run(spec, "bytes", 0, 0, tsc->triggers[ti], tsc->trigger_lens[ti], 1,
		   WEFT_KIND_NONE, NULL);
	CHECK(o.r.kind == kind, "%s on %s's trigger: %s (%s)", spec, input_of,
	      weft_kind_name(o.r.kind), o.r.report.msg);
	if (kind == WEFT_KIND_NONE || o.r.kind != kind)
		return;
	CHECK(o.r.preemptions == pre, "%s trigger: %u preemptions, want %u", spec,
	      o.r.preemptions, pre);
	CHECK(o.r.report.here.valid && o.r.report.here.site &&
	      !strcmp(o.r.report.here.site->func, func) &&
	      !strncmp(o.r.report.here.site->what, what, strlen(what)),
	      "%s trigger reported at %s: %s", spec,
	      o.r.report.here.site ? o.r.report.here.site->func : "?",
	      o.r.report.here.site ? o.r.report.here.site->what : "?");
	printf("%s trigger: %s on %s, %u preemptions, %u steps: %s\n", spec, weft_kind_name(o.kind),
	       o.r.report.object, o.r.preemptions, o.r.steps, o.r.report.msg);
}

/* The workload section of a hex string ("" for none). */
static inline size_t zc_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (; hex[2 * n] && hex[2 * n + 1] && n < cap; n++) {
		unsigned v;

		sscanf(hex + 2 * n, "%2x", &v);
		out[n] = (uint8_t)v;
	}
	return n;
}

/* dfs on a workload (NULL: spec's trigger workload): below min complete
 * and clean, at min the kind with exactly min preemptions. Returns the
 * executions to the finding. */
static inline uint64_t zc_dfs_minimal(const char *spec, const char *wl_hex, unsigned min,
				      enum weft_kind kind)
{
	uint8_t wl[128];
	size_t n = wl_hex ? zc_hex(wl_hex, wl, sizeof(wl))
			  : mm_trigger_workload(spec, wl, sizeof(wl));
	struct mm_outcome o;

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

/* A fixed variant under dfs: complete and clean. */
static inline void zc_dfs_clean(const char *spec, const char *wl_hex, unsigned bound)
{
	uint8_t wl[128];
	size_t n = wl_hex ? zc_hex(wl_hex, wl, sizeof(wl))
			  : mm_trigger_workload(spec, wl, sizeof(wl));
	struct mm_outcome o = mm_run(spec, "dfs", 0, bound, wl, n, 50000000, WEFT_KIND_NONE, NULL);

	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "%s dfs bound %u (workload %s): %s (%s), "
	      "complete %d", spec, bound, wl_hex ? wl_hex : "trigger", weft_kind_name(o.kind),
	      o.r.report.msg, o.complete);
	printf("%s dfs bound %u (workload %s): clean, complete, %llu executions, %.2f s\n", spec,
	       bound, wl_hex ? wl_hex : "trigger", (unsigned long long)o.executions, o.seconds);
}

/*
 * random (param ignored) or pct (param = depth) over generated workloads,
 * seeds 1..nseeds: each finds kind within budget executions; the finding
 * re-runs to the same trace hash. Prints the executions per seed.
 */
static inline void zc_search(const char *spec, const char *strategy, unsigned param,
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

#endif
