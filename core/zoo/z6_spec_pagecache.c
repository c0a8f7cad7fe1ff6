/*
 * z6_spec_pagecache.c - ZOO Z6: speculative page-cache references, the
 * lockless pagecache (2005-2008): a lookup that takes its reference
 * without the tree lock races with the remover that frees the page.
 *
 * Sources:
 *  - N. Piggin, "[patch] mm: lockless pagecache" series (linux-mm/lkml,
 *    2005-2006), merged for 2.6.27 (Jul 2008) as "mm: speculative page
 *    references" (page_cache_get_speculative(), page_freeze_refs(),
 *    page_unfreeze_refs() in include/linux/pagemap.h), "mm: lockless
 *    pagecache" (find_get_page() under rcu_read_lock() with the
 *    `page != *pagep` recheck) and "mm: spinlock tree_lock";
 *  - mm/vmscan.c of 2.6.27, __remove_mapping(): page_freeze_refs(page, 2)
 *    under mapping->tree_lock (the page cache's reference and the
 *    isolating reclaimer's), then __remove_from_page_cache() and a direct
 *    free (shrink_page_list(): free_it -> __pagevec_free(), no put: the
 *    count is already 0); before the lockless pagecache the same check
 *    was `page_count(page) != 2` under the write-locked tree_lock, which
 *    excluded every lookup (2.6.16 remove_mapping());
 *  - mm/filemap.c of 2.6.27: find_get_page(), find_lock_page() (the
 *    `page->mapping != mapping` check after lock_page()),
 *    truncate_complete_page()/remove_from_page_cache() (mm/truncate.c).
 *
 * Variants (the lookup / the remover's claim on the page):
 *   z6a  get_page() (a plain atomic_inc, its VM_BUG_ON compiled out as in
 *        production kernels) / page_freeze_refs(): the lookup increments a
 *        frozen or freed page 0 -> 1, the recheck fails, its put drops it
 *        1 -> 0 and frees it again: double free (1 preemption).
 *   z6b  page_cache_get_speculative() (get_page_unless_zero) / the count
 *        checked == 2, then the two references dropped with a store of 0
 *        after the page left the cache: a lookup's increment between the
 *        check and the store is lost; the page is freed under its
 *        reference: use-after-free (1 preemption).
 *   fix  page_cache_get_speculative() / page_freeze_refs() (2.6.27).
 *
 * RCU. rcu_read_lock()/rcu_read_unlock() are model state (a per-thread
 * nesting under gp_lock). A page freed while any reader is inside its
 * read-side section is not given back to the allocator: it is poisoned
 * (its body is dead at once), marked gp_deferred and waits for every
 * reader that was inside at the free (gp_wait) to leave; the last of them
 * returns it to the allocator (weft_page_free(), all free-time checks).
 * So a reader that loaded a slot never sees the page reused under it:
 * what it increments is the freed page itself, and the bugs show as the
 * kernel saw them (free-time checks, a second free) instead of hiding
 * behind a reallocation. A second free of a deferred page is a double
 * free. (The kernel gets the same guarantee for the struct page from
 * mem_map being type-stable; the recheck is what catches reuse.)
 *
 * Threads T0..T2 on CPUs 0..2, ops (per thread, up to Z6_MAX_OPS; slot =
 * arg % Z6_SLOTS, page = arg % Z6_PAGES):
 *   lookup s    find_lock_page(): find_get_page() under RCU, lock_page(),
 *               page->mapping recheck; keeps the reference
 *   remove s    shrink_page_list(): take a reference under tree_lock
 *               (isolation), trylock_page(), __remove_mapping(), free
 *   truncate s  truncate_complete_page(): lock_page(), delete the slot,
 *               drop the cache's reference and its own
 *   add s       add_to_page_cache() of a new page at an empty slot s;
 *               keeps the allocation reference
 *   put p       put_page() of a held reference (p if held, else the next
 *               held page; nothing if none)
 * Initial state: slots 0..Z6_SLOTS-1 hold pages 0..Z6_SLOTS-1, count 1
 * (the page cache's reference), page->mapping set, page->private = slot.
 *
 * Locks: page lock (lock_page(): a sleeping lock, page_lock[nr]) ->
 * tree_lock -> zone_lock; gp_lock is a leaf (the grace-period machinery).
 *
 * Audits at quiescence: no page still waits for a grace period; a thread
 * holds no reference on a free page, nor one its page's count lacks
 * (lost, the page freed and reused under it): use-after-free; every slot
 * names an allocated page of this mapping at that index; page count ==
 * owners (the slot + the threads' references).
 */
