/*
 * mm_page.h - the page model: struct page, its reference count, its flags,
 * and a page allocator with LIFO reuse and the allocator's free-time checks.
 *
 * Follows:
 *  - include/linux/mm.h of 2.4.19 (get_page, put_page_testzero,
 *    page_count, the PG_* bits) and the BUG_ON(!page_count(page)) of
 *    put_page_testzero/put_page_nofree in D. Phillips, "[RFC] [PATCH]
 *    Include LRU in page count", lkml 30 Aug 2002 (seeds/000);
 *  - mm/page_alloc.c of 2.4.19, __free_pages_ok(): the checks at free time
 *    (PageLRU, page->mapping, PageLocked, PageActive) and the hot LIFO
 *    reuse of a just-freed page;
 *  - 2.6.6-mm2 "page-freeing-race-fix" (N. Piggin / A. Morton, 2004):
 *    page->_count biased by -1, page_count() == atomic_read() + 1,
 *    get_page_testone() detecting the 0 -> 1 transition;
 *  - 2.6.16 get_page_unless_zero() (atomic_inc_not_zero on _count);
 *  - include/linux/page_ref.h (4.6+): every count change in one place,
 *    page_ref_freeze()/page_ref_unfreeze().
 *
 * Invariants:
 *  - struct weft_page lives in mm->pages for ever, as struct page lives in
 *    mem_map: count, flags and state stay readable while a page is free
 *    (speculative references and the allocator read them). What a free
 *    page gives back (the lru node the buddy lists reuse, mapping,
 *    private, the data version) is poisoned: any primitive on it is a
 *    use-after-free report. A count change on a free page is one too.
 *  - Every count change goes through the helpers below (one place, as in
 *    page_ref.h); with mm->biased the stored counter is page_count() - 1.
 *  - state, the free stack and nr_free are changed only by the allocator,
 *    under mm->zone_lock.
 *  - Shared pointers (lru, mapping) point into the world or are NULL.
 *
 * Stable API: additions only (the swap model builds on it).
 */
#ifndef WEFT_MM_PAGE_H
#define WEFT_MM_PAGE_H

#include <weft/kernel.h>

#define WEFT_MM_NR_PAGES 32

/* Page flag bit numbers (include/linux/page-flags.h naming). */
enum weft_pg_flag {
	WEFT_PG_locked = 0,
	WEFT_PG_error,
	WEFT_PG_referenced,
	WEFT_PG_uptodate,
	WEFT_PG_dirty,
	WEFT_PG_lru,
	WEFT_PG_active,
	WEFT_PG_reserved,
	WEFT_PG_private,
	WEFT_PG_writeback,
	WEFT_PG_swapcache,
	WEFT_PG_head,          /* head page of a folio of order > 0 */
	WEFT_PG_tail,
	WEFT_PG_reclaim,
	/* appended (bit numbers above are stable: stored replays hash flag
	 * values): someone sleeps on the page lock (<weft/mm/pagelock.h>) */
	WEFT_PG_waiters,
	/* appended: the other page-flags.h flags models use */
	WEFT_PG_swapbacked,    /* anon or shmem: backed by swap (PageSwapBacked) */
	WEFT_PG_mlocked,       /* in an mlocked VMA */
	WEFT_PG_unevictable,   /* on the unevictable LRU */
	WEFT_PG_workingset,    /* refaulted soon after eviction */
	WEFT_PG_mappedtodisk,  /* has blocks on disk; PG_anon_exclusive on anon pages */
	WEFT_PG_checked,       /* PG_owner_priv_1: the filesystem's (PageChecked) */
	WEFT_PG_hwpoison,      /* hardware-poisoned */
	WEFT_PG_young,         /* page_ext young (page idle tracking) */
	WEFT_PG_idle,          /* page_ext idle */
	WEFT_PG__COUNT
};

enum weft_page_state {
	WEFT_PAGE_ABSENT = 0,  /* beyond mm->nr_pages: not managed */
	WEFT_PAGE_FREE,
	WEFT_PAGE_ALLOCATED,
};

