/*
 * <weft/linux/swap_compat.h> - the swap types and the swap cache of Linux 6.12
 * (include/linux/swap.h, swapops.h, mm/swap.h, mm/swap_state.c) for
 * functions taken from mm/swapfile.c (docs/kernel-text.md). Written by this
 * project: the kernel's field names and constants, only the fields the
 * batch-free path reads, one swap device, no THP swap (CONFIG_THP_SWAP=n:
 * SWAPFILE_CLUSTER 256, every swap-cache folio order 0).
 *
 * Out of scope, as in a kernel built without them: zswap, memcg swap
 * accounting, swap-slot discard, arch swap tags, workingset shadows (empty
 * functions, as the kernel's !CONFIG_* inlines are); swap count
 * continuations and the avail list (stubs: a call reports limit-reached).
 *
 * Include it once, in the translation unit that includes the extracted
 * text (the swap cache below is that unit's own).
 */
#ifndef WEFT_LINUX_SWAP_COMPAT_H
#define WEFT_LINUX_SWAP_COMPAT_H

#include <weft/linux/kernel_compat.h>

/* -------------------------------------------------------- swp_entry_t */
typedef struct { unsigned long val; } swp_entry_t;
#define MAX_SWAPFILES_SHIFT 5
#define MAX_SWAPFILES (1 << MAX_SWAPFILES_SHIFT)
#define SWP_TYPE_SHIFT 58
#define SWP_OFFSET_MASK ((1ul << SWP_TYPE_SHIFT) - 1)
static inline swp_entry_t swp_entry(unsigned long type, pgoff_t offset)
{
	swp_entry_t e = { (type << SWP_TYPE_SHIFT) | (offset & SWP_OFFSET_MASK) };
	return e;
}
static inline unsigned swp_type(swp_entry_t e) { return (unsigned)(e.val >> SWP_TYPE_SHIFT); }
static inline pgoff_t swp_offset(swp_entry_t e) { return e.val & SWP_OFFSET_MASK; }
static inline int non_swap_entry(swp_entry_t e) { return swp_type(e) >= MAX_SWAPFILES; }

/* ------------------------------------------------- swap map constants */
enum {
	SWP_USED = (1 << 0),
	SWP_WRITEOK = (1 << 1),
	SWP_DISCARDABLE = (1 << 2),
	SWP_DISCARDING = (1 << 3),
	SWP_SOLIDSTATE = (1 << 4),
	SWP_CONTINUED = (1 << 5),
	SWP_BLKDEV = (1 << 6),
	SWP_ACTIVATED = (1 << 7),
	SWP_FS_OPS = (1 << 8),
	SWP_AREA_DISCARD = (1 << 9),
	SWP_PAGE_DISCARD = (1 << 10),
	SWP_STABLE_WRITES = (1 << 11),
	SWP_SYNCHRONOUS_IO = (1 << 12),
	SWP_SCANNING = (1 << 14),
};
#define SWAP_HAS_CACHE 0x40
#define COUNT_CONTINUED 0x80
#define SWAP_MAP_MAX 0x3e
#define SWAP_MAP_BAD 0x3f
#define SWAP_MAP_SHMEM 0xbf
#define SWAP_CONT_MAX 0x7f
#define SWAP_NR_ORDERS 1
#define CLUSTER_FLAG_FREE 1
#define CLUSTER_FLAG_NONFULL 2
#define CLUSTER_FLAG_FRAG 4
#define CLUSTER_FLAG_FULL 8

struct swap_cluster_info {
	spinlock_t lock;
	u16 count;
	u8 flags;
	u8 order;
	struct list_head list;
};

struct block_device;
struct block_device_operations {
	void (*swap_slot_free_notify)(struct block_device *, unsigned long);
};
struct gendisk { const struct block_device_operations *fops; };
struct block_device { struct gendisk *bd_disk; };

struct percpu_ref { atomic_long_t count; bool dead; };
static inline bool percpu_ref_tryget_live(struct percpu_ref *r)
{
	if (__atomic_load_n(&r->dead, __ATOMIC_SEQ_CST))
		return false;
	atomic_long_add(1, &r->count);
	return true;
}
static inline void percpu_ref_put(struct percpu_ref *r) { atomic_long_sub(1, &r->count); }