#include <weft/mm/page.h>
#include <weft/scenario.h>

#define Z6_THREADS 3
#define Z6_MAX_OPS 6
#define Z6_PAGES 12
#define Z6_SLOTS 4

enum { Z6_V_Z6A, Z6_V_Z6B, Z6_V_FIX, Z6_NR_VARIANTS };

enum { Z6_OP_LOOKUP, Z6_OP_REMOVE, Z6_OP_TRUNCATE, Z6_OP_ADD, Z6_OP_PUT, Z6_NR_OPS };

#define Z6_STATS(X)                                                            \
	X(LOOKUP, "find_lock_page")                                           \
	X(LOOKUP_HIT, "find_lock_page_hit")                                   \
	X(SPEC_FAILED, "page_cache_get_speculative_failed")                   \
	X(RECHECK_FAILED, "find_get_page_recheck_failed")                     \
	X(MAPPING_CHANGED, "find_lock_page_mapping_changed")                  \
	X(REMOVE, "remove_mapping")                                           \
	X(REMOVE_FREED, "remove_mapping_freed")                               \
	X(REMOVE_BUSY, "remove_mapping_busy")                                 \
	X(TRYLOCK_FAILED, "trylock_page_failed")                              \
	X(TRUNCATE, "truncate_complete_page")                                 \
	X(ADD, "add_to_page_cache")                                           \
	X(PUT, "put_page")                                                    \
	X(RCU_DEFERRED, "rcu_deferred_frees")                                 \
	X(RCU_FLUSHED, "rcu_grace_period_frees")

enum z6_stat {
#define __Z6_STAT_ENUM(e, s) Z6_STAT_##e,
	Z6_STATS(__Z6_STAT_ENUM)
#undef __Z6_STAT_ENUM
	Z6_NR_STATS
};

static const char *const z6_stat_names[Z6_NR_STATS] = {
#define __Z6_STAT_NAME(e, s) s,
	Z6_STATS(__Z6_STAT_NAME)
#undef __Z6_STAT_NAME
};

/* struct address_space: the page tree, written under tree_lock, read
 * under RCU (slots[] is the radix tree's leaf). */
struct z6_mapping {
	spinlock_t tree_lock;
	struct weft_page *slots[Z6_SLOTS];
};

struct z6_world {
	unsigned variant;
	/* the decoded workload: written by setup, read-only afterwards */
	unsigned nr_ops[Z6_THREADS];
	struct weft_op ops[Z6_THREADS][Z6_MAX_OPS];
	struct weft_mm mm;
	struct z6_mapping mapping;
	spinlock_t page_lock[Z6_PAGES];         /* lock_page(), by page nr */
	/* RCU: all three under gp_lock */
	spinlock_t gp_lock;
	unsigned rcu_nesting[Z6_THREADS];
	uint8_t gp_deferred[Z6_PAGES];          /* freed, waiting for readers */
	uint16_t gp_wait[Z6_PAGES];             /* readers it waits for (mask) */
	/* references each thread holds, by page nr: thread-private */
	uint8_t held[Z6_THREADS][Z6_PAGES];
	unsigned long stat[Z6_THREADS][Z6_NR_STATS];
};

WEFT_SCENARIO_STAT_FN(z6, Z6)

static void z6_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z6_world *W = w;

	WEFT_SCENARIO_SETUP_START(Z6, W, variant, wl, Z6_V_FIX);
	weft_mm_init(&W->mm, Z6_PAGES, false);
	for (unsigned s = 0; s < Z6_SLOTS; s++) {
		/* the allocation's reference becomes the page cache's */
		struct weft_page *p = weft_page_alloc_at(&W->mm, s);

		WRITE_ONCE(p->mapping, &W->mapping);
		WRITE_ONCE(p->private, (unsigned long)s);
		WRITE_ONCE(W->mapping.slots[s], p);
	}
}

/* ------------------------------------------------------------------ RCU */

static void z6_rcu_read_lock(struct z6_world *W)
{
	unsigned t = weft_current_tid() % Z6_THREADS;

	spin_lock(&W->gp_lock);
	W->rcu_nesting[t]++;
	spin_unlock(&W->gp_lock);
}