struct weft_page {
	/* --- valid while free (mem_map) --- */
	atomic_t count;          /* biased: page_count() - 1 */
	uint8_t state;           /* enum weft_page_state; zone_lock */
	uint8_t order;           /* folio order (head page); 0 otherwise */
	uint16_t nr;             /* index in mm->pages; constant */
	unsigned long flags;     /* 1 << WEFT_PG_* */
	/* --- poisoned while free --- */
	struct weft_list_head lru;
	void *mapping;           /* into the world, or NULL */
	unsigned long private;   /* e.g. a swap entry */
	uint32_t version;        /* data version tag (ABA / data oracles) */
	uint32_t data;           /* model payload */
};

#define WEFT_PAGE_POISON_OFF offsetof(struct weft_page, lru)
#define WEFT_PAGE_POISON_LEN (sizeof(struct weft_page) - WEFT_PAGE_POISON_OFF)

/* The seed's /proc/mmstats and a few allocator counters. X(enum, name) */
#define WEFT_MM_STATS(X)                                                      \
	X(RELEASE, "page_cache_release")                                      \
	X(RELEASE_TEST_LRU, "page_cache_release_test_lru")                    \
	X(RELEASE_DEL_LRU, "page_cache_release_del_lru")                      \
	X(SHRINK_DEL_LRU, "shrink_cache_del_lru")                             \
	X(TESTZERO, "put_page_testzero")                                      \
	X(LRU_CACHE_DEL, "lru_cache_del")                                     \
	X(TRUNCATE_LRU_DEL, "truncate_lru_cache_del")                         \
	X(LRU_CACHE_ADD, "lru_cache_add")                                     \
	X(SHRINK_SCANNED, "shrink_cache_scanned")                             \
	X(SHRINK_SKIPPED, "shrink_cache_skipped_busy")                        \
	X(PAGE_ALLOC, "page_alloc")                                           \
	X(PAGE_FREE, "page_free")

enum weft_mm_stat {
#define __WEFT_MM_STAT_ENUM(e, s) WEFT_MM_STAT_##e,
	WEFT_MM_STATS(__WEFT_MM_STAT_ENUM)
#undef __WEFT_MM_STAT_ENUM
	WEFT_MM_NR_STATS
};

struct weft_mm {
	struct weft_page pages[WEFT_MM_NR_PAGES];
	unsigned nr_pages;
	bool biased;             /* 2.6.6-mm2 -1 bias (set at init only) */
	spinlock_t zone_lock;    /* zone->lock: state, free[], nr_free, alloc_seq */
	uint8_t free[WEFT_MM_NR_PAGES];  /* LIFO: free[nr_free - 1] goes out next */
	unsigned nr_free;
	uint32_t alloc_seq;      /* version tags of allocations */
	/* Per-thread event counters (vm_event-like: no sharing, no points);
	 * summed by weft_mm_stat_sum(). Index: weft_current_tid(). */
	unsigned long stat[WEFT_MAX_THREADS][WEFT_MM_NR_STATS];
};

extern const char *const weft_mm_stat_names[WEFT_MM_NR_STATS];

/* Setup (main context): pages 0..nr_pages-1 free, the free stack ordered so
 * that page 0 is allocated first. nr_pages <= WEFT_MM_NR_PAGES. */
void weft_mm_init(struct weft_mm *mm, unsigned nr_pages, bool biased);

/* __alloc_pages(order 0): LIFO (a just-freed page comes back first);
 * unpoisons; count 1, flags 0, lru/mapping/private cleared, a fresh version
 * tag. NULL when no page is free. */
struct weft_page *weft_page_alloc(struct weft_mm *mm);
/* Allocate page nr exactly (setup builds a chosen initial state); NULL if
 * it is not free. */
struct weft_page *weft_page_alloc_at(struct weft_mm *mm, unsigned nr);
/* Folio of 2^order aligned contiguous free pages (lowest block first):
 * head gets PG_head and order, tails PG_tail and count 0. NULL if none. */
struct weft_page *weft_folio_alloc(struct weft_mm *mm, unsigned order);
/* __free_pages_ok(): reports double-free (page already free), bad-free
 * (count != 0, PG_lru, PG_active, PG_locked, still linked, mapping set);
 * then poisons the page body and pushes it on the free stack. A folio head
 * frees its tails too. */
void weft_page_free(struct weft_mm *mm, struct weft_page *p);

