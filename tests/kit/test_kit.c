/*
 * test_kit.c - the mm kit's gaps of issue 19, item 5:
 *  - the allocator's "nonzero mapcount" bad-page check (<weft/mm/mapcount.h>);
 *  - the page-flags.h flags models use, appended without moving the old bits;
 *  - wait_on_page_writeback()/folio_end_writeback() on the page-bit waits
 *    (<weft/mm/writeback.h>), and that a wake-up on one bit never wakes or
 *    hands anything to a waiter on another (writeback vs the page lock),
 *    in both orders, under every interleaving within 3 preemptions;
 *  - reports from kit operations name the model's call, not a kit line;
 *  - the swap-in helpers of <weft/mm/swapin.h> (issue 24): a skip-swapcache
 *    swap-in written with them (swapcache_prepare() pin,
 *    weft_swap_read_folio(), pte_same() under the ptl, weft_swapin_map())
 *    racing a zap written with weft_zap_present_pte() is clean, and leaves
 *    no slot, page or mapcount behind (weft_swap_audit()); without its
 *    pte_same() recheck it maps an entry the zap freed, and swap_free()
 *    reports the count going below zero;
 *  - weft_mm_audit_unlocked(): a page left locked at quiescence is an
 *    assertion at the caller's site, unlocked pages pass;
 *  - weft_swap_audit_data(): an address holds the version last written
 *    there, in its page or in the slot its swap PTE names; a slot written
 *    behind the model's back is data loss at the caller's site, naming the
 *    address and both versions.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>
#include <weft/mm/mapcount.h>
#include <weft/mm/pagelock.h>
#include <weft/mm/writeback.h>
#include <weft/mm/swapin.h>

#include "check.h"
#include "../model_driver.h"

/* the old bits stay where stored replays hash them */
_Static_assert(WEFT_PG_locked == 0 && WEFT_PG_writeback == 9 && WEFT_PG_waiters == 14,
	       "page flag bits moved");
_Static_assert(WEFT_PG_swapbacked > WEFT_PG_waiters && WEFT_PG__COUNT <= 8 * sizeof(long),
	       "flags appended, within the word");

enum {
	V_MAPPED_FREE,     /* free with mapcount 1: bad-free */
	V_UNMAPPED_FREE,   /* unmapped first: clean */
	V_UNMAP_TWICE,     /* remove_rmap below 0: bug-on */
	V_LOCK_KEPT,       /* T0 locks the page and never unlocks: weft_mm_audit_unlocked() */
	V_WB_THEN_UNLOCK,  /* T0 ends writeback, then unlocks; T1 locks, T2 waits on writeback */
	V_UNLOCK_THEN_WB,  /* T0 unlocks, then ends writeback */
	V_WB_NEVER_ENDS,   /* nobody ends writeback: T2 sleeps for ever */
	V_SWAPIN_PINNED,   /* T0 swaps address 0 in, T1 zaps it */
	V_SWAPIN_NO_RECHECK, /* the same without pte_same(): swap-count-underflow */
	V_DATA_KEPT,       /* address 0 swapped out, 1 present: both hold their versions */
	V_DATA_LOST,       /* the same, then slot 0 overwritten: data loss at quiescence */
	V_NR
};

struct kw {
	unsigned variant;
	struct weft_mm mm;
	struct weft_mapcounts maps;
	struct weft_page *p;
	int owner;          /* 1 while T0 holds the page lock */
	struct weft_swap_info si;   /* V_SWAPIN_* */
	struct weft_pgtable pt;
	uint32_t truth[2];          /* V_DATA_*: the version written at each address */
};

WEFT_TEST_SETUP(kw, struct kw)
{
	if (W->variant >= V_SWAPIN_PINNED) {
		weft_mm_init(&W->mm, 4, false);
		weft_swap_init(&W->si, &W->mm, 4, 0, WEFT_SWAP_FREE_PER_ENTRY);
		weft_pgtable_init(&W->pt, 2);
		return;
	}
	weft_mm_init(&W->mm, 2, false);
	weft_mapcounts_init(&W->maps, &W->mm);
	W->p = weft_page_alloc(&W->mm);
	if (W->variant >= V_WB_THEN_UNLOCK) {
		weft_page_set(W->p, swapbacked);
		weft_set_page_writeback(W->p);
	}
}

static void unmap_and_put(struct kw *W)
{
	weft_page_remove_rmap(&W->maps, &W->mm, W->p);
	if (weft_put_page_testzero(&W->mm, W->p))
		weft_page_free(&W->mm, W->p);
}