/* The outermost unlock ends this reader's part of every grace period it
 * holds up; pages nobody waits for any more go back to the allocator. */
static void z6_rcu_read_unlock(struct z6_world *W)
{
	unsigned t = weft_current_tid() % Z6_THREADS;
	uint16_t done = 0;

	spin_lock(&W->gp_lock);
	if (--W->rcu_nesting[t] == 0) {
		for (unsigned i = 0; i < Z6_PAGES; i++) {
			if (!weft_peek(W->gp_deferred[i]))
				continue;
			W->gp_wait[i] &= (uint16_t)~(1u << t);
			if (!W->gp_wait[i]) {
				WRITE_ONCE(W->gp_deferred[i], 0);
				done |= (uint16_t)(1u << i);
			}
		}
	}
	spin_unlock(&W->gp_lock);
	for (unsigned i = 0; i < Z6_PAGES; i++) {
		if (!(done & (1u << i)))
			continue;
		z6_stat(W, Z6_STAT_RCU_FLUSHED);
		weft_page_free(&W->mm, &W->mm.pages[i]);
	}
}

/*
 * Free a page whose count is 0 (the last put, or the remover's direct
 * free after the freeze). With a reader inside its read-side section the
 * page waits for it (see the header); a page already waiting is freed a
 * second time.
 */
static void z6_free_page(struct z6_world *W, struct weft_page *p)
{
	unsigned nr = weft_page_nr(&W->mm, p);
	uint16_t readers = 0;

	spin_lock(&W->gp_lock);
	if (READ_ONCE(W->gp_deferred[nr])) {
		struct weft_access other = weft_last_write(&W->gp_deferred[nr]);

		spin_unlock(&W->gp_lock);
		weft_report2(WEFT_KIND_DOUBLE_FREE, &p->state,
			     WEFT_SITE(WEFT_EV_NOTE, "free_page: page already freed (awaiting its grace period)"),
			     &other, "page %u freed twice: it was freed and waits for a grace period",
			     nr);
		return;
	}
	for (unsigned t = 0; t < Z6_THREADS; t++)
		if (W->rcu_nesting[t])
			readers |= (uint16_t)(1u << t);
	if (!readers || weft_peek(p->state) != WEFT_PAGE_ALLOCATED) {
		spin_unlock(&W->gp_lock);
		/* weft_page_free() reports a free page freed again */
		weft_page_free(&W->mm, p);
		return;
	}
	int count = weft_page_peek_count(&W->mm, p);
	if (count != 0) {
		struct weft_access other = weft_last_write(&p->count);

		spin_unlock(&W->gp_lock);
		weft_report2(WEFT_KIND_BAD_FREE, &p->count,
			     WEFT_SITE(WEFT_EV_NOTE, "free_page: page_count(page) != 0"), &other,
			     "page %u freed with count %d", nr, count);
		return;
	}
	WRITE_ONCE(W->gp_deferred[nr], 1);
	W->gp_wait[nr] = readers;
	/* poisoned before gp_lock is dropped: once it is, the last reader
	 * may hand the page to the allocator and someone may reuse it */
	weft_poison((char *)p + WEFT_PAGE_POISON_OFF, WEFT_PAGE_POISON_LEN,
		    WEFT_SITE(WEFT_EV_FREE, "free_page: freed, reuse after a grace period"));
	spin_unlock(&W->gp_lock);
	z6_stat(W, Z6_STAT_RCU_DEFERRED);
}

static void z6_put_page(struct z6_world *W, struct weft_page *p)
{
	z6_stat(W, Z6_STAT_PUT);
	if (weft_put_page_testzero(&W->mm, p))
		z6_free_page(W, p);
}

/* ---------------------------------------------------------------- ops */

/*
 * find_get_page() of 2.6.27: the speculative reference and the recheck,
 * retried inside one read-side section.
 */
static struct weft_page *z6_find_get_page(struct z6_world *W, unsigned s)
{
	struct z6_mapping *m = &W->mapping;
	struct weft_page *p;

