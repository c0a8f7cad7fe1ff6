/*
 * test_swapin.c - the swap-in helpers of <weft/mm/swapin.h> on the kit's
 * swap device, under every interleaving within 2 preemptions:
 *  - a skip-swapcache swap-in written with them (swapcache_prepare() pin,
 *    weft_swap_read_folio(), pte_same() under the ptl, weft_swapin_map())
 *    racing a zap written with weft_zap_present_pte() is clean: the mapped
 *    page holds the slot's data, and at quiescence no slot, page or mapcount
 *    is left over (weft_swap_audit());
 *  - the same swap-in without its pte_same() recheck maps an entry the zap
 *    freed: the helpers do not hide that bug, swap_free() reports the
 *    count going below zero.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include <weft/strategy.h>
#include <weft/mm/swapin.h>

#include "check.h"

enum { V_PINNED, V_NO_RECHECK, V_NR };

struct sw {
	unsigned variant;
	struct weft_mm mm;
	struct weft_swap_info si;
	struct weft_pgtable pt;
};

static void sw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct sw *W = w;

	(void)wl;
	W->variant = variant;
	weft_mm_init(&W->mm, 4, false);
	weft_swap_init(&W->si, &W->mm, 4, 0, WEFT_SWAP_FREE_PER_ENTRY);
	weft_pgtable_init(&W->pt, 2);
}

/* do_swap_page() of v6.8 with SWP_SYNCHRONOUS_IO, address 0 */
static void sw_swapin(struct sw *W)
{
	struct weft_swap_info *si = &W->si;
	struct weft_pgtable *pt = &W->pt;
	uint32_t orig = weft_ptep_get(pt, 0);

	if (!weft_is_swap_pte(orig))
		return;
	unsigned off = weft_pte_swp_offset(orig);
	if (weft_swapcache_prepare(si, off))
		return;   /* freed, or pinned by another: the fault is retried */
	struct weft_page *page = weft_page_alloc(&W->mm);
	if (page) {
		weft_swap_read_folio(si, page, off);
		BUG_ON(READ_ONCE(page->data) != READ_ONCE(si->data[off]));
		spin_lock(&pt->ptl);
		if (W->variant == V_NO_RECHECK || weft_pte_same(weft_ptep_get(pt, 0), orig)) {
			weft_swapin_map(si, pt, 0, off, page, page);
			page = NULL;
		}
		spin_unlock(&pt->ptl);
		if (page)
			weft_put_page(&W->mm, page);
	}
	weft_put_swap_folio(si, off, 1);   /* swapcache_clear() */
}

/* zap_pte_range() of address 0 */
static void sw_zap(struct sw *W)
{
	struct weft_pgtable *pt = &W->pt;

	spin_lock(&pt->ptl);
	uint32_t pte = weft_ptep_get(pt, 0);
	if (weft_pte_present(pte)) {
		weft_zap_present_pte(&W->si, pt, 0, pte);
	} else if (!weft_pte_none(pte)) {
		weft_free_swap_and_cache_nr(&W->si, weft_pte_swp_offset(pte), 1);
		weft_set_pte(pt, 0, WEFT_PTE_NONE);
	}
	spin_unlock(&pt->ptl);
}

static void sw_thread(void *w, unsigned tid)
{
	struct sw *W = w;

	if (tid == 0) {
		/* a page at address 0, swapped out and out of the swap cache */
		weft_mm_fault_anon(&W->si, &W->pt, 0, 0);
		weft_mm_swap_out(&W->si, &W->pt, 0);
		weft_mm_reclaim(&W->si, &W->pt, 0);
		sw_swapin(W);
	} else {
		sw_zap(W);
	}
}

static void sw_quiesce(void *w)
{
	struct sw *W = w;
	struct weft_pgtable *const pts[] = { &W->pt };

	weft_swap_audit(&W->si, pts, 1);
}

static void sw_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct sw *W = w;

	if (!weft_swap_pgtables_describe(&W->si, &W->pt, 1, w, off, buf, n))
		weft_mm_describe(&W->mm, w, off, buf, n);
}

static const char *const sw_ops[] = { "nop" };
static const char *const sw_files[] = { "test_swapin.c", NULL };

static const struct weft_variant sw_variants[V_NR] = {
	{ "pinned", NULL, false, "pinned", "test", WEFT_KIND_NONE, 0, 0 },
	{ "no-recheck", NULL, true, "no-recheck", "test", WEFT_KIND_SWAP_UNDERFLOW, 0, 0 },
};

static const struct weft_scenario sw_sc = {
	.name = "test-swapin",
	.summary = "the kit's swap-in helpers against a zap",
	.source = "tests/kit",
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct sw),
	.nr_opcodes = 1,
	.opnames = sw_ops,
	.max_ops = 1,
	.decision_hint = 64,
	.files = sw_files,
	.setup = sw_setup,
	.thread = sw_thread,
	.quiesce = sw_quiesce,
	.describe = sw_describe,
	.variants = sw_variants,
	.nr_variants = V_NR,
};

static enum weft_kind dfs(unsigned v, unsigned bound, bool *complete, unsigned *n,
			  struct weft_exec_result *r)
{
	static struct weft_dfs d;
	struct weft_run_opts o = { .sc = &sw_sc, .variant = v, .checks = WEFT_CHECKS_DEFAULT };

	weft_dfs_init(&d, &sw_sc, bound, NULL, 0);
	for (*n = 0; *n < 200000 && weft_execute(&o, &weft_strategy_dfs, &d, r) == 0; ++*n)
		if (r->kind != WEFT_KIND_NONE)
			break;
	*complete = d.complete;
	return r->kind;
}

int main(void)
{
	struct weft_exec_result r;
	bool complete = false;
	unsigned n;

	enum weft_kind k = dfs(V_PINNED, 2, &complete, &n, &r);
	printf("pinned: %s after %u executions%s %s\n", weft_kind_name(k), n,
	       complete ? ", complete" : "", r.report.msg);
	CHECK(k == WEFT_KIND_NONE && complete, "pinned: %s (%s)", weft_kind_name(k), r.report.msg);

	k = dfs(V_NO_RECHECK, 2, &complete, &n, &r);
	printf("no-recheck: %s after %u executions: %s\n", weft_kind_name(k), n, r.report.msg);
	CHECK(k == WEFT_KIND_SWAP_UNDERFLOW, "no-recheck: %s (%s)", weft_kind_name(k), r.report.msg);
	return check_done();
}
