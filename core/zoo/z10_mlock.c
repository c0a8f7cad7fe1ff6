/*
 * z10_mlock.c - ZOO Z10: mlock of a page not locked: NR_MLOCK drift and a
 * BUG_ON (2014, CVE-2014-3122, "mm: try_to_unmap_cluster() should
 * lock_page() before mlocking").
 *
 * Sources:
 *  - V. Babka, "mm: try_to_unmap_cluster() should lock_page() before
 *    mlocking", commit 57e68e9cd65b (v3.15-rc, Apr 2014; stable 3.14.3),
 *    after S. Levin's trinity report of BUG_ON(!PageLocked(page)) in
 *    mlock_vma_page(): try_to_unmap_cluster() mlocked every page of the
 *    cluster in a VM_LOCKED nonlinear vma, though only check_page was
 *    locked. The commit: the BUG_ON "apparently serializes against page
 *    migration, which could otherwise fail to transfer the PG_mlocked
 *    flag ... NR_MLOCK accounting would become distorted". The fix
 *    mlocks check_page (locked), trylock_page()s each other page, mlocks
 *    it only when that succeeds and skips it otherwise;
 *  - mm/rmap.c v3.14 try_to_unmap_cluster(); mm/mlock.c mlock_vma_page();
 *    mm/internal.h mlock_migrate_page(); mm/migrate.c
 *    migrate_misplaced_transhuge_page() for the migration order modelled:
 *    the old page locked, the copy and mlock_migrate_page() *before* the
 *    page-table switch under the ptl (pte_same re-check), the old page
 *    mapped until then; mm/page_alloc.c free_pages_check() (__PG_MLOCKED
 *    in PAGE_FLAGS_CHECK_AT_FREE since "mm: remove free_page_mlock", 3.7:
 *    bad_page() reports, clears the flags and the page is freed).
 *
 * In 3.14 the two paths do not meet on one page (try_to_unmap_cluster()
 * walks nonlinear file vmas, migrate_misplaced_transhuge_page() moves anon
 * THPs; regular migration replaces the PTEs by migration entries before
 * the copy). The model joins them to exercise the protocol the BUG_ON
 * states: the page lock alone orders mlock_vma_page() against the flag
 * transfer of a migration that still has the old page mapped.
 *
 * The races (2 threads). Z10 is 3.14 with its BUG_ON: the first report is
 *   T0 reclaim (check_page A)           T1 migrate B
 *   trylock_page(A); ptl; walk: A: mlock_vma_page(A)
 *   B: mlock_vma_page(B): BUG_ON(!PageLocked(B))   -- 0 preemptions
 * (bug-on, the serial run). With B locked by a migration, the BUG_ON
 * passes and the accounting drifts (1 preemption; `--kind assertion`):
 *                                       lock_page(B); new page N locked;
 *                                       copy; mlock_migrate_page(N, B):
 *                                       TestClearPageMlocked(B): clear
 *                                       ~~ preempted ~~
 *   trylock_page(A); ptl; walk:
 *   A: mlock_vma_page(A): NR_MLOCK 1
 *   B: PageLocked (T1's): TestSetPageMlocked(B): NR_MLOCK 2
 *                                       ptl; pte_same: PTE -> N; unlock N, B;
 *                                       put B: freed with PG_mlocked
 *                                       (bad_page(); never uncounted)
 * At quiescence NR_MLOCK is 2 while one live page (A) is PG_mlocked.
 *
 * Oracles:
 *  - the kernel's BUG_ON(!PageLocked(page)) in mlock_vma_page() (bug-on);
 *  - the accounting audit at quiescence: NR_MLOCK == the live pages with
 *    PG_mlocked (assertion). free_pages_check() of an mlocked page is
 *    bad_page(): counted (bad_page_mlocked), flags cleared, page freed, as
 *    the kernel does; the audit then sees the drift.
 *
 * Model choices: one VM_LOCKED nonlinear vma of Z10_PTES PTEs (the whole
 * vma is one cluster), kit page table and ptl; PG_mlocked is bit
 * Z10_PG_mlocked of page->flags (the kit's flag enum has no mlock bit; the
 * bit ops on the word are the kit's, as for PG_locked); NR_MLOCK an
 * atomic_t (mod_zone_page_state()); no LRU lists (the unevictable list
 * move of mlock_vma_page() is left out), no mmap_sem (locked_vma = the
 * vma's VM_LOCKED).
 *
 * Workload (per thread, up to Z10_MAX_OPS ops; a = arg % Z10_PTES):
 *   reclaim a   shrink_page_list() of the page at a: trylock_page() it,
 *               try_to_unmap() -> try_to_unmap_cluster(check_page) over
 *               the vma (VM_LOCKED: mlock, never unmap), unlock
 *   migrate a   migration of the page at a to a new page (order above);
 *               a moved PTE gives up (the page changed meanwhile)
 *   mlock a     mlock_fixup() -> lock_page(), mlock_vma_page(), unlock
 * Initial state: pages A and B at addresses 0 and 1, mapped, not yet
 * mlocked (the lazy culling reclaim does), NR_MLOCK 0.
 *
 * Locks: page lock (lock_page() sleeps; trylock under the ptl) -> ptl.
 */