	z6_rcu_read_lock(W);
	for (;;) {
		p = READ_ONCE(m->slots[s]);
		if (!p)
			break;
		if (W->variant == Z6_V_Z6A) {
			/* get_page(): atomic_inc(&page->_count) */
			weft_get_page_nocheck(&W->mm, p);
		} else if (!weft_get_page_unless_zero(&W->mm, p)) {
			/* page_cache_get_speculative() failed: the page is
			 * frozen (a count of 0 with the slot still naming it
			 * exists only between page_freeze_refs() and the
			 * delete, under tree_lock) or freed (the slot has
			 * changed). The kernel spins; the model waits for
			 * tree_lock, so the spin cannot outrun the remover
			 * (PCT would starve it otherwise). */
			z6_stat(W, Z6_STAT_SPEC_FAILED);
			spin_lock(&m->tree_lock);
			spin_unlock(&m->tree_lock);
			continue;
		}
		/* has the page been removed (or reused) meanwhile? */
		if (READ_ONCE(m->slots[s]) == p)
			break;
		z6_stat(W, Z6_STAT_RECHECK_FAILED);
		z6_put_page(W, p);
	}
	z6_rcu_read_unlock(W);
	return p;
}

/* find_lock_page(): the page, locked and still in this mapping. */
static void z6_lookup(struct z6_world *W, unsigned tid, unsigned arg)
{
	unsigned s = arg % Z6_SLOTS;
	struct weft_page *p;

	z6_stat(W, Z6_STAT_LOOKUP);
	for (;;) {
		unsigned nr;

		p = z6_find_get_page(W, s);
		if (!p)
			return;
		nr = weft_page_nr(&W->mm, p);
		spin_lock(&W->page_lock[nr]);           /* lock_page() */
		if (READ_ONCE(p->mapping) == &W->mapping)
			break;
		/* truncated or reclaimed while we slept on the lock */
		z6_stat(W, Z6_STAT_MAPPING_CHANGED);
		spin_unlock(&W->page_lock[nr]);
		z6_put_page(W, p);
	}
	/* the caller reads the page (its index) and unlocks it; another
	 * index means the page was freed under our reference and reused */
	if (READ_ONCE(p->private) != s) {
		struct weft_access other = weft_last_write(&p->private);

		weft_report2(WEFT_KIND_USE_AFTER_FREE, &p->private,
			     WEFT_SITE(WEFT_EV_NOTE, "find_lock_page: page->index == offset"), &other,
			     "slot %u gave page %u, now of index %lu: freed and reused under the "
			     "reference", s, weft_page_nr(&W->mm, p), weft_peek(p->private));
	}
	spin_unlock(&W->page_lock[weft_page_nr(&W->mm, p)]);
	W->held[tid][weft_page_nr(&W->mm, p)]++;
	z6_stat(W, Z6_STAT_LOOKUP_HIT);
}

/* A reference on the page at slot s taken under tree_lock (the
 * isolation reference of reclaim, pagevec_lookup() of truncate). */
static struct weft_page *z6_get_locked(struct z6_world *W, unsigned s)
{
	struct z6_mapping *m = &W->mapping;
	struct weft_page *p;

	spin_lock(&m->tree_lock);
	p = READ_ONCE(m->slots[s]);
	if (p)
		weft_get_page(&W->mm, p);
	spin_unlock(&m->tree_lock);
	return p;
}

/* shrink_page_list() -> __remove_mapping() -> __pagevec_free(). */
static void z6_remove(struct z6_world *W, unsigned tid, unsigned arg)
{
	unsigned s = arg % Z6_SLOTS;
	struct z6_mapping *m = &W->mapping;
	struct weft_page *p = z6_get_locked(W, s);
	unsigned nr;

	if (!p)
		return;
	nr = weft_page_nr(&W->mm, p);
	if (!spin_trylock(&W->page_lock[nr])) {         /* trylock_page() */
		z6_stat(W, Z6_STAT_TRYLOCK_FAILED);
		z6_put_page(W, p);
		return;
	}
	if (READ_ONCE(p->mapping) != m) {
		/* truncated after we took our reference */
		spin_unlock(&W->page_lock[nr]);
		z6_put_page(W, p);
		return;
	}
	z6_stat(W, Z6_STAT_REMOVE);
	spin_lock(&m->tree_lock);
	if (W->variant == Z6_V_Z6B) {
		/* 2.6.16's check, no longer exclusive once lookups are lockless */
		if (weft_page_count(&W->mm, p) != 2)
			goto cannot_free;
	} else if (!weft_page_ref_freeze(&W->mm, p, 2)) {
		/* page_freeze_refs(page, 2): the cache's reference and ours */
		goto cannot_free;
	}
	/* __remove_from_page_cache() */
	WRITE_ONCE(m->slots[s], NULL);
	WRITE_ONCE(p->mapping, NULL);
	if (W->variant == Z6_V_Z6B)
		/* the two references counted above, dropped for the direct free */
		weft_set_page_count(&W->mm, p, 0);
	spin_unlock(&m->tree_lock);
	spin_unlock(&W->page_lock[nr]);                 /* unlock_page() */
	z6_stat(W, Z6_STAT_REMOVE_FREED);
	z6_free_page(W, p);                             /* __pagevec_free() */
	return;
cannot_free:
	spin_unlock(&m->tree_lock);
	spin_unlock(&W->page_lock[nr]);
	z6_stat(W, Z6_STAT_REMOVE_BUSY);
	z6_put_page(W, p);                              /* putback_lru_page() */
}

