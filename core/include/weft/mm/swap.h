/*
 * mm_swap.h - the swap model: one swap device (swap_info_struct) with its
 * swap_map, clusters, the swap cache, per-CPU slot return batches, and the
 * mm operations that move anonymous folios between page tables, the swap
 * cache and swap slots (swap-out, swap-in, split, reclaim, zap).
 *
 * Follows mm/swapfile.c, mm/swap_state.c, mm/swap_slots.c, mm/memory.c and
 * mm/vmscan.c of v6.11-rc (mm-unstable, Aug 2024): swap_is_has_cache(),
 * swap_is_last_map(), __swap_entries_free(), free_swap_and_cache_nr(),
 * __try_to_reclaim_swap(), put_swap_folio(), folio_alloc_swap(),
 * __swap_entry_free_locked(), swap_entry_range_free(), free_swap_slot();
 * the batch free of B. Song, "[PATCH v2 2/2] mm: attempt to batch free
 * swap entries for zap_pte_range()" (linux-mm, 7 Aug 2024) and K. Song's
 * review of it (8 Aug 2024, seeds/001).
 *
 * swap_map byte: bits 0-5 the count of PTE references (SWAP_MAP_MAX 0x3e,
 * 0x3f SWAP_MAP_BAD), bit 6 SWAP_HAS_CACHE: pinned by the swap cache or by
 * a transient holder (swapcache_prepare(), a slot on its way back to the
 * allocator). A slot is free iff its byte is 0.
 *
 * Locks (outer to inner): folio lock (trylock only) -> ptl -> a CPU's
 * free_lock -> si->lock -> cluster lock; the swap-cache lock (i_pages) and
 * the zone lock are leaves. The swap-cache lock is held while a cached
 * folio's count is frozen, so a lookup under it always finds count >= 1.
 *
 * Designed for the later swap scenarios of the zoo: swap_map, clusters and
 * data[] are plain arrays of the world a swapoff model can poison; data[]
 * carries the version written at pageout for data oracles; allocation
 * reuses the slot freed last (LIFO) when ret_batch is 0.
 */
#ifndef WEFT_MM_SWAP_H
#define WEFT_MM_SWAP_H

#include <weft/mm/page.h>
#include <weft/mm/pgtable.h>

#define WEFT_SWAP_MAX_SLOTS 64
#define WEFT_SWAP_CLUSTER 8            /* SWAPFILE_CLUSTER */
#define WEFT_SWAP_MAX_CLUSTERS (WEFT_SWAP_MAX_SLOTS / WEFT_SWAP_CLUSTER)
#define WEFT_SWAP_MAX_ORDER 3          /* a folio fits one cluster */
#define WEFT_SWAP_RET_MAX 4            /* SWAP_SLOTS_CACHE_SIZE of the model */

#define WEFT_SWAP_HAS_CACHE 0x40
#define WEFT_SWAP_MAP_MAX 0x3e
#define WEFT_SWAP_MAP_BAD 0x3f
#define WEFT_SWAP_COUNT(b) ((b) & ~WEFT_SWAP_HAS_CACHE)

/* __try_to_reclaim_swap() flags */
#define WEFT_TTRS_ANYWAY 0x1
#define WEFT_TTRS_UNMAPPED 0x2

/* How free_swap_and_cache_nr() frees the swap counts of a PTE batch. */
enum weft_swap_free_mode {
	/* v6.10: __swap_entry_free() entry by entry (fixed) */
	WEFT_SWAP_FREE_PER_ENTRY = 0,
	/* the batch fast path with swap_is_last_map() of v2 of the patch:
	 * every byte's count must be 1, HAS_CACHE or not (buggy) */
	WEFT_SWAP_FREE_BATCH_V2,
	/* the same with v3's check: every byte equals the first (fixed) */
	WEFT_SWAP_FREE_BATCH_V3,
};

/* Counters (vm_event-like, per thread, no scheduling point). X(enum, name) */
#define WEFT_SWAP_STATS(X)                                                    \
	X(ALLOC, "swap_slots_allocated")                                      \
	X(ALLOC_FAIL, "swap_alloc_failed")                                    \
	X(SLOTS_FREED, "swap_slots_freed")                                    \
	X(BATCH_FAST, "batch_fast_path")                                      \
	X(BATCH_FAST_CACHED, "batch_fast_path_has_cache")                     \
	X(BATCH_FALLBACK, "batch_fallback")                                   \
	X(ENTRY_FREE, "swap_entry_free")                                      \
	X(TRY_RECLAIM, "try_to_reclaim_swap")                                 \
	X(TRY_RECLAIM_OK, "try_to_reclaim_swap_freed")                        \
	X(SWAPOUT, "folios_swapped_out")                                      \
	X(SWAPIN_HIT, "swapin_cache_hit")                                     \
	X(SWAPIN_MISS, "swapin_read")                                         \
	X(SPLIT, "swapcache_folio_split")                                     \
	X(RECLAIM, "swapcache_folio_reclaimed")                               \
	X(ZAP_SWAP_BATCHES, "zap_swap_batches")                               \
	X(RET_FLUSH, "slots_ret_flushes")