#include <weft/mm/pagelock.h>
#include <weft/mm/swap.h>
#include <weft/scenario.h>

#define Z10_THREADS 2
#define Z10_PTES 2
#define Z10_MAX_OPS 4
#define Z10_PAGES 8

/* PG_mlocked: a bit of page->flags beyond the kit's enum */
#define Z10_PG_mlocked 16

enum { Z10_V_BUGGY, Z10_V_FIX, Z10_NR_VARIANTS };

enum { Z10_OP_RECLAIM, Z10_OP_MIGRATE, Z10_OP_MLOCK, Z10_NR_OPS };

#define Z10_STATS(X)                                                           \
	X(MLOCKED, "mlock_vma_page_set")                                       \
	X(SKIPPED_BUSY, "cluster_trylock_failed")                              \
	X(CLUSTER_WALKS, "try_to_unmap_cluster")                               \
	X(RECLAIM_BUSY, "shrink_page_list_trylock_failed")                     \
	X(MIGRATED, "migrated")                                                \
	X(MIGRATE_MOVED, "migrate_pte_changed")                                \
	X(MLOCK_MOVED, "mlock_migrate_page_moved")                             \
	X(BAD_PAGE, "bad_page_mlocked")

enum z10_stat {
#define Z10_STAT_ENUM(e, s) Z10_STAT_##e,
	Z10_STATS(Z10_STAT_ENUM)
#undef Z10_STAT_ENUM
	Z10_NR_STATS
};

static const char *const z10_stat_names[Z10_NR_STATS] = {
#define Z10_STAT_NAME(e, s) s,
	Z10_STATS(Z10_STAT_NAME)
#undef Z10_STAT_NAME
};

struct z10_world {
	unsigned variant;
	unsigned nr_ops[Z10_THREADS];
	struct weft_op ops[Z10_THREADS][Z10_MAX_OPS];
	struct weft_mm mm;
	struct weft_pgtable pt;
	atomic_t nr_mlock;      /* NR_MLOCK: pages counted as mlocked */
	unsigned long stat[Z10_THREADS][Z10_NR_STATS];
};

WEFT_SCENARIO_STAT_FN(z10, Z10)

/* mlock_vma_page() (3.14): the caller holds the page lock. */
static void z10_mlock_vma_page(struct z10_world *W, struct weft_page *page)
{
	BUG_ON(!weft_page_test(page, locked));
	if (!test_and_set_bit(Z10_PG_mlocked, &page->flags)) {
		atomic_inc(&W->nr_mlock);
		z10_stat(W, Z10_STAT_MLOCKED);
	}
}

