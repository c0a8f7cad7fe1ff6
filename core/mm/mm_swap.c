/*
 * mm_swap.c - the swap model (see mm_swap.h for the sources it follows,
 * the byte encoding and the lock order).
 *
 * Length (~1,140 lines): one model, sectioned (folios, swap map, swap
 * cache, mm operations, oracles, describe/stats); the shared swap-in
 * steps and the swap count continuations already live in mm_swapin.c and
 * mm_swapcont.c.
 *
 * Model choices, each with its reason:
 *  - The swap-cache lookup takes its reference under the cache lock
 *    instead of RCU + folio_try_get(): freed struct pages are poisoned in
 *    the model (they are not in the kernel's mem_map), and with the
 *    freeze done under the same lock (as __remove_mapping() and
 *    __split_huge_page() do under xa_lock) the locked lookup is the
 *    linearizable equivalent.
 *  - Folio locks are only ever trylocked (vmscan, __try_to_reclaim_swap,
 *    and do_swap_page()'s folio_lock_or_retry() giving up), so the model
 *    has no sleeping lock.
 *  - One process, no fork or mremap: page i of a folio is only ever mapped
 *    at its home address (the address of page 0 plus i), and the slots of
 *    a folio swapped out at home address h map to addresses h + i.
 *  - Writeback is synchronous and not modelled; pageout writes the folio's
 *    version into data[] of its slots.
 *
 * Length: the swap map, clusters, swap cache and continuation pages share
 * mm_swap.h's byte encoding and lock order; apart they would each need it.
 */
#define WEFT_KIT_INTERNAL 1
#include <string.h>

#include <weft/mm/swap.h>

#define Z_ENOENT 2
#define Z_EEXIST 17
#define Z_ENOMEM 12
#define Z_EBUSY 16

const char *const weft_swap_stat_names[WEFT_SWAP_NR_STATS] = {
#define __WEFT_SWAP_STAT_NAME(e, s) s,
	WEFT_SWAP_STATS(__WEFT_SWAP_STAT_NAME)
#undef __WEFT_SWAP_STAT_NAME
};

static inline void swap_stat(struct weft_swap_info *si, enum weft_swap_stat s, unsigned n)
{
	si->stat[weft_current_tid() % WEFT_MAX_THREADS][s] += n;
}

void weft_swap_init(struct weft_swap_info *si, struct weft_mm *mm, unsigned nr_slots,
		    unsigned ret_batch, enum weft_swap_free_mode mode)
{
	if (!WEFT_CHECK_WORLD(si, "weft_swap_init()"))
		return;
	si->mm = mm;
	nr_slots -= nr_slots % WEFT_SWAP_CLUSTER;
	if (nr_slots < WEFT_SWAP_CLUSTER)
		nr_slots = WEFT_SWAP_CLUSTER;
	si->nr_slots = nr_slots < WEFT_SWAP_MAX_SLOTS ? nr_slots : WEFT_SWAP_MAX_SLOTS;
	si->ret_batch = ret_batch < WEFT_SWAP_RET_MAX ? ret_batch : WEFT_SWAP_RET_MAX;
	si->free_mode = mode;
}

/* ------------------------------------------------------------- folios */

struct weft_page *weft_page_folio(struct weft_mm *mm, struct weft_page *p)
{
	/* compound_head(): folios are naturally aligned, so the head is the
	 * nearest PG_head page below a PG_tail page. Stable while pinned. */
	if (!weft_page_test(p, tail))
		return p;
	for (struct weft_page *q = p - 1; q >= mm->pages; q--)
		if (weft_page_test(q, head))
			return q;
	return p;
}

unsigned weft_folio_nr_pages(struct weft_page *folio)
{
	return 1u << READ_ONCE(folio->order);
}

static inline bool folio_trylock(struct weft_page *folio)
{
	return !weft_page_test_set(folio, locked);
}

static inline void folio_unlock(struct weft_page *folio)
{
	weft_page_clear(folio, locked);
}

static inline unsigned folio_pfn(const struct weft_swap_info *si, const struct weft_page *f)
{
	return weft_page_nr(si->mm, f);
}

static inline bool folio_mapped(struct weft_swap_info *si, struct weft_page *folio)
{
	return atomic_read(&si->mapcount[folio_pfn(si, folio)]) > 0;
}

/* folio_put(): the last reference frees the folio (free_unref_folios()). */
static void folio_put(struct weft_swap_info *si, struct weft_page *folio)
{
	if (weft_put_page_testzero(si->mm, folio))
		weft_page_free(si->mm, folio);
}

/* ------------------------------------------------------------ swap map */

static struct weft_swap_cluster *lock_cluster(struct weft_swap_info *si, unsigned off)
{
	struct weft_swap_cluster *ci = &si->ci[off / WEFT_SWAP_CLUSTER];

	spin_lock(&ci->lock);
	return ci;
}

static void unlock_cluster(struct weft_swap_cluster *ci)
{
	spin_unlock(&ci->lock);
}

/* swap_entry_range_free() (v6.11): si->lock held; every byte must be
 * exactly SWAP_HAS_CACHE (the VM_BUG_ON of the kernel). */
static void swap_entry_range_free(struct weft_swap_info *si, unsigned off, unsigned nr)
{
	struct weft_swap_cluster *ci = lock_cluster(si, off);

	for (unsigned i = 0; i < nr; i++) {
		uint8_t *map = &si->swap_map[off + i];
		uint8_t b = READ_ONCE(*map);
		if (b == 0)
			weft_report(WEFT_KIND_SWAP_FREE_FREE, map,
				    WEFT_SITE(WEFT_EV_NOTE, "swap_entry_range_free(): slot already free"),
				    "swap slot %u freed again: it is already free", off + i);
		else if (b != WEFT_SWAP_HAS_CACHE)
			weft_report(WEFT_KIND_BUG_ON, map,
				    WEFT_SITE(WEFT_EV_NOTE, "VM_BUG_ON(*map != SWAP_HAS_CACHE)"),
				    "VM_BUG_ON(*map != SWAP_HAS_CACHE): swap slot %u is 0x%02x",
				    off + i, b);
		WRITE_ONCE(*map, 0);
	}
	uint32_t cnt = READ_ONCE(ci->count);
	if (cnt < nr)
		weft_report(WEFT_KIND_ASSERT, &ci->count,
			    WEFT_SITE(WEFT_EV_NOTE, "dec_cluster_info_page(): count >= nr"),
			    "cluster %u count %u below the %u slots freed",
			    off / WEFT_SWAP_CLUSTER, cnt, nr);
	WRITE_ONCE(ci->count, cnt - nr);
	unlock_cluster(ci);
	/* swap_range_free() */
	WRITE_ONCE(si->inuse_pages, READ_ONCE(si->inuse_pages) - nr);
	WRITE_ONCE(si->lifo_hint, off + 1);
	swap_stat(si, WEFT_SWAP_STAT_SLOTS_FREED, nr);
}

