/*
 * z9_swapcache_aba.c - ZOO Z9: swap-in ABA through the swap cache: the
 * wrong page mapped (2010, "mm: fix swapin race condition" and "mm: further
 * fix swapin race condition").
 *
 * Sources:
 *  - A. Arcangeli, "[PATCH] fix swapin race condition" (linux-mm, 3 Sep
 *    2010, <20100903153958.GC16761@random.random>), merged for 2.6.36-rc as
 *    4969c1192d15 "mm: fix swapin race condition": "The pte_same check is
 *    reliable only if the swap entry remains pinned (by the page lock on
 *    swapcache). We've also to ensure the swapcache isn't removed before we
 *    take the lock as try_to_free_swap won't care about the page pin": a
 *    PageSwapCache() re-check after lock_page() in do_swap_page();
 *  - H. Dickins, "[PATCH] mm: further fix swapin race condition" (linux-mm,
 *    19 Sep 2010, <alpine.LSU.2.00.1009191938110.3025@sister.anvils>,
 *    reviewed by R. van Riel), merged as 31c4a3d3a0f8: the first fix "is now
 *    agreed to be incomplete": the swap-cache page's swap may have changed,
 *    so also require page_private(page) == entry.val. His message is the
 *    race this model replays (A, B, C and kswapd);
 *  - mm/memory.c of 2.6.35: do_swap_page(), do_wp_page(),
 *    do_anonymous_page(), zap_pte_range(); mm/swapfile.c: reuse_swap_page(),
 *    try_to_free_swap(), free_swap_and_cache(), swap_free(),
 *    page_swapcount(); mm/swap_state.c: read_swap_cache_async(),
 *    add_to_swap(), delete_from_swap_cache(); mm/vmscan.c:
 *    shrink_page_list(), __remove_mapping(); mm/rmap.c: try_to_unmap().
 *
 * The race (3 threads, 1 preemption; both buggy variants), from Hugh's mail.
 * P0 is the process of threads A and B, P1 (C) its parent or child sharing
 * swap slot 0 (count 2) whose page0 is in the swap cache. Hugh's fourth
 * actor, kswapd, is played by C in direct reclaim (a swapout op of any
 * thread may name either process: shrink_page_list() from a faulting
 * task's allocation):
 *   A (P0) write 0          B (P0) read 0           C (P1) write 0
 *                           page0 = lookup_swap_cache(slot 0)
 *                           ~~ preempted before lock_page() ~~
 *   lock_page(page0); pte_same: map page0 read-only,
 *   swap_free: slot 0 count 1 (C's); unlock_page
 *   do_wp_page: page0 still cached (count 1 + C's) -> COW page2; write vA
 *                                                   lock_page(page0); reuse_swap_page:
 *                                                   mapcount 0 + swapcount 1: delete
 *                                                   page0 from the swap cache;
 *                                                   swap_free: slot 0 freed; map page0
 *                                                   writable; write vC
 *                                                   reclaim page2: slot 0 (the slot
 *                                                   freed last); P0 pte 0 = slot 0
 *                                                   reclaim page0: slot 1; B's
 *                                                   reference keeps it in the cache
 *                           lock_page(page0); PageSwapCache(page0): yes (4969c1192d15 passes)
 *                           pte_same(slot 0, slot 0): yes -> maps page0, C's data (vC),
 *                           where A wrote vA
 * The identity oracle reports it as B installs the page: a swap-cache page
 * mapped for entry e must be in the swap cache with page->private == e
 * (here page0 caches slot 1). The first fix alone misses this case; the
 * simpler ABA it does catch (page0 leaves the swap cache, and the freed
 * slot is reused by another page) is found on the buggy variant too.
 *
 * Oracles:
 *  - identity, at the install of a swap-cache page for entry e by
 *    do_swap_page() (page locked, ptl held): PageSwapCache(page) and
 *    page_private(page) == e, else data-loss. Both are stable under the page
 *    lock the installer holds, so the check reads them without a
 *    scheduling point;
 *  - data versions (as Z4): every page carries the version of its data
 *    (page->data), every slot the version written at pageout (si->data[]),
 *    and the model keeps per process and address the version last written
 *    there (ghost state written and read only under that process's ptl,
 *    with the PTE). A read that finds another version is data-loss; so is,
 *    at quiescence, an address whose page or slot holds another one;
 *  - the swap model's audit (weft_swap_audit(), both page tables): slot
 *    counts == swap PTEs, SWAP_HAS_CACHE <=> a swap-cache page, mapcounts,
 *    page counts == owners.
 *
 * Model choices:
 *  - The swap map, the LIFO slot allocator (a slot freed last is the next
 *    one allocated, which the ABA needs), swapcache_prepare(), swap_free(),
 *    the swap cache array and the audit are the kit's (<weft/mm/swap.h>).
 *    The 2010 paths that lock pages are written here: the kit's own swap-in,
 *    swap-out and free_swap_and_cache helpers only trylock folios and unlock
 *    them without a wake-up, and this model sleeps in lock_page()
 *    (<weft/mm/pagelock.h>), as do_swap_page() did;
 *  - read_swap_cache_async() reads synchronously: the page is added to the
 *    swap cache locked, filled from si->data[] and unlocked (the I/O
 *    completion) before do_swap_page() locks it again; its -EEXIST busy
 *    loop retries at most Z9_MAX_RETRIES times after cond_resched(), then
 *    the fault gives up (the access is left undone, as Z4's back-off);
 *  - write protection lives beside the PTE (writable[][], written with it
 *    under the ptl) so PTE values stay the kit's canonical ones that the
 *    audit counts; vm_swap_full() is a per-op workload flag;
 *  - no LRU, no KSM, no memcg, synchronous writeback.
 *
 * Threads and workload (per thread, up to Z9_MAX_OPS ops; a = arg % 2):
 *   T0 (A) and T1 (B) fault and zap in P0, T2 (C) in P1; swapout (direct
 *   reclaim, any thread) acts on the process (arg >> 4) & 1. Reclaim has no
 *   thread of its own: a kswapd fiber would multiply the schedules dfs
 *   enumerates without adding an interleaving the three do not have.
 *   read  a|f<<5   fault a in (do_swap_page() on a swap PTE), read it under
 *                  the ptl: checked; f: vm_swap_full() (try_to_free_swap())
 *   write a|f<<5   fault a in for write (do_swap_page(), do_wp_page()),
 *                  write a new version
 *   zap   a        zap_pte_range() of a (free_swap_and_cache() for a swap PTE)
 *   swapout a|p<<4 shrink_page_list() of the page mapped at (p, a): add_to_swap(),
 *                  try_to_unmap() in both processes, pageout,
 *                  __remove_mapping() if nobody else holds it
 * Initial state: slot 0 (count 2 | SWAP_HAS_CACHE) is P0's and P1's address
 * 0; page0 caches it (PG_swapcache, private 0, its data version the slot's).
 *
 * Locks: page lock (lock_page(), sleeping) -> ptl (P0's, then P1's) -> the
 * swap model's locks. A page is added to or deleted from the swap cache
 * only under its page lock.
 *
 * Length: one model - its world, the three actors' operations (fault,
 * swap-out, reuse), describe, audits, triggers and three variants; split, one
 * race would be scattered over several files.
 */