/* include/linux/swap.h of 6.12, the fields the free path uses, in order */
struct swap_info_struct {
	struct percpu_ref users;
	unsigned long flags;
	signed short prio;
	signed char type;
	unsigned int max;
	unsigned char *swap_map;
	unsigned long *zeromap;
	struct swap_cluster_info *cluster_info;
	struct list_head free_clusters;
	struct list_head full_clusters;
	struct list_head nonfull_clusters[SWAP_NR_ORDERS];
	struct list_head frag_clusters[SWAP_NR_ORDERS];
	unsigned int frag_cluster_nr[SWAP_NR_ORDERS];
	unsigned int lowest_bit;
	unsigned int highest_bit;
	unsigned int pages;
	unsigned int inuse_pages;
	unsigned int cluster_next;
	struct block_device *bdev;
	spinlock_t lock;
	spinlock_t cont_lock;
	struct work_struct discard_work;
	struct work_struct reclaim_work;
	struct list_head discard_clusters;
};

/* ------------------------------------------------------------- folios */
enum pageflags { PG_locked, PG_writeback, PG_dirty, PG_swapcache, PG_large };
struct folio {
	unsigned long flags;
	atomic_t _refcount;
	atomic_t _mapcount;     /* present PTEs mapping it, from 0 */
	swp_entry_t swap;
	bool freed;             /* the harness's audit: put to 0 */
};
static inline long folio_nr_pages(struct folio *f) { (void)f; return 1; }
static inline unsigned folio_order(struct folio *f) { (void)f; return 0; }
static inline bool folio_test_large(struct folio *f) { (void)f; return false; }
static inline bool folio_trylock(struct folio *f) { return !test_and_set_bit_lock(PG_locked, &f->flags); }
static inline void folio_unlock(struct folio *f) { clear_bit_unlock(PG_locked, &f->flags); }
static inline bool folio_test_locked(struct folio *f) { return test_bit(PG_locked, &f->flags); }
static inline bool folio_test_swapcache(struct folio *f) { return test_bit(PG_swapcache, &f->flags); }
static inline void folio_clear_swapcache(struct folio *f) { clear_bit(PG_swapcache, &f->flags); }
static inline bool folio_test_writeback(struct folio *f) { return test_bit(PG_writeback, &f->flags); }
static inline void folio_set_dirty(struct folio *f) { set_bit(PG_dirty, &f->flags); }
static inline bool folio_mapped(struct folio *f) { return atomic_read(&f->_mapcount) > 0; }
static inline void folio_get(struct folio *f) { atomic_inc(&f->_refcount); }
static inline void folio_ref_sub(struct folio *f, int nr)
{
	int v = atomic_sub_return(nr, &f->_refcount);
	if (v < 0)
		weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, f, WEFT_SITE(WEFT_EV_NOTE, "folio_ref_sub"),
			    "folio refcount underflow: %d", v);
}
static inline void folio_put(struct folio *f)
{
	int v = atomic_sub_return(1, &f->_refcount);
	if (v < 0)
		weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, f, WEFT_SITE(WEFT_EV_NOTE, "folio_put"),
			    "folio refcount underflow: %d", v);
	else if (v == 0)
		WRITE_ONCE(f->freed, true);
}

/* --------------------------------------------------------- swap cache */
#ifndef WEFT_LINUX_SWAP_CACHE_SLOTS
#define WEFT_LINUX_SWAP_CACHE_SLOTS 64
#endif
struct xarray {
	spinlock_t xa_lock;
	struct folio *slot[WEFT_LINUX_SWAP_CACHE_SLOTS];
};
#define xa_lock_irq(xa) spin_lock(&(xa)->xa_lock)
#define xa_unlock_irq(xa) spin_unlock(&(xa)->xa_lock)
struct address_space { struct xarray i_pages; unsigned long nrpages; };

static struct address_space weft_swapper_space = {
	{ __SPIN_LOCK_UNLOCKED(xa_lock), { 0 } }, 0 };
static inline struct address_space *swap_address_space(swp_entry_t e) { (void)e; return &weft_swapper_space; }
static inline pgoff_t swap_cache_index(swp_entry_t e) { return swp_offset(e); }