int weft_swap_alloc(struct weft_swap_info *si, unsigned order)
{
	unsigned nr = 1u << order;
	int off = -1;

	if (order > WEFT_SWAP_MAX_ORDER)
		return -Z_ENOMEM;
	spin_lock(&si->lock);
	/* scan_swap_map_slots(): a free byte turns non-zero only here, under
	 * si->lock, so what this scan sees free stays free until the write. */
	if (nr == 1) {
		uint32_t h = READ_ONCE(si->lifo_hint);
		if (h && h <= si->nr_slots && READ_ONCE(si->swap_map[h - 1]) == 0)
			off = (int)h - 1;
	}
	for (unsigned c = 0; off < 0 && c < si->nr_slots / WEFT_SWAP_CLUSTER; c++) {
		if (READ_ONCE(si->ci[c].count) + nr > WEFT_SWAP_CLUSTER)
			continue;
		for (unsigned base = c * WEFT_SWAP_CLUSTER;
		     off < 0 && base < (c + 1) * WEFT_SWAP_CLUSTER; base += nr) {
			unsigned i;
			for (i = 0; i < nr; i++)
				if (READ_ONCE(si->swap_map[base + i]))
					break;
			if (i == nr)
				off = (int)base;
		}
	}
	if (off >= 0) {
		struct weft_swap_cluster *ci = lock_cluster(si, (unsigned)off);
		for (unsigned i = 0; i < nr; i++)
			WRITE_ONCE(si->swap_map[(unsigned)off + i], WEFT_SWAP_HAS_CACHE);
		WRITE_ONCE(ci->count, READ_ONCE(ci->count) + nr);
		unlock_cluster(ci);
		WRITE_ONCE(si->inuse_pages, READ_ONCE(si->inuse_pages) + nr);
		swap_stat(si, WEFT_SWAP_STAT_ALLOC, nr);
	} else {
		swap_stat(si, WEFT_SWAP_STAT_ALLOC_FAIL, 1);
	}
	spin_unlock(&si->lock);
	return off >= 0 ? off : -Z_ENOMEM;
}

int weft_swap_duplicate(struct weft_swap_info *si, unsigned off)
{
	/* __swap_duplicate(entry, 1) */
	struct weft_swap_cluster *ci = lock_cluster(si, off);
	uint8_t b = READ_ONCE(si->swap_map[off]);
	unsigned count = WEFT_SWAP_COUNT(b), has_cache = b & WEFT_SWAP_HAS_CACHE;
	int err = 0;

	if ((!count && !has_cache) || count == WEFT_SWAP_MAP_BAD)
		err = -Z_ENOENT;
	else if (count < WEFT_SWAP_MAP_MAX)
		WRITE_ONCE(si->swap_map[off], (uint8_t)((count + 1) | has_cache));
	else
		err = -Z_ENOMEM;   /* would need a count continuation page */
	unlock_cluster(ci);
	return err;
}

int weft_swapcache_prepare(struct weft_swap_info *si, unsigned off)
{
	/* __swap_duplicate(entry, SWAP_HAS_CACHE) */
	struct weft_swap_cluster *ci = lock_cluster(si, off);
	uint8_t b = READ_ONCE(si->swap_map[off]);
	unsigned count = WEFT_SWAP_COUNT(b), has_cache = b & WEFT_SWAP_HAS_CACHE;
	int err = 0;

	if (!has_cache && count && count != WEFT_SWAP_MAP_BAD)
		WRITE_ONCE(si->swap_map[off], (uint8_t)(count | WEFT_SWAP_HAS_CACHE));
	else if (has_cache)
		err = -Z_EEXIST;
	else
		err = -Z_ENOENT;
	unlock_cluster(ci);
	return err;
}

/* __swap_entry_free_locked(): cluster lock held; usage is 1 (a PTE
 * reference) or SWAP_HAS_CACHE. A byte dropping to 0 is left as
 * SWAP_HAS_CACHE for free_swap_slot(); returns the new usage. */
static unsigned swap_entry_free_locked(struct weft_swap_info *si, unsigned off, unsigned usage)
{
	uint8_t *map = &si->swap_map[off];
	uint8_t b = READ_ONCE(*map);
	unsigned has_cache = b & WEFT_SWAP_HAS_CACHE, count = WEFT_SWAP_COUNT(b);

	if (b == 0)
		weft_report(WEFT_KIND_SWAP_FREE_FREE, map,
			    WEFT_SITE(WEFT_EV_NOTE, "__swap_entry_free(): Unused swap offset entry"),
			    "swap slot %u is free: freed again", off);
	if (usage == WEFT_SWAP_HAS_CACHE) {
		if (!has_cache)
			weft_report(WEFT_KIND_SWAP_UNDERFLOW, map,
				    WEFT_SITE(WEFT_EV_NOTE, "VM_BUG_ON(!has_cache)"),
				    "swap slot %u (0x%02x): SWAP_HAS_CACHE dropped but not set",
				    off, b);
		has_cache = 0;
	} else if (count == 0) {
		weft_report(WEFT_KIND_SWAP_UNDERFLOW, map,
			    WEFT_SITE(WEFT_EV_NOTE, "__swap_entry_free_locked(): count--"),
			    "swap slot %u (0x%02x): count decremented below zero", off, b);
	} else if (count <= WEFT_SWAP_MAP_MAX) {
		count--;
	}
	unsigned nu = count | has_cache;
	WRITE_ONCE(*map, (uint8_t)(nu ? nu : WEFT_SWAP_HAS_CACHE));
	return nu;
}

