/*
 * mm_lru.c - the LRU model of the Z1 era and its fixes. Sources per scheme
 * (see mm_lru.h):
 *  - 2.4.19 mm/swap.c lru_cache_add()/lru_cache_del()/__lru_cache_del(),
 *    mm/vmscan.c shrink_cache() (the writepage path: page_cache_get under
 *    the lru lock, unlock, writepage, page_cache_release), mm/page_alloc.c
 *    __free_pages_ok() (PageLRU -> lru_cache_del), mm/filemap.c
 *    truncate_list_pages()/truncate_complete_page(); the race as
 *    A. Morton distilled it in the seed (lkml, 30 Aug 2002);
 *  - 2.5.33 mm/swap.c __page_cache_release()/release_pages() and
 *    mm/vmscan.c shrink_cache() (isolate, skip count 0, putback,
 *    pagevec_release);
 *  - the seed's patch (LRU_PLUS_CACHE 2, LRU_DEL_HEURISTIC, /proc/mmstats,
 *    shrink_cache's orphan recovery) and its 31 Aug 2002 review;
 *  - 2.6.6-mm2 "page-freeing-race-fix": isolate_lru_pages() with
 *    get_page_testone();
 *  - 2.6.16 mm/vmscan.c isolate_lru_pages() with get_page_unless_zero()
 *    before ClearPageLRU, mm/swap.c __page_cache_release()/release_pages()
 *    testing PageLRU without the lock.
 */
#define WEFT_KIT_INTERNAL 1
#include <weft/mm/lru.h>

void weft_lru_init(struct weft_lru *lru, struct weft_mm *mm, enum weft_lru_scheme scheme,
		   bool heuristic)
{
	if (!WEFT_CHECK_WORLD(lru, "weft_lru_init()"))
		return;
	lru->mm = mm;
	lru->scheme = (uint8_t)scheme;
	lru->heuristic = heuristic;
	weft_list_init(&lru->inactive);
	weft_list_init(&lru->active);
	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++)
		weft_list_init(&lru->isolated[t]);
}

void weft_mapping_init(struct weft_mapping *m)
{
	if (!WEFT_CHECK_WORLD(m, "weft_mapping_init()"))
		return;
	for (unsigned i = 0; i < WEFT_MAPPING_SLOTS; i++)
		m->slot[i] = NULL;
}

bool weft_lru_holds_ref(const struct weft_lru *lru)
{
	return lru->scheme == WEFT_LRU_PLUS_CACHE || lru->scheme == WEFT_LRU_PLUS_CACHE_EARLY;
}

bool weft_lru_buggy_era(const struct weft_lru *lru)
{
	return lru->scheme == WEFT_LRU_2_4_19 || lru->scheme == WEFT_LRU_RECHECK ||
	       lru->scheme == WEFT_LRU_PLUS_CACHE_EARLY;
}

static inline struct weft_page *lru_to_page(struct weft_list_head *e)
{
	return weft_list_entry(e, struct weft_page, lru);
}

/* A writepage-like use of the page's contents by a holder of a reference. */
static void use_page(struct weft_page *p)
{
	(void)READ_ONCE(p->version);
}

/* del_page_from_active_list / del_page_from_inactive_list (lock held). */
static void del_page_from_lru(struct weft_page *p)
{
	weft_list_del(&p->lru);
	if (weft_page_test(p, active))
		weft_page_clear(p, active);
}

/*
 * The loops every era writes the same way. Macros, not functions: their
 * reads and lock operations stay sites of the era's function that expands
 * them (a site id hashes the function), as when each era wrote them out.
 */

/* A scan from the tail of LRU list head (the oldest page first), lru->lock
 * held: the statement that follows runs for at most nr pages, e the entry
 * READ_ONCE(head.prev) read and p its page, until the list is empty. The
 * statement takes e off the tail (or the scan sees it again); continue
 * goes on to the next page. */
#define lru_for_each_tail(head, nr, e, p)                                      \
	for (struct weft_list_head *e; (nr)-- && (e = READ_ONCE(head.prev)) != &head;) \
		for (struct weft_page *p = lru_to_page(e), *once_ = p; once_; once_ = NULL)

