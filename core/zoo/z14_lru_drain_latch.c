/*
 * z14_lru_drain_latch.c - ZOO Z14: lru_add_drain_all()'s piggyback as a
 * seqcount latch (v5.5 .. v5.9), whose barriers are only smp_wmb(): a
 * caller that has just batched a page reads the old sequence while a
 * drainer that bumped it reads the caller's batch as empty (store
 * buffering), so the caller piggybacks on a drain that never saw its page.
 * Only weak memory shows it: SB is allowed even on x86-TSO.
 *
 * Sources:
 *  - A. S. Darwish, "mm/swap: Do not abuse the seqcount_t latching API",
 *    commit 6446a5131e24 (v5.10, Aug 2020; lkml 87y2pg9erj.fsf@vostro...):
 *    "The used raw_write_seqcount_latch() has two SMP write memory
 *    barriers ... A full memory barrier is required instead: to guarantee
 *    that the pagevec counter stores visible by local CPU are visible to
 *    other CPUs -- before loading the current drain generation." The fix
 *    is lru_drain_gen: smp_mb() before smp_load_acquire() of it at (B),
 *    WRITE_ONCE() of the bump then smp_mb() at (D), before the loop.
 *  - K. Khlebnikov, "mm/swap.c: piggyback lru_add_drain_all() calls",
 *    commit eef1a429f234 (v5.5, Oct 2019): the latch, and the contract
 *    "all pages pended at the time of our entry were drained from the
 *    vectors".
 *  - mm/swap.c of v5.5 lru_add_drain_all() (raw_read_seqcount_latch(),
 *    __read_seqcount_retry(), raw_write_seqcount_latch() = smp_wmb();
 *    sequence++; smp_wmb()) and of v5.10 __lru_add_drain_all();
 *    lru_cache_add() (the kit's weft_folio_add_lru(): no barrier after the
 *    batch stores); mm/memory.c do_anonymous_page() (the batch add under
 *    the page-table lock, released by spin_unlock(): a release store);
 *    mm/migrate.c of v5.10 do_pages_move() -> migrate_prep() (=
 *    lru_add_drain_all()), add_page_for_migration() (follow_page(FOLL_GET),
 *    isolate_lru_page(): -EBUSY for a page not on the LRU), and
 *    unmap_and_move() / putback_lru_page().
 *
 * Variants:
 *   z14  v5.5: the latch (READ_ONCE of the sequence; smp_wmb(), sequence++,
 *        smp_wmb() under the mutex).
 *   fix  v5.10: smp_mb(); smp_load_acquire() of lru_drain_gen; under the
 *        mutex WRITE_ONCE(lru_drain_gen + 1); smp_mb().
 *
 * Threads and contexts: T0, T1 bound to CPUs 0, 1 (tasks of one process)
 * and the per-CPU kworkers the machine starts on the first queue_work_on()
 * to their CPU (lru_add_drain_per_cpu() runs there). No interrupts.
 *
 * The race (z14), trigger workload T0 `fault 0`, `move 0`; T1 `drain`:
 *   T0 (CPU0): do_anonymous_page(): the page into CPU0's lru_add batch
 *     (stores of pages[0] and nr, buffered), set_pte, spin_unlock(ptl);
 *     move_pages(): migrate_prep() -> lru_add_drain_all(): reads the
 *     sequence: 0
 *   ~~ preempted ~~
 *   T1 (CPU1): lru_add_drain_all(): 0, mutex, 0 == 0: smp_wmb(),
 *     sequence 1 (buffered), smp_wmb(); the loop reads CPU0's batch
 *     count: 0 (T0's store is still in CPU0's store buffer); nothing to
 *     drain; mutex_unlock
 *   T0: mutex_lock (its buffer drains); the sequence is 1 != 0: "a drain
 *     ran while we waited", returns; isolate_lru_page() of its own page:
 *     not PageLRU, still in CPU0's batch: -EBUSY.
 * Under sc it cannot happen: if T0 read 0 before T1's bump, its batch
 * store preceded T1's loop. It needs one preemption (T0's load and T1's
 * loop must overlap: T0's mutex_lock() drains its buffer) and one store
 * delayed past T1's loop.
 *
 * Detector: the contract of lru_add_drain_all() as its caller relies on
 * it. move_pages()' isolate_lru_page() that fails on a page still in a
 * per-CPU lru_add batch, put there by this very task (program order
 * before its lru_add_drain_all()), is an `assertion` naming the sequence
 * store that made the call piggyback. A page isolated by another mover,
 * unmapped, or batched by another task is legitimately busy and silent.
 * Audits at quiescence: page references == owners (PTEs, batches), the
 * LRU lists, and every mapped page on the LRU or batched.
 *
 * Ops (per thread, up to Z14_MAX_OPS; a = arg % Z14_PTES):
 *   fault a   do_anonymous_page() at address a (if unmapped)
 *   move a    move_pages() of the page at a to another node: migrate_prep(),
 *             isolate, a new page mapped in its place, the old one freed
 *   unmap a   zap the PTE at a (MADV_DONTNEED of one page)
 *   drain     lru_add_drain_all() (another caller: compaction, offlining)
 *   local     lru_add_drain()
 *
 * Locks: drain mutex -> the work items' flush; ptl -> (the batch's local
 * lock: preemption off); lru lock alone. lockdep-lite sees no cycle.
 */
