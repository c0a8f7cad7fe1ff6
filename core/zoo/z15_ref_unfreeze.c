/*
 * z15_ref_unfreeze.c - ZOO Z15: page_ref_unfreeze() as a plain
 * atomic_set(), not ordered after the frozen section's stores (2017,
 * found on arm64): a speculative page-cache lookup takes a reference on
 * the restored count, re-checks the slot, and still sees the page the
 * migration has just replaced, whose store the count's overtook. Message
 * passing with release: only weak memory shows it, and not TSO (stores
 * stay in order there).
 *
 * Sources:
 *  - W. Deacon, "mm/page_ref: Ensure page_ref_unfreeze is ordered against
 *    prior accesses" (v4.13, 2017; lkml 1500375331-5467...arm.com):
 *    "page_ref_freeze and page_ref_unfreeze are designed to be used as a
 *    pair, wrapping a critical section where struct page can be modified
 *    without having to worry about consistency for a concurrent fast-GUP.
 *    Whilst page_ref_freeze has full barrier semantics due to its use of
 *    atomic_cmpxchg, page_ref_unfreeze is implemented using atomic_set,
 *    which doesn't provide any barrier semantics and allows the operation
 *    to be reordered with respect to page modifications in the critical
 *    section." The fix: smp_mb() before the atomic_set().
 *  - "mm/page_ref: use atomic_set_release in page_ref_unfreeze" (2018):
 *    the smp_mb() becomes a release.
 *  - mm/migrate.c of v4.12 migrate_page_move_mapping(): under the
 *    mapping's tree_lock, page_ref_freeze(page, expected_count), the new
 *    page takes the page cache's reference and index/mapping,
 *    radix_tree_replace_slot() names it, page_ref_unfreeze(page,
 *    expected_count - 1) gives the old page back the migrator's
 *    reference; migrate_page_copy(), move_to_new_page() clearing the old
 *    page's mapping, and the final put_page() of unmap_and_move();
 *  - mm/filemap.c of v4.12 find_get_entry(): rcu, radix_tree_deref_slot(),
 *    page_cache_get_speculative() (get_page_unless_zero(): fails on a
 *    frozen page: repeat), and "Has the page moved? ... if (unlikely(page
 *    != *pagep)) { put_page(page); goto repeat; }".
 *
 * Variants:
 *   z15     page_ref_unfreeze() is atomic_set() (v4.12).
 *   fix-mb  smp_mb(); atomic_set() (v4.13).
 *   fix     atomic_set_release() (2018; the kit's weft_page_ref_unfreeze()).
 *
 * The race (z15, lkmm), trigger workload T0 `migrate 0`; T1 `lookup 0`:
 *   T0 (CPU0): isolates page A (slot 0), freezes it (2 -> 0, a full
 *     barrier), new page B takes index and mapping, slot 0 = B (this
 *     store stays buffered), atomic_set(&A->count, 1) (visible at once:
 *     nothing orders it after the slot's store)
 *   ~~ preempted ~~
 *   T1 (CPU1): find_get_entry(): slot 0 is A; get_page_unless_zero(A):
 *     1 -> 2 (a full barrier); A != *slot? The slot still reads A: the
 *     lookup returns A, a page the cache no longer holds.
 * One preemption (T0's put_page() after the copy is a full barrier: the
 * lookup must run before it) and one delayed store.
 *
 * Detector: an identity oracle on what the lookup returns. A lookup whose
 * get_page_unless_zero() found the count the unfreeze restored (1, after
 * the migration marked A unfrozen), re-checked the slot and kept A, holds
 * a page the page cache had already replaced before that count was
 * stored: an `assertion`, naming the slot's store as the other side. A
 * lookup that got A before the freeze (the freeze then fails and the
 * migration gives up), or that re-checks and sees B, is legitimate.
 * Audits at quiescence: page references == owners (the cache's slots),
 * every cached page's index and mapping its slot's.
 *
 * Ops (per thread, up to Z15_MAX_OPS; s = arg % Z15_SLOTS):
 *   migrate s   migrate the page cache page of slot s to a new page
 *   lookup s    find_get_page(): a speculative lookup, then put_page()
 * Initial state: slots 0 and 1 hold pages 0 and 1 (count 1: the cache's).
 *
 * Locks: tree_lock (the migrator's alone; the lookup is lockless).
 */
#include <weft/mm/page.h>
#include <weft/scenario.h>