enum weft_swap_stat {
#define __WEFT_SWAP_STAT_ENUM(e, s) WEFT_SWAP_STAT_##e,
	WEFT_SWAP_STATS(__WEFT_SWAP_STAT_ENUM)
#undef __WEFT_SWAP_STAT_ENUM
	WEFT_SWAP_NR_STATS
};

struct weft_swap_cluster {
	spinlock_t lock;               /* ci->lock: the map bytes of this cluster */
	uint32_t count;                /* slots in use; ci->lock */
};

/* swap_slots_cache of one CPU: slots freed to HAS_CACHE, waiting to go
 * back to the allocator (free_swap_slot()). */
struct weft_swap_slots_ret {
	spinlock_t free_lock;
	uint32_t n_ret;
	uint32_t slots[WEFT_SWAP_RET_MAX];
};

struct weft_swap_info {
	/* constant after weft_swap_init() */
	struct weft_mm *mm;
	unsigned nr_slots;
	unsigned ret_batch;            /* 0: free_swap_slot() frees directly */
	unsigned free_mode;            /* enum weft_swap_free_mode */

	spinlock_t lock;               /* si->lock: allocation, inuse_pages */
	uint32_t inuse_pages;          /* si->lock */
	uint32_t lifo_hint;            /* 1 + slot freed last, 0: none; si->lock */
	uint8_t swap_map[WEFT_SWAP_MAX_SLOTS];  /* writes under the cluster lock */
	struct weft_swap_cluster ci[WEFT_SWAP_MAX_CLUSTERS];
	uint32_t data[WEFT_SWAP_MAX_SLOTS];     /* written at pageout */

	/* The swap cache (swap_address_space()->i_pages): slot -> folio. A
	 * large folio fills every slot of its range. */
	spinlock_t cache_lock;
	struct weft_page *cache[WEFT_SWAP_MAX_SLOTS];

	/* folio_mapcount() of each folio head (rmap): present PTEs mapping
	 * any page of the folio. Changed under ptl. */
	atomic_t mapcount[WEFT_MM_NR_PAGES];

	WEFT_PER_CPU(struct weft_swap_slots_ret, ret);

	unsigned long stat[WEFT_MAX_THREADS][WEFT_SWAP_NR_STATS];
};

extern const char *const weft_swap_stat_names[WEFT_SWAP_NR_STATS];

/* Setup (main context). */
void weft_swap_init(struct weft_swap_info *si, struct weft_mm *mm, unsigned nr_slots,
		    unsigned ret_batch, enum weft_swap_free_mode mode);

/* ------------------------------------------------------------ swap map */

/* folio_alloc_swap(): 2^order naturally aligned slots in one cluster, each
 * set to SWAP_HAS_CACHE. Returns the first offset, or < 0 if none. */
int weft_swap_alloc(struct weft_swap_info *si, unsigned order);
/* swap_duplicate(): one more PTE reference. 0, or < 0 (free slot, max). */
int weft_swap_duplicate(struct weft_swap_info *si, unsigned off);
/* swapcache_prepare(): pin a slot with HAS_CACHE: 0, -EEXIST (already
 * pinned) or -ENOENT (no count: freed). */
int weft_swapcache_prepare(struct weft_swap_info *si, unsigned off);
/* swap_free(): drop one PTE reference (__swap_entry_free()); returns the
 * new byte. */
unsigned weft_swap_free(struct weft_swap_info *si, unsigned off);
/* put_swap_folio(): drop the swap cache's HAS_CACHE on nr slots. */
void weft_put_swap_folio(struct weft_swap_info *si, unsigned off, unsigned nr);
/* free_swap_and_cache_nr(): a zapped batch of nr swap PTEs (ptl held). */
void weft_free_swap_and_cache_nr(struct weft_swap_info *si, unsigned off, unsigned nr);
/* __try_to_reclaim_swap(): > 0 pages freed, < 0 -(folio pages) found but
 * kept, 0 no folio. */
