/*
 * z5_tmpfs_truncate.c - ZOO Z5: tmpfs truncate vs writepage, a swap count
 * underflow that leaves an ownerless SWAP_MAP_SHMEM slot (2011).
 *
 * Source: H. Dickins, "tmpfs: fix race between truncate and writepage"
 * (2011, v3.0-rc): fsx on tmpfs with a memhog, then swapoff hung failing to
 * find the owner of a 0xff swap_map entry. shmem_writepage() published the
 * new swap entry in the inode's index (shmem_swp_set()) under info->lock,
 * dropped the lock, and only then took the index's reference on the slot
 * (swap_shmem_alloc()); shmem_truncate_range() could come in between, find
 * the entry and free it (shmem_free_swp() -> free_swap_and_cache()) while
 * the slot's count was still 0 with SWAP_HAS_CACHE. The fix takes the
 * reference before info->lock is dropped. The rest follows mm/shmem.c of
 * v3.0 (shmem_writepage(), shmem_getpage() swapin, shmem_truncate_range()),
 * mm/swapfile.c free_swap_and_cache(), mm/vmscan.c __remove_mapping() for
 * swap-cache pages; the 2011 swap_map byte and its wrap are in mm_shmem.h.
 *
 * The race (2 threads, 1 preemption):
 *   T0 shmem_writepage(index 2)            T1 shmem_truncate_range(0)
 *   get_swap_page(): slot s = 0x40
 *   spin_lock(&info->lock)
 *   add_to_swap_cache(), delete_from_page_cache()
 *   shmem_swp_set(index 2 = s)
 *   spin_unlock(&info->lock)
 *       ~~ preempted ~~                     (page cache: 0, 1 truncated,
 *                                           index 2 is gone)
 *                                           spin_lock(&info->lock)
 *                                           index 2 = s: clear it,
 *                                           free_swap_and_cache(s):
 *                                           count 0 - 1: 0x40 -> 0xff
 *   swap_shmem_alloc(s): 0xff, -EINVAL
 * The slot now reads SWAP_MAP_SHMEM | SWAP_HAS_CACHE and no index entry
 * names it; once the swap-cache page is reclaimed it is 0xbf for ever.
 *
 * Workload (per thread, up to Z5_MAX_OPS; i = arg % Z5_INDEX):
 *   write i      shmem_getpage(SGP_WRITE): extend the file to i, a new page
 *                at a hole, or swap the page in (swap-cache hit, or a read
 *                after swapcache_prepare()) and free its swap entry
 *   writepage i  reclaim of the page-cache page at i: isolate, trylock,
 *                shmem_writepage()
 *   truncate i   shmem_truncate_range() from index i: page-cache pages,
 *                then (under info->lock) the swap entries
 *   reclaim s    kswapd on the swap-cache page of slot arg % Z5_SLOTS:
 *                __remove_mapping(), swapcache_free(), free
 * Initial state: pages 0..2 at index 0..2 of a 4-page file (index 3 a
 * hole), no swap in use. Every op checks what it finds and does nothing
 * when it does not apply.
 *
 * Locks (outer to inner): page lock (lock_page(): a sleeping lock,
 * page_lock[nr]; trylock_page() only under other locks) -> info->lock ->
 * tree_lock, swap_lock -> swapper_space's cache_lock; zone_lock a leaf.
 *
 * Audits at quiescence: the slot audit of mm_shmem.h (count SHMEM iff one
 * index entry names the slot, HAS_CACHE iff a swap-cache page); every
 * index holds at most a page or a swap entry; every page-cache page
 * belongs to the inode; page count == owners (page cache + swap cache).
 */
#include <weft/mm/shmem.h>
#include <weft/scenario.h>

#define Z5_THREADS 2
#define Z5_MAX_OPS 6
#define Z5_PAGES 8
#define Z5_SLOTS 8
#define Z5_INDEX 4
#define Z5_INITIAL 3