static void swapcache_free_entries(struct weft_swap_info *si, const uint32_t *slots, unsigned n)
{
	spin_lock(&si->lock);
	for (unsigned i = 0; i < n; i++)
		swap_entry_range_free(si, slots[i], 1);
	spin_unlock(&si->lock);
}

/* free_swap_slot() of mm/swap_slots.c (v6.11): the slot is SWAP_HAS_CACHE
 * (a transient pin) until its CPU's batch is flushed. */
static void free_swap_slot(struct weft_swap_info *si, unsigned off)
{
	uint32_t one = off;

	if (!si->ret_batch) {
		swapcache_free_entries(si, &one, 1);
		return;
	}
	struct weft_swap_slots_ret *r = this_cpu_ptr(si->ret);
	spin_lock(&r->free_lock);
	uint32_t n = READ_ONCE(r->n_ret);
	if (n >= si->ret_batch) {
		uint32_t batch[WEFT_SWAP_RET_MAX];
		for (uint32_t i = 0; i < n && i < WEFT_SWAP_RET_MAX; i++)
			batch[i] = READ_ONCE(r->slots[i]);
		swapcache_free_entries(si, batch, n < WEFT_SWAP_RET_MAX ? n : WEFT_SWAP_RET_MAX);
		swap_stat(si, WEFT_SWAP_STAT_RET_FLUSH, 1);
		n = 0;
	}
	WRITE_ONCE(r->slots[n], off);
	WRITE_ONCE(r->n_ret, n + 1);
	spin_unlock(&r->free_lock);
}

void weft_swap_slots_drain(struct weft_swap_info *si)
{
	struct weft_swap_slots_ret *r = this_cpu_ptr(si->ret);
	uint32_t batch[WEFT_SWAP_RET_MAX];

	if (!si->ret_batch)
		return;
	spin_lock(&r->free_lock);
	uint32_t n = READ_ONCE(r->n_ret);
	if (n > WEFT_SWAP_RET_MAX)
		n = WEFT_SWAP_RET_MAX;
	for (uint32_t i = 0; i < n; i++)
		batch[i] = READ_ONCE(r->slots[i]);
	if (n) {
		swapcache_free_entries(si, batch, n);
		WRITE_ONCE(r->n_ret, 0);
		swap_stat(si, WEFT_SWAP_STAT_RET_FLUSH, 1);
	}
	spin_unlock(&r->free_lock);
}

/* __swap_entry_free() */
unsigned weft_swap_free(struct weft_swap_info *si, unsigned off)
{
	struct weft_swap_cluster *ci = lock_cluster(si, off);
	unsigned usage = swap_entry_free_locked(si, off, 1);

	unlock_cluster(ci);
	if (!usage)
		free_swap_slot(si, off);
	return usage;
}

/* swap_is_has_cache(): cluster lock held. */
static bool swap_is_has_cache(struct weft_swap_info *si, unsigned off, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++) {
		uint8_t b = READ_ONCE(si->swap_map[off + i]);
		if (!(b & WEFT_SWAP_HAS_CACHE))
			weft_report(WEFT_KIND_BUG_ON, &si->swap_map[off + i],
				    WEFT_SITE(WEFT_EV_NOTE, "VM_BUG_ON(!(*map & SWAP_HAS_CACHE))"),
				    "VM_BUG_ON(!(*map & SWAP_HAS_CACHE)): swap slot %u is 0x%02x",
				    off + i, b);
		if (b != WEFT_SWAP_HAS_CACHE)
			return false;
	}
	return true;
}

void weft_put_swap_folio(struct weft_swap_info *si, unsigned off, unsigned nr)
{
	struct weft_swap_cluster *ci = lock_cluster(si, off);

	if (nr > 1 && swap_is_has_cache(si, off, nr)) {
		unlock_cluster(ci);
		spin_lock(&si->lock);
		swap_entry_range_free(si, off, nr);
		spin_unlock(&si->lock);
		return;
	}
	for (unsigned i = 0; i < nr; i++) {
		if (!swap_entry_free_locked(si, off + i, WEFT_SWAP_HAS_CACHE)) {
			unlock_cluster(ci);
			free_swap_slot(si, off + i);
			if (i == nr - 1)
				return;
			ci = lock_cluster(si, off);
		}
	}
	unlock_cluster(ci);
}

/*
 * swap_is_last_map() of the patch under review. v2 (the posted patch):
 * every byte's count is 1, with or without SWAP_HAS_CACHE; "cached" if any
 * had it. K. Song (8 Aug 2024): with a split folio partly reclaimed the
 * range mixes 0x01 and 0x41, the check passes, every byte becomes
 * SWAP_HAS_CACHE and the former 0x01 slots have no folio to reclaim them.
 * v3 (B. Song's reply, merged for 6.12): every byte equals the first.
 */
static bool swap_is_last_map(struct weft_swap_info *si, unsigned off, unsigned nr,
			     bool *has_cache)
{
	if (si->free_mode == WEFT_SWAP_FREE_BATCH_V2) {
		bool cached = false;
		for (unsigned i = 0; i < nr; i++) {
			uint8_t b = READ_ONCE(si->swap_map[off + i]);
			if (WEFT_SWAP_COUNT(b) != 1)
				return false;
			if (b & WEFT_SWAP_HAS_CACHE)
				cached = true;
		}
		*has_cache = cached;
		return true;
	}
	uint8_t first = READ_ONCE(si->swap_map[off]);
	if (WEFT_SWAP_COUNT(first) != 1)
		return false;
	for (unsigned i = 1; i < nr; i++)
		if (READ_ONCE(si->swap_map[off + i]) != first)
			return false;
	*has_cache = (first & WEFT_SWAP_HAS_CACHE) != 0;
	return true;
}

