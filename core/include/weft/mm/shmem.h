/*
 * mm_shmem.h - the swap device as tmpfs saw it in 2011 (v3.0): the
 * swap_map byte encoding and arithmetic of that era, the global swap_lock,
 * the swap cache (swapper_space), and the slot audit with shmem owners.
 *
 * Follows mm/swapfile.c and include/linux/swap.h of v3.0: scan_swap_map()
 * via get_swap_page() (a new slot is SWAP_HAS_CACHE), __swap_duplicate()
 * (swap_shmem_alloc(), swapcache_prepare()), swap_entry_free() (swap_free(),
 * swapcache_free(), free_swap_and_cache()); the SWAP_MAP_SHMEM count of
 * H. Dickins, "swap_info: note SWAP_MAP_SHMEM" (2.6.32, 2009).
 * mm_swap.[ch] model the 2024 encoding; this file keeps the 2011 one
 * apart so neither has to bend.
 *
 * The byte of v3.0: SWAP_HAS_CACHE 0x40 | count, count in bits 0-5 and 7:
 *   0x00            free
 *   0x01 .. 0x3e    PTE references (SWAP_MAP_MAX 0x3e), 0x3f SWAP_MAP_BAD
 *   0xbf            SWAP_MAP_SHMEM: one reference, held by a shmem index
 *                   entry (0xbf & ~COUNT_CONTINUED 0x80 == 0x3f > MAX:
 *                   no further duplicate is possible)
 *   | 0x40          pinned by the swap cache (or a swapin in progress)
 * swap_entry_free() with usage 1 on a count that is neither SHMEM nor
 * above MAX does `count--` on an unsigned char: on count 0 with the cache
 * bit (0x40) that is 0x00 - 1 = 0xff, stored as 0xff | 0x40 = 0xff: a
 * byte that reads as SWAP_MAP_SHMEM | SWAP_HAS_CACHE, owned by nobody.
 * swap_shmem_alloc() on it then fails (-EINVAL: 0xbf & ~0x80 > MAX) and
 * leaves it; swapcache_free() later leaves 0xbf, which swapoff's
 * shmem_unuse() can never find an owner for (the 2011 report: "swapoff
 * was hanging ... failing to locate the owner of a 0xff entry"). The
 * model stores the wrapped byte as v3.0 did and then reports
 * swap-count-underflow at that decrement.
 *
 * Locks: swap_lock (swap_map, inuse_pages) and cache_lock (cache[]) are
 * leaves except that free-and-cache lookups take cache_lock under
 * swap_lock, as free_swap_and_cache() took swapper_space's tree_lock
 * inside swap_lock.
 */
#ifndef WEFT_MM_SHMEM_H
#define WEFT_MM_SHMEM_H

#include <weft/mm/page.h>

#define WEFT_SWAP11_MAX_SLOTS 16
#define WEFT_SWAP11_HAS_CACHE 0x40
#define WEFT_SWAP11_MAP_MAX 0x3e
#define WEFT_SWAP11_MAP_BAD 0x3f
#define WEFT_SWAP11_MAP_SHMEM 0xbf
#define WEFT_SWAP11_COUNT_CONTINUED 0x80
#define WEFT_SWAP11_COUNT(b) ((uint8_t)((b) & ~WEFT_SWAP11_HAS_CACHE))

/* returned by weft_swap11_duplicate() */
#define WEFT_SWAP11_EEXIST (-17)
#define WEFT_SWAP11_ENOENT (-2)
#define WEFT_SWAP11_EINVAL (-22)

struct weft_swap11 {
	/* constant after init */
	struct weft_mm *mm;
	unsigned nr_slots;

	spinlock_t swap_lock;          /* swap_map[], inuse_pages */
	uint32_t inuse_pages;
	uint8_t swap_map[WEFT_SWAP11_MAX_SLOTS];

	/* swapper_space: slot -> page; a cached page has PG_swapcache,
	 * page->private = slot and one reference held by the cache */
	spinlock_t cache_lock;
	struct weft_page *cache[WEFT_SWAP11_MAX_SLOTS];
};

/* Setup (main context). */
void weft_swap11_init(struct weft_swap11 *si, struct weft_mm *mm, unsigned nr_slots);

/* get_swap_page(): the lowest free slot, its byte set to SWAP_HAS_CACHE.
 * Returns the slot, or < 0 if the device is full. */