#include <weft/mm/pagelock.h>
#include <weft/mm/swap.h>
#include <weft/mm/swapin.h>
#include <weft/scenario.h>

#define Z9_THREADS 3
#define Z9_PROCS 2
#define Z9_PTES 2
#define Z9_MAX_OPS 4
#define Z9_PAGES 16
#define Z9_SLOTS 8
#define Z9_MAX_RETRIES 4

/* versions written by the workload: never equal to a page's allocation
 * tag (mm->alloc_seq) */
#define Z9_WRITTEN 0x80000000u

enum { Z9_V_BUGGY, Z9_V_FIX1, Z9_V_FIX, Z9_NR_VARIANTS };

enum { Z9_OP_READ, Z9_OP_WRITE, Z9_OP_ZAP, Z9_OP_SWAPOUT, Z9_NR_OPS };

#define Z9_STATS(X)                                                            \
	X(SWAPIN_HIT, "lookup_swap_cache_hit")                                 \
	X(SWAPIN_READ, "read_swap_cache_async_read")                           \
	X(PREPARE_RETRY, "swapcache_prepare_eexist_retries")                   \
	X(NOT_SWAPCACHE, "do_swap_page_not_swapcache")                         \
	X(WRONG_ENTRY, "do_swap_page_private_changed")                         \
	X(PTE_CHANGED, "do_swap_page_pte_changed")                             \
	X(IDENTITY_CHECKS, "identity_checks")                                  \
	X(REUSE, "reuse_swap_page")                                            \
	X(COW, "do_wp_page_copy")                                              \
	X(TRY_FREE_SWAP, "try_to_free_swap_freed")                             \
	X(SWAPOUT, "pageout")                                                  \
	X(REMOVED, "remove_mapping_freed")                                     \
	X(REMOVE_BUSY, "remove_mapping_busy")                                  \
	X(FAULT_GAVE_UP, "fault_left_for_later")                               \
	X(CHECKED_READS, "checked_reads")                                      \
	X(WRITES, "writes")

enum z9_stat {
#define Z9_STAT_ENUM(e, s) Z9_STAT_##e,
	Z9_STATS(Z9_STAT_ENUM)
#undef Z9_STAT_ENUM
	Z9_NR_STATS
};