enum { Z5_V_Z5, Z5_V_FIX, Z5_NR_VARIANTS };

enum { Z5_OP_WRITE, Z5_OP_WRITEPAGE, Z5_OP_TRUNCATE, Z5_OP_RECLAIM, Z5_NR_OPS };

#define Z5_STATS(X)                                                            \
	X(WRITE_NEW, "shmem_getpage_new")                                     \
	X(SWAPIN_HIT, "shmem_swapin_cache_hit")                               \
	X(SWAPIN_READ, "shmem_swapin_read")                                   \
	X(SWAPIN_RACED, "shmem_swapin_raced")                                 \
	X(WRITEPAGE, "shmem_writepage")                                       \
	X(WRITEPAGE_EOF, "shmem_writepage_beyond_eof")                        \
	X(WRITEPAGE_NOSWAP, "shmem_writepage_no_swap")                        \
	X(SHMEM_ALLOC_FAILED, "swap_shmem_alloc_failed")                      \
	X(TRUNC_PAGE, "truncate_page_cache_page")                             \
	X(TRUNC_SWAP, "truncate_swap_entry")                                  \
	X(FREE_CACHE_DROPPED, "free_swap_and_cache_dropped_page")             \
	X(FREE_CACHE_BUSY, "free_swap_and_cache_page_busy")                   \
	X(RECLAIM_FREED, "swapcache_page_reclaimed")                          \
	X(RECLAIM_BUSY, "swapcache_page_busy")

enum z5_stat {
#define __Z5_STAT_ENUM(e, s) Z5_STAT_##e,
	Z5_STATS(__Z5_STAT_ENUM)
#undef __Z5_STAT_ENUM
	Z5_NR_STATS
};

static const char *const z5_stat_names[Z5_NR_STATS] = {
#define __Z5_STAT_NAME(e, s) s,
	Z5_STATS(__Z5_STAT_NAME)
#undef __Z5_STAT_NAME
};

/* shmem_inode_info and its address_space */
struct z5_inode {
	spinlock_t lock;                        /* info->lock */
	uint32_t next_index;                    /* info->lock: the file's size in pages */
	uint32_t swapped;                       /* info->lock */
	uint32_t swp[Z5_INDEX];                 /* info->lock: slot + 1, 0 none */
	spinlock_t tree_lock;                   /* mapping->tree_lock */
	struct weft_page *pages[Z5_INDEX];      /* tree_lock: the page cache */
};

struct z5_world {
	unsigned variant;
	/* the decoded workload: written by setup, read-only afterwards */
	unsigned nr_ops[Z5_THREADS];
	struct weft_op ops[Z5_THREADS][Z5_MAX_OPS];
	struct weft_mm mm;
	struct weft_swap11 si;
	struct z5_inode inode;
	spinlock_t page_lock[Z5_PAGES];         /* lock_page(), by page nr */
	unsigned long stat[Z5_THREADS][Z5_NR_STATS];
};

WEFT_SCENARIO_STAT_FN(z5, Z5)

static void z5_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z5_world *W = w;

	WEFT_SCENARIO_SETUP_START(Z5, W, variant, wl, Z5_V_FIX);
	weft_mm_init(&W->mm, Z5_PAGES, false);
	weft_swap11_init(&W->si, &W->mm, Z5_SLOTS);
	WRITE_ONCE(W->inode.next_index, (uint32_t)Z5_INDEX);
	for (unsigned i = 0; i < Z5_INITIAL; i++) {
		/* the allocation's reference becomes the page cache's */
		struct weft_page *p = weft_page_alloc_at(&W->mm, i);

		WRITE_ONCE(p->mapping, &W->inode);
		WRITE_ONCE(p->private, (unsigned long)i);
		WRITE_ONCE(W->inode.pages[i], p);
	}
}

static inline spinlock_t *z5_page_lock(struct z5_world *W, struct weft_page *p)
{
	return &W->page_lock[weft_page_nr(&W->mm, p)];
}