/* ------------------------------------------------------------ refcount */
/*
 * Memory ordering (under --memory tso|lkmm; docs/memory-model.md), as the
 * kernel's include/linux/page_ref.h and atomic_t.txt give it:
 *  - get_page(), get_page_nocheck(): atomic_inc(), orders nothing;
 *  - put_page_testzero(), put_page_nofree(), __put_page(): value-returning
 *    decrements, fully ordered (a full barrier before and after);
 *  - get_page_unless_zero(), page_ref_freeze(): fully ordered when they
 *    succeed, nothing when they fail (atomic_add_unless(), cmpxchg());
 *  - page_ref_unfreeze(): a release (atomic_set_release(), since 2018): every
 *    store of the frozen section is visible before the count;
 *  - page_count(), set_page_count(): atomic_read(), atomic_set(): a marked
 *    load and store, ordering nothing.
 */

/* page_count(): the unbiased count. */
int weft_page_count(struct weft_mm *mm, struct weft_page *p);
/* set_page_count() (unbiased value). */
void weft_set_page_count(struct weft_mm *mm, struct weft_page *p, int v);
/* get_page() as the kernel has checked it since 2.6.19
 * (VM_BUG_ON(page_count(page) == 0)): inc-from-zero report. */
void weft_get_page(struct weft_mm *mm, struct weft_page *p);
/* get_page() of 2.4 / page_cache_get(): a plain atomic_inc; the kernel did
 * not forbid 0 -> 1 then. Still a use-after-free on a free page. */
void weft_get_page_nocheck(struct weft_mm *mm, struct weft_page *p);
/* put_page_testzero(): true when this put dropped the last reference;
 * BUG_ON(!page_count(page)) -> refcount-underflow. */
bool weft_put_page_testzero(struct weft_mm *mm, struct weft_page *p);
/* put_page_nofree() of the seed: BUG_ON(!page_count); atomic_dec; a put
 * that must not be the last one (refcount-underflow if it was). */
void weft_put_page_nofree(struct weft_mm *mm, struct weft_page *p);
/* put_page(): put_page_testzero(), and the last reference frees the page
 * (weft_page_free()). */
void weft_put_page(struct weft_mm *mm, struct weft_page *p);
/* get_page_unless_zero() (2.6.16): legal on a free page (fails there). */
bool weft_get_page_unless_zero(struct weft_mm *mm, struct weft_page *p);
/* get_page_testone() (2.6.6-mm2, biased counts only): increments and
 * returns true when the count went 0 -> 1, i.e. the page is being freed
 * and the caller must back off with __weft_put_page(). Legal on a free
 * page. */
bool weft_get_page_testone(struct weft_mm *mm, struct weft_page *p);
/* __put_page(): atomic_dec without testing (backing off a testone). */
void __weft_put_page(struct weft_mm *mm, struct weft_page *p);
/* page_ref_freeze(): count == expected -> 0 atomically (true on success). */
bool weft_page_ref_freeze(struct weft_mm *mm, struct weft_page *p, int expected);
/* page_ref_unfreeze(): 0 -> count. */
void weft_page_ref_unfreeze(struct weft_mm *mm, struct weft_page *p, int count);

/* --------------------------------------------------------------- flags */
/*
 * Page-flag tests and ops, as macros so the site is the caller's:
 * weft_page_test(p, lru) is PageLRU(page), weft_page_test_set(p, lru) is
 * TestSetPageLRU(page), __weft_page_set(p, lru) is __SetPageLRU(page)
 * (non-atomic: a load and a store, two scheduling points).
 * Ordering (atomic_bitops.txt): a test is a marked load; set and clear
 * order nothing; test_and_set and test_and_clear are fully ordered; the
 * __ forms are a plain load and store. PageUptodate()'s smp_rmb() and
 * SetPageUptodate()'s smp_wmb() are the caller's to write (ZOO Z16).
 */
#define weft_page_test(p, fl) test_bit(WEFT_PG_##fl, &(p)->flags)
#define weft_page_set(p, fl) set_bit(WEFT_PG_##fl, &(p)->flags)
#define weft_page_clear(p, fl) clear_bit(WEFT_PG_##fl, &(p)->flags)
#define weft_page_test_set(p, fl) test_and_set_bit(WEFT_PG_##fl, &(p)->flags)
#define weft_page_test_clear(p, fl) test_and_clear_bit(WEFT_PG_##fl, &(p)->flags)
#define __weft_page_set(p, fl) __set_bit(WEFT_PG_##fl, &(p)->flags)
#define __weft_page_clear(p, fl) __clear_bit(WEFT_PG_##fl, &(p)->flags)
/* No scheduling point: audits and describe only. */
#define weft_page_peek_flag(p, fl) ((weft_peek((p)->flags) >> WEFT_PG_##fl) & 1ul)

