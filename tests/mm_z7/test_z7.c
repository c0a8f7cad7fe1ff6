/*
 * test_z7.c - ZOO Z7 (swap count continuation), on the installed kit:
 *  - the triggers report swap-slot-leak with 1 preemption (z7, z7-small),
 *    and the fixed variants are clean on the same inputs;
 *  - dfs on the trigger workloads: bound 0 finds nothing and covers the
 *    space, bound 1 finds the leak (the minimal bound is 1);
 *  - the fixes are clean and complete under dfs bound 1 (real constants)
 *    and bound 2 (small constants) on the trigger workloads;
 *  - the deep state: random and pct d=2 over generated workloads do not
 *    reach z7 (real constants) in 20 k executions each, and the fixes
 *    stay silent under random over generated workloads;
 *  - the encoding: a slot duplicated past SWAP_MAP_MAX carries into a
 *    continuation page and borrows back when freed, serially.
 */
#include "zoo_test.h"

static void carry_and_borrow(void)
{
	/* serially: T0 dups slot 0 eight times (2 -> carry), frees them all */
	static const uint8_t in[] = { 2, 0x00, 0x70, 0x01, 0x70 };
	struct mm_outcome o = mm_run("z7-swapcont:z7-small", "bytes", 0, 0, in, sizeof(in), 1,
				     WEFT_KIND_NONE, "swap_count_continued");
	CHECK(o.kind == WEFT_KIND_NONE, "serial carry/borrow: %s", weft_kind_name(o.kind));
	CHECK(o.stat >= 6, "the continuation was walked %llu times", (unsigned long long)o.stat);
	o = mm_run("z7-swapcont:z7-small", "bytes", 0, 0, in, 3, 1, WEFT_KIND_NONE,
		   "continuation_pages_added");
	CHECK(o.kind == WEFT_KIND_NONE && o.stat >= 1, "a continuation page was added");
}

int main(void)
{
	zoo_trigger("z7-swapcont:z7", "z7-swapcont:z7", WEFT_KIND_SLOT_LEAK, 1, NULL, NULL);
	zoo_trigger("z7-swapcont:z7-small", "z7-swapcont:z7-small", WEFT_KIND_SLOT_LEAK, 1, NULL,
		    NULL);
	zoo_trigger("z7-swapcont:fix", "z7-swapcont:fix", WEFT_KIND_NONE, 0, NULL, NULL);
	zoo_trigger("z7-swapcont:fix-small", "z7-swapcont:fix-small", WEFT_KIND_NONE, 0, NULL, NULL);
	zoo_dfs_minimal("z7-swapcont:z7-small", NULL, 1, WEFT_KIND_SLOT_LEAK);
	zoo_dfs_minimal("z7-swapcont:z7", NULL, 1, WEFT_KIND_SLOT_LEAK);
	zoo_dfs_clean("z7-swapcont:fix", NULL, 1);
	zoo_dfs_clean("z7-swapcont:fix-small", NULL, 2);
	carry_and_borrow();

	/* the deep state is out of reach of blind search */
	for (unsigned s = 0; s < 2; s++) {
		struct mm_outcome o = mm_run("z7-swapcont:z7", s ? "pct" : "random", 1, 2, NULL, 0,
					     20000, WEFT_KIND_SLOT_LEAK, NULL);
		CHECK(o.kind == WEFT_KIND_NONE, "%s reached z7's deep state",
		      s ? "pct" : "random");
	}
	zoo_silent("z7-swapcont:fix", "random", 20000, 7, NULL, 0);
	zoo_silent("z7-swapcont:fix-small", "random", 50000, 7, NULL, 0);
	zoo_silent("z7-swapcont:fix-small", "pct", 20000, 11, NULL, 0);
	return check_done();
}