static void z5_put_page(struct z5_world *W, struct weft_page *p)
{
	if (weft_put_page_testzero(&W->mm, p))
		weft_page_free(&W->mm, p);
}

/* A reference on the page-cache page at index i (find_get_page() under
 * tree_lock, as isolation and pagevec_lookup() give one). */
static struct weft_page *z5_find_get_page(struct z5_world *W, unsigned i)
{
	struct z5_inode *in = &W->inode;
	struct weft_page *p;

	spin_lock(&in->tree_lock);
	p = READ_ONCE(in->pages[i]);
	if (p)
		weft_get_page(&W->mm, p);
	spin_unlock(&in->tree_lock);
	return p;
}

/* free_swap_and_cache() of v3.0, called under info->lock by truncate. */
static void z5_free_swap_and_cache(struct z5_world *W, unsigned slot)
{
	struct weft_swap11 *si = &W->si;
	struct weft_page *p = NULL;

	spin_lock(&si->swap_lock);
	if (__weft_swap11_entry_free(si, slot, 1) == WEFT_SWAP11_HAS_CACHE) {
		/* only the swap cache holds it now: drop the page if we can */
		p = weft_swap11_lookup(si, slot);
		if (p && !spin_trylock(z5_page_lock(W, p))) {
			z5_stat(W, Z5_STAT_FREE_CACHE_BUSY);
			z5_put_page(W, p);
			p = NULL;
		}
	}
	spin_unlock(&si->swap_lock);
	if (!p)
		return;
	if (weft_page_test(p, swapcache) && READ_ONCE(p->private) == slot) {
		weft_swap11_delete_from_cache(si, p);
		z5_put_page(W, p);                      /* the swap cache's reference */
		z5_stat(W, Z5_STAT_FREE_CACHE_DROPPED);
	}
	spin_unlock(z5_page_lock(W, p));
	z5_put_page(W, p);
}

/* shmem_getpage() finding a swap entry at index i: v3.0's swapin. */
static void z5_swapin(struct z5_world *W, unsigned i, unsigned slot)
{
	struct z5_inode *in = &W->inode;
	struct weft_swap11 *si = &W->si;
	struct weft_page *p = weft_swap11_lookup(si, slot);

	if (p) {
		z5_stat(W, Z5_STAT_SWAPIN_HIT);
	} else {
		/* read_swap_cache_async(): pin the slot, a new page, read */
		p = weft_page_alloc(&W->mm);
		if (!p)
			return;
		if (weft_swap11_duplicate(si, slot, WEFT_SWAP11_HAS_CACHE)) {
			/* cached meanwhile (-EEXIST) or freed (-ENOENT) */
			z5_stat(W, Z5_STAT_SWAPIN_RACED);
			z5_put_page(W, p);
			return;
		}
		spin_lock(z5_page_lock(W, p));
		weft_swap11_add_to_cache(si, p, slot);
		spin_unlock(z5_page_lock(W, p));        /* the read completed */
		z5_stat(W, Z5_STAT_SWAPIN_READ);
	}
	spin_lock(z5_page_lock(W, p));
	if (!weft_page_test(p, swapcache) || READ_ONCE(p->private) != slot)
		goto raced;
	spin_lock(&in->lock);
	if (READ_ONCE(in->swp[i]) != slot + 1) {
		/* truncated (or swapped in by another thread) meanwhile */
		spin_unlock(&in->lock);
		goto raced;
	}
	/* add_to_page_cache_locked() */
	weft_get_page(&W->mm, p);
	spin_lock(&in->tree_lock);
	WRITE_ONCE(p->mapping, &W->inode);
	WRITE_ONCE(in->pages[i], p);
	spin_unlock(&in->tree_lock);
	/* shmem_swp_set(info, entry, 0) */
	WRITE_ONCE(in->swp[i], 0u);
	WRITE_ONCE(in->swapped, READ_ONCE(in->swapped) - 1);
	weft_swap11_delete_from_cache(si, p);
	WRITE_ONCE(p->private, (unsigned long)i);
	z5_put_page(W, p);                              /* the swap cache's */
	spin_unlock(&in->lock);
	weft_swap11_entry_free(si, slot, 1);            /* swap_free() */
	spin_unlock(z5_page_lock(W, p));
	z5_put_page(W, p);
	return;
raced:
	z5_stat(W, Z5_STAT_SWAPIN_RACED);
	spin_unlock(z5_page_lock(W, p));
	z5_put_page(W, p);
}