/* ------------------------------------------------------------- helpers */

static inline unsigned weft_page_nr(const struct weft_mm *mm, const struct weft_page *p)
{
	return (unsigned)(p - mm->pages);
}

/* Unbiased count without a scheduling point (audits, describe). */
static inline int weft_page_peek_count(const struct weft_mm *mm, const struct weft_page *p)
{
	return weft_peek(p->count.counter) + (mm->biased ? 1 : 0);
}

static inline void weft_mm_stat(struct weft_mm *mm, enum weft_mm_stat s)
{
	mm->stat[weft_current_tid() % WEFT_MAX_THREADS][s]++;
}

unsigned long weft_mm_stat_sum(const struct weft_mm *mm, enum weft_mm_stat s);
/* Fills a scenario's stats callback: names and summed values. */
unsigned weft_mm_stats(const struct weft_mm *mm, const char **names, uint64_t *vals,
		       unsigned max);
/* The definitions of p##_stat_sum() and p##_stats() (as the two above) for
 * a kit model type_t whose counters are `unsigned long
 * stat[WEFT_MAX_THREADS][nr]` of enum p##_stat, named p##_stat_names:
 * weft_stat_sum() and weft_stat_rows() of that table. The page model's
 * (mm_page.c) and the swap model's (mm_swap.c). */
#define WEFT_KIT_STAT_FNS(p, type_t, nr)                                                \
	unsigned long p##_stat_sum(const type_t *o, enum p##_stat s)                   \
	{                                                                              \
		return weft_stat_sum(&o->stat[0][0], (nr), WEFT_MAX_THREADS, s);       \
	}                                                                              \
	unsigned p##_stats(const type_t *o, const char **names, uint64_t *vals,        \
			   unsigned max)                                               \
	{                                                                              \
		return weft_stat_rows(p##_stat_names, (nr), &o->stat[0][0],            \
				      WEFT_MAX_THREADS, names, vals, max);             \
	}
/* A stats callback whole: the model's own per-thread counters (as
 * weft_stat_rows() of <weft/weft.h>: stat is `unsigned long
 * stat[nr_threads][nr]`, named stat_names), then the page model's. */
unsigned weft_mm_model_stats(const struct weft_mm *mm, const char *const *stat_names,
			     unsigned nr, const unsigned long *stat, unsigned nr_threads,
			     const char **names, uint64_t *vals, unsigned max);
/* p##_stats(), that callback for a scenario named after one prefix (as
 * <weft/scenario.h>): its world struct p##_world has the page model mm and
 * `unsigned long stat[rows][P##_NR_STATS]`, named p##_stat_names. */
#define WEFT_MM_STATS_FN(p, P) __WEFT_MODEL_STATS_FN(p, P, weft_mm_model_stats, mm)
/* (model_stats is weft_mm_model_stats() or another with its arguments,
 * model the world's field it takes) */
#define __WEFT_MODEL_STATS_FN(p, P, model_stats, model)                                 \
	static unsigned p##_stats(const void *w, const char **names, uint64_t *vals,     \
				  unsigned max)                                          \
	{                                                                                \
		const struct p##_world *W = w;                                           \
		return model_stats(&W->model, p##_stat_names, P##_NR_STATS,              \
				   &W->stat[0][0], (unsigned)ARRAY_SIZE(W->stat), names, \
				   vals, max);                                           \
	}

/*
 * Page-leak audit at quiescence (main context). owned_fn returns how many
 * references the scenario accounts for on an allocated page (0: nobody
 * owns it), or WEFT_MM_OWNERS_ANY to check ownership only. Reports
 * page-leak for an owned-by-nobody page and for a count above its owners,
 * assertion for a count below them, and assertion for a free page with a
 * live count or PG_lru. Returns the number of problems (first one
 * reported).
 */