#define Z15_THREADS 2
#define Z15_MAX_OPS 4
#define Z15_SLOTS 2
#define Z15_PAGES 8

enum { Z15_V_BUGGY, Z15_V_FIX_MB, Z15_V_FIX, Z15_NR_VARIANTS };

enum { Z15_OP_MIGRATE, Z15_OP_LOOKUP, Z15_NR_OPS };

#define Z15_STATS(X)                                                           \
	X(MIGRATED, "migrated")                                                \
	X(FREEZE_FAILED, "page_ref_freeze_failed")                             \
	X(LOOKUPS, "find_get_page")                                            \
	X(FROZEN, "page_cache_get_speculative_failed")                         \
	X(MOVED, "page_moved_repeat")

enum z15_stat {
#define Z15_STAT_ENUM(e, s) Z15_STAT_##e,
	Z15_STATS(Z15_STAT_ENUM)
#undef Z15_STAT_ENUM
	Z15_NR_STATS
};

static const char *const z15_stat_names[Z15_NR_STATS] = {
#define Z15_STAT_NAME(e, s) s,
	Z15_STATS(Z15_STAT_NAME)
#undef Z15_STAT_NAME
};

struct z15_mapping {
	spinlock_t tree_lock;
	struct weft_page *slot[Z15_SLOTS];
};

struct z15_world {
	unsigned variant;
	unsigned nr_ops[Z15_THREADS];
	struct weft_op ops[Z15_THREADS][Z15_MAX_OPS];
	struct weft_mm mm;
	struct z15_mapping m;
	/* the oracle (no model code reads it): a page whose count the
	 * migration restored after replacing it in its slot, and by which */
	uint8_t unfrozen[Z15_PAGES];
	uint8_t moved_to[Z15_PAGES];
	unsigned long stat[Z15_THREADS][Z15_NR_STATS];
};

WEFT_SCENARIO_STAT_FN(z15, Z15)

static void z15_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z15_world *W = w;

	WEFT_SCENARIO_SETUP_START(Z15, W, variant, wl, Z15_V_FIX);
	weft_mm_init(&W->mm, Z15_PAGES, false);
	spin_lock_init(&W->m.tree_lock);
	for (unsigned s = 0; s < Z15_SLOTS; s++) {
		struct weft_page *p = weft_page_alloc(&W->mm);   /* the cache's reference */
		p->mapping = &W->m;
		p->private = s;   /* page->index */
		W->m.slot[s] = p;
	}
}

/* put_page(): the last reference frees (a replaced page's mapping is
 * cleared by then). */
static void z15_put_page(struct z15_world *W, struct weft_page *p)
{
	if (weft_put_page_testzero(&W->mm, p))
		weft_page_free(&W->mm, p);
}

/* page_ref_unfreeze() of each era. */
static void z15_ref_unfreeze(struct z15_world *W, struct weft_page *p, int count)
{
	switch (W->variant) {
	case Z15_V_BUGGY:   /* v4.12: no barrier */
		atomic_set(&p->count, count);
		break;
	case Z15_V_FIX_MB:  /* v4.13 */
		smp_mb();
		atomic_set(&p->count, count);
		break;
	default:            /* 2018: atomic_set_release() */
		weft_page_ref_unfreeze(&W->mm, p, count);
		break;
	}
	__atomic_store_n(&W->unfrozen[weft_page_nr(&W->mm, p)], 1, __ATOMIC_RELAXED);
}

/* migrate_page_move_mapping() and the rest of unmap_and_move() for the
 * page cache page of slot s (not mapped, no buffers: expected count 2,
 * the cache's and the migrator's). */