/* release_pages()'s walk of pages[0 .. n): the statement that follows runs
 * for each page p whose reference was the last one, counted or not. */
#define for_each_last_put(lru, pages, n, p)                                    \
	for (unsigned i_ = 0; i_ < (n); i_++)                                  \
		for (struct weft_page *p = (pages)[i_], *once_ = p;            \
		     once_ && (weft_mm_stat((lru)->mm, WEFT_MM_STAT_RELEASE),    \
			       weft_put_page_testzero((lru)->mm, p));            \
		     once_ = NULL)

/* shrink_cache()'s writepage path, lru->lock held: a reference taken, the
 * lock dropped while the page is used, the reference put, the lock taken
 * again. */
#define use_page_unlocked(lru, p)                                              \
	do {                                                                   \
		weft_page_cache_get(lru, p);                                   \
		spin_unlock(&lru->lock);                                       \
		use_page(p);                                                   \
		weft_page_cache_release(lru, p);                               \
		spin_lock(&lru->lock);                                         \
	} while (0)

void weft_page_cache_get(struct weft_lru *lru, struct weft_page *p)
{
	if (weft_lru_buggy_era(lru))
		weft_get_page_nocheck(lru->mm, p);
	else
		weft_get_page(lru->mm, p);
}

/* ----------------------------------------------------------- the frees */

/* 2.4.19 __free_pages_ok(): the LRU unlink happens after the count hit
 * zero -- the window of Z1a. */
static void free_pages_ok_2_4(struct weft_lru *lru, struct weft_page *p)
{
	if (weft_page_test(p, lru))
		weft_lru_cache_del(lru, p);
	weft_page_free(lru->mm, p);
}

/* 2.5.33 .. 2.6.15 __page_cache_release(): unlink and re-check the count
 * under the lru lock. */
static void page_cache_release_recheck(struct weft_lru *lru, struct weft_page *p)
{
	bool free;

	spin_lock(&lru->lock);
	if (weft_page_test_clear(p, lru))
		del_page_from_lru(p);
	free = weft_page_count(lru->mm, p) == 0;
	spin_unlock(&lru->lock);
	if (free)
		weft_page_free(lru->mm, p);
}

/* 2.6.16 __page_cache_release(): PG_lru of a count-0 page is stable (the
 * scanner clears it only after get_page_unless_zero), so it is tested
 * without the lock. */
static void page_cache_release_2616(struct weft_lru *lru, struct weft_page *p)
{
	if (weft_page_test(p, lru)) {
		spin_lock(&lru->lock);
		VM_BUG_ON(!weft_page_test(p, lru));
		__weft_page_clear(p, lru);
		del_page_from_lru(p);
		spin_unlock(&lru->lock);
	}
	weft_page_free(lru->mm, p);
}

/* put_page() / __free_page() of the era. */
static void put_page_era(struct weft_lru *lru, struct weft_page *p)
{
	if (!weft_put_page_testzero(lru->mm, p))
		return;
	switch (lru->scheme) {
	case WEFT_LRU_2_4_19:
		free_pages_ok_2_4(lru, p);
		break;
	case WEFT_LRU_RECHECK:
	case WEFT_LRU_TESTONE:
		page_cache_release_recheck(lru, p);
		break;
	case WEFT_LRU_UNLESS_ZERO:
		page_cache_release_2616(lru, p);
		break;
	default:
		/* LRU_PLUS_CACHE 2: __free_pages_ok BUG_ON(PageLRU(page)) --
		 * weft_page_free's bad-free check */
		weft_page_free(lru->mm, p);
		break;
	}
}