/* do_swap_page() of v6.8 with SWP_SYNCHRONOUS_IO, address 0 */
static void kw_swapin(struct kw *W)
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
		if (W->variant == V_SWAPIN_NO_RECHECK || weft_pte_same(weft_ptep_get(pt, 0), orig)) {
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
static void kw_zap(struct kw *W)
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

/* V_DATA_*: version v written to the page mapped at addr, as the oracle's
 * truth */
static void kw_write(struct kw *W, unsigned addr, uint32_t v)
{
	uint32_t pte = weft_ptep_get(&W->pt, addr);

	WRITE_ONCE(W->mm.pages[weft_pte_pfn(pte)].data, v);
	W->truth[addr] = v;
}

static void kw_thread(void *w, unsigned tid)
{
	struct kw *W = w;
	struct weft_page *p = W->p;

	if (W->variant >= V_DATA_KEPT) {
		if (tid == 0) {
			weft_mm_fault_anon(&W->si, &W->pt, 0, 0);
			kw_write(W, 0, 5);
			weft_mm_swap_out(&W->si, &W->pt, 0);
			weft_mm_fault_anon(&W->si, &W->pt, 1, 0);
			kw_write(W, 1, 9);
			if (W->variant == V_DATA_LOST)
				WRITE_ONCE(W->si.data[weft_pte_swp_offset(weft_ptep_get(&W->pt, 0))], 7);
		}
		return;
	}
	if (W->variant >= V_SWAPIN_PINNED) {
		if (tid == 0) {
			/* a page at address 0, swapped out and out of the swap cache */
			weft_mm_fault_anon(&W->si, &W->pt, 0, 0);
			weft_mm_swap_out(&W->si, &W->pt, 0);
			weft_mm_reclaim(&W->si, &W->pt, 0);
			kw_swapin(W);
		} else if (tid == 1) {
			kw_zap(W);
		}
		return;
	}
	switch (W->variant) {
	case V_MAPPED_FREE:
		if (tid == 0) {
			weft_page_add_rmap(&W->maps, &W->mm, p);
			if (weft_put_page_testzero(&W->mm, p))
				weft_page_free(&W->mm, p);   /* still mapped */
		}
		return;
	case V_UNMAPPED_FREE:
		if (tid == 0) {
			weft_page_add_rmap(&W->maps, &W->mm, p);
			unmap_and_put(W);
		}
		return;
	case V_UNMAP_TWICE:
		if (tid == 0) {
			weft_page_add_rmap(&W->maps, &W->mm, p);
			weft_page_remove_rmap(&W->maps, &W->mm, p);
			unmap_and_put(W);
		}
		return;
	case V_LOCK_KEPT:
		if (tid == 0)
			lock_page(p);
		return;
	}
	if (tid == 0) {
		lock_page(p);
		WRITE_ONCE(W->owner, 1);
		if (W->variant == V_WB_THEN_UNLOCK) {
			end_page_writeback(p);
			WRITE_ONCE(W->owner, 0);
			unlock_page(p);
		} else if (W->variant == V_UNLOCK_THEN_WB) {
			WRITE_ONCE(W->owner, 0);
			unlock_page(p);
			end_page_writeback(p);
		} else {
			WRITE_ONCE(W->owner, 0);
			unlock_page(p);
		}
	} else if (tid == 1) {
		lock_page(p);
		/* the end of writeback never hands the lock over */
		BUG_ON(READ_ONCE(W->owner) != 0);
		unlock_page(p);
	} else {
		wait_on_page_writeback(p);
		/* an unlock never wakes a writeback waiter early */
		BUG_ON(PageWriteback(p));
	}
}

static void kw_quiesce(void *w)
{
	struct kw *W = w;

	if (W->variant >= V_SWAPIN_PINNED) {
		struct weft_pgtable *const pts[] = { &W->pt };
		if (W->variant >= V_DATA_KEPT &&
		    !weft_swap_audit_data(&W->si, &W->pt, W->truth,
					  WEFT_SITE(WEFT_EV_NOTE, "audit: the versions written"), ""))
			return;
		weft_swap_audit(&W->si, pts, 1);
		return;
	}
	/* the page-lock audit: clean after unmapped-free (pages unlocked),
	 * the kept lock after lock-kept */
	if (W->variant < V_WB_THEN_UNLOCK &&
	    !weft_mm_audit_unlocked(&W->mm, WEFT_SITE(WEFT_EV_NOTE, "audit: no page locked")))
		return;
	/* (PG_waiters may stay set with nobody waiting: a waiter that found
	 * the bit clear after setting it, as the kernel allows; the next
	 * wake-up clears it) */
	if (W->variant >= V_WB_THEN_UNLOCK && W->variant != V_WB_NEVER_ENDS)
		BUG_ON(weft_page_peek_flag(W->p, writeback) || weft_page_peek_flag(W->p, locked));
}

static void kw_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct kw *W = w;

	if (W->variant < V_SWAPIN_PINNED ||
	    !weft_swap_pgtables_describe(&W->si, &W->pt, 1, w, off, buf, n))
		weft_mm_describe(&W->mm, w, off, buf, n);
}