/* truncate_inode_pages() for one page: truncate_complete_page(). */
static void z6_truncate(struct z6_world *W, unsigned tid, unsigned arg)
{
	unsigned s = arg % Z6_SLOTS;
	struct z6_mapping *m = &W->mapping;
	struct weft_page *p = z6_get_locked(W, s);
	unsigned nr;

	if (!p)
		return;
	nr = weft_page_nr(&W->mm, p);
	spin_lock(&W->page_lock[nr]);                   /* lock_page() */
	if (READ_ONCE(p->mapping) != m) {
		spin_unlock(&W->page_lock[nr]);
		z6_put_page(W, p);
		return;
	}
	z6_stat(W, Z6_STAT_TRUNCATE);
	spin_lock(&m->tree_lock);                       /* remove_from_page_cache() */
	WRITE_ONCE(m->slots[s], NULL);
	WRITE_ONCE(p->mapping, NULL);
	spin_unlock(&m->tree_lock);
	spin_unlock(&W->page_lock[nr]);
	z6_put_page(W, p);                              /* the page cache's reference */
	z6_put_page(W, p);                              /* pagevec_release() */
}

/* add_to_page_cache() of a new page; the allocation reference is kept. */
static void z6_add(struct z6_world *W, unsigned tid, unsigned arg)
{
	unsigned s = arg % Z6_SLOTS;
	struct z6_mapping *m = &W->mapping;
	struct weft_page *p = weft_page_alloc(&W->mm);

	if (!p)
		return;
	spin_lock(&m->tree_lock);
	if (READ_ONCE(m->slots[s])) {
		spin_unlock(&m->tree_lock);
		z6_put_page(W, p);
		return;
	}
	weft_get_page(&W->mm, p);                       /* the page cache's */
	WRITE_ONCE(p->mapping, m);
	WRITE_ONCE(p->private, (unsigned long)s);
	rcu_assign_pointer(m->slots[s], p);
	spin_unlock(&m->tree_lock);
	W->held[tid][weft_page_nr(&W->mm, p)]++;
	z6_stat(W, Z6_STAT_ADD);
}

static void z6_put_held(struct z6_world *W, unsigned tid, unsigned arg)
{
	unsigned want = arg % Z6_PAGES;

	for (unsigned i = 0; i < Z6_PAGES; i++) {
		unsigned nr = (want + i) % Z6_PAGES;

		if (!W->held[tid][nr])
			continue;
		W->held[tid][nr]--;
		z6_put_page(W, &W->mm.pages[nr]);
		return;
	}
}

static void z6_thread(void *w, unsigned tid)
{
	static void (*const handler[Z6_NR_OPS])(struct z6_world *, unsigned, unsigned) = {
		[Z6_OP_LOOKUP] = z6_lookup, [Z6_OP_REMOVE] = z6_remove,
		[Z6_OP_TRUNCATE] = z6_truncate, [Z6_OP_ADD] = z6_add, [Z6_OP_PUT] = z6_put_held };
	struct z6_world *W = w;

	WEFT_RUN_OPS(W, tid, W->ops[tid], W->nr_ops[tid], "z6 workload op", handler, Z6_NR_OPS);
}

/* ------------------------------------------------------------- audits */

static unsigned z6_owners(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct z6_world *W = ctx;
	unsigned nr = weft_page_nr(mm, p), n = 0;

	for (unsigned s = 0; s < Z6_SLOTS; s++)
		n += weft_peek(W->mapping.slots[s]) == p;
	for (unsigned t = 0; t < Z6_THREADS; t++)
		n += W->held[t][nr];
	return n;
}