void weft_page_cache_release(struct weft_lru *lru, struct weft_page *p)
{
	struct weft_mm *mm = lru->mm;

	weft_mm_stat(mm, WEFT_MM_STAT_RELEASE);
	/* the seed's LRU_DEL_HEURISTIC: when we and the LRU may be the only
	 * holders, take the LRU's reference off with ours */
	if (weft_lru_holds_ref(lru) && lru->heuristic && weft_page_count(mm, p) == 2 &&
	    spin_trylock(&lru->lock)) {
		weft_mm_stat(mm, WEFT_MM_STAT_RELEASE_TEST_LRU);
		if (weft_page_test(p, lru) && weft_page_count(mm, p) == 2) {
			weft_mm_stat(mm, WEFT_MM_STAT_RELEASE_DEL_LRU);
			__weft_lru_cache_del(lru, p);
		}
		spin_unlock(&lru->lock);
	}
	put_page_era(lru, p);
}

void weft_release_pages(struct weft_lru *lru, struct weft_page **pages, unsigned n)
{
	struct weft_page *to_free[WEFT_RELEASE_BATCH];
	unsigned nr_free = 0;
	bool held = false;

	if (n > WEFT_RELEASE_BATCH)
		n = WEFT_RELEASE_BATCH;
	switch (lru->scheme) {
	case WEFT_LRU_RECHECK:
	case WEFT_LRU_TESTONE:
		/* 2.5.33 release_pages(): one lock for the batch */
		for_each_last_put(lru, pages, n, p) {
			if (!held) {
				spin_lock(&lru->lock);
				held = true;
			}
			if (weft_page_test_clear(p, lru))
				del_page_from_lru(p);
			if (weft_page_count(lru->mm, p) == 0)
				to_free[nr_free++] = p;
		}
		break;
	case WEFT_LRU_UNLESS_ZERO:
		/* 2.6.16 release_pages() */
		for_each_last_put(lru, pages, n, p) {
			if (weft_page_test(p, lru)) {
				if (!held) {
					spin_lock(&lru->lock);
					held = true;
				}
				VM_BUG_ON(!weft_page_test(p, lru));
				__weft_page_clear(p, lru);
				del_page_from_lru(p);
			}
			to_free[nr_free++] = p;
		}
		break;
	default:
		/* 2.4 has no release_pages(): one page_cache_release each */
		for (unsigned i = 0; i < n; i++)
			weft_page_cache_release(lru, pages[i]);
		return;
	}
	if (held)
		spin_unlock(&lru->lock);
	for (unsigned i = 0; i < nr_free; i++)
		weft_page_free(lru->mm, to_free[i]);
}

/* ------------------------------------------------------- add / del */

void weft_lru_cache_add(struct weft_lru *lru, struct weft_page *p)
{
	weft_mm_stat(lru->mm, WEFT_MM_STAT_LRU_CACHE_ADD);
	switch (lru->scheme) {
	case WEFT_LRU_2_4_19:
		if (!weft_page_test_set(p, lru)) {
			spin_lock(&lru->lock);
			weft_list_add(&p->lru, &lru->inactive);
			spin_unlock(&lru->lock);
		}
		break;
	case WEFT_LRU_PLUS_CACHE_EARLY:
		/* the patch as posted: PG_lru visible before the LRU's
		 * reference exists and before the page is linked */
		if (!weft_page_test_set(p, lru)) {
			spin_lock(&lru->lock);
			weft_list_add(&p->lru, &lru->inactive);
			weft_get_page_nocheck(lru->mm, p);
			spin_unlock(&lru->lock);
		}
		break;
	case WEFT_LRU_PLUS_CACHE:
		spin_lock(&lru->lock);
		if (!weft_page_test(p, lru)) {
			weft_page_set(p, lru);
			weft_list_add(&p->lru, &lru->inactive);
			weft_get_page(lru->mm, p);
		}
		spin_unlock(&lru->lock);
		break;
	default:
		/* __pagevec_lru_add(): if (TestSetPageLRU(page)) BUG() */
		spin_lock(&lru->lock);
		BUG_ON(weft_page_test_set(p, lru));
		weft_list_add(&p->lru, &lru->inactive);
		spin_unlock(&lru->lock);
		break;
	}
}

void __weft_lru_cache_del(struct weft_lru *lru, struct weft_page *p)
{
	if (weft_page_test_clear(p, lru)) {
		del_page_from_lru(p);
		weft_mm_stat(lru->mm, WEFT_MM_STAT_LRU_CACHE_DEL);
		if (weft_lru_holds_ref(lru))
			weft_put_page_nofree(lru->mm, p);
	}
}