#include <weft/mm/lru_batch.h>
#include <weft/mm/pgtable.h>
#include <weft/scenario.h>

#define Z14_CPUS 2
#define Z14_THREADS 2
#define Z14_MAX_OPS 4
#define Z14_PTES 2
#define Z14_PAGES 8

enum { Z14_V_BUGGY, Z14_V_FIX, Z14_NR_VARIANTS };

enum { Z14_OP_FAULT, Z14_OP_MOVE, Z14_OP_UNMAP, Z14_OP_DRAIN, Z14_OP_LOCAL, Z14_NR_OPS };

#define Z14_STATS(X)                                                           \
	X(FAULT, "do_anonymous_page")                                          \
	X(DRAIN_ALL, "lru_add_drain_all")                                      \
	X(PIGGYBACK, "lru_add_drain_all_piggybacked")                          \
	X(WORK_QUEUED, "lru_add_drain_work_queued")                            \
	X(ISOLATED, "isolate_lru_page")                                        \
	X(BUSY, "isolate_lru_page_busy")                                       \
	X(MIGRATED, "migrated")                                                \
	X(PUTBACK, "putback_lru_page")                                         \
	X(UNMAPPED, "zap_pte")

enum z14_stat {
#define Z14_STAT_ENUM(e, s) Z14_STAT_##e,
	Z14_STATS(Z14_STAT_ENUM)
#undef Z14_STAT_ENUM
	Z14_NR_STATS
};

static const char *const z14_stat_names[Z14_NR_STATS] = {
#define Z14_STAT_NAME(e, s) s,
	Z14_STATS(Z14_STAT_NAME)
#undef Z14_STAT_NAME
};

struct z14_world {
	unsigned variant;
	/* the decoded workload: written by setup, read-only afterwards */
	unsigned nr_ops[Z14_THREADS];
	struct weft_op ops[Z14_THREADS][Z14_MAX_OPS];
	struct weft_mm mm;
	struct weft_lru lru;
	struct weft_lru_batches b;
	struct weft_pgtable pt;          /* one process; its ptl */
	int anon_vma;                    /* what page->mapping names */
	/* lru_add_drain_all()'s statics */
	struct weft_mutex drain_lock;
	unsigned seq;                    /* z14: seqcount.sequence; fix: lru_drain_gen */
	WEFT_PER_CPU(struct work_struct, lru_add_drain_work);
	/* the oracle (not model state: plain fields no model code reads):
	 * the task whose lru_cache_add() put each page in a batch last */
	uint8_t batched_by[Z14_PAGES];
	unsigned long stat[Z14_THREADS][Z14_NR_STATS];
};

WEFT_SCENARIO_STAT_FN(z14, Z14)

/* lru_cache_add(), and the oracle's note of who batched the page. */
static void z14_lru_cache_add(struct z14_world *W, struct weft_page *p)
{
	weft_folio_add_lru(&W->b, p);
	__atomic_store_n(&W->batched_by[weft_page_nr(&W->mm, p)],
			 (uint8_t)(weft_current_tid() + 1), __ATOMIC_RELAXED);
}