static void z15_migrate(struct z15_world *W, unsigned tid, unsigned arg)
{
	unsigned s = arg % Z15_SLOTS;
	struct z15_mapping *m = &W->m;
	unsigned long flags;
	struct weft_page *p = READ_ONCE(m->slot[s]);

	if (!p || !weft_get_page_unless_zero(&W->mm, p))   /* isolate */
		return;
	struct weft_page *n = weft_page_alloc(&W->mm);
	if (!n) {
		z15_put_page(W, p);
		return;
	}
	__atomic_store_n(&W->unfrozen[weft_page_nr(&W->mm, n)], 0, __ATOMIC_RELAXED);
	spin_lock_irqsave(&m->tree_lock, flags);
	if (READ_ONCE(m->slot[s]) != p || !weft_page_ref_freeze(&W->mm, p, 2)) {
		spin_unlock_irqrestore(&m->tree_lock, flags);
		z15_stat(W, Z15_STAT_FREEZE_FAILED);
		z15_put_page(W, n);
		z15_put_page(W, p);
		return;
	}
	/* the new page: the cache's reference, index and mapping */
	WRITE_ONCE(n->private, READ_ONCE(p->private));
	WRITE_ONCE(n->mapping, (void *)m);
	weft_get_page(&W->mm, n);
	/* radix_tree_replace_slot() */
	WRITE_ONCE(m->slot[s], n);
	__atomic_store_n(&W->moved_to[weft_page_nr(&W->mm, p)], (uint8_t)weft_page_nr(&W->mm, n),
			 __ATOMIC_RELAXED);
	/* the old page keeps the migrator's reference */
	z15_ref_unfreeze(W, p, 1);
	spin_unlock_irqrestore(&m->tree_lock, flags);
	/* migrate_page_copy(), move_to_new_page() */
	WRITE_ONCE(n->data, READ_ONCE(p->data));
	WRITE_ONCE(p->mapping, NULL);
	z15_stat(W, Z15_STAT_MIGRATED);
	z15_put_page(W, p);   /* freed unless a lookup holds it */
	z15_put_page(W, n);   /* the allocation's */
}

/* find_get_page() of v4.12 (find_get_entry()), then put_page(). */
static void z15_lookup(struct z15_world *W, unsigned tid, unsigned arg)
{
	unsigned s = arg % Z15_SLOTS;
	struct z15_mapping *m = &W->m;

	z15_stat(W, Z15_STAT_LOOKUPS);
	rcu_read_lock();
	for (unsigned tries = 0; tries < 4; tries++) {
		struct weft_page *p = rcu_dereference(m->slot[s]);
		if (!p)
			break;
		/* page_cache_get_speculative(): get_page_unless_zero() */
		int old = atomic_fetch_add_unless(&p->count, 1, 0);
		if (!old) {
			z15_stat(W, Z15_STAT_FROZEN);
			continue;
		}
		/* has the page moved? */
		if (p != READ_ONCE(m->slot[s])) {
			z15_stat(W, Z15_STAT_MOVED);
			rcu_read_unlock();
			z15_put_page(W, p);
			rcu_read_lock();
			continue;
		}
		rcu_read_unlock();
		unsigned nr = weft_page_nr(&W->mm, p);
		if (old == 1 && __atomic_load_n(&W->unfrozen[nr], __ATOMIC_RELAXED)) {
			struct weft_access other = weft_last_write(&m->slot[s]);
			weft_report2(WEFT_KIND_ASSERT, &m->slot[s],
				     WEFT_SITE(WEFT_EV_NOTE, "find_get_page: a page the page cache no "
					       "longer holds"),
				     &other,
				     "find_get_page(%u) returned page %u: its reference was taken on "
				     "the count page_ref_unfreeze() restored after the migration had "
				     "put page %u in the slot, yet the re-check read page %u",
				     s, nr, __atomic_load_n(&W->moved_to[nr], __ATOMIC_RELAXED), nr);
			return;
		}
		(void)READ_ONCE(p->data);   /* the reader copies the page */
		z15_put_page(W, p);
		return;
	}
	rcu_read_unlock();
}

static void z15_thread(void *w, unsigned tid)
{
	static void (*const handler[Z15_NR_OPS])(struct z15_world *, unsigned, unsigned) = {
		[Z15_OP_MIGRATE] = z15_migrate, [Z15_OP_LOOKUP] = z15_lookup };
	struct z15_world *W = w;

	WEFT_RUN_OPS(W, tid, W->ops[tid], W->nr_ops[tid], "z15 workload op", handler, Z15_NR_OPS);
}

/* ------------------------------------------------------------- audits */

static unsigned z15_owners(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct z15_world *W = ctx;
	unsigned n = 0;

	(void)mm;
	for (unsigned s = 0; s < Z15_SLOTS; s++)
		n += weft_peek(W->m.slot[s]) == p;
	return n;
}

