/*
 * test_z3_trigger.c - Z3 on hand-written inputs:
 *  - the trigger input reports use-after-free of cluster 0's lock in
 *    swap_page_trans_huge_swapped(), freed by swapoff's kvfree(cluster_info),
 *    with 1 preemption; dfs on its workload: bound 0 complete and clean,
 *    bound 1 finds it with 1 preemption;
 *  - the fixed variant on the same workload: dfs bound 1 complete and
 *    clean, and in some of those executions swapoff did wait for the
 *    free's device reference (the fix at work, not a workload that misses
 *    the race);
 *  - the false alarm of v1 of the fix: T0's zap frees entry 0 under the
 *    ptl and is preempted before it clears the PTE; T1's do_swap_page()
 *    reads orig_pte locklessly (still swap entry 0), takes the device and
 *    finds the entry unused. The inputs below drive exactly that
 *    interleaving (1 preemption; the decision differs per variant): both
 *    variants are silent and counted the unused lookup once; dfs bound 2
 *    over the workload is complete and silent;
 *  - a libFuzzer finding that was a model defect (the swap-in read a
 *    present PTE, then re-read it as a swap entry after the device was
 *    gone, without a device reference): silent on both variants now.
 */
#include "zoo_test.h"

/* T0: swapout 0 (order 0), reclaim 0 (slot 0 -> 0x01), zap 0; T1: swapin 0 */
static const uint8_t fa_wl[] = { 4, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00, 0x12, 0x00 };

/* fa_wl plus one preemption of T0 right after the free, to T1 */
static const uint8_t fa_in_z3[] = { 4, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00, 0x12, 0x00, 106, 0, 0 };
static const uint8_t fa_in_fix[] = { 4, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00, 0x12, 0x00, 108, 0, 0 };

/* found by `weft fuzz z3-swapoff:z3` (5 preemptions): must stay silent */
static const uint8_t fuzz_fp[] = {
	0x06, 0x14, 0x00, 0x00, 0x01, 0x00, 0x04, 0x28, 0x12, 0x10, 0x25, 0xbf, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x23, 0x00, 0x00, 0x41, 0x00, 0x00, 0x72, 0x00, 0x00, 0xac, 0x00, 0x01,
};

int main(int argc, char **argv)
{
	struct zoo_trigger_case t;
	struct mm_outcome o;

	if (!zoo_trigger_case("z3-swapoff:z3", 11, &t))
		return check_done();

	o = zoo_run("z3-swapoff:z3", "bytes", 0, 0, t.input, t.input_len, 1, NULL);
	CHECK(o.kind == WEFT_KIND_USE_AFTER_FREE, "z3 trigger: %s", weft_kind_name(o.kind));
	CHECK(!strcmp(o.r.report.object, "cluster 0 lock"), "object '%s'", o.r.report.object);
	CHECK(o.r.report.here.site && !strcmp(o.r.report.here.site->func, "z3_trans_huge_swapped"),
	      "here: %s", o.r.report.here.site ? o.r.report.here.site->func : "-");
	CHECK(o.r.report.here.tid == 0, "T0 (zap) accesses it (T%d)", o.r.report.here.tid);
	CHECK(o.r.report.other.valid && o.r.report.other.tid == 2 && o.r.report.other.site &&
	      strstr(o.r.report.other.site->what, "cluster_info"),
	      "freed by T2's swapoff kvfree(cluster_info) (%s)",
	      o.r.report.other.site ? o.r.report.other.site->what : "-");
	CHECK(o.r.preemptions == 1, "1 preemption (%u)", o.r.preemptions);
	zoo_print_trigger("z3", &o.r);

	zoo_dfs_minimal("z3-swapoff:z3", NULL, 1, WEFT_KIND_USE_AFTER_FREE);

	zoo_fix_takes_path("z3-swapoff:fix", t.wl, t.wl_len, "swapoff_waited_for_users",
			   "swapoff never waited for a device reference");

	/* the false alarm of v1 */
	static const char *const both[] = { "z3-swapoff:z3", "z3-swapoff:fix" };
	static const uint8_t *const fa_in[] = { fa_in_z3, fa_in_fix };
	for (unsigned k = 0; k < 2; k++) {
		o = zoo_run(both[k], "bytes", 0, 0, fa_in[k], sizeof(fa_in_z3), 1, "lookup_unused_entry");
		CHECK(o.kind == WEFT_KIND_NONE && o.stat == 1 && o.r.preemptions == 1,
		      "%s false-alarm input: %s (%s), %llu unused lookups, %u preemptions",
		      both[k], weft_kind_name(o.kind), o.r.report.msg,
		      (unsigned long long)o.stat, o.r.preemptions);
	}
	for (unsigned k = 0; k < 2; k++) {
		o = zoo_run(both[k], "dfs", 0, 2, fa_wl, sizeof(fa_wl), 1000000, "lookup_unused_entry");
		CHECK(o.kind == WEFT_KIND_NONE && o.complete, "%s false-alarm dfs 2: %s (%s)",
		      both[k], weft_kind_name(o.kind), o.r.report.msg);
		CHECK(o.stat > 0, "%s: the unused-entry lookup was never reached", both[k]);
		printf("%s false-alarm workload, dfs bound 2: %llu executions, clean, %llu unused "
		       "lookups\n", both[k], (unsigned long long)o.executions,
		       (unsigned long long)o.stat);
	}
	for (unsigned k = 0; k < 2; k++) {
		o = zoo_run(both[k], "bytes", 0, 0, fuzz_fp, sizeof(fuzz_fp), 1, NULL);
		CHECK(o.kind == WEFT_KIND_NONE, "%s fuzzer input: %s (%s)", both[k],
		      weft_kind_name(o.kind), o.r.report.msg);
	}
	(void)argc;
	(void)argv;
	return check_done();
}