void weft_lru_cache_del(struct weft_lru *lru, struct weft_page *p)
{
	spin_lock(&lru->lock);
	__weft_lru_cache_del(lru, p);
	spin_unlock(&lru->lock);
}

void weft_activate_page(struct weft_lru *lru, struct weft_page *p)
{
	spin_lock(&lru->lock);
	if (weft_page_test(p, lru) && !weft_page_test(p, active)) {
		weft_list_del(&p->lru);
		weft_page_set(p, active);
		weft_list_add(&p->lru, &lru->active);
	}
	spin_unlock(&lru->lock);
}

void weft_refill_inactive(struct weft_lru *lru, unsigned nr)
{
	spin_lock(&lru->lock);
	lru_for_each_tail(lru->active, nr, e, p) {
		weft_list_del(e);
		weft_page_clear(p, active);
		weft_list_add(e, &lru->inactive);
	}
	spin_unlock(&lru->lock);
}

/* -------------------------------------------------------- shrink_cache */

/* 2.4.19 shrink_cache(), the path that takes a reference (writepage). */
static unsigned shrink_cache_2_4(struct weft_lru *lru, unsigned nr)
{
	struct weft_mm *mm = lru->mm;
	unsigned taken = 0;

	spin_lock(&lru->lock);
	lru_for_each_tail(lru->inactive, nr, e, p) {
		BUG_ON(!weft_page_test(p, lru));
		weft_list_del(e);
		weft_list_add(e, &lru->inactive);
		weft_mm_stat(mm, WEFT_MM_STAT_SHRINK_SCANNED);
		/* "Zero page counts can happen because we unlink the pages
		 * _after_ decrementing the usage count.." */
		if (!weft_page_count(mm, p)) {
			weft_mm_stat(mm, WEFT_MM_STAT_SHRINK_SKIPPED);
			continue;
		}
		/* window: the count read above is stale by now */
		use_page_unlocked(lru, p);
		taken++;
	}
	spin_unlock(&lru->lock);
	return taken;
}

/* The seed's shrink_cache() with LRU_PLUS_CACHE 2: count 1 is the LRU's
 * reference alone -- an orphan the heuristic missed: recover it. */
static unsigned shrink_cache_plus_cache(struct weft_lru *lru, unsigned nr)
{
	struct weft_mm *mm = lru->mm;
	unsigned taken = 0;

	spin_lock(&lru->lock);
	lru_for_each_tail(lru->inactive, nr, e, p) {
		BUG_ON(!weft_page_test(p, lru));
		weft_list_del(e);
		weft_mm_stat(mm, WEFT_MM_STAT_SHRINK_SCANNED);
		int count = weft_page_count(mm, p);
		BUG_ON(count == 0);
		if (count == 1) {
			weft_mm_stat(mm, WEFT_MM_STAT_SHRINK_DEL_LRU);
			bool was_lru = weft_page_test_clear(p, lru);
			BUG_ON(!was_lru);
			put_page_era(lru, p);
			continue;
		}
		weft_list_add(e, &lru->inactive);
		use_page_unlocked(lru, p);
		taken++;
	}
	spin_unlock(&lru->lock);
	return taken;
}

/* 2.5.33 / 2.6.6 / 2.6.16: isolate under the lock, use, put back, release
 * the batch. */
