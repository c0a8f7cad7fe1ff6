/*
 * test_lru_batch.c - the mm kit's per-CPU folio batches
 * (<weft/mm/lru_batch.h>) on every interleaving of small models: two
 * threads bound to CPU0 add pages to CPU0's batch (each holding a page
 * reference of its own) while CPU1 has CPU0's batches drained by CPU0's
 * worker (the lru_add_drain_all() shape). At quiescence every page's count
 * equals its owners: the threads' references plus the batch's.
 *  - with folio_add_lru() (local_lock: preemption off) no interleaving
 *    loses a batch entry: silent and complete;
 *  - the same add done in preemptible code (the batch updated with
 *    preemption on) loses an entry to the other thread of CPU0 or to the
 *    worker: a page's count and its owners disagree, found at one
 *    preemption;
 *  - a page reaches the LRU only through a drain, and the batch's
 *    reference is dropped when it does;
 *  - weft_lru_batch_cpu() names CPU0 while a page is batched, -1 after;
 *    weft_lru_batches_state_bucket() buckets each CPU's lru_add.nr.
 */
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>
#include <weft/mm/lru_batch.h>

#include "check.h"
#include "../model_driver.h"

struct bw {
	struct weft_mm mm;
	struct weft_lru lru;
	struct weft_lru_batches b;
	struct work_struct drain;
	struct weft_page *mine[2];
	int done;
};

static bool racy;

static void drain_fn(struct work_struct *w)
{
	struct bw *W = weft_list_entry(w, struct bw, drain);

	weft_lru_add_drain(&W->b);   /* lru_add_drain_per_cpu(): under the local lock */
}

static void bw_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	struct bw *W = w;

	(void)v;
	(void)wl;
	weft_mm_init(&W->mm, 4, false);
	weft_lru_init(&W->lru, &W->mm, WEFT_LRU_UNLESS_ZERO, false);
	weft_lru_batches_init(&W->b, &W->lru, 4);
	INIT_WORK(&W->drain, drain_fn);
	W->mine[0] = weft_page_alloc_at(&W->mm, 0);
	W->mine[1] = weft_page_alloc_at(&W->mm, 1);
}

/* folio_add_lru() with the batch updated in preemptible code */
static void racy_add(struct bw *W, struct weft_page *p)
{
	struct weft_folio_batch *fb = &W->b.cpu[raw_smp_processor_id()].lru_add;

	weft_get_page(&W->mm, p);
	uint32_t nr = READ_ONCE(fb->nr);
	WRITE_ONCE(fb->pages[nr], p);
	WRITE_ONCE(fb->nr, nr + 1);
}

static void bw_thread(void *w, unsigned tid)
{
	struct bw *W = w;

	if (tid < 2) {   /* CPU0 */
		if (racy)
			racy_add(W, W->mine[tid]);
		else
			weft_folio_add_lru(&W->b, W->mine[tid]);
		return;
	}
	/* CPU1: drain CPU0 through its worker */
	if (weft_lru_cpu_needs_drain(&W->b, 0)) {
		queue_work_on(0, NULL, &W->drain);
		flush_work(&W->drain);
	}
}

static unsigned bw_owners(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct bw *W = ctx;

	(void)mm;
	/* each thread keeps its allocation reference */
	return 1 + weft_lru_batch_refs(&W->b, p);
}

static void bw_quiesce(void *w)
{
	struct bw *W = w;

	weft_mm_audit_leaks(&W->mm, bw_owners, W);
	for (unsigned i = 0; i < 2; i++) {
		struct weft_page *p = W->mine[i];
		bool on_lru = weft_page_peek_flag(p, lru);
		if (on_lru == (weft_lru_batch_refs(&W->b, p) > 0))
			weft_report(WEFT_KIND_LRU_STATE, p, NULL,
				    "page %u: on the LRU %d, batched %u (exactly one must hold)",
				    i, on_lru, weft_lru_batch_refs(&W->b, p));
	}
}

WEFT_TEST_ONLY_VARIANT(bw, "per-CPU LRU batches");
static const uint8_t bw_cpu_of[] = { 0, 0, 1 };
static const struct weft_scenario bw_sc =
	WEFT_TEST_UNLISTED("lru-batch-test", struct bw, 2, 3, 1024, .cpu_of = bw_cpu_of,
			   WEFT_TEST_HOOKS(bw), .quiesce = bw_quiesce);

int main(void)
{
	struct weft_dfs d;
	struct weft_exec_result r;
	struct weft_run_opts o = { .sc = &bw_sc, .checks = WEFT_CHECKS_DEFAULT };
	enum weft_kind kind = WEFT_KIND_NONE;
	unsigned on_lru = 0, batched = 0, bad_oracle = 0;

	weft_machine_init();

	racy = false;
	weft_dfs_init(&d, &bw_sc, 2, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		if (r.kind && !kind)
			kind = r.kind;
		const struct bw *W = weft_last_world();
		on_lru += weft_page_peek_flag(W->mine[0], lru) ? 1u : 0u;
		batched += weft_lru_batch_refs(&W->b, W->mine[0]) ? 1u : 0u;
		/* the oracle and the bucket: CPU0's batch, by the threads of CPU0 */
		int cpu = weft_lru_batch_cpu(&W->b, W->mine[0]);
		uint32_t nr0 = (uint32_t)((const char *)&W->b.cpu[0].lru_add.nr - (const char *)W);
		uint32_t nr1 = (uint32_t)((const char *)&W->b.cpu[1].lru_add.nr - (const char *)W);
		if (cpu != (weft_lru_batch_refs(&W->b, W->mine[0]) ? 0 : -1) ||
		    weft_lru_batches_state_bucket(&W->b, W, nr0) !=
			    (0x20000u | W->b.cpu[0].lru_add.nr) ||
		    weft_lru_batches_state_bucket(&W->b, W, nr1) != 0x20100u ||
		    weft_lru_batches_state_bucket(&W->b, W, 0) != 0)
			bad_oracle++;
	}
	CHECK(!bad_oracle, "weft_lru_batch_cpu()/weft_lru_batches_state_bucket() wrong after %u "
	      "executions", bad_oracle);
	CHECK(!kind && d.complete, "folio_add_lru under local_lock: %s, complete %d (%llu executions)",
	      weft_kind_name(kind), d.complete, (unsigned long long)d.executions);
	CHECK(on_lru > 0 && batched > 0, "the drain ran before and after the add: %u on the LRU, "
	      "%u still batched", on_lru, batched);

	racy = true;
	kind = WEFT_KIND_NONE;
	unsigned pre = 0;
	for (unsigned bound = 0; bound <= 2 && !kind; bound++) {
		weft_dfs_init(&d, &bw_sc, bound, NULL, 0);
		while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0)
			if (r.kind) {
				kind = r.kind;
				pre = r.preemptions;
				break;
			}
	}
	/* the reference audit: a count above the owners is page-leak, below
	 * them an assertion (weft_mm_audit_leaks); which one depends on which
	 * entry the interleaving overwrote */
	CHECK((kind == WEFT_KIND_PAGE_LEAK || kind == WEFT_KIND_ASSERT) && pre == 1,
	      "the batch updated preemptibly loses an entry: %s at %u preemptions",
	      weft_kind_name(kind), pre);
	return check_done();
}