/* ---------------------------------------------------- lru_add_drain_all */

/* lru_add_drain_per_cpu() */
WEFT_LRU_DRAIN_WORK_FN(z14_drain_work_fn, struct z14_world)

/* The loop both versions share: queue a drain on every CPU whose batches
 * are not empty (racy reads, cpu_needs_drain()), flush them. */
static void z14_drain_cpus(struct z14_world *W)
{
	WEFT_LRU_DRAIN_CPUS(W, Z14_CPUS, z14_stat(W, Z14_STAT_WORK_QUEUED));
}

/* lru_add_drain_all() of v5.5: the seqcount latch. */
static void z14_drain_all_latch(struct z14_world *W)
{
	unsigned seq;

	/* raw_read_seqcount_latch(): READ_ONCE(s->sequence) */
	seq = READ_ONCE(W->seq);
	mutex_lock(&W->drain_lock);
	/* piggyback on a drain that started and finished while we waited:
	 * __read_seqcount_retry() */
	if (READ_ONCE(W->seq) != seq) {
		z14_stat(W, Z14_STAT_PIGGYBACK);
		goto done;
	}
	/* raw_write_seqcount_latch(): smp_wmb(); s->sequence++; smp_wmb() */
	smp_wmb();
	WRITE_ONCE(W->seq, READ_ONCE(W->seq) + 1);
	smp_wmb();
	z14_drain_cpus(W);
done:
	mutex_unlock(&W->drain_lock);
}

/* __lru_add_drain_all(false) of v5.10: the generation with full barriers. */
static void z14_drain_all_gen(struct z14_world *W)
{
	unsigned this_gen;

	/* pagevec counter stores visible by this CPU are visible to other
	 * CPUs before loading the current drain generation */
	smp_mb();
	/* (B) pairs with the smp_mb() at (D) */
	this_gen = smp_load_acquire(&W->seq);
	mutex_lock(&W->drain_lock);
	/* (C) */
	if (this_gen != READ_ONCE(W->seq)) {
		z14_stat(W, Z14_STAT_PIGGYBACK);
		goto done;
	}
	/* (D) the new generation is stored before the pagevec counters are
	 * loaded */
	WRITE_ONCE(W->seq, this_gen + 1);
	smp_mb();
	z14_drain_cpus(W);
done:
	mutex_unlock(&W->drain_lock);
}

static void z14_lru_add_drain_all(struct z14_world *W)
{
	z14_stat(W, Z14_STAT_DRAIN_ALL);
	if (W->variant == Z14_V_BUGGY)
		z14_drain_all_latch(W);
	else
		z14_drain_all_gen(W);
}

static void z14_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z14_world *W = w;

	WEFT_SCENARIO_SETUP_START(Z14, W, variant, wl, Z14_V_FIX);
	weft_lru_batches_setup(&W->b, &W->lru, &W->mm, Z14_PAGES, WEFT_FBATCH_MAX);
	weft_pgtable_init(&W->pt, Z14_PTES);
	spin_lock_init(&W->pt.ptl);
	WEFT_LRU_DRAIN_ALL_INIT(W, Z14_CPUS, z14_drain_work_fn);
}

/* --------------------------------------------------------------- ops */

/* do_anonymous_page() of v5.10: the new page's allocation reference is the
 * PTE's; the batch takes its own. */
static void z14_fault(struct z14_world *W, unsigned tid, unsigned arg)
{
	unsigned a = arg % Z14_PTES;
	struct weft_page *p = weft_page_alloc(&W->mm);

	if (!p)
		return;
	spin_lock(&W->pt.ptl);
	if (!weft_pte_none(weft_ptep_get(&W->pt, a))) {
		spin_unlock(&W->pt.ptl);
		weft_page_cache_release(&W->lru, p);   /* release: put_page() */
		return;
	}
	/* page_add_new_anon_rmap() */
	WRITE_ONCE(p->mapping, (void *)&W->anon_vma);
	/* lru_cache_add_inactive_or_unevictable() */
	z14_lru_cache_add(W, p);
	weft_set_pte(&W->pt, a, weft_mk_pte(weft_page_nr(&W->mm, p)));
	spin_unlock(&W->pt.ptl);
	z14_stat(W, Z14_STAT_FAULT);
}