static unsigned shrink_cache_isolate(struct weft_lru *lru, unsigned nr)
{
	struct weft_mm *mm = lru->mm;
	struct weft_list_head *mine = &lru->isolated[weft_current_tid() % WEFT_MAX_THREADS];
	struct weft_page *taken[WEFT_RELEASE_BATCH];
	unsigned nr_taken = 0;

	if (nr > WEFT_RELEASE_BATCH)
		nr = WEFT_RELEASE_BATCH;
	spin_lock(&lru->lock);
	lru_for_each_tail(lru->inactive, nr, e, p) {
		weft_mm_stat(mm, WEFT_MM_STAT_SHRINK_SCANNED);
		if (lru->scheme == WEFT_LRU_UNLESS_ZERO) {
			BUG_ON(!weft_page_test(p, lru));
			weft_list_del(e);
			if (!weft_get_page_unless_zero(mm, p)) {
				/* it is being freed elsewhere */
				weft_mm_stat(mm, WEFT_MM_STAT_SHRINK_SKIPPED);
				weft_list_add(e, &lru->inactive);
				continue;
			}
			/* only now: the release path relies on PG_lru */
			weft_page_clear(p, lru);
		} else {
			bool was_lru = weft_page_test_clear(p, lru);
			BUG_ON(!was_lru);
			weft_list_del(e);
			if (lru->scheme == WEFT_LRU_TESTONE) {
				if (weft_get_page_testone(mm, p)) {
					/* it is being freed elsewhere */
					__weft_put_page(mm, p);
					weft_page_set(p, lru);
					weft_list_add(e, &lru->inactive);
					weft_mm_stat(mm, WEFT_MM_STAT_SHRINK_SKIPPED);
					continue;
				}
			} else {
				/* 2.5.33: "It is currently in pagevec_release()" */
				if (weft_page_count(mm, p) == 0) {
					weft_page_set(p, lru);
					weft_list_add(e, &lru->inactive);
					weft_mm_stat(mm, WEFT_MM_STAT_SHRINK_SKIPPED);
					continue;
				}
				/* window: count read above, increment below */
				weft_page_cache_get(lru, p);
			}
		}
		weft_list_add(e, mine);
		taken[nr_taken++] = p;
	}
	spin_unlock(&lru->lock);

	/* shrink_list(): the pages are in use (no mapping to reclaim them
	 * from, or mapped): keep them */
	for (unsigned i = 0; i < nr_taken; i++)
		use_page(taken[i]);

	if (nr_taken) {
		spin_lock(&lru->lock);
		for (unsigned i = 0; i < nr_taken; i++) {
			struct weft_page *p = taken[i];

			weft_list_del(&p->lru);
			if (lru->scheme == WEFT_LRU_UNLESS_ZERO) {
				BUG_ON(weft_page_test(p, lru));
				weft_page_set(p, lru);
			} else {
				bool was_lru = weft_page_test_set(p, lru);
				BUG_ON(was_lru);
			}
			weft_list_add(&p->lru, &lru->inactive);
		}
		spin_unlock(&lru->lock);
		weft_release_pages(lru, taken, nr_taken);
	}
	return nr_taken;
}

unsigned weft_shrink_cache(struct weft_lru *lru, unsigned nr)
{
	switch (lru->scheme) {
	case WEFT_LRU_2_4_19:
		return shrink_cache_2_4(lru, nr);
	case WEFT_LRU_PLUS_CACHE:
	case WEFT_LRU_PLUS_CACHE_EARLY:
		return shrink_cache_plus_cache(lru, nr);
	default:
		return shrink_cache_isolate(lru, nr);
	}
}

/* ---------------------------------------------------------- page cache */

bool weft_add_to_page_cache(struct weft_lru *lru, struct weft_mapping *m, struct weft_page *p,
			    unsigned index)
{
	index %= WEFT_MAPPING_SLOTS;
	spin_lock(&m->lock);
	if (READ_ONCE(m->slot[index])) {
		spin_unlock(&m->lock);
		return false;
	}
	weft_page_cache_get(lru, p);
	WRITE_ONCE(p->mapping, (void *)m);
	WRITE_ONCE(m->slot[index], p);
	spin_unlock(&m->lock);
	return true;
}

struct weft_page *weft_find_get_page(struct weft_lru *lru, struct weft_mapping *m,
				     unsigned index)
{
	struct weft_page *p;

	index %= WEFT_MAPPING_SLOTS;
	spin_lock(&m->lock);
	p = READ_ONCE(m->slot[index]);
	if (p)
		weft_page_cache_get(lru, p);
	spin_unlock(&m->lock);
	return p;
}

