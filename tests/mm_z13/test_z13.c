/*
 * test_z13.c - ZOO Z13 (zonelist_update_seq, v5.19 .. v6.4), on the
 * installed kit:
 *  - noseq's trigger: a premature OOM (assertion in the slowpath) with 1
 *    preemption; z13's trigger: the timer interrupt delivered in the write
 *    section spins alone in read_seqbegin() (livelock, 1 delivery); the
 *    fix is clean on both;
 *  - dfs, bound 0 complete and clean and bound 1 the kind, on noseq's
 *    trigger workload (T0 `offline`, T1 `alloc`), z13's (T0 `offline`:
 *    the interrupt) and the pty one (T0 `offline`, T1 `tty`: printk()
 *    under the seqlock wants the port->lock of a reader);
 *  - the fix is complete and clean under dfs bound 2 on all three;
 *  - random and pct d=2 over generated workloads find each buggy
 *    variant's kind from 5 seeds, every finding re-runs the same; the fix
 *    stays silent under random and pct, and the generated workloads reach
 *    the rebuild, the slowpath restart, the atomic allocations and the
 *    deferred printk.
 */
#include "zoo_ctx_checks.h"

#define NOSEQ "z13-zonelist-seq:noseq"
#define Z13 "z13-zonelist-seq:z13"
#define Z13_FIX "z13-zonelist-seq:fix"
#define WL_NOSEQ "0200001200"
#define WL_IRQ "010000"
#define WL_TTY "0200001400"

int main(void)
{
	zc_trigger(NOSEQ, NOSEQ, WEFT_KIND_ASSERT, 1, "z13_alloc", "__alloc_pages_may_oom");
	zc_trigger(Z13, Z13, WEFT_KIND_LIVELOCK, 1, "z13_read_seqbegin", "cpu_relax");
	zc_trigger(Z13_FIX, Z13, WEFT_KIND_NONE, 0, NULL, NULL);
	zc_trigger(Z13_FIX, NOSEQ, WEFT_KIND_NONE, 0, NULL, NULL);

	zc_dfs_minimal(NOSEQ, WL_NOSEQ, 1, WEFT_KIND_ASSERT);
	zc_dfs_minimal(Z13, WL_IRQ, 1, WEFT_KIND_LIVELOCK);
	zc_dfs_minimal(Z13, WL_TTY, 1, WEFT_KIND_LIVELOCK);
	zc_dfs_clean(Z13_FIX, WL_NOSEQ, 2);
	zc_dfs_clean(Z13_FIX, WL_IRQ, 2);
	zc_dfs_clean(Z13_FIX, WL_TTY, 2);

	zc_search(NOSEQ, "random", 0, 5, 20000, WEFT_KIND_ASSERT);
	zc_search(NOSEQ, "pct", 2, 5, 20000, WEFT_KIND_ASSERT);
	zc_search(Z13, "random", 0, 5, 20000, WEFT_KIND_LIVELOCK);
	zc_search(Z13, "pct", 2, 5, 20000, WEFT_KIND_LIVELOCK);

	static const char *const must[] = {
		"build_all_zonelists", "slowpath_restart_zonelist_changed", "alloc_pages",
		"alloc_pages_atomic", "read_seqbegin_spins", "printk_deferred",
	};
	struct mm_counters c;
	memset(&c, 0, sizeof(c));
	mm_silent(Z13_FIX, "random", 20000, 7, &c);
	mm_require_counters(Z13_FIX, &c, must, sizeof(must) / sizeof(must[0]));
	memset(&c, 0, sizeof(c));
	mm_silent(Z13_FIX, "pct", 20000, 11, &c);
	return check_done();
}