/* __swap_entries_free(): true if some slot was left SWAP_HAS_CACHE only. */
static bool swap_entries_free(struct weft_swap_info *si, unsigned off, unsigned nr)
{
	bool has_cache = false;

	if (si->free_mode == WEFT_SWAP_FREE_PER_ENTRY)
		goto per_entry;
	/* the unlocked peek (data_race()) and the one-cluster condition */
	if (nr <= 1 || WEFT_SWAP_COUNT(READ_ONCE(si->swap_map[off])) != 1)
		goto fallback;
	if (nr > WEFT_SWAP_CLUSTER - off % WEFT_SWAP_CLUSTER)
		goto fallback;

	struct weft_swap_cluster *ci = lock_cluster(si, off);
	if (!swap_is_last_map(si, off, nr, &has_cache)) {
		unlock_cluster(ci);
		goto fallback;
	}
	for (unsigned i = 0; i < nr; i++)
		WRITE_ONCE(si->swap_map[off + i], WEFT_SWAP_HAS_CACHE);
	unlock_cluster(ci);
	swap_stat(si, WEFT_SWAP_STAT_BATCH_FAST, 1);
	if (!has_cache) {
		spin_lock(&si->lock);
		swap_entry_range_free(si, off, nr);
		spin_unlock(&si->lock);
	} else {
		swap_stat(si, WEFT_SWAP_STAT_BATCH_FAST_CACHED, 1);
	}
	return has_cache;

fallback:
	swap_stat(si, WEFT_SWAP_STAT_BATCH_FALLBACK, 1);
per_entry:
	for (unsigned i = 0; i < nr; i++) {
		uint8_t *map = &si->swap_map[off + i];
		if (READ_ONCE(*map)) {
			swap_stat(si, WEFT_SWAP_STAT_ENTRY_FREE, 1);
			if (weft_swap_free(si, off + i) == WEFT_SWAP_HAS_CACHE)
				has_cache = true;
		} else {
			/* the WARN_ON_ONCE of the loop: a swap PTE whose slot
			 * is already free */
			weft_report(WEFT_KIND_SWAP_FREE_FREE, map,
				    WEFT_SITE(WEFT_EV_NOTE, "free_swap_and_cache_nr(): WARN_ON_ONCE(!swap_map)"),
				    "zapped swap PTE refers to swap slot %u, which is free", off + i);
		}
	}
	return has_cache;
}

void weft_free_swap_and_cache_nr(struct weft_swap_info *si, unsigned off, unsigned nr)
{
	unsigned end = off + nr;

	if (end > si->nr_slots) {
		weft_report(WEFT_KIND_WARN_ON, NULL,
			    WEFT_SITE(WEFT_EV_NOTE, "WARN_ON(end_offset > si->max)"),
			    "free_swap_and_cache_nr(%u, %u) beyond the device", off, nr);
		return;
	}
	if (!swap_entries_free(si, off, nr))
		return;
	/* Reclaim the swap cache of slots left SWAP_HAS_CACHE only, one folio
	 * at a time: advance to the folio's natural boundary. */
	for (unsigned o = off; o < end; o += nr) {
		nr = 1;
		if (READ_ONCE(si->swap_map[o]) == WEFT_SWAP_HAS_CACHE) {
			int r = __weft_try_to_reclaim_swap(si, o,
							   WEFT_TTRS_UNMAPPED);
			unsigned n = r == 0 ? 1u : r < 0 ? (unsigned)-r : (unsigned)r;
			nr = ((o + 1 + n - 1) / n) * n - o;
		}
	}
}

/* ---------------------------------------------------------- swap cache */

struct weft_page *weft_swap_cache_get_folio(struct weft_swap_info *si, unsigned off)
{
	struct weft_page *folio;

	spin_lock(&si->cache_lock);
	folio = READ_ONCE(si->cache[off]);
	/* never fails: a cached folio is frozen only under cache_lock */
	if (folio && !weft_get_page_unless_zero(si->mm, folio))
		folio = NULL;
	spin_unlock(&si->cache_lock);
	return folio;
}

/* add_to_swap_cache(): folio locked, slots pinned with HAS_CACHE by us. */
static void add_to_swap_cache(struct weft_swap_info *si, struct weft_page *folio, unsigned off,
			      unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		weft_get_page(si->mm, folio);   /* folio_ref_add(folio, nr) */
	weft_page_set(folio, swapcache);
	WRITE_ONCE(folio->private, off);
	spin_lock(&si->cache_lock);
	for (unsigned i = 0; i < nr; i++) {
		if (READ_ONCE(si->cache[off + i]))
			weft_report(WEFT_KIND_ASSERT, &si->cache[off + i],
				    WEFT_SITE(WEFT_EV_NOTE, "add_to_swap_cache(): slot has no folio"),
				    "swap cache slot %u already holds a folio while we own HAS_CACHE",
				    off + i);
		WRITE_ONCE(si->cache[off + i], folio);
	}
	spin_unlock(&si->cache_lock);
}

/* __delete_from_swap_cache(): cache_lock held. */
static void __delete_from_swap_cache(struct weft_swap_info *si, struct weft_page *folio,
				     unsigned off, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		WRITE_ONCE(si->cache[off + i], NULL);
	WRITE_ONCE(folio->private, 0);
	weft_page_clear(folio, swapcache);
}

int __weft_try_to_reclaim_swap(struct weft_swap_info *si, unsigned off, unsigned flags)
{
	struct weft_page *folio = weft_swap_cache_get_folio(si, off);
	int ret;

	if (!folio)
		return 0;
	swap_stat(si, WEFT_SWAP_STAT_TRY_RECLAIM, 1);
	/* off may be in the middle of a large folio; with our reference the
	 * folio cannot be split, so these stay valid. */
	unsigned entry = (unsigned)READ_ONCE(folio->private);
	unsigned nr = weft_folio_nr_pages(folio);
	ret = -(int)nr;
	if (!folio_trylock(folio))
		goto out;
	bool need = (flags & WEFT_TTRS_ANYWAY) ||
		    ((flags & WEFT_TTRS_UNMAPPED) && !folio_mapped(si, folio));
	/* folio_swapcache_freeable() */
	if (!need || !weft_page_test(folio, swapcache))
		goto out_unlock;
	struct weft_swap_cluster *ci = lock_cluster(si, entry);
	need = swap_is_has_cache(si, entry, nr);
	unlock_cluster(ci);
	if (!need)
		goto out_unlock;
	/* delete_from_swap_cache() */
	spin_lock(&si->cache_lock);
	__delete_from_swap_cache(si, folio, entry, nr);
	spin_unlock(&si->cache_lock);
	weft_put_swap_folio(si, entry, nr);
	for (unsigned i = 0; i < nr; i++)
		weft_put_page_nofree(si->mm, folio);   /* folio_ref_sub(folio, nr) */
	ret = (int)nr;
	swap_stat(si, WEFT_SWAP_STAT_TRY_RECLAIM_OK, 1);
out_unlock:
	folio_unlock(folio);
out:
	folio_put(si, folio);
	return ret;
}