static void z6_quiesce(void *w)
{
	struct z6_world *W = w;

	for (unsigned i = 0; i < Z6_PAGES; i++) {
		if (weft_peek(W->gp_deferred[i])) {
			weft_report(WEFT_KIND_ASSERT, &W->gp_deferred[i],
				    WEFT_SITE(WEFT_EV_NOTE, "audit: every grace period ended"),
				    "page %u still waits for a grace period with no reader inside",
				    i);
			return;
		}
	}
	for (unsigned t = 0; t < Z6_THREADS; t++) {
		for (unsigned i = 0; i < Z6_PAGES; i++) {
			struct weft_page *p = &W->mm.pages[i];

			if (!W->held[t][i] || weft_peek(p->state) == WEFT_PAGE_ALLOCATED)
				continue;
			struct weft_access other = weft_last_write(&p->state);
			weft_report2(WEFT_KIND_USE_AFTER_FREE, &p->count,
				     WEFT_SITE(WEFT_EV_NOTE, "audit: held references are on live pages"),
				     &other, "T%u holds a reference on page %u, which was freed", t, i);
			return;
		}
	}
	for (unsigned s = 0; s < Z6_SLOTS; s++) {
		struct weft_page *p = weft_peek(W->mapping.slots[s]);

		if (!p)
			continue;
		if (weft_peek(p->state) != WEFT_PAGE_ALLOCATED ||
		    weft_peek(p->mapping) != &W->mapping || weft_peek(p->private) != s) {
			weft_report(WEFT_KIND_ASSERT, &W->mapping.slots[s],
				    WEFT_SITE(WEFT_EV_NOTE, "audit: page cache slot is consistent"),
				    "slot %u holds page %u (state %u) of another mapping or index",
				    s, weft_page_nr(&W->mm, p), weft_peek(p->state));
			return;
		}
	}
	/* a count below its holders: a reference was lost (z6b's store of
	 * 0), the page freed and reused under its holder */
	for (unsigned i = 0; i < Z6_PAGES; i++) {
		struct weft_page *p = &W->mm.pages[i];
		unsigned own;

		if (weft_peek(p->state) != WEFT_PAGE_ALLOCATED)
			continue;
		own = z6_owners(&W->mm, p, W);
		if (weft_page_peek_count(&W->mm, p) >= (int)own)
			continue;
		struct weft_access other = weft_last_write(&p->count);
		weft_report2(WEFT_KIND_USE_AFTER_FREE, &p->count,
			     WEFT_SITE(WEFT_EV_NOTE, "audit: every held reference is counted"),
			     &other, "page %u has count %d but %u references are held: one was "
			     "lost and the page freed and reused under its holder", i,
			     weft_page_peek_count(&W->mm, p), own);
		return;
	}
	weft_mm_audit_leaks(&W->mm, z6_owners, W);
}

/* ------------------------------------------------- describe, buckets */

static void z6_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z6_world *W = w;
	uint32_t sl = (uint32_t)offsetof(struct z6_world, mapping.slots);
	uint32_t tl = (uint32_t)offsetof(struct z6_world, mapping.tree_lock);
	uint32_t pl = (uint32_t)offsetof(struct z6_world, page_lock);
	uint32_t gd = (uint32_t)offsetof(struct z6_world, gp_deferred);
	uint32_t gl = (uint32_t)offsetof(struct z6_world, gp_lock);

	if (off >= sl && off < sl + sizeof(W->mapping.slots))
		snprintf(buf, n, "page cache slot %u",
			 (unsigned)((off - sl) / sizeof(W->mapping.slots[0])));
	else if (off >= tl && off < tl + sizeof(W->mapping.tree_lock))
		snprintf(buf, n, "mapping->tree_lock");
	else if (off >= pl && off < pl + sizeof(W->page_lock))
		snprintf(buf, n, "page %u lock (PG_locked)",
			 (unsigned)((off - pl) / sizeof(W->page_lock[0])));
	else if (off >= gd && off < gd + sizeof(W->gp_deferred))
		snprintf(buf, n, "page %u waiting for a grace period", (unsigned)(off - gd));
	else if (off >= gl && off < gl + sizeof(W->gp_lock))
		snprintf(buf, n, "rcu gp_lock");
	else
		weft_mm_describe(&W->mm, w, off, buf, n);
}