static const char *const z9_stat_names[Z9_NR_STATS] = {
#define Z9_STAT_NAME(e, s) s,
	Z9_STATS(Z9_STAT_NAME)
#undef Z9_STAT_NAME
};

struct z9_world {
	unsigned variant;
	unsigned nr_ops[Z9_THREADS];
	struct weft_op ops[Z9_THREADS][Z9_MAX_OPS];
	struct weft_mm mm;
	struct weft_swap_info si;
	struct weft_pgtable pt[Z9_PROCS];
	/* pte_write() of each PTE: written with the PTE, under its ptl */
	uint8_t writable[Z9_PROCS][Z9_PTES];
	/* the data oracle's ghost state, under pt[p].ptl: the version last
	 * written at each address (0: nothing to compare) */
	uint32_t truth[Z9_PROCS][Z9_PTES];
	/* per-thread version counters (thread-private) */
	uint32_t wseq[Z9_THREADS];
	unsigned long stat[Z9_THREADS][Z9_NR_STATS];
};

WEFT_SCENARIO_STAT_FN(z9, Z9)

/* ------------------------------------------------------ the swap cache */

/* __add_to_swap_cache(): page locked, slot pinned with SWAP_HAS_CACHE by
 * the caller; the swap cache takes a reference. */
static void z9_add_to_swap_cache(struct z9_world *W, struct weft_page *page, unsigned off)
{
	struct weft_swap_info *si = &W->si;

	weft_get_page(&W->mm, page);
	weft_page_set(page, swapcache);
	WRITE_ONCE(page->private, (unsigned long)off);
	spin_lock(&si->cache_lock);
	WRITE_ONCE(si->cache[off], page);
	spin_unlock(&si->cache_lock);
}

/* delete_from_swap_cache() of a locked swap-cache page the caller holds a
 * reference on: swapcache_free() drops SWAP_HAS_CACHE (freeing the slot if
 * no PTE refers to it any more), and the cache's reference goes. */
static void z9_delete_from_swap_cache(struct z9_world *W, struct weft_page *page)
{
	struct weft_swap_info *si = &W->si;
	unsigned off = (unsigned)READ_ONCE(page->private);

	spin_lock(&si->cache_lock);
	WRITE_ONCE(si->cache[off], (struct weft_page *)NULL);
	WRITE_ONCE(page->private, 0ul);
	weft_page_clear(page, swapcache);
	spin_unlock(&si->cache_lock);
	weft_put_swap_folio(si, off, 1);
	weft_put_page_nofree(&W->mm, page);
}

/* page_swapcount(): the PTE references of the page's slot. */
static unsigned z9_page_swapcount(struct z9_world *W, struct weft_page *page)
{
	unsigned off = (unsigned)READ_ONCE(page->private);

	return WEFT_SWAP_COUNT(READ_ONCE(W->si.swap_map[off]));
}

static int z9_page_mapcount(struct z9_world *W, struct weft_page *page)
{
	return atomic_read(&W->si.mapcount[weft_page_nr(&W->mm, page)]);
}

/* reuse_swap_page() (2.6.35), page locked: can a write fault reuse it? */
static bool z9_reuse_swap_page(struct z9_world *W, struct weft_page *page)
{
	int count = z9_page_mapcount(W, page);

	if (count <= 1 && weft_page_test(page, swapcache)) {
		count += (int)z9_page_swapcount(W, page);
		if (count == 1) {
			z9_delete_from_swap_cache(W, page);
			weft_page_set(page, dirty);
		}
	}
	return count <= 1;
}

/* try_to_free_swap() (2.6.35), page locked. */
static void z9_try_to_free_swap(struct z9_world *W, struct weft_page *page)
{
	if (!weft_page_test(page, swapcache))
		return;
	if (z9_page_swapcount(W, page))
		return;
	z9_delete_from_swap_cache(W, page);
	weft_page_set(page, dirty);
	z9_stat(W, Z9_STAT_TRY_FREE_SWAP);
}

/*
 * read_swap_cache_async() (2.6.35): the page caching slot off, with a
 * reference, or NULL when the entry was freed meanwhile or the page stayed
 * pinned by another reader (bounded, see the header).
 */
static struct weft_page *z9_read_swap_cache_async(struct z9_world *W, unsigned off)
{
	struct weft_swap_info *si = &W->si;