/* mlock_migrate_page(newpage, page) (3.14): both locked. */
static void z10_mlock_migrate_page(struct z10_world *W, struct weft_page *newpage,
				   struct weft_page *page)
{
	if (test_and_clear_bit(Z10_PG_mlocked, &page->flags)) {
		atomic_dec(&W->nr_mlock);
		set_bit(Z10_PG_mlocked, &newpage->flags);
		atomic_inc(&W->nr_mlock);
		z10_stat(W, Z10_STAT_MLOCK_MOVED);
	}
}

/* put_page(); the last reference frees through free_pages_check(): an
 * mlocked page is bad_page() (flags cleared, NR_MLOCK untouched). */
static void z10_put_page(struct z10_world *W, struct weft_page *page)
{
	if (!weft_put_page_testzero(&W->mm, page))
		return;
	if (test_and_clear_bit(Z10_PG_mlocked, &page->flags))
		z10_stat(W, Z10_STAT_BAD_PAGE);
	weft_page_free(&W->mm, page);
}

/* The page mapped at a with a reference, or NULL (ptl taken inside). */
static struct weft_page *z10_get_mapped(struct z10_world *W, unsigned a)
{
	return weft_follow_page_get(&W->mm, W->pt, a);
}

/*
 * try_to_unmap_cluster() (3.14) of the VM_LOCKED vma, check_page locked
 * by the caller: every mapped page of the cluster is mlocked, none
 * unmapped. The fix trylocks the pages other than check_page.
 */
static void z10_try_to_unmap_cluster(struct z10_world *W, struct weft_page *check_page)
{
	z10_stat(W, Z10_STAT_CLUSTER_WALKS);
	spin_lock(&W->pt.ptl);
	for (unsigned a = 0; a < Z10_PTES; a++) {
		uint32_t pte = weft_ptep_get(&W->pt, a);
		if (!weft_pte_present(pte))
			continue;
		struct weft_page *page = &W->mm.pages[weft_pte_pfn(pte)];
		if (W->variant == Z10_V_BUGGY || page == check_page) {
			z10_mlock_vma_page(W, page);
		} else if (trylock_page(page)) {
			z10_mlock_vma_page(W, page);
			unlock_page(page);
		} else {
			z10_stat(W, Z10_STAT_SKIPPED_BUSY);
		}
	}
	spin_unlock(&W->pt.ptl);
}

/* shrink_page_list() of the page at a: trylock, try_to_unmap(). */
static void z10_reclaim(struct z10_world *W, unsigned tid, unsigned arg)
{
	unsigned a = arg % Z10_PTES;
	struct weft_page *page = z10_get_mapped(W, a);

	if (!page)
		return;
	if (trylock_page(page)) {
		z10_try_to_unmap_cluster(W, page);
		unlock_page(page);
	} else {
		z10_stat(W, Z10_STAT_RECLAIM_BUSY);
	}
	z10_put_page(W, page);
}

/*
 * Migration of the page at a, in the order of
 * migrate_misplaced_transhuge_page() (3.14): lock the old page, prepare the
 * new one locked, copy (data, PG_mlocked), then switch the PTE under the
 * ptl if it still maps the old page; else undo the flag transfer.
 */
static void z10_migrate(struct z10_world *W, unsigned tid, unsigned arg)
{
	unsigned a = arg % Z10_PTES;
	struct weft_mm *mm = &W->mm;
	struct weft_page *page = z10_get_mapped(W, a);   /* isolate's reference */

	if (!page)
		return;
	struct weft_page *newpage = weft_page_alloc(mm);
	if (!newpage) {
		z10_put_page(W, page);
		return;
	}
	lock_page(page);
	/* __set_page_locked(): nobody else can see newpage yet */
	if (!trylock_page(newpage))
		BUG_ON(1);
	WRITE_ONCE(newpage->data, READ_ONCE(page->data));
	z10_mlock_migrate_page(W, newpage, page);
	spin_lock(&W->pt.ptl);
	bool moved = weft_pte_same(weft_ptep_get(&W->pt, a), weft_mk_pte(weft_page_nr(mm, page)));
	if (moved) {
		/* set_pmd_at(): the mapping's reference moves to newpage (its
		 * allocation reference); the old page's goes */
		weft_set_pte(&W->pt, a, weft_mk_pte(weft_page_nr(mm, newpage)));
		weft_put_page_nofree(mm, page);
		z10_stat(W, Z10_STAT_MIGRATED);
	} else {
		/* reverse migrate_page_copy() */
		z10_mlock_migrate_page(W, page, newpage);
		z10_stat(W, Z10_STAT_MIGRATE_MOVED);
	}
	spin_unlock(&W->pt.ptl);
	unlock_page(newpage);
	unlock_page(page);
	if (!moved)
		z10_put_page(W, newpage);
	z10_put_page(W, page);
}