/* ------------------------------------------------------- mm operations */

int weft_mm_fault_anon(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr,
		       unsigned order)
{
	struct weft_mm *mm = si->mm;
	unsigned nr, base;

	if (addr >= pt->nr)
		return -Z_ENOENT;
	if (order > WEFT_SWAP_MAX_ORDER)
		order = WEFT_SWAP_MAX_ORDER;
	/* alloc_anon_folio(): the largest order whose aligned range fits */
	for (;; order--) {
		nr = 1u << order;
		base = addr & ~(nr - 1);
		if (base + nr <= pt->nr || !order)
			break;
	}
	if (!weft_pte_none(weft_ptep_get(pt, addr)))
		return -Z_EEXIST;
	struct weft_page *folio = order ? weft_folio_alloc(mm, order) : weft_page_alloc(mm);
	if (!folio)
		return -Z_ENOMEM;
	unsigned pfn = weft_page_nr(mm, folio);
	WRITE_ONCE(folio->data, READ_ONCE(folio->version));
	spin_lock(&pt->ptl);
	for (unsigned i = 0; i < nr; i++) {
		if (!weft_pte_none(weft_ptep_get(pt, base + i))) {
			spin_unlock(&pt->ptl);
			folio_put(si, folio);
			return -Z_EEXIST;
		}
	}
	/* one reference and one mapcount per PTE: folio_ref_add(nr - 1) */
	weft_set_page_count(mm, folio, (int)nr);
	atomic_add(nr, &si->mapcount[pfn]);
	for (unsigned i = 0; i < nr; i++)
		weft_set_pte(pt, base + i, weft_mk_pte(pfn + i));
	spin_unlock(&pt->ptl);
	return 0;
}

int weft_mm_swap_out(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr)
{
	struct weft_mm *mm = si->mm;
	int ret = -Z_EBUSY;

	if (addr >= pt->nr)
		return -Z_ENOENT;
	/* folio_isolate_lru(): a reference taken while the mapping pins it */
	spin_lock(&pt->ptl);
	uint32_t pte = weft_ptep_get(pt, addr);
	if (!weft_pte_present(pte)) {
		spin_unlock(&pt->ptl);
		return -Z_ENOENT;
	}
	struct weft_page *page = &mm->pages[weft_pte_pfn(pte)];
	struct weft_page *folio = weft_page_folio(mm, page);
	weft_get_page(mm, folio);
	spin_unlock(&pt->ptl);

	unsigned pfn = weft_page_nr(mm, folio);
	unsigned nr = weft_folio_nr_pages(folio);
	unsigned home = addr - (unsigned)(page - folio);
	if (!folio_trylock(folio))
		goto out_put;
	if (!weft_page_test(folio, swapcache)) {
		/* add_to_swap(): folio_alloc_swap() + add_to_swap_cache() */
		unsigned order = (unsigned)__builtin_ctz(nr);
		int off = weft_swap_alloc(si, order);
		if (off < 0) {
			ret = off;
			goto out_unlock;
		}
		add_to_swap_cache(si, folio, (unsigned)off, nr);
	}
	unsigned entry = (unsigned)READ_ONCE(folio->private);

	/* try_to_unmap(): each PTE mapping a page of the folio becomes a swap
	 * PTE holding one swap count (try_to_unmap_one()). */
	spin_lock(&pt->ptl);
	for (unsigned i = 0; i < nr && home + i < pt->nr; i++) {
		if (weft_ptep_get(pt, home + i) != weft_mk_pte(pfn + i))
			continue;
		if (weft_swap_duplicate(si, entry + i) < 0)
			break;
		weft_set_pte(pt, home + i, weft_swp_entry_to_pte(entry + i));
		atomic_dec(&si->mapcount[pfn]);
		weft_put_page_nofree(mm, folio);   /* folio_put() of the mapping */
	}
	spin_unlock(&pt->ptl);
	/* pageout() */
	uint32_t v = READ_ONCE(folio->data);
	for (unsigned i = 0; i < nr; i++)
		WRITE_ONCE(si->data[entry + i], v);
	swap_stat(si, WEFT_SWAP_STAT_SWAPOUT, 1);
	ret = 0;
out_unlock:
	folio_unlock(folio);
out_put:
	folio_put(si, folio);
	return ret;
}

int weft_mm_swap_in(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr)
{
	struct weft_mm *mm = si->mm;
	struct weft_page *folio = NULL;
	bool locked = false;

	if (addr >= pt->nr)
		return -Z_ENOENT;
	uint32_t orig = weft_ptep_get(pt, addr);
	if (weft_pte_none(orig))
		return weft_mm_fault_anon(si, pt, addr, 0);
	if (!weft_is_swap_pte(orig))
		return -Z_EEXIST;
	unsigned off = weft_pte_swp_offset(orig);
	for (unsigned tries = 0;; tries++) {
		folio = weft_swap_cache_get_folio(si, off);
		if (folio) {
			swap_stat(si, WEFT_SWAP_STAT_SWAPIN_HIT, 1);
			break;
		}
		/* __read_swap_cache_async() */
		struct weft_page *new = weft_page_alloc(mm);
		if (!new)
			return -Z_ENOMEM;
		int err = weft_swapcache_prepare(si, off);
		if (!err) {
			weft_page_set(new, locked);   /* __folio_set_locked() */
			add_to_swap_cache(si, new, off, 1);
			WRITE_ONCE(new->data, READ_ONCE(si->data[off]));   /* swap_read_folio() */
			folio = new;
			locked = true;
			swap_stat(si, WEFT_SWAP_STAT_SWAPIN_MISS, 1);
			break;
		}
		folio_put(si, new);
		/* -ENOENT: the entry was freed under us; -EEXIST: someone
		 * else pins it (retry, as the kernel does after a tick). */
		if (err == -Z_ENOENT || tries == 2)
			return err;
		cond_resched();
		if (!weft_pte_same(weft_ptep_get(pt, addr), orig))
			return -Z_EBUSY;
	}
	if (!locked && !folio_trylock(folio)) {
		folio_put(si, folio);   /* folio_lock_or_retry(): VM_FAULT_RETRY */
		return -Z_EBUSY;
	}
	unsigned first = (unsigned)READ_ONCE(folio->private);
	if (!weft_page_test(folio, swapcache) || off < first ||
	    off >= first + weft_folio_nr_pages(folio))
		goto out_page;
	struct weft_page *page = folio + (off - first);
	spin_lock(&pt->ptl);
	if (!weft_pte_same(weft_ptep_get(pt, addr), orig)) {
		spin_unlock(&pt->ptl);
		goto out_page;
	}
	/* our reference becomes the mapping's */
	weft_swap_free(si, off);                 /* swap_free_nr() */
	atomic_inc(&si->mapcount[weft_page_nr(mm, folio)]);
	weft_set_pte(pt, addr, weft_mk_pte(weft_page_nr(mm, page)));
	spin_unlock(&pt->ptl);
	folio_unlock(folio);
	return 0;

out_page:
	folio_unlock(folio);
	folio_put(si, folio);
	return -Z_EBUSY;
}

