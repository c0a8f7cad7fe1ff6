/*
 * mm_lru.h - the LRU model: inactive/active lists under one lru spinlock,
 * lru_cache_add/lru_cache_del, the shrink_cache scan/isolation path, page
 * release (single and batched), a page cache (address_space) and truncate.
 *
 * One model, one scheme per kernel era (what the LRU's membership means
 * for the page count), chosen at init:
 *  WEFT_LRU_2_4_19     2.4.19 as shipped (mm/swap.c, mm/vmscan.c
 *                      shrink_cache, mm/page_alloc.c __free_pages_ok):
 *                      the LRU holds no reference (LRU_PLUS_CACHE 1);
 *                      the final put unlinks after dropping to zero.
 *  WEFT_LRU_RECHECK    2.5.3x (Aug 2002, akpm): count == 0 re-checked
 *                      under the lru lock on both sides: shrink_cache
 *                      isolates and skips count-0 pages, and
 *                      __page_cache_release frees only if the count is
 *                      still 0 under the lock.
 *  WEFT_LRU_PLUS_CACHE_EARLY  the seed's patch as posted (D. Phillips,
 *                      "[RFC] [PATCH] Include LRU in page count", lkml
 *                      30 Aug 2002): the LRU holds a reference
 *                      (LRU_PLUS_CACHE 2) but lru_cache_add does
 *                      TestSetPageLRU outside the lock, before the
 *                      reference exists (pointed out in review, 31 Aug).
 *  WEFT_LRU_PLUS_CACHE the same scheme done right: PG_lru and the LRU's
 *                      reference set together under the lock; with or
 *                      without the trylock heuristic of page_cache_release
 *                      (LRU_DEL_HEURISTIC); orphans at count 1 recovered by
 *                      shrink_cache.
 *  WEFT_LRU_TESTONE    2.6.6-mm2 "page-freeing-race-fix": counts biased by
 *                      -1, isolate_lru_pages backs off when
 *                      get_page_testone sees 0 -> 1.
 *  WEFT_LRU_UNLESS_ZERO 2.6.16 (N. Piggin, "mm: never ClearPageLRU released
 *                      pages"): isolate_lru_pages takes get_page_unless_zero
 *                      before clearing PG_lru; __page_cache_release tests
 *                      PageLRU without the lock.
 *
 * Invariants (checked by weft_lru_audit at quiescence): a page is on the
 * inactive or active list iff PG_lru (outside the lru lock, and except for
 * the isolated lists of a scan in progress); PG_active iff on the active
 * list; under the PLUS_CACHE schemes PG_lru carries one reference.
 * lock protects inactive, active, isolated[] and PG_lru/PG_active changes
 * (the early scheme's TestSetPageLRU excepted: that is its bug).
 */
#ifndef WEFT_MM_LRU_H
#define WEFT_MM_LRU_H

#include <weft/mm/page.h>

enum weft_lru_scheme {
	WEFT_LRU_2_4_19 = 0,
	WEFT_LRU_RECHECK,
	WEFT_LRU_PLUS_CACHE_EARLY,
	WEFT_LRU_PLUS_CACHE,
	WEFT_LRU_TESTONE,
	WEFT_LRU_UNLESS_ZERO,
};

#define WEFT_MAPPING_SLOTS WEFT_MM_NR_PAGES

/* An address_space: its page cache slots under pagecache_lock. A page in
 * slot i has page->mapping == this mapping and holds the cache's
 * reference. */
struct weft_mapping {
	spinlock_t lock;                        /* pagecache_lock */
	struct weft_page *slot[WEFT_MAPPING_SLOTS];
};

struct weft_lru {
	spinlock_t lock;                        /* pagemap_lru_lock */
	struct weft_list_head inactive;         /* head: hot end; prev: cold */
	struct weft_list_head active;
	/* shrink_cache's local page_list, one per thread (in the world so its
	 * pointers are world offsets) */
	struct weft_list_head isolated[WEFT_MAX_THREADS];
	struct weft_mm *mm;
	uint8_t scheme;                         /* enum weft_lru_scheme */
	bool heuristic;                         /* LRU_DEL_HEURISTIC */
};

#define WEFT_RELEASE_BATCH 16

/* Setup (main context). */
void weft_lru_init(struct weft_lru *lru, struct weft_mm *mm, enum weft_lru_scheme scheme,
		   bool heuristic);
void weft_mapping_init(struct weft_mapping *m);
/* Does PG_lru carry a reference under this scheme (LRU_PLUS_CACHE 2)? */
bool weft_lru_holds_ref(const struct weft_lru *lru);
/* Is this scheme one whose get_page may legally see 0 (2.4 and the seed's
 * era: plain atomic_inc)? Fixed schemes use the checked get_page. */
bool weft_lru_buggy_era(const struct weft_lru *lru);

/* page_cache_get(): the caller inherits the right from a reference it
 * holds or from a lock that pins one. */
void weft_page_cache_get(struct weft_lru *lru, struct weft_page *p);
/* page_cache_release(): the era's put (with the seed's heuristic when
 * enabled); frees the page on the last reference. */
void weft_page_cache_release(struct weft_lru *lru, struct weft_page *p);
/* release_pages() / pagevec_release(): drop one reference on each of
 * pages[0..n) (n <= WEFT_RELEASE_BATCH), taking the lru lock once for the
 * batch where the era did. */