/* mlock_fixup() -> __mlock_vma_pages_range() of one page: locked mlock. */
static void z10_mlock(struct z10_world *W, unsigned tid, unsigned arg)
{
	unsigned a = arg % Z10_PTES;
	struct weft_page *page = z10_get_mapped(W, a);

	if (!page)
		return;
	lock_page(page);
	/* the page may have been migrated away: mlock it if still mapped */
	spin_lock(&W->pt.ptl);
	bool mapped = weft_ptep_get(&W->pt, a) == weft_mk_pte(weft_page_nr(&W->mm, page));
	spin_unlock(&W->pt.ptl);
	if (mapped)
		z10_mlock_vma_page(W, page);
	unlock_page(page);
	z10_put_page(W, page);
}

/* ------------------------------------------------------- the scenario */

static void z10_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z10_world *W = w;

	WEFT_SCENARIO_SETUP_START(Z10, W, variant, wl, Z10_V_FIX);
	weft_mm_init(&W->mm, Z10_PAGES, false);
	weft_pgtable_init(&W->pt, Z10_PTES);
	/* pages A and B mapped in the VM_LOCKED vma (the allocation's
	 * reference is the mapping's), not yet PG_mlocked */
	for (unsigned a = 0; a < Z10_PTES; a++) {
		struct weft_page *page = weft_page_alloc_at(&W->mm, a);
		WRITE_ONCE(page->data, 0x100u + a);
		weft_set_pte(&W->pt, a, weft_mk_pte(weft_page_nr(&W->mm, page)));
	}
}

static void z10_thread(void *w, unsigned tid)
{
	static void (*const handler[Z10_NR_OPS])(struct z10_world *, unsigned, unsigned) = {
		[Z10_OP_RECLAIM] = z10_reclaim, [Z10_OP_MIGRATE] = z10_migrate,
		[Z10_OP_MLOCK] = z10_mlock };
	struct z10_world *W = w;

	WEFT_RUN_OPS(W, tid, W->ops[tid], W->nr_ops[tid], "z10 workload op", handler, Z10_NR_OPS);
}

/* At quiescence: no page locked; NR_MLOCK == the live PG_mlocked pages. */
static void z10_quiesce(void *w)
{
	struct z10_world *W = w;
	int mlocked = 0;

	if (!weft_mm_audit_unlocked(&W->mm, WEFT_SITE(WEFT_EV_NOTE,
							"audit: no page locked at quiescence")))
		return;
	for (unsigned i = 0; i < W->mm.nr_pages; i++) {
		const struct weft_page *pg = &W->mm.pages[i];

		if (weft_peek(pg->state) == WEFT_PAGE_ALLOCATED &&
		    (weft_peek(pg->flags) >> Z10_PG_mlocked & 1ul))
			mlocked++;
	}
	int nr = weft_peek(W->nr_mlock.counter);
	unsigned long bad = W->stat[0][Z10_STAT_BAD_PAGE] + W->stat[1][Z10_STAT_BAD_PAGE];
	if (nr != mlocked) {
		struct weft_access other = weft_last_write(&W->nr_mlock);
		weft_report2(WEFT_KIND_ASSERT, &W->nr_mlock,
			     WEFT_SITE(WEFT_EV_NOTE,
				       "audit: NR_MLOCK == the pages with PG_mlocked"),
			     &other,
			     "NR_MLOCK is %d but %d live pages are PG_mlocked (%lu mlocked pages "
			     "freed through bad_page())",
			     nr, mlocked, bad);
	}
}