/* follow_page(FOLL_GET): the page mapped at a with a reference, or NULL. */
static struct weft_page *z14_follow_page(struct z14_world *W, unsigned a)
{
	return weft_follow_page_get(&W->mm, W->pt, a);
}

/* isolate_lru_page() of v5.10: 0, or -EBUSY for a page not on the LRU.
 * The caller holds a reference. */
static int z14_isolate_lru_page(struct z14_world *W, struct weft_page *p)
{
	unsigned long flags;
	int ret = -16;   /* -EBUSY */

	if (!weft_page_test(p, lru))
		return ret;
	spin_lock_irqsave(&W->lru.lock, flags);
	if (weft_page_test(p, lru)) {
		weft_get_page(&W->mm, p);
		weft_page_clear(p, lru);
		weft_list_del(&p->lru);
		if (weft_page_test(p, active))
			weft_page_clear(p, active);
		ret = 0;
	}
	spin_unlock_irqrestore(&W->lru.lock, flags);
	return ret;
}

/* The oracle of a failed isolation: the page is in a per-CPU lru_add batch
 * this task itself put it in, before its lru_add_drain_all() began. */
static void z14_check_busy(struct z14_world *W, unsigned tid, struct weft_page *p)
{
	unsigned nr = weft_page_nr(&W->mm, p);
	int cpu = weft_lru_batch_cpu(&W->b, p);

	z14_stat(W, Z14_STAT_BUSY);
	if (cpu < 0 || __atomic_load_n(&W->batched_by[nr], __ATOMIC_RELAXED) != tid + 1)
		return;
	struct weft_access other = weft_last_write(&W->seq);
	weft_report2(WEFT_KIND_ASSERT, &p->flags,
		     WEFT_SITE(WEFT_EV_NOTE, "move_pages: isolate_lru_page() -EBUSY on a page "
			       "lru_add_drain_all() had to drain"),
		     &other,
		     "page %u is still in CPU%d's lru_add batch, where this task put it before "
		     "calling lru_add_drain_all(), which returned without draining it "
		     "(sequence %u)", nr, cpu, weft_peek(W->seq));
}

/* unmap_and_move() for a page isolated at a: a new page mapped in its
 * place under the ptl (the migration entries of try_to_unmap() and
 * remove_migration_ptes() folded into that one switch), the old page
 * freed; if a no longer maps it, putback_lru_page(). */
static void z14_migrate(struct z14_world *W, unsigned a, struct weft_page *p)
{
	struct weft_mm *mm = &W->mm;
	struct weft_page *n = weft_page_alloc(mm);
	bool moved = false;

	if (n) {
		spin_lock(&W->pt.ptl);
		if (weft_pte_same(weft_ptep_get(&W->pt, a), weft_mk_pte(weft_page_nr(mm, p)))) {
			WRITE_ONCE(n->mapping, (void *)&W->anon_vma);
			WRITE_ONCE(n->data, READ_ONCE(p->data));
			weft_get_page(mm, n);                   /* the PTE's */
			weft_set_pte(&W->pt, a, weft_mk_pte(weft_page_nr(mm, n)));
			WRITE_ONCE(p->mapping, NULL);
			moved = true;
		}
		spin_unlock(&W->pt.ptl);
	}
	if (!moved) {
		if (n)
			weft_page_cache_release(&W->lru, n);
		/* putback_lru_page() */
		z14_lru_cache_add(W, p);
		weft_page_cache_release(&W->lru, p);
		z14_stat(W, Z14_STAT_PUTBACK);
		return;
	}
	weft_page_cache_release(&W->lru, p);   /* the PTE's reference */
	weft_page_cache_release(&W->lru, p);   /* the isolation's: freed */
	/* putback_lru_page(newpage) */
	z14_lru_cache_add(W, n);
	weft_page_cache_release(&W->lru, n);
	z14_stat(W, Z14_STAT_MIGRATED);
}