int weft_swap11_get_swap_page(struct weft_swap11 *si);
/* __swap_duplicate(): usage SWAP_HAS_CACHE is swapcache_prepare(), usage
 * SWAP_MAP_SHMEM is swap_shmem_alloc(), 1 is swap_duplicate(). Returns 0
 * or WEFT_SWAP11_E* exactly where v3.0 did (the byte is stored back in
 * every case, as v3.0 did). */
int weft_swap11_duplicate(struct weft_swap11 *si, unsigned slot, uint8_t usage);
/* swap_entry_free() under swap_lock (the caller holds it): usage 1 drops
 * a reference (SWAP_MAP_SHMEM goes to 0), usage SWAP_HAS_CACHE drops the
 * cache pin. Reports swap-count-underflow for a count-0 decrement (after
 * storing the wrapped byte) and for HAS_CACHE dropped twice. Returns the
 * new byte. */
uint8_t __weft_swap11_entry_free(struct weft_swap11 *si, unsigned slot, uint8_t usage);
/* swap_free() (usage 1) and swapcache_free() (usage SWAP_HAS_CACHE):
 * take swap_lock around __weft_swap11_entry_free(). */
uint8_t weft_swap11_entry_free(struct weft_swap11 *si, unsigned slot, uint8_t usage);

/* add_to_swap_cache(): page (locked by the caller, with a reference)
 * gets PG_swapcache, private = slot and the cache's reference. */
void weft_swap11_add_to_cache(struct weft_swap11 *si, struct weft_page *p, unsigned slot);
/* __delete_from_swap_cache() + swapcache_free(): the cache's reference
 * is left to the caller (put it, or hand it over). */
void weft_swap11_delete_from_cache(struct weft_swap11 *si, struct weft_page *p);
/* lookup_swap_cache(): the cached page with a reference, or NULL. */
struct weft_page *weft_swap11_lookup(struct weft_swap11 *si, unsigned slot);

/*
 * The slot audit at quiescence (main context): for every slot, its count
 * is SWAP_MAP_SHMEM iff exactly one shmem index entry names it (counted
 * by owners()) and 0 iff none does; SWAP_HAS_CACHE iff the swap cache
 * holds a page for it (a swapin in progress is not a quiescent state);
 * inuse_pages equals the slots in use. Reports swap-slot-leak for the
 * first slot that disagrees; returns the number of problems.
 */
unsigned weft_swap11_audit(struct weft_swap11 *si,
			   unsigned (*owners)(const void *ctx, unsigned slot), const void *ctx);

/* describe() helper: "swap slot 3 (0xff)", "swap_lock", ...; false if
 * off is not inside si. */
bool weft_swap11_describe(const struct weft_swap11 *si, const void *world, uint32_t off,
			  char *buf, size_t n);
/* state_bucket() helper: a swap_map byte as 1 + (count 0/1..MAX/SHMEM/
 * other | HAS_CACHE << 2 | slot << 3); 0 if off is not a swap_map byte. */
uint32_t weft_swap11_state_bucket(const struct weft_swap11 *si, const void *world,
				  uint32_t off);

#ifndef WEFT_KIT_INTERNAL
/* The model's call of each operation is what reports and diagrams name
 * (WEFT_KIT_CALL_* of <weft/kernel.h>); the kit's own sources define
 * WEFT_KIT_INTERNAL and call one another directly. */
#define weft_swap11_init(...) WEFT_KIT_VOID(swap11_init, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap11_get_swap_page(...) WEFT_KIT_VAL(int, swap11_get_swap_page, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap11_duplicate(...) WEFT_KIT_VAL(int, swap11_duplicate, #__VA_ARGS__, __VA_ARGS__)
#define __weft_swap11_entry_free(...) \
	WEFT_KIT_CALL_VAL(uint8_t, "__swap11_entry_free(" #__VA_ARGS__ ")", (__weft_swap11_entry_free)(__VA_ARGS__))
#define weft_swap11_entry_free(...) WEFT_KIT_VAL(uint8_t, swap11_entry_free, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap11_add_to_cache(...) WEFT_KIT_VOID(swap11_add_to_cache, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap11_delete_from_cache(...) WEFT_KIT_VOID(swap11_delete_from_cache, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap11_lookup(...) WEFT_KIT_VAL(struct weft_page *, swap11_lookup, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap11_audit(...) WEFT_KIT_VAL(unsigned, swap11_audit, #__VA_ARGS__, __VA_ARGS__)
#endif

#endif