void weft_release_pages(struct weft_lru *lru, struct weft_page **pages, unsigned n);

/* lru_cache_add(): the caller holds a reference; the page is not on the
 * LRU (a second add is a no-op under the 2.4 schemes). */
void weft_lru_cache_add(struct weft_lru *lru, struct weft_page *p);
/* lru_cache_del() and __lru_cache_del() (lru lock held). */
void weft_lru_cache_del(struct weft_lru *lru, struct weft_page *p);
void __weft_lru_cache_del(struct weft_lru *lru, struct weft_page *p);
/* activate_page(): inactive -> active if on the LRU. Caller holds a ref. */
void weft_activate_page(struct weft_lru *lru, struct weft_page *p);
/* refill_inactive(): move up to nr pages from the active list's cold end
 * to the inactive list. */
void weft_refill_inactive(struct weft_lru *lru, unsigned nr);
/* shrink_cache(): scan up to nr pages from the inactive list's cold end
 * (the era's scan/isolation path; every scanned page is taken, used
 * (writepage-like read of its data) and released). Returns the pages
 * taken. */
unsigned weft_shrink_cache(struct weft_lru *lru, unsigned nr);

/* add_to_page_cache(): slot must be empty; takes the cache's reference.
 * false if the slot is taken. */
bool weft_add_to_page_cache(struct weft_lru *lru, struct weft_mapping *m, struct weft_page *p,
			    unsigned index);
/* find_get_page(): the page in slot index with a new reference, or NULL. */
struct weft_page *weft_find_get_page(struct weft_lru *lru, struct weft_mapping *m,
				     unsigned index);
/* truncate_list_pages() for one index: find, page_cache_get, lock the
 * page, truncate_complete_page() (2.4: lru_cache_del of a page-cache page,
 * then remove_inode_page and the cache's page_cache_release), unlock,
 * release. Returns true if it truncated a page. */
bool weft_truncate_page(struct weft_lru *lru, struct weft_mapping *m, unsigned index);

/* LRU integrity at quiescence (main context): list pointers consistent,
 * every node a page of lru->mm, PG_lru <=> on a list, PG_active <=> on the
 * active list, isolated lists empty. Reports lru-state or list-corruption;
 * returns the number of problems. */
unsigned weft_lru_audit(struct weft_lru *lru);
/* Pages on the lists at quiescence whose only reference is the LRU's
 * (PLUS_CACHE schemes): the seed's orphans. */
unsigned weft_lru_count_orphans(const struct weft_lru *lru);

bool weft_lru_describe(const struct weft_lru *lru, const void *world, uint32_t off, char *buf,
		       size_t n);
bool weft_mapping_describe(const struct weft_mapping *m, const void *world, uint32_t off,
			   char *buf, size_t n);

#ifndef WEFT_KIT_INTERNAL
/* The model's call of each operation is what reports and diagrams name
 * (WEFT_KIT_CALL_* of <weft/kernel.h>); the kit's own sources define
 * WEFT_KIT_INTERNAL and call one another directly. */
#define weft_lru_init(...) WEFT_KIT_VOID(lru_init, #__VA_ARGS__, __VA_ARGS__)
#define weft_mapping_init(...) WEFT_KIT_VOID(mapping_init, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_holds_ref(...) WEFT_KIT_VAL(bool, lru_holds_ref, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_buggy_era(...) WEFT_KIT_VAL(bool, lru_buggy_era, #__VA_ARGS__, __VA_ARGS__)
#define weft_page_cache_get(...) WEFT_KIT_VOID(page_cache_get, #__VA_ARGS__, __VA_ARGS__)
#define weft_page_cache_release(...) WEFT_KIT_VOID(page_cache_release, #__VA_ARGS__, __VA_ARGS__)
#define weft_release_pages(...) WEFT_KIT_VOID(release_pages, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_cache_add(...) WEFT_KIT_VOID(lru_cache_add, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_cache_del(...) WEFT_KIT_VOID(lru_cache_del, #__VA_ARGS__, __VA_ARGS__)
#define __weft_lru_cache_del(...) \
	WEFT_KIT_CALL_VOID("__lru_cache_del(" #__VA_ARGS__ ")", (__weft_lru_cache_del)(__VA_ARGS__))
#define weft_activate_page(...) WEFT_KIT_VOID(activate_page, #__VA_ARGS__, __VA_ARGS__)
#define weft_refill_inactive(...) WEFT_KIT_VOID(refill_inactive, #__VA_ARGS__, __VA_ARGS__)
#define weft_shrink_cache(...) WEFT_KIT_VAL(unsigned, shrink_cache, #__VA_ARGS__, __VA_ARGS__)
#define weft_add_to_page_cache(...) WEFT_KIT_VAL(bool, add_to_page_cache, #__VA_ARGS__, __VA_ARGS__)
#define weft_find_get_page(...) WEFT_KIT_VAL(struct weft_page *, find_get_page, #__VA_ARGS__, __VA_ARGS__)
#define weft_truncate_page(...) WEFT_KIT_VAL(bool, truncate_page, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_audit(...) WEFT_KIT_VAL(unsigned, lru_audit, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_count_orphans(...) WEFT_KIT_VAL(unsigned, lru_count_orphans, #__VA_ARGS__, __VA_ARGS__)
#endif

#endif