/* shmem_getpage(SGP_WRITE) at index i. */
static void z5_write(struct z5_world *W, unsigned tid, unsigned arg)
{
	unsigned i = arg % Z5_INDEX;
	struct z5_inode *in = &W->inode;
	struct weft_page *p;
	uint32_t e;

	spin_lock(&in->lock);
	if (READ_ONCE(in->next_index) <= i)
		WRITE_ONCE(in->next_index, i + 1);      /* the write extends the file */
	e = READ_ONCE(in->swp[i]);
	spin_unlock(&in->lock);
	if (e) {
		z5_swapin(W, i, e - 1);
		return;
	}
	p = weft_page_alloc(&W->mm);                    /* prealloc outside the lock */
	if (!p)
		return;
	spin_lock(&in->lock);
	if (READ_ONCE(in->swp[i]) || READ_ONCE(in->pages[i]) ||
	    READ_ONCE(in->next_index) <= i) {
		spin_unlock(&in->lock);
		z5_put_page(W, p);
		return;
	}
	weft_get_page(&W->mm, p);                       /* the page cache's */
	spin_lock(&in->tree_lock);
	WRITE_ONCE(p->mapping, &W->inode);
	WRITE_ONCE(p->private, (unsigned long)i);
	WRITE_ONCE(in->pages[i], p);
	spin_unlock(&in->tree_lock);
	spin_unlock(&in->lock);
	z5_put_page(W, p);
	z5_stat(W, Z5_STAT_WRITE_NEW);
}

/* shrink_page_list() -> pageout() -> shmem_writepage() of v3.0. */
static void z5_writepage(struct z5_world *W, unsigned tid, unsigned arg)
{
	unsigned i = arg % Z5_INDEX;
	struct z5_inode *in = &W->inode;
	struct weft_swap11 *si = &W->si;
	struct weft_page *p = z5_find_get_page(W, i);
	int slot;

	if (!p)
		return;
	if (!spin_trylock(z5_page_lock(W, p))) {        /* trylock_page() */
		z5_put_page(W, p);
		return;
	}
	if (READ_ONCE(p->mapping) != &W->inode)         /* truncated */
		goto out;
	slot = weft_swap11_get_swap_page(si);           /* 0x40 */
	if (slot < 0) {
		z5_stat(W, Z5_STAT_WRITEPAGE_NOSWAP);   /* redirty */
		goto out;
	}
	spin_lock(&in->lock);
	if (i >= READ_ONCE(in->next_index)) {
		/* truncation is in progress beyond this page: abandon */
		spin_unlock(&in->lock);
		weft_swap11_entry_free(si, (unsigned)slot, WEFT_SWAP11_HAS_CACHE);
		z5_stat(W, Z5_STAT_WRITEPAGE_EOF);
		goto out;
	}
	weft_swap11_add_to_cache(si, p, (unsigned)slot);
	/* delete_from_page_cache() */
	spin_lock(&in->tree_lock);
	WRITE_ONCE(in->pages[i], NULL);
	WRITE_ONCE(p->mapping, NULL);
	spin_unlock(&in->tree_lock);
	z5_put_page(W, p);                              /* the page cache's */
	/* shmem_swp_set(info, entry, swap.val) */
	WRITE_ONCE(in->swp[i], (uint32_t)slot + 1);
	WRITE_ONCE(in->swapped, READ_ONCE(in->swapped) + 1);
	if (W->variant == Z5_V_FIX &&
	    weft_swap11_duplicate(si, (unsigned)slot, WEFT_SWAP11_MAP_SHMEM))
		z5_stat(W, Z5_STAT_SHMEM_ALLOC_FAILED);
	spin_unlock(&in->lock);
	/* z5: the index's reference only now (swap_shmem_alloc(), its
	 * error ignored as v3.0 did) */
	if (W->variant == Z5_V_Z5 &&
	    weft_swap11_duplicate(si, (unsigned)slot, WEFT_SWAP11_MAP_SHMEM))
		z5_stat(W, Z5_STAT_SHMEM_ALLOC_FAILED);
	/* swap_writepage(): the write completes at once; the page stays in
	 * the swap cache, clean, for reclaim or a swapin to find */
	z5_stat(W, Z5_STAT_WRITEPAGE);
out:
	spin_unlock(z5_page_lock(W, p));
	z5_put_page(W, p);
}