	for (unsigned tries = 0;; tries++) {
		struct weft_page *page = weft_swap_cache_get_folio(si, off);
		if (page) {
			z9_stat(W, Z9_STAT_SWAPIN_HIT);
			return page;
		}
		struct weft_page *new = weft_page_alloc(&W->mm);
		if (!new)
			return NULL;
		int err = weft_swapcache_prepare(si, off);
		if (!err) {
			/* __set_page_locked(): nobody can see the new page yet */
			lock_page(new);
			z9_add_to_swap_cache(W, new, off);
			weft_page_set(new, uptodate);
			/* swap_readpage(), synchronous; its completion unlocks */
			weft_swap_read_folio(si, new, off);
			unlock_page(new);
			z9_stat(W, Z9_STAT_SWAPIN_READ);
			return new;
		}
		weft_put_page(&W->mm, new);
		/* -ENOENT: the entry was freed under us; -EEXIST: another
		 * reader is adding its page (the kernel busy-waits) */
		if (err != -17 || tries == Z9_MAX_RETRIES)
			return NULL;
		z9_stat(W, Z9_STAT_PREPARE_RETRY);
		cond_resched();
	}
}

/* The identity oracle, at the install of a swap-cache page for entry off
 * (page locked by us, ptl held): both fields are stable under the page
 * lock, so they are read without a scheduling point. */
static void z9_check_identity(struct z9_world *W, unsigned p, unsigned a,
			      struct weft_page *page, unsigned off)
{
	bool cached = weft_page_peek_flag(page, swapcache);
	unsigned long priv = weft_peek(page->private);

	z9_stat(W, Z9_STAT_IDENTITY_CHECKS);
	if (cached && priv == off)
		return;
	struct weft_access other = weft_last_write(cached ? (const void *)&page->private
							  : (const void *)&page->flags);
	weft_report2(WEFT_KIND_DATA_LOSS, &page->private,
		     WEFT_SITE(WEFT_EV_NOTE,
			       "do_swap_page(): mapping a swap-cache page for entry e needs "
			       "PageSwapCache(page) && page_private(page) == e"),
		     &other,
		     cached ? "P%u address %u (swap slot %u) gets page %u, which now caches slot "
			      "%lu: another page's data"
			    : "P%u address %u (swap slot %u) gets page %u, which left the swap cache "
			      "(private %lu): the slot now holds another page's data",
		     p, a, off, weft_page_nr(&W->mm, page), priv);
}

/* ------------------------------------------------------------ faults */

static void z9_do_wp_page(struct z9_world *W, unsigned p, unsigned a, uint32_t orig);

/*
 * do_swap_page() of 2.6.35 for the swap PTE orig at (p, a), with the
 * variant's checks after lock_page(). The lookup's reference becomes the
 * mapping's.
 */
static void z9_do_swap_page(struct z9_world *W, unsigned p, unsigned a, uint32_t orig,
			    bool write, bool swapfull)
{
	struct weft_mm *mm = &W->mm;
	struct weft_pgtable *pt = &W->pt[p];
	unsigned off = weft_pte_swp_offset(orig);
	struct weft_page *page = z9_read_swap_cache_async(W, off);

	if (!page)
		return;
	lock_page(page);
	if (W->variant != Z9_V_BUGGY && !weft_page_test(page, swapcache)) {
		/* 4969c1192d15: try_to_free_swap() (or reuse_swap_page())
		 * released the swap cache from under us */
		z9_stat(W, Z9_STAT_NOT_SWAPCACHE);
		goto out_page;
	}
	if (W->variant == Z9_V_FIX && READ_ONCE(page->private) != off) {
		/* 31c4a3d3a0f8: the page's swap has changed */
		z9_stat(W, Z9_STAT_WRONG_ENTRY);
		goto out_page;
	}
	spin_lock(&pt->ptl);
	if (!weft_pte_same(weft_ptep_get(pt, a), orig)) {
		spin_unlock(&pt->ptl);
		z9_stat(W, Z9_STAT_PTE_CHANGED);
		goto out_page;
	}
	z9_check_identity(W, p, a, page, off);
	bool reuse = write && z9_reuse_swap_page(W, page);
	if (reuse)
		z9_stat(W, Z9_STAT_REUSE);
	WRITE_ONCE(W->writable[p][a], (uint8_t)reuse);
	weft_swapin_map(&W->si, pt, a, off, page, page);
	if (swapfull)
		z9_try_to_free_swap(W, page);
	unlock_page(page);
	spin_unlock(&pt->ptl);
	if (write && !reuse)
		z9_do_wp_page(W, p, a, weft_mk_pte(weft_page_nr(mm, page)));
	return;
out_page:
	unlock_page(page);
	weft_put_page(&W->mm, page);
}

/*
 * do_wp_page() of 2.6.35 for an anonymous page mapped read-only at (p, a)
 * (the PTE orig): reuse it if reuse_swap_page() says it is ours alone, else
 * copy it.
 */