/* The swap-cache folio caching the slot of the swap PTE at addr, locked
 * and referenced. */
static struct weft_page *lock_cached_folio(struct weft_swap_info *si, unsigned off)
{
	struct weft_page *folio = weft_swap_cache_get_folio(si, off);

	if (!folio)
		return NULL;
	if (!folio_trylock(folio)) {
		folio_put(si, folio);
		return NULL;
	}
	if (!weft_page_test(folio, swapcache)) {
		folio_unlock(folio);
		folio_put(si, folio);
		return NULL;
	}
	return folio;
}

static int swap_pte_offset(struct weft_pgtable *pt, unsigned addr, unsigned *off)
{
	if (addr >= pt->nr)
		return -Z_ENOENT;
	uint32_t pte = weft_ptep_get(pt, addr);
	if (!weft_is_swap_pte(pte))
		return -Z_ENOENT;
	*off = weft_pte_swp_offset(pte);
	return 0;
}

int weft_mm_split(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr)
{
	struct weft_mm *mm = si->mm;
	unsigned off;
	int ret = -Z_EBUSY;

	if (swap_pte_offset(pt, addr, &off))
		return -Z_ENOENT;
	struct weft_page *folio = lock_cached_folio(si, off);
	if (!folio)
		return -Z_ENOENT;
	unsigned nr = weft_folio_nr_pages(folio);
	unsigned first = (unsigned)READ_ONCE(folio->private);
	if (nr == 1)
		goto out;
	/* split_huge_page_to_list_to_order(): the expected pins are ours and
	 * the swap cache's (an unmapped folio); freeze under the cache lock,
	 * give each page its own cache entry, unfreeze. */
	spin_lock(&si->cache_lock);
	if (!weft_page_ref_freeze(mm, folio, 1 + (int)nr)) {
		spin_unlock(&si->cache_lock);
		goto out;
	}
	for (unsigned i = 1; i < nr; i++) {
		struct weft_page *t = folio + i;
		weft_page_clear(t, tail);
		WRITE_ONCE(t->private, first + i);
		weft_page_set(t, swapcache);
		weft_set_page_count(mm, t, 1);
		WRITE_ONCE(si->cache[first + i], t);
	}
	WRITE_ONCE(folio->order, 0);
	weft_page_clear(folio, head);
	weft_page_ref_unfreeze(mm, folio, 2);
	spin_unlock(&si->cache_lock);
	swap_stat(si, WEFT_SWAP_STAT_SPLIT, 1);
	ret = 0;
out:
	folio_unlock(folio);
	folio_put(si, folio);
	return ret;
}

/* __remove_mapping() of a locked, referenced, unmapped swap-cache folio. */
static int remove_mapping(struct weft_swap_info *si, struct weft_page *folio)
{
	struct weft_mm *mm = si->mm;

	if (folio_mapped(si, folio))
		goto keep;
	unsigned nr = weft_folio_nr_pages(folio);
	unsigned first = (unsigned)READ_ONCE(folio->private);
	spin_lock(&si->cache_lock);
	if (!weft_page_ref_freeze(mm, folio, 1 + (int)nr)) {
		spin_unlock(&si->cache_lock);
		goto keep;
	}
	__delete_from_swap_cache(si, folio, first, nr);
	spin_unlock(&si->cache_lock);
	weft_put_swap_folio(si, first, nr);
	folio_unlock(folio);            /* __folio_clear_locked() */
	weft_page_free(mm, folio);      /* count frozen at 0: ours */
	swap_stat(si, WEFT_SWAP_STAT_RECLAIM, 1);
	return 0;
keep:
	folio_unlock(folio);
	folio_put(si, folio);
	return -Z_EBUSY;
}

int weft_mm_reclaim(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr)
{
	unsigned off;

	if (swap_pte_offset(pt, addr, &off))
		return -Z_ENOENT;
	struct weft_page *folio = lock_cached_folio(si, off);
	return folio ? remove_mapping(si, folio) : -Z_ENOENT;
}

int weft_mm_reclaim_scan(struct weft_swap_info *si, unsigned start)
{
	for (unsigned k = 0; k < si->nr_slots; k++) {
		unsigned s = (start + k) % si->nr_slots;
		if (!READ_ONCE(si->cache[s]))
			continue;
		struct weft_page *folio = lock_cached_folio(si, s);
		return folio ? remove_mapping(si, folio) : -Z_EBUSY;
	}
	return -Z_ENOENT;
}

void weft_mm_zap(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr,
		 unsigned len)
{
	struct weft_mm *mm = si->mm;
	unsigned end = weft_pte_range_end(pt, addr, len);

	spin_lock(&pt->ptl);
	weft_for_each_pte(pt, i, pte, addr, end) {
		if (weft_pte_present(pte)) {
			/* zap_present_ptes() */
			struct weft_page *folio =
				weft_page_folio(mm, &mm->pages[weft_pte_pfn(pte)]);
			weft_set_pte(pt, i, WEFT_PTE_NONE);
			atomic_dec(&si->mapcount[weft_page_nr(mm, folio)]);
			folio_put(si, folio);
			continue;
		}
		/* zap_nonpresent_ptes(): swap_pte_batch() then
		 * free_swap_and_cache_nr(), PTEs cleared after, ptl held */
		unsigned off = weft_pte_swp_offset(pte), nr = 1;
		while (i + nr < end &&
		       weft_ptep_get(pt, i + nr) == weft_swp_entry_to_pte(off + nr))
			nr++;
		weft_free_swap_and_cache_nr(si, off, nr);
		for (unsigned j = 0; j < nr; j++)
			weft_set_pte(pt, i + j, WEFT_PTE_NONE);
		swap_stat(si, WEFT_SWAP_STAT_ZAP_SWAP_BATCHES, 1);
		i += nr - 1;
	}
	spin_unlock(&pt->ptl);
}

