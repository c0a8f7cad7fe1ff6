/*
 * test_z2_dfs.c - certify a fixed variant of Z2 (argv[1]: v3 or
 * per-entry): dfs with preemption bound 2 on the trigger workload covers
 * the bounded space completely and reports nothing; the same search on
 * v2 reports the leak in its first execution. Then dfs bound 1 over 50
 * generated workloads (seeded, cut to 8 ops): complete and clean on each.
 */
#include "zoo_test.h"

#define Z2 "z2-swap-batch"

int main(int argc, char **argv)
{
	const char *variant = argc > 1 ? argv[1] : "v3";
	uint8_t wl[64];
	size_t wl_len = mm_trigger_workload(Z2 ":v2", wl, sizeof(wl));
	struct mm_outcome o;

	o = zoo_run(zoo_spec(Z2, variant), "dfs", 0, 2, wl, wl_len, 2000000, NULL);
	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "%s dfs 2 on the trigger: %s (%s), complete %d",
	      variant, weft_kind_name(o.kind), o.r.report.msg, o.complete);
	printf("%s: dfs bound 2 on the trigger workload: %llu executions, %.3f s, %s\n", variant,
	       (unsigned long long)o.executions, o.seconds, o.complete ? "complete" : "INCOMPLETE");
	o = zoo_run(Z2 ":v2", "dfs", 0, 2, wl, wl_len, 2000000, NULL);
	CHECK(o.kind == WEFT_KIND_SLOT_LEAK && o.executions == 1, "v2 dfs 2: %s after %llu",
	      weft_kind_name(o.kind), (unsigned long long)o.executions);
	/* systematic bound 1 over generated workloads */
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(zoo_spec(Z2, variant), &vi);
	struct weft_rng rng;
	uint64_t total = 0;
	unsigned incomplete = 0;
	weft_rng_seed(&rng, 42);
	for (unsigned k = 0; k < 50; k++) {
		uint8_t gen[WEFT_INPUT_MAX];
		size_t n = weft_random_workload(sc, &rng, gen, sizeof(gen));
		if (gen[0] > 8) {
			gen[0] = 8;
			n = 1 + 2 * 8;
		}
		o = zoo_run(zoo_spec(Z2, variant), "dfs", 0, 1, gen, n, 200000, NULL);
		CHECK(o.kind == WEFT_KIND_NONE, "%s dfs 1, generated workload %u: %s: %s %s", variant,
		      k, weft_kind_name(o.kind), o.r.report.object, o.r.report.msg);
		incomplete += !o.complete;
		total += o.executions;
	}
	CHECK(incomplete == 0, "%u of 50 generated workloads not covered", incomplete);
	printf("%s: dfs bound 1 over 50 generated workloads (<= 8 ops): %llu executions, clean\n",
	       variant, (unsigned long long)total);
	return check_done();
}