bool weft_truncate_page(struct weft_lru *lru, struct weft_mapping *m, unsigned index)
{
	struct weft_page *p;

	index %= WEFT_MAPPING_SLOTS;
	p = weft_find_get_page(lru, m, index);
	if (!p)
		return false;
	/* TryLockPage(): a truncate already holds it (2.4 waits and
	 * restarts; the page is gone from the cache when it is unlocked) */
	if (weft_page_test_set(p, locked)) {
		weft_page_cache_release(lru, p);
		return false;
	}
	if (READ_ONCE(p->mapping) != (void *)m) {
		weft_page_clear(p, locked);
		weft_page_cache_release(lru, p);
		return false;
	}
	/* truncate_complete_page() */
	if (lru->scheme == WEFT_LRU_2_4_19 || weft_lru_holds_ref(lru)) {
		/* 2.4: "Leave it on the LRU if it gets converted into
		 * anonymous buffers" -- no buffers here: off the LRU */
		weft_mm_stat(lru->mm, WEFT_MM_STAT_TRUNCATE_LRU_DEL);
		weft_lru_cache_del(lru, p);
	}
	/* remove_inode_page() */
	spin_lock(&m->lock);
	WRITE_ONCE(m->slot[index], NULL);
	WRITE_ONCE(p->mapping, NULL);
	spin_unlock(&m->lock);
	weft_page_cache_release(lru, p);        /* the page cache's reference */
	weft_page_clear(p, locked);             /* UnlockPage() */
	weft_page_cache_release(lru, p);        /* ours */
	return true;
}

/* ---------------------------------------------------------------- audit */

static int page_of_node(const struct weft_lru *lru, const struct weft_list_head *e)
{
	const struct weft_mm *mm = lru->mm;
	uintptr_t a = (uintptr_t)e, b = (uintptr_t)&mm->pages[0].lru;

	if (a < b || (a - b) % sizeof(struct weft_page) ||
	    (a - b) / sizeof(struct weft_page) >= mm->nr_pages)
		return -1;
	return (int)((a - b) / sizeof(struct weft_page));
}

/* Walk one list head; marks seen[] with 1 + which. Returns problems. */
static unsigned audit_list(struct weft_lru *lru, struct weft_list_head *h, unsigned which,
			   uint8_t *seen, unsigned problems)
{
	struct weft_list_head *e = weft_peek(h->next), *prev = h;
	unsigned guard = 0;

	for (; e != h; prev = e, e = weft_peek(e->next)) {
		int i = page_of_node(lru, e);
		const char *why = NULL;

		if (i < 0)
			why = "a node that is not a page";
		else if (weft_peek(e->prev) != prev)
			why = "node->prev does not point back";
		else if (seen[i])
			why = "a page on the lists twice";
		else if (++guard > WEFT_MM_NR_PAGES)
			why = "a cycle";
		if (why) {
			if (!problems++)
				weft_report(WEFT_KIND_LIST_CORRUPTION, i < 0 ? (void *)h : (void *)e,
					    WEFT_SITE(WEFT_EV_NOTE, "audit: LRU list consistent"),
					    "LRU list %s holds %s", which == 1 ? "inactive" :
					    which == 2 ? "active" : "isolated", why);
			return problems;
		}
		seen[i] = (uint8_t)which;
	}
	if (weft_peek(h->prev) != prev && !problems++)
		weft_report(WEFT_KIND_LIST_CORRUPTION, h,
			    WEFT_SITE(WEFT_EV_NOTE, "audit: LRU list consistent"),
			    "LRU list head ->prev does not point at the last node");
	return problems;
}

