/*
 * test_scenarios.c - scenarios that exist only to test the tools:
 *  - test-nondet reads host state (a counter in static storage that each
 *    execution's setup increments, never reset): its trace depends on how
 *    many executions ran before it in this process, which the determinism
 *    decorator and dfs must notice; in variant host-counter the schedule
 *    depends on it, in host-value only a value written (the same
 *    decisions, verdict and steps: the trace hash alone shows it);
 *  - test-deep runs more scheduling decisions than a dfs frame stack holds
 *    (WEFT_DFS_MAX_DEPTH), so a dfs over it is cut and must not certify.
 * Neither is in the registry: `weft list` never shows them.
 */
#include <weft/kernel.h>

#include "test_scenarios.h"
#include "../model_driver.h"

/* ------------------------------------------------------------ nondet */

static unsigned nondet_host_runs;   /* host state, on purpose */

struct nondet_world {
	unsigned odd;      /* copied from host state at setup */
	unsigned value_only;   /* variant host-value */
	spinlock_t l;
	int a, b, c;
};

static void nondet_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct nondet_world *W = w;

	(void)wl;
	W->odd = ++nondet_host_runs & 1;
	W->value_only = variant == 1;
}

/* T0 holds the lock over its writes only in odd executions, so the same
 * decisions find T1 blocked in one execution and running in the next. */
static void nondet_thread(void *w, unsigned tid)
{
	struct nondet_world *W = w;

	if (W->value_only) {
		if (tid)
			WRITE_ONCE(W->b, W->odd + 1);
		else
			WRITE_ONCE(W->a, W->odd + 1);
		return;
	}
	if (tid == 0) {
		if (W->odd)
			spin_lock(&W->l);
		WRITE_ONCE(W->a, 1);
		WRITE_ONCE(W->b, 1);
		if (W->odd)
			spin_unlock(&W->l);
		return;
	}
	spin_lock(&W->l);
	WRITE_ONCE(W->c, READ_ONCE(W->a) + 1);
	spin_unlock(&W->l);
}

static const char *const test_files[] = { "test_scenarios.c", NULL };

static const struct weft_variant nondet_variants[] = {
	{ "host-counter", NULL, false, "reads a host counter (nondeterministic on purpose)",
	  "tests/strategies", WEFT_KIND_NONE, 0, 0 },
	{ "host-value", NULL, false, "writes a value read from a host counter (the schedule "
	  "stays the same)", "tests/strategies", WEFT_KIND_NONE, 0, 0 },
};

const struct weft_scenario weft_test_scn_nondet = {
	.name = "test-nondet", .summary = "test only: a model whose trace depends on host state",
	.source = "tests/strategies/test_scenarios.c", .nr_cpus = 2, .nr_threads = 2,
	.world_size = sizeof(struct nondet_world), WEFT_TEST_NOP_OP,
	.decision_hint = 64, .files = test_files, WEFT_TEST_HOOKS(nondet),
};

/* -------------------------------------------------------------- deep */

struct deep_world {
	atomic_t n;
};

/* T0's points all come while T1 is still runnable: each is a decision. */
static void deep_thread(void *w, unsigned tid)
{
	struct deep_world *W = w;
	unsigned n = tid == 0 ? WEFT_TEST_DEEP_POINTS : 1;

	for (unsigned i = 0; i < n; i++)
		atomic_inc(&W->n);
}

static const struct weft_variant deep_variants[] = {
	{ "deep", NULL, false, "more decisions than a dfs frame stack holds", "tests/strategies",
	  WEFT_KIND_NONE, 0, 0 },
};

const struct weft_scenario weft_test_scn_deep = {
	.name = "test-deep", .summary = "test only: a search deeper than WEFT_DFS_MAX_DEPTH",
	.source = "tests/strategies/test_scenarios.c", .nr_cpus = 2, .nr_threads = 2,
	.world_size = sizeof(struct deep_world), WEFT_TEST_NOP_OP,
	.decision_hint = 64, .files = test_files, .thread = deep_thread,
	WEFT_TEST_VARIANTS(deep),
};