WEFT_MM_STATS_FN(z6, Z6)

/* A slot write: which page it now names (0 none); a page field: the page
 * model's bucket (count 0/1/2/many, allocated, page nr), with "waits for
 * a grace period" folded in. */
static uint32_t z6_state_bucket(const void *w, uint32_t off)
{
	const struct z6_world *W = w;
	uint32_t b;

	b = weft_mm_slots_state_bucket(&W->mm, w, off, W->mapping.slots, Z6_SLOTS);
	if (b)
		return b;
	b = weft_mm_state_bucket(&W->mm, w, off);
	if (b) {
		unsigned nr = (b - 1) >> 5;

		if (nr < Z6_PAGES && weft_peek(W->gp_deferred[nr]))
			b |= 0x8000u;
	}
	return b;
}

static const char *const z6_opnames[Z6_NR_OPS] = {
	"lookup", "remove", "truncate", "add", "put",
};

static const char *const z6_files[] = {
	"z6_spec_pagecache.c", "mm_page.c", NULL,
};

static const struct weft_variant z6_variants[Z6_NR_VARIANTS] = {
	{ "z6a", "Z6a", true,
	  "find_get_page() takes a plain get_page(): it increments a frozen/freed page 0 -> 1, "
	  "the recheck fails and its put frees the page again",
	  "N. Piggin, lockless pagecache (linux-mm 2005-2006; 2.6.27 \"mm: speculative page "
	  "references\", \"mm: lockless pagecache\"): why page_cache_get_speculative()",
	  WEFT_KIND_DOUBLE_FREE, 1, Z6_V_Z6A },
	{ "z6b", "Z6b", true,
	  "__remove_mapping() checks page_count == 2 instead of freezing: a speculative "
	  "reference taken after the check is lost and the page is freed under it",
	  "N. Piggin, lockless pagecache (2.6.27 \"mm: speculative page references\"): "
	  "page_freeze_refs() replaces 2.6.16's page_count(page) != 2 in __remove_mapping()",
	  WEFT_KIND_USE_AFTER_FREE, 1, Z6_V_Z6B },
	{ "fix", "Z6-fix", false,
	  "page_cache_get_speculative() (get_page_unless_zero) + recheck; "
	  "page_freeze_refs(page, 2) in __remove_mapping()",
	  "mm/filemap.c find_get_page(), mm/vmscan.c __remove_mapping(), v2.6.27",
	  WEFT_KIND_NONE, 0, Z6_V_FIX },
};

/*
 * Trigger inputs (bytes encoding). z6a: T0 lookup 0, T1 remove 0; T0 is
 * preempted right after loading slot 0, T1 freezes, removes and frees the
 * page (deferred: T0 is inside its read-side section), T0 increments it
 * 0 -> 1, the recheck fails, its put frees it again. z6b: T0 remove 0,
 * T1 lookup 0; T0 is preempted after its count == 2 check, T1's
 * speculative reference makes it 3, T1 sleeps on the page lock T0
 * holds, T0 overwrites the count with 0 and frees the page, T1 wakes and
 * reads page->mapping of a freed page. The fixed variant gets both
 * workloads (z6a's is its dfs default).
 */
static const uint8_t z6a_trigger[] = {
	2, 0x00 | Z6_OP_LOOKUP, 0x00, 0x10 | Z6_OP_REMOVE, 0x00,
	0x03, 0x00, 0x00,
};
static const uint8_t z6b_trigger[] = {
	2, 0x00 | Z6_OP_REMOVE, 0x00, 0x10 | Z6_OP_LOOKUP, 0x00,
	0x08, 0x00, 0x00,
};
WEFT_SCENARIO_TRIGGERS(z6, Z6_NR_VARIANTS, z6a_trigger, z6b_trigger, z6a_trigger);

const struct weft_scenario weft_scn_z6_spec_pagecache = {
	.name = "z6-spec-pagecache",
	.summary = "Z6: speculative page-cache references under RCU vs the remover's free "
		   "(lockless pagecache, 2005-2008)",
	.source = "N. Piggin, lockless pagecache; v2.6.27 find_get_page(), __remove_mapping(), "
		  "page_cache_get_speculative(), page_freeze_refs()",
	WEFT_SCENARIO_ZOO(z6, Z6, Z6_THREADS, 1024, 1),
};