/* filemap_get_folio(): the cached folio with a reference, or ERR_PTR */
static inline struct folio *filemap_get_folio(struct address_space *as, pgoff_t idx)
{
	struct folio *f = NULL;

	if (idx >= WEFT_LINUX_SWAP_CACHE_SLOTS)
		return ERR_PTR(-ENOENT);
	xa_lock_irq(&as->i_pages);
	f = as->i_pages.slot[idx];
	if (f)
		folio_get(f);
	xa_unlock_irq(&as->i_pages);
	return f ? f : ERR_PTR(-ENOENT);
}

/* mm/swap_state.c's __delete_from_swap_cache(): i_pages locked */
static inline void __delete_from_swap_cache(struct folio *folio, swp_entry_t entry, void *shadow)
{
	struct address_space *as = swap_address_space(entry);
	pgoff_t idx = swap_cache_index(entry);

	(void)shadow;
	VM_BUG_ON_FOLIO(!folio_test_locked(folio), folio);
	VM_BUG_ON_FOLIO(!folio_test_swapcache(folio), folio);
	for (long i = 0; i < folio_nr_pages(folio); i++) {
		VM_BUG_ON_PAGE(as->i_pages.slot[idx + i] != folio, folio);
		as->i_pages.slot[idx + i] = NULL;
	}
	folio->swap.val = 0;
	folio_clear_swapcache(folio);
	as->nrpages -= folio_nr_pages(folio);
}

/* add_to_swap_cache() for the harness's setup (a folio with its slot) */
static inline void weft_linux_add_to_swap_cache(struct folio *folio, swp_entry_t entry)
{
	struct address_space *as = swap_address_space(entry);

	folio->swap = entry;
	set_bit(PG_swapcache, &folio->flags);
	as->i_pages.slot[swap_cache_index(entry)] = folio;
	as->nrpages++;
	atomic_add((int)folio_nr_pages(folio), &folio->_refcount);
}

/* mm/swapfile.c's own, declared by the kernel's swap.h */
void put_swap_folio(struct folio *folio, swp_entry_t entry);
struct swap_info_struct *swp_swap_info(swp_entry_t entry);
void swapcache_free_entries(swp_entry_t *entries, int n);
/* mm/swap_slots.c's free_swap_slot() with the slot cache off (its
 * direct_free path: swap_slot_cache_enabled false) */
static inline void free_swap_slot(swp_entry_t entry) { swapcache_free_entries(&entry, 1); }
static inline void delete_from_swap_cache(struct folio *folio)
{
	swp_entry_t entry = folio->swap;
	struct address_space *as = swap_address_space(entry);

	xa_lock_irq(&as->i_pages);
	__delete_from_swap_cache(folio, entry, NULL);
	xa_unlock_irq(&as->i_pages);
	put_swap_folio(folio, entry);
	folio_ref_sub(folio, (int)folio_nr_pages(folio));
}

/* ------------------------------------------------ harness setup */
/*
 * A swap device as swapon leaves it (setup_swap_info(), setup_clusters()),
 * reduced to one cluster: nr_slots slots of map (SWAPFILE_CLUSTER, which
 * the extracted file defines; all zero: the harness sets the bytes in
 * use), the zeromap bitmap, cluster ci on the
 * full list with nr_in_use slots counted in it and in inuse_pages, usable
 * and writable. The harness still sets swap_info[0] = si (a static of the
 * extracted mm/swapfile.c).
 */
static inline void weft_linux_swap_device(struct swap_info_struct *si, unsigned char *map,
					  unsigned long *zeromap, struct swap_cluster_info *ci,
					  unsigned nr_slots, unsigned nr_in_use)
{
	si->flags = SWP_USED | SWP_WRITEOK;
	si->type = 0;
	si->max = si->pages = nr_slots;
	si->swap_map = map;
	si->zeromap = zeromap;
	si->cluster_info = ci;
	si->lowest_bit = 1;
	si->highest_bit = nr_slots - 1;
	si->inuse_pages = nr_in_use;
	spin_lock_init(&si->lock);
	spin_lock_init(&si->cont_lock);
	INIT_LIST_HEAD(&si->free_clusters);
	INIT_LIST_HEAD(&si->full_clusters);
	INIT_LIST_HEAD(&si->nonfull_clusters[0]);
	INIT_LIST_HEAD(&si->frag_clusters[0]);
	INIT_LIST_HEAD(&si->discard_clusters);
	spin_lock_init(&ci->lock);
	ci->count = (u16)nr_in_use;
	ci->flags = CLUSTER_FLAG_FULL;
	list_add_tail(&ci->list, &si->full_clusters);
}