unsigned weft_lru_audit(struct weft_lru *lru)
{
	struct weft_mm *mm = lru->mm;
	uint8_t seen[WEFT_MM_NR_PAGES] = { 0 };
	unsigned problems = 0;

	problems = audit_list(lru, &lru->inactive, 1, seen, problems);
	problems = audit_list(lru, &lru->active, 2, seen, problems);
	for (unsigned t = 0; t < WEFT_MAX_THREADS && !problems; t++)
		if (weft_peek(lru->isolated[t].next) != &lru->isolated[t] && !problems++)
			weft_report(WEFT_KIND_LRU_STATE, &lru->isolated[t],
				    WEFT_SITE(WEFT_EV_NOTE, "audit: no page left isolated"),
				    "thread %u left pages isolated from the LRU", t);
	if (problems)
		return problems;
	for (unsigned i = 0; i < mm->nr_pages; i++) {
		struct weft_page *p = &mm->pages[i];
		bool lru_bit = weft_page_peek_flag(p, lru), active = weft_page_peek_flag(p, active);
		const char *why = NULL;

		if (lru_bit && !seen[i])
			why = "PG_lru set but on no LRU list";
		else if (!lru_bit && seen[i])
			why = "on an LRU list without PG_lru";
		else if (seen[i] && active != (seen[i] == 2))
			why = active ? "PG_active on the inactive list" : "on the active list without PG_active";
		else if (seen[i] && weft_peek(p->state) != WEFT_PAGE_ALLOCATED)
			why = "a free page on an LRU list";
		if (why && !problems++)
			weft_report(WEFT_KIND_LRU_STATE, &p->flags,
				    WEFT_SITE(WEFT_EV_NOTE, "audit: PG_lru <=> on an LRU list"),
				    "page %u: %s", i, why);
	}
	return problems;
}

unsigned weft_lru_count_orphans(const struct weft_lru *lru)
{
	const struct weft_mm *mm = lru->mm;
	unsigned n = 0;

	if (!weft_lru_holds_ref(lru))
		return 0;
	for (unsigned i = 0; i < mm->nr_pages; i++) {
		const struct weft_page *p = &mm->pages[i];

		if (weft_peek(p->state) == WEFT_PAGE_ALLOCATED && weft_page_peek_flag(p, lru) &&
		    weft_page_peek_count(mm, p) == 1)
			n++;
	}
	return n;
}

/* ------------------------------------------------------------- describe */

static bool in_field(uint32_t off, uintptr_t base, size_t len)
{
	return off >= base && off < base + len;
}

/* Whether world offset off lies in the object obj of size bytes; if so *f
 * is its offset inside obj. */
static bool in_object(const void *obj, size_t size, const void *world, uint32_t off, uint32_t *f)
{
	uintptr_t b = (uintptr_t)obj - (uintptr_t)world;

	if (!in_field(off, b, size))
		return false;
	*f = off - (uint32_t)b;
	return true;
}

bool weft_lru_describe(const struct weft_lru *lru, const void *world, uint32_t off, char *buf,
		       size_t n)
{
	uint32_t f;

	if (!in_object(lru, sizeof(*lru), world, off, &f))
		return false;
	if (in_field(f, offsetof(struct weft_lru, lock), sizeof(lru->lock)))
		snprintf(buf, n, "pagemap_lru_lock");
	else if (in_field(f, offsetof(struct weft_lru, inactive), sizeof(lru->inactive)))
		snprintf(buf, n, "inactive_list.%s", f == offsetof(struct weft_lru, inactive) ? "next" : "prev");
	else if (in_field(f, offsetof(struct weft_lru, active), sizeof(lru->active)))
		snprintf(buf, n, "active_list.%s", f == offsetof(struct weft_lru, active) ? "next" : "prev");
	else if (in_field(f, offsetof(struct weft_lru, isolated), sizeof(lru->isolated)))
		snprintf(buf, n, "page_list of T%u",
			 (unsigned)((f - offsetof(struct weft_lru, isolated)) /
				    sizeof(struct weft_list_head)));
	else
		snprintf(buf, n, "lru+0x%x", f);
	return true;
}

bool weft_mapping_describe(const struct weft_mapping *m, const void *world, uint32_t off,
			   char *buf, size_t n)
{
	uint32_t f;

	if (!in_object(m, sizeof(*m), world, off, &f))
		return false;
	if (in_field(f, offsetof(struct weft_mapping, lock), sizeof(m->lock)))
		snprintf(buf, n, "pagecache_lock");
	else
		snprintf(buf, n, "page cache slot %u",
			 (unsigned)((f - offsetof(struct weft_mapping, slot)) / sizeof(void *)));
	return true;
}