/* ------------------------------------------------------------- oracles */

struct audit_ctx {
	const struct weft_swap_info *si;
	struct weft_pgtable *const *pts;
	unsigned nr_pts;
};

static unsigned peek_order(const struct weft_page *p)
{
	return weft_peek(p->order);
}

/* Owners of an allocated page: its folio's present PTEs, plus the swap
 * cache's nr references. Tail pages belong to their head. */
static unsigned page_owners(const struct weft_mm *mm, const struct weft_page *p, void *arg)
{
	const struct audit_ctx *c = arg;
	const struct weft_swap_info *si = c->si;

	if (weft_page_peek_flag(p, tail))
		return WEFT_MM_OWNERS_ANY;
	unsigned pfn = weft_page_nr(mm, p), nr = 1u << peek_order(p), owners = 0;
	for (unsigned k = 0; k < c->nr_pts; k++)
		for (unsigned i = 0; i < nr; i++)
			owners += weft_pgtable_count(c->pts[k], weft_mk_pte(pfn + i));
	if (weft_page_peek_flag(p, swapcache)) {
		unsigned long first = weft_peek(p->private);
		if (first < si->nr_slots && weft_peek(si->cache[first]) == p)
			owners += nr;
	}
	return owners;
}

const uint32_t *weft_swap_pte_data(const struct weft_swap_info *si, uint32_t pte)
{
	if (weft_pte_none(pte))
		return NULL;
	if (weft_pte_present(pte))
		return &si->mm->pages[weft_pte_pfn(pte)].data;
	return &si->data[weft_pte_swp_offset(pte)];
}

unsigned weft_swap_audit(struct weft_swap_info *si, struct weft_pgtable *const *pts,
			 unsigned nr_pts)
{
	struct weft_mm *mm = si->mm;
	unsigned problems = 0, inuse = 0;
	const struct weft_site *leak =
		WEFT_SITE(WEFT_EV_NOTE, "swap slot: count == PTE refs, HAS_CACHE <=> swap cache");
	const struct weft_site *inv = WEFT_SITE(WEFT_EV_NOTE, "swap model invariant");

	for (unsigned s = 0; s < si->nr_slots; s++) {
		uint8_t b = weft_peek(si->swap_map[s]);
		struct weft_page *f = weft_peek(si->cache[s]);
		unsigned refs = 0, count = WEFT_SWAP_COUNT(b);
		for (unsigned k = 0; k < nr_pts; k++)
			refs += weft_pgtable_count(pts[k], weft_swp_entry_to_pte(s));
		inuse += b != 0;
		if (b == 0 && (refs || f)) {
			problems++;
			weft_report(WEFT_KIND_SLOT_LEAK, &si->swap_map[s], leak,
				    "swap slot %u is free but %u swap PTEs%s refer to it", s, refs,
				    f ? " and a swap-cache folio" : "");
		} else if (b && count != refs) {
			problems++;
			weft_report(WEFT_KIND_SLOT_LEAK, &si->swap_map[s], leak,
				    "swap slot %u (0x%02x): count %u but %u swap PTEs refer to it",
				    s, b, count, refs);
		} else if ((b & WEFT_SWAP_HAS_CACHE) && !f) {
			problems++;
			weft_report(WEFT_KIND_SLOT_LEAK, &si->swap_map[s], leak,
				    "swap slot %u (0x%02x): SWAP_HAS_CACHE with no swap-cache folio "
				    "and no pin: leaked for ever (swapoff would spin)", s, b);
		} else if (b && !(b & WEFT_SWAP_HAS_CACHE) && f) {
			problems++;
			weft_report(WEFT_KIND_SLOT_LEAK, &si->swap_map[s], leak,
				    "swap slot %u (0x%02x): a swap-cache folio but no SWAP_HAS_CACHE",
				    s, b);
		} else if (f) {
			unsigned long first = weft_peek(f->private);
			if (weft_peek(f->state) != WEFT_PAGE_ALLOCATED ||
			    !weft_page_peek_flag(f, swapcache) || s < first ||
			    s >= first + (1u << peek_order(f))) {
				problems++;
				weft_report(WEFT_KIND_ASSERT, &si->cache[s], inv,
					    "swap cache slot %u holds page %u, which does not "
					    "cache it", s, weft_page_nr(mm, f));
			}
		}
	}
	uint32_t ip = weft_peek(si->inuse_pages);
	if (ip != inuse) {
		problems++;
		weft_report(WEFT_KIND_SLOT_LEAK, &si->inuse_pages, leak,
			    "inuse_pages is %u but %u slots are in use", ip, inuse);
	}
	for (unsigned c = 0; c < si->nr_slots / WEFT_SWAP_CLUSTER; c++) {
		unsigned n = 0;
		for (unsigned i = 0; i < WEFT_SWAP_CLUSTER; i++)
			n += weft_peek(si->swap_map[c * WEFT_SWAP_CLUSTER + i]) != 0;
		if (weft_peek(si->ci[c].count) != n) {
			problems++;
			weft_report(WEFT_KIND_ASSERT, &si->ci[c].count, inv,
				    "cluster %u count %u but %u slots in use", c,
				    weft_peek(si->ci[c].count), n);
		}
	}
	for (unsigned cpu = 0; cpu < WEFT_MAX_CPUS; cpu++)
		if (weft_peek(si->ret[cpu].n_ret)) {
			problems++;
			weft_report(WEFT_KIND_ASSERT, &si->ret[cpu].n_ret, inv,
				    "cpu %u still holds %u freed slots at quiescence", cpu,
				    weft_peek(si->ret[cpu].n_ret));
		}
	for (unsigned p = 0; p < mm->nr_pages; p++) {
		int mc = weft_peek(si->mapcount[p].counter);
		unsigned ptes = 0;
		if (mc && weft_peek(mm->pages[p].state) == WEFT_PAGE_ALLOCATED &&
		    !weft_page_peek_flag(&mm->pages[p], tail))
			for (unsigned k = 0; k < nr_pts; k++)
				for (unsigned i = 0; i < (1u << peek_order(&mm->pages[p])); i++)
					ptes += weft_pgtable_count(pts[k], weft_mk_pte(p + i));
		if (mc < 0 || (unsigned)mc != ptes) {
			problems++;
			weft_report(WEFT_KIND_ASSERT, &si->mapcount[p], inv,
				    "folio %u mapcount %d but %u PTEs map it", p, mc, ptes);
		}
	}
	struct audit_ctx ctx = { si, pts, nr_pts };
	problems += weft_mm_audit_leaks(mm, page_owners, &ctx);
	return problems;
}

