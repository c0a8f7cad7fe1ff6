/*
 * swapcont.h - swap count continuation (mm/swapfile.c, v4.14): a swap_map
 * byte holds the low digit of a slot's count (0..map_max, SWAP_MAP_MAX
 * 0x3e) with COUNT_CONTINUED 0x80 when higher digits exist; the higher
 * digits (0..cont_max, SWAP_CONT_MAX 0x7f, each with its own
 * COUNT_CONTINUED) live in continuation pages, one byte per slot of the
 * swap_map page, on a list whose head is that swap_map page (its
 * page->lru, page_private(head) == SWP_CONTINUED once it has a list).
 * swap_count_continued() walks the list forwards to carry and backwards to
 * borrow; add_swap_count_continuation() links a new page at the tail.
 *
 * Locking (4.14-rc, after "mm/swapfile.c: use cluster lock in
 * __swap_duplicate()"): __swap_duplicate() and __swap_entry_free() hold the
 * slot's cluster lock around swap_count_continued();
 * add_swap_count_continuation() holds si->lock and its own slot's cluster
 * lock. Two slots of different clusters on one swap_map page share the
 * continuation list: with cont_lock off, a walk and an insert race on it
 * (ZOO Z7). The fix (2628bd6fc052, "mm, swap: Fix race between swap count
 * continuation operations", Oct 2017) is si->cont_lock around both.
 *
 * Model: every slot starts in use with count 1 (one owner that never
 * frees); duplicate/free add and drop references. A continuation page is
 * allocated before the locks and not zeroed ("we didn't zero the page"):
 * a digit is initialised when a walk first reaches it.
 */
#ifndef WEFT_MM_SWAPCONT_H
#define WEFT_MM_SWAPCONT_H

#include <weft/kernel.h>

#define WEFT_SWAPC_PAGE_SLOTS 8          /* slots per swap_map page */
#define WEFT_SWAPC_MAX_SLOTS 16
#define WEFT_SWAPC_MAX_PAGES (WEFT_SWAPC_MAX_SLOTS / WEFT_SWAPC_PAGE_SLOTS)
#define WEFT_SWAPC_MAX_CONT 6            /* continuation page pool */
#define WEFT_SWAPC_COUNT_CONTINUED 0x80
#define WEFT_SWAPC_HAS_CACHE 0x40
#define WEFT_SWAPC_SWP_CONTINUED 1

/* A swap_map page or a continuation page: lru first, the bytes at the same
 * offset in both, so a walk that stops on the head writes the swap_map
 * itself, as kmap_atomic(head) + offset does in the kernel. */
struct weft_swapc_page {
	struct weft_list_head lru;
	uint32_t private;
	uint8_t bytes[WEFT_SWAPC_PAGE_SLOTS];
};

struct weft_swapc {
	/* constant after init */
	unsigned nr_slots, cluster;      /* slots, slots per cluster */
	uint8_t map_max, cont_max;       /* SWAP_MAP_MAX, SWAP_CONT_MAX */
	bool cont_lock_on;               /* the fix: si->cont_lock */

	spinlock_t lock;                 /* si->lock */
	spinlock_t cont_lock;            /* si->cont_lock: the lists (fixed) */
	spinlock_t ci[WEFT_SWAPC_MAX_SLOTS];  /* cluster locks: map bytes */
	struct weft_swapc_page map[WEFT_SWAPC_MAX_PAGES];
	struct weft_swapc_page cont[WEFT_SWAPC_MAX_CONT];
	uint32_t cont_used;              /* the page allocator: atomic bits */
	unsigned long nr_continued[WEFT_MAX_THREADS];   /* walks (per thread) */
	unsigned long nr_added[WEFT_MAX_THREADS];       /* pages linked */
};

/* Setup (main context): every slot in use with count 1. */
void weft_swapc_init(struct weft_swapc *si, unsigned nr_slots, unsigned cluster,
		     uint8_t map_max, uint8_t cont_max, bool cont_lock);
/* swap_duplicate(): one more reference. 0, or < 0 if the count cannot
 * grow (no continuation page left, or the slot is not in use). */
int weft_swapc_duplicate(struct weft_swapc *si, unsigned off);
/* swap_free(): drop one reference the caller holds. */
void weft_swapc_free(struct weft_swapc *si, unsigned off);
/* The count a slot's bytes encode (no scheduling point: audits). */
unsigned long weft_swapc_peek_count(const struct weft_swapc *si, unsigned off);
/* Quiescence: every list well formed (list-corruption), every slot's count
 * == owners[off] (swap-slot-leak). Returns the number of problems. */
unsigned weft_swapc_audit(struct weft_swapc *si, const uint32_t *owners);
bool weft_swapc_describe(const struct weft_swapc *si, const void *world, uint32_t off,
			 char *buf, size_t n);
/* state_bucket() helper: a swap_map byte as (page, slot, low digit,
 * continued), a continuation digit as (page, slot, digit), the head's
 * SWP_CONTINUED; 0 for other offsets. */
uint32_t weft_swapc_state_bucket(const struct weft_swapc *si, const void *world, uint32_t off);

#ifndef WEFT_KIT_INTERNAL
/* The model's call of each operation is what reports and diagrams name
 * (WEFT_KIT_CALL_* of <weft/kernel.h>); the kit's own sources define
 * WEFT_KIT_INTERNAL and call one another directly. */
#define weft_swapc_init(...) WEFT_KIT_VOID(swapc_init, #__VA_ARGS__, __VA_ARGS__)
#define weft_swapc_duplicate(...) WEFT_KIT_VAL(int, swapc_duplicate, #__VA_ARGS__, __VA_ARGS__)
#define weft_swapc_free(...) WEFT_KIT_VOID(swapc_free, #__VA_ARGS__, __VA_ARGS__)
#define weft_swapc_peek_count(...) WEFT_KIT_VAL(unsigned long, swapc_peek_count, #__VA_ARGS__, __VA_ARGS__)
#define weft_swapc_audit(...) WEFT_KIT_VAL(unsigned, swapc_audit, #__VA_ARGS__, __VA_ARGS__)
#endif

#endif