/* shmem_truncate_range(inode, i << PAGE_SHIFT) of v3.0. */
static void z5_truncate(struct z5_world *W, unsigned tid, unsigned arg)
{
	unsigned i = arg % Z5_INDEX;
	struct z5_inode *in = &W->inode;

	/* truncate_inode_pages_range(): the page-cache pages */
	for (unsigned j = i; j < Z5_INDEX; j++) {
		struct weft_page *p = z5_find_get_page(W, j);

		if (!p)
			continue;
		spin_lock(z5_page_lock(W, p));          /* lock_page() */
		if (READ_ONCE(p->mapping) == &W->inode) {
			/* truncate_complete_page() */
			spin_lock(&in->tree_lock);
			WRITE_ONCE(in->pages[j], NULL);
			WRITE_ONCE(p->mapping, NULL);
			spin_unlock(&in->tree_lock);
			z5_put_page(W, p);              /* the page cache's */
			z5_stat(W, Z5_STAT_TRUNC_PAGE);
		}
		spin_unlock(z5_page_lock(W, p));
		z5_put_page(W, p);
	}
	/* the swap entries, under info->lock (shmem_free_swp()) */
	spin_lock(&in->lock);
	if (READ_ONCE(in->next_index) > i)
		WRITE_ONCE(in->next_index, i);
	for (unsigned j = i; j < Z5_INDEX; j++) {
		uint32_t e = READ_ONCE(in->swp[j]);

		if (!e)
			continue;
		WRITE_ONCE(in->swp[j], 0u);
		WRITE_ONCE(in->swapped, READ_ONCE(in->swapped) - 1);
		z5_stat(W, Z5_STAT_TRUNC_SWAP);
		z5_free_swap_and_cache(W, e - 1);
	}
	spin_unlock(&in->lock);
}

/* kswapd: shrink_page_list() -> __remove_mapping() of a clean swap-cache
 * page (v3.0: freeze 2 under swapper_space's tree_lock). */
static void z5_reclaim(struct z5_world *W, unsigned tid, unsigned arg)
{
	unsigned slot = arg % Z5_SLOTS;
	struct weft_swap11 *si = &W->si;
	struct weft_page *p = weft_swap11_lookup(si, slot);

	if (!p)
		return;
	if (!spin_trylock(z5_page_lock(W, p))) {
		z5_put_page(W, p);
		return;
	}
	if (!weft_page_test(p, swapcache) || READ_ONCE(p->private) != slot)
		goto busy;
	spin_lock(&si->cache_lock);
	if (!weft_page_ref_freeze(&W->mm, p, 2)) {
		spin_unlock(&si->cache_lock);
		goto busy;
	}
	/* __delete_from_swap_cache() */
	WRITE_ONCE(si->cache[slot], NULL);
	weft_page_clear(p, swapcache);
	WRITE_ONCE(p->private, 0ul);
	spin_unlock(&si->cache_lock);
	weft_swap11_entry_free(si, slot, WEFT_SWAP11_HAS_CACHE);    /* swapcache_free() */
	spin_unlock(z5_page_lock(W, p));
	weft_page_free(&W->mm, p);
	z5_stat(W, Z5_STAT_RECLAIM_FREED);
	return;
busy:
	z5_stat(W, Z5_STAT_RECLAIM_BUSY);
	spin_unlock(z5_page_lock(W, p));
	z5_put_page(W, p);
}