/* pte_same() of do_wp_page(): the kernel's orig_pte is read-only, so a PTE
 * made writable meanwhile (reused by another write fault) differs; here
 * the write bit lives beside the PTE and is compared with it. ptl held. */
static bool z9_pte_same_ro(struct z9_world *W, unsigned p, unsigned a, uint32_t orig)
{
	return weft_pte_same(weft_ptep_get(&W->pt[p], a), orig) && !READ_ONCE(W->writable[p][a]);
}

static void z9_do_wp_page(struct z9_world *W, unsigned p, unsigned a, uint32_t orig)
{
	struct weft_mm *mm = &W->mm;
	struct weft_pgtable *pt = &W->pt[p];
	struct weft_page *old = &mm->pages[weft_pte_pfn(orig)];

	spin_lock(&pt->ptl);
	if (!z9_pte_same_ro(W, p, a, orig)) {
		spin_unlock(&pt->ptl);
		return;
	}
	if (!trylock_page(old)) {
		weft_get_page(mm, old);
		spin_unlock(&pt->ptl);
		lock_page(old);
		spin_lock(&pt->ptl);
		if (!z9_pte_same_ro(W, p, a, orig)) {
			spin_unlock(&pt->ptl);
			unlock_page(old);
			weft_put_page(&W->mm, old);
			return;
		}
		weft_put_page_nofree(mm, old);
	}
	bool reuse = z9_reuse_swap_page(W, old);
	unlock_page(old);
	if (reuse) {
		WRITE_ONCE(W->writable[p][a], 1);
		spin_unlock(&pt->ptl);
		z9_stat(W, Z9_STAT_REUSE);
		return;
	}
	/* the copy: a reference on the old page while the ptl is dropped */
	weft_get_page(mm, old);
	spin_unlock(&pt->ptl);
	struct weft_page *new = weft_page_alloc(mm);
	if (new)
		WRITE_ONCE(new->data, READ_ONCE(old->data));
	spin_lock(&pt->ptl);
	if (new && z9_pte_same_ro(W, p, a, orig)) {
		/* page_remove_rmap(old); the mapping's reference goes */
		atomic_dec(&W->si.mapcount[weft_page_nr(mm, old)]);
		weft_put_page_nofree(mm, old);
		WRITE_ONCE(W->writable[p][a], 1);
		weft_set_pte(pt, a, weft_mk_pte(weft_page_nr(mm, new)));
		atomic_inc(&W->si.mapcount[weft_page_nr(mm, new)]);
		new = NULL;
		z9_stat(W, Z9_STAT_COW);
	}
	spin_unlock(&pt->ptl);
	if (new)
		weft_put_page(&W->mm, new);
	weft_put_page(&W->mm, old);
}

/* do_anonymous_page(): a fresh page, writable. */
static void z9_do_anonymous_page(struct z9_world *W, unsigned p, unsigned a)
{
	struct weft_mm *mm = &W->mm;
	struct weft_pgtable *pt = &W->pt[p];
	struct weft_page *page = weft_page_alloc(mm);

	if (!page)
		return;
	spin_lock(&pt->ptl);
	if (!weft_pte_none(weft_ptep_get(pt, a))) {
		spin_unlock(&pt->ptl);
		weft_put_page(&W->mm, page);
		return;
	}
	WRITE_ONCE(W->writable[p][a], 1);
	weft_set_pte(pt, a, weft_mk_pte(weft_page_nr(mm, page)));
	atomic_inc(&W->si.mapcount[weft_page_nr(mm, page)]);
	W->truth[p][a] = 0;
	spin_unlock(&pt->ptl);
}

/* handle_mm_fault() then the access itself under the ptl, retried while
 * the fault leaves the PTE unusable (at most Z9_MAX_RETRIES times). */
static void z9_access(struct z9_world *W, unsigned p, unsigned a, bool write, bool swapfull)
{
	struct weft_mm *mm = &W->mm;
	struct weft_pgtable *pt = &W->pt[p];

	for (unsigned tries = 0; tries <= Z9_MAX_RETRIES; tries++) {
		uint32_t orig = weft_ptep_get(pt, a);     /* lockless */
		if (weft_pte_none(orig))
			z9_do_anonymous_page(W, p, a);
		else if (!weft_pte_present(orig))
			z9_do_swap_page(W, p, a, orig, write, swapfull);
		else if (write && !READ_ONCE(W->writable[p][a]))
			z9_do_wp_page(W, p, a, orig);

		spin_lock(&pt->ptl);
		uint32_t pte = weft_ptep_get(pt, a);
		if (weft_pte_present(pte) && (!write || READ_ONCE(W->writable[p][a]))) {
			struct weft_page *page = &mm->pages[weft_pte_pfn(pte)];
			if (write) {
				unsigned t = weft_current_tid() % Z9_THREADS;
				uint32_t v = Z9_WRITTEN | t << 16 | ++W->wseq[t];
				WRITE_ONCE(page->data, v);
				W->truth[p][a] = v;
				z9_stat(W, Z9_STAT_WRITES);
			} else {
				uint32_t want = W->truth[p][a];
				uint32_t got = READ_ONCE(page->data);
				z9_stat(W, Z9_STAT_CHECKED_READS);
				if (want && got != want) {
					struct weft_access other = weft_last_write(&page->data);
					weft_report2(WEFT_KIND_DATA_LOSS, &page->data,
						     WEFT_SITE(WEFT_EV_NOTE,
							       "read: data == the version last written"),
						     &other,
						     "P%u address %u reads version %#x from page %u; "
						     "%#x was written there last",
						     p, a, got, weft_page_nr(mm, page), want);
				}
			}
			spin_unlock(&pt->ptl);
			return;
		}
		spin_unlock(&pt->ptl);
	}
	z9_stat(W, Z9_STAT_FAULT_GAVE_UP);
}