static void z15_quiesce(void *w)
{
	struct z15_world *W = w;

	for (unsigned s = 0; s < Z15_SLOTS; s++) {
		struct weft_page *p = weft_peek(W->m.slot[s]);
		if (weft_peek(p->mapping) != &W->m || weft_peek(p->private) != s) {
			weft_report(WEFT_KIND_ASSERT, &p->mapping,
				    WEFT_SITE(WEFT_EV_NOTE, "audit: a cached page's index and mapping"),
				    "slot %u holds page %u with index %lu", s,
				    weft_page_nr(&W->mm, p), weft_peek(p->private));
			return;
		}
	}
	weft_mm_audit_leaks(&W->mm, z15_owners, W);
}

/* ------------------------------------------------- describe, buckets */

static void z15_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z15_world *W = w;
	uint32_t sl = (uint32_t)offsetof(struct z15_world, m.slot);
	uint32_t tl = (uint32_t)offsetof(struct z15_world, m.tree_lock);

	if (off >= sl && off < sl + sizeof(W->m.slot))
		snprintf(buf, n, "page cache slot %u", (unsigned)((off - sl) / sizeof(W->m.slot[0])));
	else if (off >= tl && off < tl + sizeof(W->m.tree_lock))
		snprintf(buf, n, "mapping->tree_lock");
	else
		weft_mm_describe(&W->mm, w, off, buf, n);
}

WEFT_MM_STATS_FN(z15, Z15)

static uint32_t z15_state_bucket(const void *w, uint32_t off)
{
	const struct z15_world *W = w;

	uint32_t b = weft_mm_slots_state_bucket(&W->mm, w, off, W->m.slot, Z15_SLOTS);

	return b ? b : weft_mm_state_bucket(&W->mm, w, off);
}

static const char *const z15_opnames[Z15_NR_OPS] = { "migrate", "lookup" };

static const char *const z15_files[] = {
	"z15_ref_unfreeze.c", "mm_page.c", "page.h", NULL,
};

static const struct weft_variant z15_variants[Z15_NR_VARIANTS] = {
	{ "z15", "Z15", true,
	  "page_ref_unfreeze() is a plain atomic_set(): the restored count overtakes the "
	  "migration's slot store, and a speculative lookup keeps the replaced page",
	  "W. Deacon, \"mm/page_ref: Ensure page_ref_unfreeze is ordered against prior "
	  "accesses\" (v4.13, 2017); mm/migrate.c migrate_page_move_mapping() v4.12",
	  WEFT_KIND_ASSERT, 1, Z15_V_BUGGY },
	{ "fix-mb", "Z15-fix-mb", false, "smp_mb() before the atomic_set() (v4.13)",
	  "\"mm/page_ref: Ensure page_ref_unfreeze is ordered against prior accesses\"",
	  WEFT_KIND_NONE, 0, Z15_V_FIX_MB },
	{ "fix", "Z15-fix", false, "atomic_set_release() (2018)",
	  "\"mm/page_ref: use atomic_set_release in page_ref_unfreeze\"", WEFT_KIND_NONE, 0,
	  Z15_V_FIX },
};

/*
 * Trigger (a version-2 genome asking for lkmm; under tso or sc it is
 * clean): T0 `migrate 0`; T1 `lookup 0`. T0 is preempted after its 20th
 * step (after the unfreeze); the store of slot 0 (the 7th weak choice of
 * the execution: the migration's relaxed atomics ask one each) gets delay
 * code 10 (32 steps).
 */
WEFT_SCENARIO_ONE_TRIGGER(z15, Z15_NR_VARIANTS,
	WEFT_GENOME_V2_SERIAL(WEFT_MEM_LKMM),
	2,                      /* ops */
	0x00 | Z15_OP_MIGRATE, 0x00, 0x10 | Z15_OP_LOOKUP, 0x00,
	20, 0x00, 0x00,         /* T0 after its 20th step: run T1 */
	6, 0x80, 0x80 | 10,     /* weak choice 6 (from 0): delay code 10 */
);

const struct weft_scenario weft_scn_z15_ref_unfreeze = {
	.name = "z15-ref-unfreeze",
	.summary = "Z15: page_ref_unfreeze() as a plain atomic_set(): a speculative page-cache "
		   "lookup keeps a page the migration replaced (message passing, weak memory)",
	.source = "mm/migrate.c migrate_page_move_mapping(), mm/filemap.c find_get_entry() "
		  "v4.12; \"mm/page_ref: Ensure page_ref_unfreeze is ordered against prior "
		  "accesses\" (2017)",
	WEFT_SCENARIO_ZOO(z15, Z15, 2, 1024, 1),
	.memory = WEFT_MEM_LKMM,
};