static const char *const kw_files[] = { "test_kit.c", NULL };

static const struct weft_variant kw_variants[V_NR] = {
	WEFT_TEST_CASE("mapped-free", WEFT_KIND_BAD_FREE),
	WEFT_TEST_CASE("unmapped-free", WEFT_KIND_NONE),
	WEFT_TEST_CASE("unmap-twice", WEFT_KIND_BUG_ON),
	WEFT_TEST_CASE("lock-kept", WEFT_KIND_ASSERT),
	WEFT_TEST_CASE("wb-then-unlock", WEFT_KIND_NONE),
	WEFT_TEST_CASE("unlock-then-wb", WEFT_KIND_NONE),
	WEFT_TEST_CASE("wb-never-ends", WEFT_KIND_LOST_WAKEUP),
	WEFT_TEST_CASE("swapin-pinned", WEFT_KIND_NONE),
	WEFT_TEST_CASE("swapin-no-recheck", WEFT_KIND_SWAP_UNDERFLOW),
	WEFT_TEST_CASE("data-kept", WEFT_KIND_NONE),
	WEFT_TEST_CASE("data-lost", WEFT_KIND_DATA_LOSS),
};

static const struct weft_scenario kw_sc = {
	.name = "test-kit", .summary = "mapcounts, writeback waits, the kit's call sites",
	.source = "tests/kit", .nr_cpus = 3, .nr_threads = 3, .world_size = sizeof(struct kw),
	WEFT_TEST_NOP_OP, .decision_hint = 64, .files = kw_files,
	WEFT_TEST_HOOKS(kw), .quiesce = kw_quiesce, .describe = kw_describe,
};

/* dfs within bound: the first report (or none) and whether it covered. */
static enum weft_kind dfs(unsigned v, unsigned bound, bool *complete, struct weft_exec_result *r)
{
	static struct weft_dfs d;
	struct weft_run_opts o = { .sc = &kw_sc, .variant = v, .checks = WEFT_CHECKS_DEFAULT };

	weft_dfs_init(&d, &kw_sc, bound, NULL, 0);
	for (unsigned n = 0; n < 200000 && weft_execute(&o, &weft_strategy_dfs, &d, r) == 0; n++)
		if (r->kind != WEFT_KIND_NONE)
			break;
	*complete = d.complete;
	return r->kind;
}

int main(void)
{
	for (unsigned v = 0; v < V_NR; v++) {
		struct weft_exec_result r;
		bool complete = false;
		/* the swap variants within 2 (bound 3 is over the 200000 cap) */
		unsigned bound = v >= V_SWAPIN_PINNED ? 2 : 3;
		enum weft_kind k = dfs(v, bound, &complete, &r);
		CHECK(k == kw_variants[v].expect_kind, "%s: %s (%s)", kw_variants[v].name,
		      weft_kind_name(k), r.report.msg);
		if (kw_variants[v].expect_kind == WEFT_KIND_NONE)
			CHECK(complete, "%s: bound %u not covered", kw_variants[v].name, bound);
		printf("%-16s %-12s %s\n", kw_variants[v].name, weft_kind_name(k), r.report.msg);
		if (v == V_LOCK_KEPT)
			CHECK(strstr(r.report.msg, "ends with PG_locked 1, PG_waiters 0") &&
			      r.report.here.site && !strcmp(r.report.here.site->func, "kw_quiesce"),
			      "the audit reports at the caller's site: %s", r.report.msg);
		if (v == V_DATA_LOST)
			CHECK(!strcmp(r.report.msg, "address 0 holds version 0x7; 0x5 was written "
						    "there last") &&
			      r.report.here.site && !strcmp(r.report.here.site->func, "kw_quiesce"),
			      "the data audit reports at the caller's site: %s", r.report.msg);
		if (v == V_MAPPED_FREE) {
			CHECK(strstr(r.report.msg, "nonzero mapcount") != NULL, "message: %s",
			      r.report.msg);
			/* the report names the model's call of the kit, not mm_page.c */
			const struct weft_caller *c = r.report.here_caller;
			CHECK(c && !strcmp(weft_caller_basename(c), "test_kit.c") &&
			      !strcmp(c->func, "kw_thread") && strstr(c->what, "page_free"),
			      "here: %s", c ? c->what : "(no caller)");
			char *out = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&out, &len);
			struct weft_run_opts o = { .sc = &kw_sc, .variant = v };
			weft_report_print(f, &o, &r);
			fclose(f);
			CHECK(strstr(out, "SUMMARY: weft: bad-free test-kit:mapped-free in kw_thread test_kit.c:") != NULL,
			      "summary:\n%s", out);
			free(out);
		}
	}
	return check_done();
}
