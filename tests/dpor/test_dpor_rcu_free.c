/*
 * test_dpor_rcu_free.c - a free made before any family used the core
 * area, against another thread's RCU reader that holds a pointer into the
 * freed object: plain dfs finds the free in use (the reader's section
 * and dereference first, then the free), and so must every reduction.
 *
 * The free's record of the RCU state it checks (rcu.c, rcu_freed()) was
 * made only once some family had used the core area (M.core_used): a
 * free run before the reader's rcu_read_lock() had no record but the
 * poison's, the dereference after it wrote only its reader's book, and
 * the two looked independent, so source-DPOR ran one execution and
 * certified the model clean at every bound (96a7ec3). Found as the 6 of
 * 34 classes dpor_classes z15-ref-unfreeze:fix 2 said DPOR missed
 * (docs/benchmark-notes.md, "DPOR dependence audit").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"

struct rf {
	int *gp;       /* published in setup */
	int obj[2];    /* what it points to */
	int x;
};

static unsigned rf_mode;   /* 0: the reader holds obj; 1: it holds nothing */

static void rf_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	struct rf *W = w;

	(void)v;
	(void)wl;
	W->gp = rf_mode ? NULL : W->obj;
}

static void rf_thread(void *w, unsigned tid)
{
	struct rf *W = w;

	if (tid == 0) {
		/* kfree(obj) without unpublishing it first (the bug) */
		WRITE_ONCE(W->x, 1);
		weft_poison(W->obj, sizeof(W->obj), WEFT_SITE(WEFT_EV_FREE, "kfree(obj)"));
	} else {
		rcu_read_lock();
		int *p = rcu_dereference(W->gp);
		(void)p;
		rcu_read_unlock();
	}
}

static const char *const rf_ops[] = { "nop" };
static const struct weft_variant rf_variants[] = {
	{ "only", NULL, false, "rcu free", "test", WEFT_KIND_NONE, 0, 0 },
};
static const struct weft_scenario rfsc = {
	.name = "rcu-free-unused-core", .summary = "", .source = "test", .nr_cpus = 2,
	.nr_threads = 2, .world_size = sizeof(struct rf), .nr_opcodes = 1, .opnames = rf_ops,
	.max_ops = 1, .decision_hint = 64, .setup = rf_setup, .thread = rf_thread,
	.variants = rf_variants, .nr_variants = 1,
};

struct out {
	unsigned long long execs, bugs;
	bool complete;
};

static struct out run(enum weft_por m, unsigned bound)
{
	struct weft_run_opts o = { .sc = &rfsc, .lock = rfsc.default_lock, .no_trace_hash = true };
	struct weft_exec_result r;
	struct out out = { 0 };

	if (m == WEFT_POR_NONE) {
		static struct weft_dfs dfs;
		weft_dfs_init(&dfs, &rfsc, bound, NULL, 0);
		while (weft_execute(&o, &weft_strategy_dfs, &dfs, &r) == 0) {
			out.execs++;
			out.bugs += r.kind == WEFT_KIND_RCU_FREE_IN_USE;
		}
		out.complete = dfs.complete;
		return out;
	}
	struct weft_dpor *d = weft_dpor_new();
	CHECK(d && weft_dpor_reset(d, &rfsc, m, bound, rfsc.default_lock, NULL, 0) == 0, "reset");
	while (weft_execute(&o, &weft_strategy_dpor, d, &r) == 0) {
		out.execs++;
		out.bugs += r.kind == WEFT_KIND_RCU_FREE_IN_USE;
	}
	out.complete = weft_dpor_complete(d);
	weft_dpor_free(d);
	return out;
}

int main(void)
{
	weft_machine_init();
	const unsigned bounds[] = { WEFT_BOUND_NONE, 1, 2 };
	for (rf_mode = 0; rf_mode < 2; rf_mode++) {
		for (unsigned bi = 0; bi < 3; bi++) {
			unsigned b = bounds[bi];
			int bd = b == WEFT_BOUND_NONE ? -1 : (int)b;
			struct out p = run(WEFT_POR_NONE, b);
			CHECK(p.complete && (p.bugs != 0) == !rf_mode,
			      "%s bound %d: plain dfs %llu executions, %llu free-in-use reports",
			      rf_mode ? "holds nothing" : "holds obj", bd, p.execs, p.bugs);
			for (enum weft_por m = WEFT_POR_SLEEP; m <= WEFT_POR_OPTIMAL; m++) {
				if (!weft_por_sound(m, b))
					continue;
				struct out d = run(m, b);
				CHECK((d.bugs != 0) == (p.bugs != 0) && d.complete,
				      "%s bound %d: %s DPOR %llu executions, %llu free-in-use reports "
				      "(%s); plain dfs %llu", rf_mode ? "holds nothing" : "holds obj",
				      bd, weft_por_name(m), d.execs, d.bugs,
				      d.complete ? "certified" : "not certified", p.execs);
				printf("%s bound %d: plain dfs %llu executions (%llu reports), %s %llu "
				       "(%llu)\n", rf_mode ? "holds nothing" : "holds obj", bd, p.execs,
				       p.bugs, weft_por_name(m), d.execs, d.bugs);
			}
		}
	}
	return check_done();
}
