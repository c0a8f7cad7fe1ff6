/*
 * test_z2_dfs.c - certify a fixed variant of Z2 (argv[1]: v3 or
 * per-entry): dfs with preemption bound 2 on the trigger workload covers
 * the bounded space completely and reports nothing; the same search on
 * v2 reports the leak in its first execution.
 */
#include "z2_test_util.h"

int main(int argc, char **argv)
{
	const char *variant = argc > 1 ? argv[1] : "v3";
	uint8_t wl[64];
	size_t wl_len = z2_trigger_workload(wl, sizeof(wl));
	struct z2_outcome o;

	o = z2_run(variant, "dfs", 0, 2, wl, wl_len, 2000000);
	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "%s dfs 2 on the trigger: %s (%s), complete %d",
	      variant, weft_kind_name(o.kind), o.r.report.msg, o.complete);
	printf("%s: dfs bound 2 on the trigger workload: %llu executions, %.3f s, %s\n", variant,
	       (unsigned long long)o.executions, o.seconds, o.complete ? "complete" : "INCOMPLETE");
	o = z2_run("v2", "dfs", 0, 2, wl, wl_len, 2000000);
	CHECK(o.kind == WEFT_KIND_SLOT_LEAK && o.executions == 1, "v2 dfs 2: %s after %llu",
	      weft_kind_name(o.kind), (unsigned long long)o.executions);
	return check_done();
}