/* do_pages_move() of one page: migrate_prep(), add_page_for_migration(),
 * migrate_pages(). */
static void z14_move(struct z14_world *W, unsigned tid, unsigned arg)
{
	unsigned a = arg % Z14_PTES;

	z14_lru_add_drain_all(W);   /* migrate_prep() */
	struct weft_page *p = z14_follow_page(W, a);
	if (!p)
		return;
	int err = z14_isolate_lru_page(W, p);
	if (err)
		z14_check_busy(W, tid, p);
	weft_page_cache_release(&W->lru, p);   /* follow_page()'s reference */
	if (err)
		return;
	z14_stat(W, Z14_STAT_ISOLATED);
	z14_migrate(W, a, p);
}

static void z14_unmap(struct z14_world *W, unsigned tid, unsigned arg)
{
	unsigned a = arg % Z14_PTES;
	struct weft_page *p = NULL;

	spin_lock(&W->pt.ptl);
	uint32_t pte = weft_ptep_get(&W->pt, a);
	if (weft_pte_present(pte)) {
		p = &W->mm.pages[weft_pte_pfn(pte)];
		weft_set_pte(&W->pt, a, WEFT_PTE_NONE);
		/* its only mapping: free_pages_prepare() clears an anon page's
		 * mapping, done here as the kit's allocator checks it at free */
		WRITE_ONCE(p->mapping, NULL);
	}
	spin_unlock(&W->pt.ptl);
	if (p) {
		z14_stat(W, Z14_STAT_UNMAPPED);
		weft_page_cache_release(&W->lru, p);
	}
}

/* the ops without an argument of their own */
static void z14_drain_all(struct z14_world *W, unsigned tid, unsigned arg)
{
	z14_lru_add_drain_all(W);
}

static void z14_local_drain(struct z14_world *W, unsigned tid, unsigned arg)
{
	weft_lru_add_drain(&W->b);
}

static void z14_thread(void *w, unsigned tid)
{
	static void (*const handler[Z14_NR_OPS])(struct z14_world *, unsigned, unsigned) = {
		[Z14_OP_FAULT] = z14_fault, [Z14_OP_MOVE] = z14_move, [Z14_OP_UNMAP] = z14_unmap,
		[Z14_OP_DRAIN] = z14_drain_all, [Z14_OP_LOCAL] = z14_local_drain };
	struct z14_world *W = w;

	WEFT_RUN_OPS(W, tid, W->ops[tid], W->nr_ops[tid], "z14 workload op", handler, Z14_NR_OPS);
}

/* ------------------------------------------------------------- audits */

static unsigned z14_owners(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct z14_world *W = ctx;

	return weft_lru_batch_refs(&W->b, p) +
	       weft_pgtable_count(&W->pt, weft_mk_pte(weft_page_nr(mm, p)));
}

static void z14_quiesce(void *w)
{
	struct z14_world *W = w;

	if (weft_lru_audit(&W->lru))
		return;
	for (unsigned a = 0; a < Z14_PTES; a++) {
		struct weft_page *p = weft_pte_peek_page(&W->mm, &W->pt, a);

		if (p && WEFT_LRU_AUDIT_ONE_HOME(&W->b, p, "audit: a mapped page is on the LRU or batched",
						 "page %u at address %u", weft_page_nr(&W->mm, p), a))
			return;
	}
	weft_mm_audit_leaks(&W->mm, z14_owners, W);
}

/* ------------------------------------------------- describe, buckets */

static void z14_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z14_world *W = w;
	uint32_t pt = (uint32_t)offsetof(struct z14_world, pt.pte);
	uint32_t ptl = (uint32_t)offsetof(struct z14_world, pt.ptl);

	if (off >= pt && off < pt + sizeof(W->pt.pte))
		snprintf(buf, n, "PTE of address %u", (unsigned)((off - pt) / sizeof(W->pt.pte[0])));
	else if (off >= ptl && off < ptl + sizeof(W->pt.ptl))
		snprintf(buf, n, "ptl");
	else if (off == offsetof(struct z14_world, seq))
		snprintf(buf, n, W->variant == Z14_V_BUGGY ? "lru_add_drain_all seqcount"
							   : "lru_drain_gen");
	else
		WEFT_LRU_DRAIN_ALL_DESCRIBE(W, struct z14_world, off, buf, n);
}