int __weft_try_to_reclaim_swap(struct weft_swap_info *si, unsigned off, unsigned flags);
/* Return this CPU's batch of freed slots to the allocator. */
void weft_swap_slots_drain(struct weft_swap_info *si);

/* ---------------------------------------------------------- swap cache */

/* swap_cache_get_folio(): the folio caching slot off, with a reference. */
struct weft_page *weft_swap_cache_get_folio(struct weft_swap_info *si, unsigned off);

/* --------------------------------------------------------------- folios */

/* The folio (head page) of a page the caller pins (mapped or referenced). */
struct weft_page *weft_page_folio(struct weft_mm *mm, struct weft_page *p);
unsigned weft_folio_nr_pages(struct weft_page *folio);

/* ----------------------------------------------- mm operations (ops) */
/*
 * Each is what a kernel path does to one process (pt) and the device; each
 * validates the state it finds and returns 0 when it acted, < 0 (nothing
 * done, all state consistent) otherwise. addr is a PTE index.
 */
/* do_anonymous_page() with an mTHP of 2^order pages at the aligned range
 * around addr, if the whole range is none. */
int weft_mm_fault_anon(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr,
		       unsigned order);
/* shrink_folio_list() up to pageout for the folio mapped at addr:
 * add_to_swap() unless already in the swap cache, try_to_unmap() (swap
 * PTEs, swap_duplicate()), pageout. The folio stays in the swap cache. */
int weft_mm_swap_out(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr);
/* A swap-out workload op at addr: weft_mm_fault_anon() of order first where
 * the PTE is none, then weft_mm_swap_out(). A macro: the PTE read is the
 * caller's site. */
#define weft_mm_fault_and_swap_out(si, pt, addr, order)                              \
	do {                                                                         \
		if (weft_pte_none(weft_ptep_get(pt, addr)))                          \
			weft_mm_fault_anon(si, pt, addr, order);                      \
		weft_mm_swap_out(si, pt, addr);                                       \
	} while (0)
/* do_swap_page() for the swap PTE at addr (swap cache hit, or a read into
 * a new folio after swapcache_prepare()). */
int weft_mm_swap_in(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr);
/* split_folio() of the large swap-cache folio caching the slot of the swap
 * PTE at addr: each page becomes a folio with its own cache entry. */
int weft_mm_split(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr);
/* shrink_folio_list() -> __remove_mapping() of the unmapped swap-cache
 * folio caching the slot of the swap PTE at addr. */
int weft_mm_reclaim(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr);
/* kswapd: reclaim the first reclaimable swap-cache folio from slot start. */
int weft_mm_reclaim_scan(struct weft_swap_info *si, unsigned start);
/* zap_pte_range() over [addr, addr + len): present pages unmapped,
 * swap PTE batches freed with free_swap_and_cache_nr(). */
void weft_mm_zap(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr,
		 unsigned len);

/* ------------------------------------------------------------- oracles */

/*
 * The audits at quiescence (main context, every thread done): for every
 * slot, its count equals the swap PTEs referring to it and HAS_CACHE <=>
 * a swap-cache folio (swap-slot-leak); inuse_pages and cluster counts;
 * every allocated page owned by a PTE or the swap cache with a matching
 * count (page-leak). Reports the first problem; returns their number.
 */
unsigned weft_swap_audit(struct weft_swap_info *si, struct weft_pgtable *const *pts,
			 unsigned nr_pts);
/* Data oracle (no scheduling point): where the contents of the address a
 * PTE maps live, the page's data of a present PTE or the slot's data[] of
 * a swap PTE (any other PTE but pte_none(), which gives NULL). The caller
 * peeks it (weft_peek()). */
const uint32_t *weft_swap_pte_data(const struct weft_swap_info *si, uint32_t pte);

/* describe() helper for offsets inside si or a page table. */
bool weft_swap_describe(const struct weft_swap_info *si, const void *world, uint32_t off,
			char *buf, size_t n);
bool weft_pgtable_describe(const struct weft_pgtable *pt, unsigned proc, const void *world,
			   uint32_t off, char *buf, size_t n);
/* state_bucket() helper: a swap_map byte as 1 + (count 0/1/many | HAS_CACHE
 * << 2 | slot << 3); 0 if off is not a swap_map byte. */
uint32_t weft_swap_state_bucket(const struct weft_swap_info *si, const void *world,
				uint32_t off);
unsigned long weft_swap_stat_sum(const struct weft_swap_info *si, enum weft_swap_stat s);
/* stats() helper: the swap model's counters, as weft_mm_stats(). */
unsigned weft_swap_stats(const struct weft_swap_info *si, const char **names, uint64_t *vals,
			 unsigned max);