/* ------------------------------------------------------ describe, stats */

bool weft_swap_describe(const struct weft_swap_info *si, const void *world, uint32_t off,
			char *buf, size_t n)
{
	uintptr_t base = (uintptr_t)si - (uintptr_t)world;

	if (off < base || off >= base + sizeof(*si))
		return false;
	uint32_t r = off - (uint32_t)base;
#define IN(field) (r >= offsetof(struct weft_swap_info, field) && \
		   r < offsetof(struct weft_swap_info, field) + sizeof(si->field))
#define IDX(field) ((r - offsetof(struct weft_swap_info, field)) / sizeof(si->field[0]))
	if (IN(swap_map)) {
		unsigned s = (unsigned)IDX(swap_map);
		snprintf(buf, n, "swap slot %u (0x%02x)", s, weft_peek(si->swap_map[s]));
	} else if (IN(cache)) {
		snprintf(buf, n, "swap cache slot %u", (unsigned)IDX(cache));
	} else if (IN(data)) {
		snprintf(buf, n, "swap slot %u data", (unsigned)IDX(data));
	} else if (IN(ci)) {
		unsigned c = (unsigned)IDX(ci);
		snprintf(buf, n, "cluster %u %s", c,
			 r - offsetof(struct weft_swap_info, ci) - c * sizeof(si->ci[0]) <
					 sizeof(spinlock_t) ? "lock" : "count");
	} else if (IN(mapcount)) {
		snprintf(buf, n, "folio %u mapcount", (unsigned)IDX(mapcount));
	} else if (IN(ret)) {
		snprintf(buf, n, "cpu %u swap_slots ret", (unsigned)IDX(ret));
	} else if (IN(lock)) {
		snprintf(buf, n, "si->lock");
	} else if (IN(inuse_pages)) {
		snprintf(buf, n, "si->inuse_pages (%u)", weft_peek(si->inuse_pages));
	} else if (IN(lifo_hint)) {
		snprintf(buf, n, "si->lifo_hint");
	} else if (IN(cache_lock)) {
		snprintf(buf, n, "swap cache lock");
	} else {
		snprintf(buf, n, "swap_info+0x%x", r);
	}
#undef IN
#undef IDX
	return true;
}

bool weft_pgtable_describe(const struct weft_pgtable *pt, unsigned proc, const void *world,
			   uint32_t off, char *buf, size_t n)
{
	uintptr_t base = (uintptr_t)pt - (uintptr_t)world;

	if (off < base || off >= base + sizeof(*pt))
		return false;
	uint32_t r = off - (uint32_t)base;
	if (r >= offsetof(struct weft_pgtable, pte)) {
		unsigned i = (r - (unsigned)offsetof(struct weft_pgtable, pte)) / sizeof(uint32_t);
		uint32_t v = weft_peek(pt->pte[i]);
		if (weft_pte_none(v))
			snprintf(buf, n, "P%u pte %u (none)", proc, i);
		else if (weft_pte_present(v))
			snprintf(buf, n, "P%u pte %u (page %u)", proc, i, weft_pte_pfn(v));
		else
			snprintf(buf, n, "P%u pte %u (swap slot %u)", proc, i,
				 weft_pte_swp_offset(v));
	} else if (r >= offsetof(struct weft_pgtable, ptl)) {
		snprintf(buf, n, "P%u ptl", proc);
	} else {
		snprintf(buf, n, "P%u page table", proc);
	}
	return true;
}

uint32_t weft_swap_state_bucket(const struct weft_swap_info *si, const void *world, uint32_t off)
{
	uintptr_t base = (uintptr_t)si->swap_map - (uintptr_t)world;

	if (off < base || off >= base + si->nr_slots)
		return 0;
	unsigned s = off - (unsigned)base;
	uint8_t b = weft_peek(si->swap_map[s]);
	unsigned c = WEFT_SWAP_COUNT(b);
	return 1 + ((c > 1 ? 2u : c) | ((b & WEFT_SWAP_HAS_CACHE) ? 4u : 0u) | s << 3);
}

WEFT_KIT_STAT_FNS(weft_swap, struct weft_swap_info, WEFT_SWAP_NR_STATS)

unsigned weft_swap_model_stats(const struct weft_swap_info *si, const char *const *stat_names,
			       unsigned nr, const unsigned long *stat, unsigned nr_threads,
			       const char **names, uint64_t *vals, unsigned max)
{
	unsigned k = weft_stat_rows(stat_names, nr, stat, nr_threads, names, vals, max);

	/* the swap model's rows, then the pages': weft_mm_model_stats() with
	 * the swap model's counters as its model's */
	return k + weft_mm_model_stats(si->mm, weft_swap_stat_names, WEFT_SWAP_NR_STATS,
				       &si->stat[0][0], WEFT_MAX_THREADS, names + k, vals + k,
				       max - k);
}

bool weft_swap_pgtables_describe(const struct weft_swap_info *si, const struct weft_pgtable *pts,
				 unsigned nr_pts, const void *world, uint32_t off, char *buf,
				 size_t n)
{
	if (weft_swap_describe(si, world, off, buf, n))
		return true;
	for (unsigned p = 0; p < nr_pts; p++)
		if (weft_pgtable_describe(&pts[p], p, world, off, buf, n))
			return true;
	return false;
}

uint32_t weft_swap_mm_state_bucket(const struct weft_swap_info *si, const void *world,
				   uint32_t off)
{
	uint32_t b = weft_swap_state_bucket(si, world, off);

	return b ? b : weft_mm_state_bucket(si->mm, world, off);
}