static void z10_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z10_world *W = w;
	uint32_t nr = (uint32_t)offsetof(struct z10_world, nr_mlock);

	if (off >= nr && off < nr + sizeof(W->nr_mlock)) {
		snprintf(buf, n, "NR_MLOCK");
		return;
	}
	if (weft_pgtable_describe(&W->pt, 0, w, off, buf, n))
		return;
	weft_mm_describe(&W->mm, w, off, buf, n);
}

WEFT_MM_STATS_FN(z10, Z10)

/* The page model's bucket with PG_mlocked x PG_locked; NR_MLOCK 0/1/2/more. */
static uint32_t z10_state_bucket(const void *w, uint32_t off)
{
	const struct z10_world *W = w;
	uint32_t nr = (uint32_t)offsetof(struct z10_world, nr_mlock);

	if (off >= nr && off < nr + sizeof(W->nr_mlock)) {
		int v = weft_peek(W->nr_mlock.counter);
		return 0x40000u | (uint32_t)(v < 0 ? 7 : v > 3 ? 4 : v);
	}
	uint32_t b = weft_mm_state_bucket(&W->mm, w, off);
	if (b) {
		unsigned pnr = (b - 1) >> 5;
		if (pnr < Z10_PAGES) {
			unsigned long fl = weft_peek(W->mm.pages[pnr].flags);
			b |= (uint32_t)((fl >> Z10_PG_mlocked & 1ul) << 16 |
					(fl >> WEFT_PG_locked & 1ul) << 17);
		}
	}
	return b;
}

static const char *const z10_opnames[Z10_NR_OPS] = { "reclaim", "migrate", "mlock" };

static const char *const z10_files[] = {
	"z10_mlock.c", "mm_page.c", "mm_pagelock.c", NULL,
};

static const struct weft_variant z10_variants[Z10_NR_VARIANTS] = {
	{ "z10", "Z10", true,
	  "try_to_unmap_cluster() mlocks every page of the cluster, locked or not: "
	  "BUG_ON(!PageLocked) (0 preemptions); under a migration's lock, NR_MLOCK drift "
	  "(1 preemption, --kind assertion)",
	  "mm/rmap.c v3.14 try_to_unmap_cluster(); CVE-2014-3122",
	  WEFT_KIND_BUG_ON, 0, Z10_V_BUGGY },
	{ "fix", "Z10-fix", false,
	  "mlock check_page; trylock_page() each other page and skip it if busy",
	  "V. Babka, mm: try_to_unmap_cluster() should lock_page() before mlocking "
	  "(57e68e9cd65b, v3.15-rc, Apr 2014)",
	  WEFT_KIND_NONE, 0, Z10_V_FIX },
};

/*
 * Triggers (bytes encoding): T0 reclaim 0 (check_page A, B unlocked);
 * T1 migrate 1 (B). Serial: T0 runs first and hits the BUG_ON on B. The
 * fix gets the same input: it trylocks B, mlocks it, and is clean.
 */
WEFT_SCENARIO_ONE_TRIGGER(z10, Z10_NR_VARIANTS,
	2,
	0x00 | Z10_OP_RECLAIM, 0x00,
	0x10 | Z10_OP_MIGRATE, 0x01,
);

const struct weft_scenario weft_scn_z10_mlock = {
	.name = "z10-mlock",
	.summary = "try_to_unmap_cluster() mlocks pages it has not locked: BUG_ON and NR_MLOCK "
		   "drift against migration (2014, CVE-2014-3122)",
	.source = "mm/rmap.c v3.14 try_to_unmap_cluster(), mm/mlock.c mlock_vma_page(); "
		  "V. Babka, commit 57e68e9cd65b",
	WEFT_SCENARIO_ZOO(z10, Z10, Z10_THREADS, 1024, 1),
};