WEFT_MM_STATS_FN(z14, Z14)

/* A batch counter: which CPU and how full; the sequence: its value; a PTE:
 * mapped or not; a page field: the page model's bucket. */
static uint32_t z14_state_bucket(const void *w, uint32_t off)
{
	const struct z14_world *W = w;
	uint32_t pt = (uint32_t)offsetof(struct z14_world, pt.pte);

	if (off == offsetof(struct z14_world, seq))
		return 0x30000u | (weft_peek(W->seq) & 0xff);
	uint32_t b = weft_lru_batches_state_bucket(&W->b, w, off);
	if (b)
		return b;
	if (off >= pt && off < pt + sizeof(W->pt.pte)) {
		unsigned a = (unsigned)((off - pt) / sizeof(W->pt.pte[0]));
		return 0x10000u | a << 8 | weft_pte_present(weft_peek(W->pt.pte[a]));
	}
	return weft_mm_state_bucket(&W->mm, w, off);
}

static const char *const z14_opnames[Z14_NR_OPS] = {
	"fault", "move", "unmap", "drain", "local",
};

static const char *const z14_files[] = {
	"z14_lru_drain_latch.c", "mm_lru_batch.c", "lru_batch.h", "mm_lru.c", "mm_page.c",
	"page.h", "pgtable.h", NULL,
};

static const struct weft_variant z14_variants[Z14_NR_VARIANTS] = {
	{ "z14", "Z14", true,
	  "lru_add_drain_all()'s seqcount latch has only smp_wmb(): a caller that just batched "
	  "a page reads the old sequence while the drainer reads its batch as empty (store "
	  "buffering); move_pages() then cannot isolate the page",
	  "A. S. Darwish, \"mm/swap: Do not abuse the seqcount_t latching API\" (6446a5131e24, "
	  "v5.10, 2020); mm/swap.c lru_add_drain_all() v5.5-v5.9",
	  WEFT_KIND_ASSERT, 1, Z14_V_BUGGY },
	{ "fix", "Z14-fix", false,
	  "smp_mb() before the acquire load of lru_drain_gen, smp_mb() after its bump (v5.10)",
	  "mm/swap.c __lru_add_drain_all(), v5.10", WEFT_KIND_NONE, 0, Z14_V_FIX },
};

/*
 * Trigger (a version-2 genome asking for tso; under sc it runs the same
 * schedule with every store visible at once, and is clean): T0 `fault 0`,
 * `move 0`; T1 `drain`. T0 is preempted after its 16th step (its load of
 * the sequence, before mutex_lock()); the 6th store of the execution, the
 * lru_add batch count of CPU0, gets delay code 9 (16 steps): still buffered
 * when T1's loop reads it.
 */
WEFT_SCENARIO_ONE_TRIGGER(z14, Z14_NR_VARIANTS,
	WEFT_GENOME_V2_SERIAL(WEFT_MEM_TSO),
	3,                      /* ops */
	0x00 | Z14_OP_FAULT, 0x00, 0x00 | Z14_OP_MOVE, 0x00, 0x10 | Z14_OP_DRAIN, 0x00,
	16, 0x00, 0x00,         /* T0 after its 16th step: run T1 */
	5, 0x80, 0x80 | 9,      /* store 5 (from 0): delay code 9 */
);

const struct weft_scenario weft_scn_z14_lru_drain_latch = {
	.name = "z14-lru-drain-latch",
	.summary = "Z14: lru_add_drain_all()'s seqcount latch (smp_wmb() only) lets a caller "
		   "piggyback on a drain that read its batch as empty (store buffering)",
	.source = "mm/swap.c lru_add_drain_all() v5.5-v5.10; \"mm/swap: Do not abuse the "
		  "seqcount_t latching API\" (2020)",
	WEFT_SCENARIO_ZOO(z14, Z14, Z14_CPUS, 1024, 1),
	.memory = WEFT_MEM_LKMM,
};