static void z5_thread(void *w, unsigned tid)
{
	static void (*const handler[Z5_NR_OPS])(struct z5_world *, unsigned, unsigned) = {
		[Z5_OP_WRITE] = z5_write, [Z5_OP_WRITEPAGE] = z5_writepage,
		[Z5_OP_TRUNCATE] = z5_truncate, [Z5_OP_RECLAIM] = z5_reclaim };
	struct z5_world *W = w;

	WEFT_RUN_OPS(W, tid, W->ops[tid], W->nr_ops[tid], "z5 workload op", handler, Z5_NR_OPS);
}

/* ------------------------------------------------------------- audits */

static unsigned z5_slot_owners(const void *ctx, unsigned slot)
{
	const struct z5_world *W = ctx;
	unsigned n = 0;

	for (unsigned i = 0; i < Z5_INDEX; i++)
		n += weft_peek(W->inode.swp[i]) == slot + 1;
	return n;
}

static unsigned z5_page_owners(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct z5_world *W = ctx;
	unsigned n = 0;

	(void)mm;
	for (unsigned i = 0; i < Z5_INDEX; i++)
		n += weft_peek(W->inode.pages[i]) == p;
	for (unsigned s = 0; s < W->si.nr_slots; s++)
		n += weft_peek(W->si.cache[s]) == p;
	return n;
}

static void z5_quiesce(void *w)
{
	struct z5_world *W = w;

	for (unsigned i = 0; i < Z5_INDEX; i++) {
		struct weft_page *p = weft_peek(W->inode.pages[i]);

		if ((p && weft_peek(W->inode.swp[i])) ||
		    (p && (weft_peek(p->mapping) != &W->inode || weft_peek(p->private) != i))) {
			weft_report(WEFT_KIND_ASSERT, &W->inode.pages[i],
				    WEFT_SITE(WEFT_EV_NOTE, "audit: an index holds a page or a swap entry"),
				    "index %u: page %d, swap entry %u", i,
				    p ? (int)weft_page_nr(&W->mm, p) : -1, weft_peek(W->inode.swp[i]));
			return;
		}
	}
	if (weft_swap11_audit(&W->si, z5_slot_owners, W))
		return;
	weft_mm_audit_leaks(&W->mm, z5_page_owners, W);
}

/* ------------------------------------------------- describe, buckets */

static void z5_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z5_world *W = w;
	uint32_t in = (uint32_t)offsetof(struct z5_world, inode);
	uint32_t pl = (uint32_t)offsetof(struct z5_world, page_lock);

	if (weft_swap11_describe(&W->si, w, off, buf, n))
		return;
	if (off >= in && off < in + sizeof(W->inode)) {
		uint32_t r = off - in;

		if (r < offsetof(struct z5_inode, next_index))
			snprintf(buf, n, "info->lock");
		else if (r < offsetof(struct z5_inode, swapped))
			snprintf(buf, n, "info->next_index");
		else if (r < offsetof(struct z5_inode, swp))
			snprintf(buf, n, "info->swapped");
		else if (r < offsetof(struct z5_inode, tree_lock))
			snprintf(buf, n, "shmem index %u (swap entry)",
				 (unsigned)((r - offsetof(struct z5_inode, swp)) / sizeof(uint32_t)));
		else if (r < offsetof(struct z5_inode, pages))
			snprintf(buf, n, "mapping->tree_lock");
		else
			snprintf(buf, n, "page cache index %u",
				 (unsigned)((r - offsetof(struct z5_inode, pages)) /
					    sizeof(W->inode.pages[0])));
		return;
	}
	if (off >= pl && off < pl + sizeof(W->page_lock)) {
		snprintf(buf, n, "page %u lock (PG_locked)",
			 (unsigned)((off - pl) / sizeof(W->page_lock[0])));
		return;
	}
	weft_mm_describe(&W->mm, w, off, buf, n);
}