/* zap_pte_range() of one address; free_swap_and_cache() (2.6.35) for a
 * swap PTE: trylock only, under the ptl. */
static void z9_zap(struct z9_world *W, unsigned p, unsigned a)
{
	struct weft_pgtable *pt = &W->pt[p];

	spin_lock(&pt->ptl);
	uint32_t pte = weft_ptep_get(pt, a);
	if (weft_pte_present(pte)) {
		weft_zap_present_pte(&W->si, pt, a, pte);
		WRITE_ONCE(W->writable[p][a], 0);
	} else if (!weft_pte_none(pte)) {
		unsigned off = weft_pte_swp_offset(pte);
		struct weft_page *page = NULL;
		if (weft_swap_free(&W->si, off) == WEFT_SWAP_HAS_CACHE) {
			page = weft_swap_cache_get_folio(&W->si, off);
			if (page && !trylock_page(page)) {
				weft_put_page(&W->mm, page);
				page = NULL;
			}
		}
		weft_set_pte(pt, a, WEFT_PTE_NONE);
		if (page) {
			if (weft_page_test(page, swapcache) && z9_page_mapcount(W, page) == 0)
				z9_delete_from_swap_cache(W, page);
			unlock_page(page);
			weft_put_page(&W->mm, page);
		}
	}
	W->truth[p][a] = 0;
	spin_unlock(&pt->ptl);
}

/*
 * shrink_page_list() (2.6.35) of the page mapped at (p, a): add_to_swap(),
 * try_to_unmap() in every process, pageout() (synchronous), then
 * __remove_mapping() if only the swap cache and we hold it.
 */
static void z9_swapout(struct z9_world *W, unsigned p, unsigned a)
{
	struct weft_mm *mm = &W->mm;
	struct weft_swap_info *si = &W->si;
	struct weft_pgtable *pt = &W->pt[p];

	/* isolate_lru_page(): a reference while the mapping pins the page */
	spin_lock(&pt->ptl);
	uint32_t pte = weft_ptep_get(pt, a);
	if (!weft_pte_present(pte)) {
		spin_unlock(&pt->ptl);
		return;
	}
	struct weft_page *page = &mm->pages[weft_pte_pfn(pte)];
	unsigned pfn = weft_page_nr(mm, page);
	weft_get_page(mm, page);
	spin_unlock(&pt->ptl);

	if (!trylock_page(page))
		goto out_put;
	if (!weft_page_test(page, swapcache)) {
		/* add_to_swap() */
		int off = weft_swap_alloc(si, 0);
		if (off < 0)
			goto out_unlock;
		z9_add_to_swap_cache(W, page, (unsigned)off);
		weft_page_set(page, dirty);
	}
	unsigned off = (unsigned)READ_ONCE(page->private);
	/* try_to_unmap(): each PTE mapping the page becomes a swap PTE */
	for (unsigned q = 0; q < Z9_PROCS; q++) {
		struct weft_pgtable *qt = &W->pt[q];
		spin_lock(&qt->ptl);
		for (unsigned b = 0; b < Z9_PTES; b++) {
			if (weft_ptep_get(qt, b) != weft_mk_pte(pfn))
				continue;
			if (weft_swap_duplicate(si, off) < 0)
				continue;
			WRITE_ONCE(W->writable[q][b], 0);
			weft_set_pte(qt, b, weft_swp_entry_to_pte(off));
			atomic_dec(&si->mapcount[pfn]);
			weft_put_page_nofree(mm, page);
		}
		spin_unlock(&qt->ptl);
	}
	if (z9_page_mapcount(W, page))
		goto out_unlock;
	/* pageout() */
	WRITE_ONCE(si->data[off], READ_ONCE(page->data));
	weft_page_clear(page, dirty);
	z9_stat(W, Z9_STAT_SWAPOUT);
	/* __remove_mapping(): the swap cache's reference and ours */
	spin_lock(&si->cache_lock);
	if (!weft_page_ref_freeze(mm, page, 2)) {
		spin_unlock(&si->cache_lock);
		z9_stat(W, Z9_STAT_REMOVE_BUSY);
		goto out_unlock;
	}
	WRITE_ONCE(si->cache[off], (struct weft_page *)NULL);
	WRITE_ONCE(page->private, 0ul);
	weft_page_clear(page, swapcache);
	spin_unlock(&si->cache_lock);
	weft_put_swap_folio(si, off, 1);
	/* frozen: no reference but ours, so nobody sleeps on the lock */
	unlock_page(page);
	weft_page_free(mm, page);
	z9_stat(W, Z9_STAT_REMOVED);
	return;
out_unlock:
	unlock_page(page);
out_put:
	weft_put_page(&W->mm, page);
}