#define WEFT_MM_OWNERS_ANY 0xffffffffu
unsigned weft_mm_audit_leaks(struct weft_mm *mm,
			     unsigned (*owned_fn)(const struct weft_mm *mm,
						  const struct weft_page *p, void *ctx),
			     void *ctx);

/* describe() helper: names a world offset inside mm ("page 3 ->count",
 * "zone_lock"). off is relative to world; returns true if it was ours. */
bool weft_mm_describe(const struct weft_mm *mm, const void *world, uint32_t off, char *buf,
		      size_t n);
/* state_bucket() helper: for an offset inside a page, 1 + (refcount bucket
 * 0/1/2/many | PG_lru << 2 | on-a-list << 3 | allocated << 4 | page nr << 5);
 * 0 if off is not in a page. */
uint32_t weft_mm_state_bucket(const struct weft_mm *mm, const void *world, uint32_t off);
/* state_bucket() helper for an array of page pointers in the world (a page
 * cache's slots, `struct weft_page *slots[nr]`): for an offset inside it,
 * 0x10000 | slot << 8 | which page the slot names (0 none, else 1 + its
 * number; above weft_mm_state_bucket()'s values); 0 for any other offset. */
uint32_t weft_mm_slots_state_bucket(const struct weft_mm *mm, const void *world, uint32_t off,
				    struct weft_page *const *slots, unsigned nr);

#ifndef WEFT_KIT_INTERNAL
/* The model's call of each operation is what reports and diagrams name
 * (WEFT_KIT_CALL_* of <weft/kernel.h>); the kit's own sources define
 * WEFT_KIT_INTERNAL and call one another directly. */
#define weft_mm_init(...) WEFT_KIT_VOID(mm_init, #__VA_ARGS__, __VA_ARGS__)
#define weft_page_alloc(...) WEFT_KIT_VAL(struct weft_page *, page_alloc, #__VA_ARGS__, __VA_ARGS__)
#define weft_page_alloc_at(...) WEFT_KIT_VAL(struct weft_page *, page_alloc_at, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_alloc(...) WEFT_KIT_VAL(struct weft_page *, folio_alloc, #__VA_ARGS__, __VA_ARGS__)
#define weft_page_free(...) WEFT_KIT_VOID(page_free, #__VA_ARGS__, __VA_ARGS__)
#define weft_page_count(...) WEFT_KIT_VAL(int, page_count, #__VA_ARGS__, __VA_ARGS__)
#define weft_set_page_count(...) WEFT_KIT_VOID(set_page_count, #__VA_ARGS__, __VA_ARGS__)
#define weft_get_page(...) WEFT_KIT_VOID(get_page, #__VA_ARGS__, __VA_ARGS__)
#define weft_get_page_nocheck(...) WEFT_KIT_VOID(get_page_nocheck, #__VA_ARGS__, __VA_ARGS__)
#define weft_put_page_testzero(...) WEFT_KIT_VAL(bool, put_page_testzero, #__VA_ARGS__, __VA_ARGS__)
#define weft_put_page_nofree(...) WEFT_KIT_VOID(put_page_nofree, #__VA_ARGS__, __VA_ARGS__)
#define weft_put_page(...) WEFT_KIT_VOID(put_page, #__VA_ARGS__, __VA_ARGS__)
#define weft_get_page_unless_zero(...) WEFT_KIT_VAL(bool, get_page_unless_zero, #__VA_ARGS__, __VA_ARGS__)
#define weft_get_page_testone(...) WEFT_KIT_VAL(bool, get_page_testone, #__VA_ARGS__, __VA_ARGS__)
#define __weft_put_page(...) \
	WEFT_KIT_CALL_VOID("__put_page(" #__VA_ARGS__ ")", (__weft_put_page)(__VA_ARGS__))
#define weft_page_ref_freeze(...) WEFT_KIT_VAL(bool, page_ref_freeze, #__VA_ARGS__, __VA_ARGS__)
#define weft_page_ref_unfreeze(...) WEFT_KIT_VOID(page_ref_unfreeze, #__VA_ARGS__, __VA_ARGS__)
#define weft_mm_audit_leaks(...) WEFT_KIT_VAL(unsigned, mm_audit_leaks, #__VA_ARGS__, __VA_ARGS__)
#endif

#endif