/* ------------------------------------------- audits at quiescence */
/*
 * The mm kit's swap-slot audit (weft_swap_audit(), <weft/mm/swap.h>) for
 * the kernel's own structures, called from main() once every thread has
 * ended: for the slots [first, first + nr), a byte's count equals the PTE
 * references the harness says remain (pte_refs[i], or 0 for all when
 * NULL) and SWAP_HAS_CACHE is set exactly when the swap cache holds a
 * folio for the slot; over the whole map, inuse_pages counts the non-zero
 * bytes. Each disagreement is a swap-slot-leak report; returns how many.
 */
static inline unsigned weft_linux_swap_audit(struct swap_info_struct *si, unsigned long first,
					     unsigned nr, const unsigned char *pte_refs)
{
	struct address_space *as = &weft_swapper_space;
	unsigned problems = 0, inuse = 0;

	for (unsigned long off = 0; off < si->max; off++)
		inuse += si->swap_map[off] != 0;
	for (unsigned i = 0; i < nr; i++) {
		unsigned long off = first + i;
		unsigned char b = si->swap_map[off];
		unsigned want = pte_refs ? pte_refs[i] : 0;
		bool cached = off < WEFT_LINUX_SWAP_CACHE_SLOTS && as->i_pages.slot[off];

		if ((b & ~SWAP_HAS_CACHE) == want && !!(b & SWAP_HAS_CACHE) == cached)
			continue;
		problems++;
		weft_report(WEFT_KIND_SLOT_LEAK, &si->swap_map[off],
			    WEFT_SITE(WEFT_EV_NOTE, "weft_linux_swap_audit"),
			    "swap slot %lu leaked: map 0x%02x, %s swap-cache folio, %u PTE references",
			    off, b, cached ? "a" : "no", want);
	}
	if (si->inuse_pages != inuse) {
		problems++;
		weft_report(WEFT_KIND_SLOT_LEAK, &si->inuse_pages,
			    WEFT_SITE(WEFT_EV_NOTE, "weft_linux_swap_audit"),
			    "inuse_pages %u, but %u slots are in use", si->inuse_pages, inuse);
	}
	return problems;
}

/* Refcount conservation of a folio at quiescence: refs references are
 * still held (the swap cache's, the harness's own); a folio with none must
 * have been freed by its last folio_put(). A page-leak report otherwise. */
static inline unsigned weft_linux_folio_audit(struct folio *f, int refs)
{
	int ref = atomic_read(&f->_refcount);

	if (ref == refs && (refs > 0 || f->freed))
		return 0;
	weft_report(WEFT_KIND_PAGE_LEAK, f, WEFT_SITE(WEFT_EV_NOTE, "weft_linux_folio_audit"),
		    "folio refcount %d, expected %d%s", ref, refs,
		    refs == 0 && !f->freed ? " (never freed)" : "");
	return 1;
}

/* ------------------------------------ out of scope (CONFIG_*=n inlines) */
static inline void zswap_invalidate(swp_entry_t e) { (void)e; }
static inline void mem_cgroup_uncharge_swap(swp_entry_t e, unsigned nr) { (void)e; (void)nr; }
static inline bool mem_cgroup_swap_full(struct folio *f) { (void)f; return false; }
static inline void arch_swap_invalidate_page(int type, pgoff_t off) { (void)type; (void)off; }
static inline void clear_shadow_from_swap_cache(int type, unsigned long b, unsigned long e)
{
	(void)type; (void)b; (void)e;
}
static inline bool pm_suspended_storage(void) { return false; }
static inline void put_swap_device(struct swap_info_struct *si) { percpu_ref_put(&si->users); }
/* stubs: reaching them is out of the headers' scope */
static inline bool swap_count_continued(struct swap_info_struct *si, pgoff_t off, unsigned char c)
{
	(void)si; (void)off; (void)c;
	weft_linux_stub("swap_count_continued()");
	return false;
}
static inline void add_to_avail_list(struct swap_info_struct *si)
{
	(void)si;
	weft_linux_stub("add_to_avail_list()");
}

#endif