/* ------------------------------------------------------- the scenario */

static void z9_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z9_world *W = w;

	WEFT_SCENARIO_SETUP_START(Z9, W, variant, wl, Z9_V_FIX);
	weft_mm_init(&W->mm, Z9_PAGES, false);
	weft_swap_init(&W->si, &W->mm, Z9_SLOTS, 0, WEFT_SWAP_FREE_PER_ENTRY);
	for (unsigned p = 0; p < Z9_PROCS; p++)
		weft_pgtable_init(&W->pt[p], Z9_PTES);

	/* slot 0 shared by P0 and P1 (a fork after the swap-out), its page
	 * still in the swap cache; the allocation's reference is the cache's */
	struct weft_page *page0 = weft_page_alloc_at(&W->mm, 0);
	int off = weft_swap_alloc(&W->si, 0);
	uint32_t v0 = Z9_WRITTEN | 0xff0000u | 1u;

	WRITE_ONCE(page0->data, v0);
	weft_page_set(page0, uptodate);
	weft_page_set(page0, swapcache);
	WRITE_ONCE(page0->private, (unsigned long)off);
	WRITE_ONCE(W->si.cache[off], page0);
	WRITE_ONCE(W->si.data[off], v0);
	for (unsigned p = 0; p < Z9_PROCS; p++) {
		weft_swap_duplicate(&W->si, (unsigned)off);
		weft_set_pte(&W->pt[p], 0, weft_swp_entry_to_pte((unsigned)off));
		W->truth[p][0] = v0;
	}
}

static void z9_thread(void *w, unsigned tid)
{
	struct z9_world *W = w;

	WEFT_FOR_EACH_OP(op, W->ops[tid], W->nr_ops[tid], "z9 workload op") {
		unsigned a = op->arg % Z9_PTES;
		unsigned code = op->code % Z9_NR_OPS;
		unsigned p = code == Z9_OP_SWAPOUT ? (op->arg >> 4) & 1u : tid < 2 ? 0u : 1u;
		bool swapfull = (op->arg >> 5) & 1u;

		switch (code) {
		case Z9_OP_READ:
			z9_access(W, p, a, false, swapfull);
			break;
		case Z9_OP_WRITE:
			z9_access(W, p, a, true, swapfull);
			break;
		case Z9_OP_ZAP:
			z9_zap(W, p, a);
			break;
		case Z9_OP_SWAPOUT:
			z9_swapout(W, p, a);
			break;
		}
	}
}

/* At quiescence every address holds what was written there last (its
 * page, or the slot its swap PTE names); then the swap and page audits. */
static void z9_quiesce(void *w)
{
	struct z9_world *W = w;
	struct weft_pgtable *const pts[Z9_PROCS] = { &W->pt[0], &W->pt[1] };
	const struct weft_site *s =
		WEFT_SITE(WEFT_EV_NOTE, "audit: memory holds the version last written");

	for (unsigned p = 0; p < Z9_PROCS; p++) {
		char proc[8];

		snprintf(proc, sizeof(proc), "P%u ", p);
		if (!weft_swap_audit_data(&W->si, &W->pt[p], W->truth[p], s, proc))
			return;
	}
	if (!weft_mm_audit_unlocked(&W->mm, WEFT_SITE(WEFT_EV_NOTE,
							"audit: no page locked at quiescence")))
		return;
	weft_swap_audit(&W->si, pts, Z9_PROCS);
}

static void z9_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z9_world *W = w;
	uint32_t wr = (uint32_t)offsetof(struct z9_world, writable);

	if (weft_swap_pgtables_describe(&W->si, W->pt, Z9_PROCS, w, off, buf, n))
		return;
	if (off >= wr && off < wr + sizeof(W->writable)) {
		unsigned i = off - wr;
		snprintf(buf, n, "P%u pte %u write bit", i / Z9_PTES, i % Z9_PTES);
		return;
	}
	weft_mm_describe(&W->mm, w, off, buf, n);
}