/* A swap model's stats callback whole: its own per-thread counters (as
 * weft_stat_rows()), then the swap model's, then the page model's of
 * si->mm (weft_mm_model_stats() with the swap rows between). */
unsigned weft_swap_model_stats(const struct weft_swap_info *si, const char *const *stat_names,
			       unsigned nr, const unsigned long *stat, unsigned nr_threads,
			       const char **names, uint64_t *vals, unsigned max);
/* p##_stats() of a swap scenario, as WEFT_MM_STATS_FN() of <weft/mm/page.h>
 * with the swap device si of p##_world (its rows between the model's and
 * the pages'). */
#define WEFT_SWAP_STATS_FN(p, P) __WEFT_MODEL_STATS_FN(p, P, weft_swap_model_stats, si)

/* describe() helper for a swap world: an offset inside si or one of the
 * page tables pts[0 .. nr_pts) (process p's are "P<p> ..."); false if it
 * is in neither (then weft_mm_describe() names the pages'). */
bool weft_swap_pgtables_describe(const struct weft_swap_info *si, const struct weft_pgtable *pts,
				 unsigned nr_pts, const void *world, uint32_t off, char *buf,
				 size_t n);
/* state_bucket() helper: weft_swap_state_bucket(), else the pages'
 * (weft_mm_state_bucket() of si->mm). */
uint32_t weft_swap_mm_state_bucket(const struct weft_swap_info *si, const void *world,
				   uint32_t off);

#ifndef WEFT_KIT_INTERNAL
/* The model's call of each operation is what reports and diagrams name
 * (WEFT_KIT_CALL_* of <weft/kernel.h>); the kit's own sources define
 * WEFT_KIT_INTERNAL and call one another directly. */
#define weft_swap_init(...) WEFT_KIT_VOID(swap_init, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap_alloc(...) WEFT_KIT_VAL(int, swap_alloc, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap_duplicate(...) WEFT_KIT_VAL(int, swap_duplicate, #__VA_ARGS__, __VA_ARGS__)
#define weft_swapcache_prepare(...) WEFT_KIT_VAL(int, swapcache_prepare, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap_free(...) WEFT_KIT_VAL(unsigned, swap_free, #__VA_ARGS__, __VA_ARGS__)
#define weft_put_swap_folio(...) WEFT_KIT_VOID(put_swap_folio, #__VA_ARGS__, __VA_ARGS__)
#define weft_free_swap_and_cache_nr(...) WEFT_KIT_VOID(free_swap_and_cache_nr, #__VA_ARGS__, __VA_ARGS__)
#define __weft_try_to_reclaim_swap(...) \
	WEFT_KIT_CALL_VAL(int, "__try_to_reclaim_swap(" #__VA_ARGS__ ")", (__weft_try_to_reclaim_swap)(__VA_ARGS__))
#define weft_swap_slots_drain(...) WEFT_KIT_VOID(swap_slots_drain, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap_cache_get_folio(...) WEFT_KIT_VAL(struct weft_page *, swap_cache_get_folio, #__VA_ARGS__, __VA_ARGS__)
#define weft_page_folio(...) WEFT_KIT_VAL(struct weft_page *, page_folio, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_nr_pages(...) WEFT_KIT_VAL(unsigned, folio_nr_pages, #__VA_ARGS__, __VA_ARGS__)
#define weft_mm_fault_anon(...) WEFT_KIT_VAL(int, mm_fault_anon, #__VA_ARGS__, __VA_ARGS__)
#define weft_mm_swap_out(...) WEFT_KIT_VAL(int, mm_swap_out, #__VA_ARGS__, __VA_ARGS__)
#define weft_mm_swap_in(...) WEFT_KIT_VAL(int, mm_swap_in, #__VA_ARGS__, __VA_ARGS__)
#define weft_mm_split(...) WEFT_KIT_VAL(int, mm_split, #__VA_ARGS__, __VA_ARGS__)
#define weft_mm_reclaim(...) WEFT_KIT_VAL(int, mm_reclaim, #__VA_ARGS__, __VA_ARGS__)
#define weft_mm_reclaim_scan(...) WEFT_KIT_VAL(int, mm_reclaim_scan, #__VA_ARGS__, __VA_ARGS__)
#define weft_mm_zap(...) WEFT_KIT_VOID(mm_zap, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap_audit(...) WEFT_KIT_VAL(unsigned, swap_audit, #__VA_ARGS__, __VA_ARGS__)
#endif

#endif
