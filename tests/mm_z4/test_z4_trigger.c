/*
 * test_z4_trigger.c - Z4 on hand-written inputs:
 *  - the trigger input reports data-loss at T0's read of address 0 (the
 *    stale private page installed after pte_same() passed on the reused
 *    slot), with 1 preemption, and every count consistent (the report
 *    comes from the data oracle, not from an audit);
 *  - dfs on its workload: bound 0 complete and clean, bound 1 finds it
 *    with 1 preemption;
 *  - the fixed variant on the same workload: dfs bound 1 complete and
 *    clean; in some executions the racer's swapcache_prepare() failed and
 *    the fault was retried (the back-off at work, and it did not spin);
 *  - the zap flavour of the ABA: T1 unmaps the address (the entry is
 *    freed), faults a fresh page, writes it and swaps it out into the
 *    same slot: found with 1 preemption on z4, clean on fix.
 */
#include "zoo_test.h"

/* T0: swapout 0, reclaim 0, read 0; T1: zap 0, write 0, swapout 0 */
static const uint8_t zap_wl[] = { 6, 0x00, 0x00, 0x04, 0x00, 0x01, 0x00,
				  0x13, 0x00, 0x12, 0x00, 0x10, 0x00 };

int main(void)
{
	struct zoo_trigger_case t;
	struct mm_outcome o;

	if (!zoo_trigger_case("z4-swapin-aba:z4", 11, &t))
		return check_done();

	o = zoo_run("z4-swapin-aba:z4", "bytes", 0, 0, t.input, t.input_len, 1, "skip_swapcache_reads");
	CHECK(o.kind == WEFT_KIND_DATA_LOSS, "z4 trigger: %s", weft_kind_name(o.kind));
	CHECK(!strcmp(o.r.report.object, "page 0 ->data"), "object '%s'", o.r.report.object);
	CHECK(o.r.report.here.site && !strcmp(o.r.report.here.site->func, "z4_check") &&
	      o.r.report.here.tid == 0, "T0's read reports it (%s T%d)",
	      o.r.report.here.site ? o.r.report.here.site->func : "-", o.r.report.here.tid);
	/* the kit's swap_read_folio() of T0's own skip-swapcache fault */
	CHECK(o.r.report.other.valid && o.r.report.other.site &&
	      !strcmp(o.r.report.other.site->func, "weft_swap_read_folio") &&
	      o.r.report.other.tid == 0,
	      "the stale data came from the skip-swapcache read (%s T%d)",
	      o.r.report.other.site ? o.r.report.other.site->func : "-", o.r.report.other.tid);
	CHECK(o.r.preemptions == 1, "1 preemption (%u)", o.r.preemptions);
	CHECK(o.stat == 2, "both faults read without the swap cache (%llu)",
	      (unsigned long long)o.stat);
	CHECK(mm_last_stat(t.sc, "swap_slots_allocated") == 2,
	      "slot 0 allocated twice: the LIFO reuse (%llu)",
	      (unsigned long long)mm_last_stat(t.sc, "swap_slots_allocated"));
	/* WEFT_SWAP_STATS_FN(): the model's rows (above), the device's, then
	 * the page model's */
	CHECK(mm_last_stat(t.sc, "page_alloc") >= 2, "the faults allocated pages (%llu)",
	      (unsigned long long)mm_last_stat(t.sc, "page_alloc"));
	zoo_print_trigger("z4", &o.r);

	zoo_dfs_minimal("z4-swapin-aba:z4", NULL, 1, WEFT_KIND_DATA_LOSS);

	zoo_fix_takes_path("z4-swapin-aba:fix", t.wl, t.wl_len, "fault_retries",
			   "no fault ever backed off and retried");

	o = zoo_run("z4-swapin-aba:z4", "dfs", 0, 1, zap_wl, sizeof(zap_wl), 1000000, NULL);
	CHECK(o.kind == WEFT_KIND_DATA_LOSS && o.r.preemptions == 1, "z4 zap ABA: %s (%u)",
	      weft_kind_name(o.kind), o.r.preemptions);
	printf("z4 zap flavour, dfs bound 1: %s after %llu executions\n", weft_kind_name(o.kind),
	       (unsigned long long)o.executions);
	o = zoo_run("z4-swapin-aba:fix", "dfs", 0, 2, zap_wl, sizeof(zap_wl), 2000000, NULL);
	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "fix zap ABA dfs 2: %s (%s) complete %d",
	      weft_kind_name(o.kind), o.r.report.msg, o.complete);
	printf("fix zap flavour, dfs bound 2: %llu executions, complete, clean\n",
	       (unsigned long long)o.executions);
	return check_done();
}