WEFT_SWAP_STATS_FN(z9, Z9)

/* A swap_map byte (count 0/1/many x HAS_CACHE x slot); a page field: the
 * page model's bucket with PG_swapcache and the slot it caches (the ABA is
 * a page caching another slot). */
static uint32_t z9_state_bucket(const void *w, uint32_t off)
{
	const struct z9_world *W = w;
	uint32_t b = weft_swap_state_bucket(&W->si, w, off);

	if (b)
		return b;
	b = weft_mm_state_bucket(&W->mm, w, off);
	if (b) {
		unsigned nr = (b - 1) >> 5;
		if (nr < Z9_PAGES && weft_page_peek_flag(&W->mm.pages[nr], swapcache))
			b |= 0x10000u | (uint32_t)(weft_peek(W->mm.pages[nr].private) & 7) << 12;
	}
	return b;
}

static const char *const z9_opnames[Z9_NR_OPS] = { "read", "write", "zap", "swapout" };

static const char *const z9_files[] = {
	"z9_swapcache_aba.c", "mm_swap.c", "mm_page.c", "mm_pagelock.c", NULL,
};

static const struct weft_variant z9_variants[Z9_NR_VARIANTS] = {
	{ "z9", "Z9", true,
	  "do_swap_page() checks only pte_same() after lock_page(): a swap-cache page that "
	  "left the cache, or now caches another slot, is mapped for a reused entry",
	  "mm/memory.c v2.6.35 do_swap_page()",
	  WEFT_KIND_DATA_LOSS, 1, Z9_V_BUGGY },
	{ "fix1", "Z9-fix1", true,
	  "PageSwapCache() re-checked under the page lock; a page re-added to the swap cache "
	  "for another slot still passes",
	  "A. Arcangeli, mm: fix swapin race condition (4969c1192d15, 2.6.36-rc, Sep 2010)",
	  WEFT_KIND_DATA_LOSS, 1, Z9_V_FIX1 },
	{ "fix", "Z9-fix", false,
	  "also page_private(page) == entry.val under the page lock",
	  "H. Dickins, mm: further fix swapin race condition (31c4a3d3a0f8, 2.6.36-rc, "
	  "Sep 2010)",
	  WEFT_KIND_NONE, 0, Z9_V_FIX },
};

/*
 * Triggers (bytes encoding), Hugh's race: T0 (A) write 0; T1 (B) read 0;
 * T2 (C) write 0, swapout P0:0, swapout P1:0. Schedule: B runs first
 * (decision 0, a free choice), is preempted at decision 5, right after its
 * swap-cache lookup, to A (the one preemption); when A ends, C runs
 * instead of B (a free switch), then B. The last position is one decision
 * later per check the variant adds to A's do_swap_page(); the fix gets the
 * same race and backs off (page_private(page) != entry).
 */
#define Z9_T(t, op) (uint8_t)((t) << 4 | (op))
#define Z9_TRIGGER(last)                                                       \
	{                                                                      \
		5,                                                             \
		Z9_T(0, Z9_OP_WRITE), 0x00,                                    \
		Z9_T(1, Z9_OP_READ), 0x00,                                     \
		Z9_T(2, Z9_OP_WRITE), 0x00,                                    \
		Z9_T(2, Z9_OP_SWAPOUT), 0x00,                                  \
		Z9_T(2, Z9_OP_SWAPOUT), 0x10,                                  \
		/* schedule entries [pos lo][pos hi][b] */                     \
		0, 0, 0,                                                       \
		5, 0, 0,                                                       \
		(last), 0, 0,                                                  \
	}
static const uint8_t z9_trigger[] = Z9_TRIGGER(0x3b);
static const uint8_t z9_trigger_fix1[] = Z9_TRIGGER(0x3c);
static const uint8_t z9_trigger_fix[] = Z9_TRIGGER(0x3d);
WEFT_SCENARIO_TRIGGERS(z9, Z9_NR_VARIANTS,
		       z9_trigger, z9_trigger_fix1, z9_trigger_fix);

const struct weft_scenario weft_scn_z9_swapcache_aba = {
	.name = "z9-swapcache-aba",
	.summary = "swap-in through the swap cache vs reuse of its slot: the wrong page mapped "
		   "(2010)",
	.source = "mm/memory.c v2.6.35 do_swap_page(); mm: fix swapin race condition; "
		  "mm: further fix swapin race condition (Sep 2010)",
	WEFT_SCENARIO_ZOO(z9, Z9, Z9_THREADS, 4096, 1),
};