WEFT_MM_STATS_FN(z5, Z5)

/* A swap_map byte (count class x HAS_CACHE x slot); an index's swap entry
 * (set or not x index); else the page model's bucket. */
static uint32_t z5_state_bucket(const void *w, uint32_t off)
{
	const struct z5_world *W = w;
	uint32_t sw = (uint32_t)(offsetof(struct z5_world, inode) + offsetof(struct z5_inode, swp));
	uint32_t b = weft_swap11_state_bucket(&W->si, w, off);

	if (b)
		return b;
	if (off >= sw && off < sw + sizeof(W->inode.swp)) {
		unsigned i = (off - sw) / (unsigned)sizeof(uint32_t);

		return 0x10000u | i << 1 | (weft_peek(W->inode.swp[i]) ? 1u : 0u);
	}
	return weft_mm_state_bucket(&W->mm, w, off);
}

static const char *const z5_opnames[Z5_NR_OPS] = {
	"write", "writepage", "truncate", "reclaim",
};

static const char *const z5_files[] = {
	"z5_tmpfs_truncate.c", "mm_shmem.c", "mm_page.c", NULL,
};

static const struct weft_variant z5_variants[Z5_NR_VARIANTS] = {
	{ "z5", "Z5", true,
	  "shmem_writepage() publishes the swap entry, drops info->lock, then takes the "
	  "SWAP_MAP_SHMEM reference: truncate frees the slot in between (0x40 -> 0xff)",
	  "mm/shmem.c v3.0 shmem_writepage(); H. Dickins, \"tmpfs: fix race between truncate "
	  "and writepage\" (2011)",
	  WEFT_KIND_SWAP_UNDERFLOW, 1, Z5_V_Z5 },
	{ "fix", "Z5-fix", false,
	  "swap_shmem_alloc() before spin_unlock(&info->lock)",
	  "H. Dickins, \"tmpfs: fix race between truncate and writepage\" (2011)",
	  WEFT_KIND_NONE, 0, Z5_V_FIX },
};

/*
 * The trigger (bytes encoding): T0 writepage 2, T1 truncate 0; T0 is
 * preempted right after it drops info->lock with the entry published
 * and no reference taken; T1 truncates pages 0 and 1, finds index 2
 * swapped and frees slot 0. (Writepage of page 2 rather than 0 gives a
 * random walk its chance: truncate's page-cache pass over 0 and 1 runs
 * while writepage moves page 2, instead of blocking on page 0's lock.)
 * The fixed variant gets the same workload.
 */
WEFT_SCENARIO_ONE_TRIGGER(z5, Z5_NR_VARIANTS,
	2, 0x00 | Z5_OP_WRITEPAGE, 0x02, 0x10 | Z5_OP_TRUNCATE, 0x00,
	0x1d, 0x00, 0x00,       /* decision 29: preempt T0 for T1 */
);

const struct weft_scenario weft_scn_z5_tmpfs_truncate = {
	.name = "z5-tmpfs-truncate",
	.summary = "Z5: tmpfs truncate vs writepage, a swap count underflow leaves an ownerless "
		   "SWAP_MAP_SHMEM slot (2011)",
	.source = "mm/shmem.c, mm/swapfile.c v3.0; H. Dickins, \"tmpfs: fix race between "
		  "truncate and writepage\" (2011)",
	WEFT_SCENARIO_ZOO(z5, Z5, Z5_THREADS, 1024, 1),
};
