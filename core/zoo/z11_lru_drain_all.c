/*
 * z11_lru_drain_all.c - ZOO Z11: the piggyback of lru_add_drain_all()
 * (v5.5 .. v5.9 as a seqcount latch, v5.10+ as a generation counter): a
 * late caller that skips its own drain because another drain "finished"
 * while it waited for the mutex, although that drain never looked at the
 * pages the late caller had batched.
 *
 * Sources:
 *  - K. Khlebnikov, "mm/swap.c: piggyback lru_add_drain_all() calls"
 *    (eef1a429f234, v5.5, Oct 2019; lkml 157019456205.3142...stgit@buzz):
 *    a caller reads a sequence count before taking the drain mutex and
 *    returns without draining if a drain started and finished meanwhile,
 *    "all pages pended at the time of our enter were drained from
 *    vectors". POSIX_FADV_DONTNEED and invalidate_bdev() are named as the
 *    callers that need it: they drop pages whose counts must be exact.
 *  - A. S. Darwish, "mm/swap: Do not abuse the seqcount_t latching API"
 *    (6446a5131e24, v5.10, Aug 2020; lkml 87y2pg9erj.fsf@vostro...): the
 *    latch becomes a plain drain generation, lru_drain_gen, bumped under
 *    the mutex with a full barrier *before* the per-CPU loop; its comment
 *    (D) states the hazard this model shows: with the bump "at any later
 *    step, e.g. after the loop, CPU #x will just exit at (C) and miss
 *    flushing out all of its added pages". (The v5.5 latch already bumped
 *    before the loop; what it lacked were the full barriers, a weak-memory
 *    hazard an SC machine cannot show. The buggy variant here is the
 *    ordering mistake the 2020 comment warns against, visible under SC.)
 *  - mm/swap.c of v5.10: __lru_add_drain_all(), lru_add_drain_per_cpu(),
 *    cpu_needs_drain() (as the kit's weft_lru_cpu_needs_drain()); the
 *    per-CPU lru_add batches of <weft/mm/lru_batch.h>;
 *  - block/bdev.c invalidate_bdev() of v5.10 (lru_add_drain_all(), then
 *    invalidate_mapping_pages()) and mm/truncate.c / mm/vmscan.c
 *    invalidate_inode_page(), remove_mapping(), __remove_mapping():
 *    page_ref_freeze(page, 2) (the page cache's reference and the walk's)
 *    under the i_pages lock; a page with any other reference stays cached.
 *
 * Variants:
 *   z11  lru_drain_gen bumped after the per-CPU loop (and its flushes).
 *   fix  bumped before the loop, then smp_mb() (v5.10).
 *
 * Threads and contexts: T0..T2 bound to CPUs 0..2 (process context), and
 * the per-CPU kworkers the machine starts on the first queue_work_on() to
 * their CPU (lru_add_drain_per_cpu() runs there). No interrupts.
 *
 * The race (z11), with the trigger workload: T0 `add 0`, `drain`; T1
 * `add 1`, `invalidate`:
 *   T0 (CPU0): page 0 into CPU0's lru_add batch; lru_add_drain_all():
 *     gen 0, mutex, loop: CPU0 needs a drain (work queued), CPU1 and CPU2
 *     do not; flush_work(CPU0) sleeps
 *   T1 (CPU1): page 1 into CPU1's batch; invalidate_bdev():
 *     lru_add_drain_all() reads gen 0, sleeps on the mutex
 *   kworker/0 drains CPU0; T0 wakes, bumps gen to 1, unlocks
 *   T1: gen 1 != 0: "someone drained for us", returns; page 1 still has
 *     CPU1's batch reference: page_ref_freeze(page, 2) sees 3 and the
 *     page stays cached.
 * It needs no preemption: T0's flush_work() sleep is the window (every
 * switch in it is a free one), so dfs finds it at bound 0 and even the
 * serial default schedule does. A drainer with nothing to flush needs one
 * preemption between its loop and its bump instead.
 *
 * Detector: the caller with the exact count is the oracle.
 * invalidate_bdev()'s remove_mapping() that fails page_ref_freeze(page, 2)
 * checks why: if the page is still in a per-CPU lru_add batch it was
 * added to before this caller's lru_add_drain_all() read the generation,
 * the drain broke its contract ("all pages pending at the time of our
 * entry") and the report is an `assertion`, naming the generation bump
 * that made the caller piggyback as the other side. Busy pages for other
 * reasons (a reader's reference, a page batched after the entry, a batch
 * between its move and its release_pages()) are legitimate and silent.
 * Audits at quiescence: page references == owners (the cache slot, the
 * batches, the readers), the LRU lists, and every cached page either on
 * the LRU or batched.
 *
 * Ops (per thread, up to Z11_MAX_OPS; slot = arg % Z11_SLOTS):
 *   add s      read block s into the page cache: a new page in slot s
 *              (the cache's reference), folio_add_lru() on this CPU (the
 *              batch's reference), the reader's reference dropped
 *   read s     find_get_page(): keeps a reference (a busy page)
 *   put        drops the oldest reference this thread keeps
 *   local      lru_add_drain(): this CPU's batches
 *   drain      lru_add_drain_all() (migrate_prep(), fadvise...)
 *   invalidate invalidate_bdev(): lru_add_drain_all(), then drop every
 *              cached page nobody else holds
 *
 * Locks: drain_lock (mutex) -> the work items' flush; i_pages lock ->
 * (nothing); lru lock (the kit's, irq-safe); lockdep-lite sees no cycle.
 */
#include <weft/mm/lru_batch.h>
#include <weft/scenario.h>

#define Z11_CPUS 3
#define Z11_THREADS 3
#define Z11_MAX_OPS 4
#define Z11_SLOTS 4
#define Z11_PAGES 8

enum { Z11_V_BUGGY, Z11_V_FIX, Z11_NR_VARIANTS };

enum { Z11_OP_ADD, Z11_OP_READ, Z11_OP_PUT, Z11_OP_LOCAL, Z11_OP_DRAIN, Z11_OP_INVAL,
       Z11_NR_OPS };

#define Z11_STATS(X)                                                           \
	X(ADD, "add_to_page_cache_lru")                                       \
	X(ADD_EXISTS, "add_slot_taken")                                       \
	X(DRAIN_ALL, "lru_add_drain_all")                                     \
	X(PIGGYBACK, "lru_add_drain_all_piggybacked")                         \
	X(WORK_QUEUED, "lru_add_drain_work_queued")                           \
	X(INVALIDATED, "invalidate_removed")                                  \
	X(BUSY, "invalidate_busy")                                            \
	X(BUSY_BATCHED, "invalidate_busy_batched_late")                       \
	X(FREED, "page_freed")

enum z11_stat {
#define __Z11_STAT_ENUM(e, s) Z11_STAT_##e,
	Z11_STATS(__Z11_STAT_ENUM)
#undef __Z11_STAT_ENUM
	Z11_NR_STATS
};

static const char *const z11_stat_names[Z11_NR_STATS] = {
#define __Z11_STAT_NAME(e, s) s,
	Z11_STATS(__Z11_STAT_NAME)
#undef __Z11_STAT_NAME
};

/* The block device's address_space: slots written under i_pages_lock. */
struct z11_mapping {
	spinlock_t i_pages_lock;
	struct weft_page *slots[Z11_SLOTS];
};

struct z11_world {
	unsigned variant;
	/* the decoded workload: written by setup, read-only afterwards */
	unsigned nr_ops[Z11_THREADS];
	struct weft_op ops[Z11_THREADS][Z11_MAX_OPS];
	struct weft_mm mm;
	struct weft_lru lru;
	struct weft_lru_batches b;
	struct z11_mapping mapping;
	/* __lru_add_drain_all()'s statics */
	struct weft_mutex drain_lock;
	unsigned lru_drain_gen;
	WEFT_PER_CPU(struct work_struct, lru_add_drain_work);
	/* references each thread keeps (read), by page nr: thread-private */
	uint8_t held[Z11_THREADS][Z11_PAGES];
	/* the oracle's clock (not model state: atomics without points): a
	 * page's added_at is the clock after its folio_add_lru() returned;
	 * entry_clock[t] the clock when T t's lru_add_drain_all() read the
	 * generation */
	uint32_t clock;
	uint32_t added_at[Z11_PAGES];
	uint32_t entry_clock[Z11_THREADS];
	/* under a weak model "before" is not the clock's:
	 * entry_visible[t][c] has bit nr when page nr sat in CPU c's batch
	 * as T t's CPU saw it at the smp_mb() before (A), mb_clock[t] the
	 * clock then (z11_visibly_batched) */
	uint8_t entry_visible[Z11_THREADS][Z11_CPUS];
	uint32_t mb_clock[Z11_THREADS];
	unsigned long stat[Z11_THREADS][Z11_NR_STATS];
};

WEFT_SCENARIO_STAT_FN(z11, Z11)

WEFT_LRU_DRAIN_WORK_FN(z11_drain_work_fn, struct z11_world)

static void z11_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z11_world *W = w;

	WEFT_SCENARIO_SETUP_START(Z11, W, variant, wl, Z11_V_FIX);
	weft_lru_batches_setup(&W->b, &W->lru, &W->mm, Z11_PAGES, WEFT_FBATCH_MAX);
	spin_lock_init(&W->mapping.i_pages_lock);
	WEFT_LRU_DRAIN_ALL_INIT(W, Z11_CPUS, z11_drain_work_fn);
}

/* ------------------------------------------------------ page references */

/* put_page() of v5.10: the last reference takes a page off the LRU
 * (__page_cache_release()) and frees it. */
static void z11_put_page(struct z11_world *W, struct weft_page *p)
{
	unsigned long flags;

	if (!weft_put_page_testzero(&W->mm, p))
		return;
	if (weft_page_test(p, lru)) {
		spin_lock_irqsave(&W->lru.lock, flags);
		weft_page_clear(p, lru);
		weft_list_del(&p->lru);
		if (weft_page_test(p, active))
			weft_page_clear(p, active);
		spin_unlock_irqrestore(&W->lru.lock, flags);
	}
	z11_stat(W, Z11_STAT_FREED);
	weft_page_free(&W->mm, p);
}

/* find_get_page() (the lookup under the i_pages lock: no speculation
 * modelled, it is not what this bug is about). */
static struct weft_page *z11_find_get_page(struct z11_world *W, unsigned s)
{
	struct z11_mapping *m = &W->mapping;
	struct weft_page *p;

	spin_lock_irq(&m->i_pages_lock);
	p = READ_ONCE(m->slots[s]);
	if (p)
		weft_get_page(&W->mm, p);
	spin_unlock_irq(&m->i_pages_lock);
	return p;
}

/* ---------------------------------------------------- lru_add_drain_all */

/*
 * The oracle's "batched before (A)" under a weak memory model: the pages
 * batched before this CPU's smp_mb() before (A), in a batch whose stores
 * had reached this CPU when the barrier ran (weft_peek_seen(): under lkmm
 * the oldest value the CPU may still read, not memory: the barrier passes
 * on what had reached it, not every newer store). That barrier's cumulativity with
 * the smp_mb() after (D) is all the kernel promises (propagation,
 * explanation.txt): a page another CPU batched earlier in time whose
 * batch store was still in that CPU's store buffer is not covered, nor one
 * batched after the barrier (a load of the generation may read an older
 * value than the barrier's time). Under sc the clock at (A) is exact and
 * this is not consulted.
 */
static void z11_visibly_batched(struct z11_world *W, unsigned tid)
{
	W->mb_clock[tid] = __atomic_load_n(&W->clock, __ATOMIC_RELAXED);
	for (unsigned c = 0; c < Z11_CPUS; c++) {
		const struct weft_folio_batch *fb = &W->b.cpu[c].lru_add;
		uint32_t nr = weft_peek_seen(fb->nr);
		uint8_t seen = 0;

		for (uint32_t i = 0; i < nr && i < WEFT_FBATCH_MAX; i++) {
			struct weft_page *p = weft_peek_seen(fb->pages[i]);
			if (p)
				seen |= (uint8_t)(1u << (weft_page_nr(&W->mm, p) % Z11_PAGES));
		}
		W->entry_visible[tid][c] = seen;
	}
}

/* Page nr's batching (at: its clock), now in CPU cpu's batch, happened
 * before T tid's lru_add_drain_all() as the kernel's barriers promise. */
static bool z11_batched_before(const struct z11_world *W, unsigned tid, unsigned nr, int cpu,
			       uint32_t at)
{
	if (!at || at > W->entry_clock[tid])
		return false;
	return !weft_memory_is_weak() || (at <= W->mb_clock[tid] && W->entry_visible[tid][cpu] >> nr & 1);
}

/* __lru_add_drain_all(false) of v5.10; the variant places the bump. */
static void z11_lru_add_drain_all(struct z11_world *W, unsigned tid)
{
	unsigned this_gen, gen;

	z11_stat(W, Z11_STAT_DRAIN_ALL);
	/* pagevec counter stores of this CPU visible before the load */
	smp_mb();
	z11_visibly_batched(W, tid);
	/* (A) the generation this call must see drained */
	this_gen = READ_ONCE(W->lru_drain_gen);
	W->entry_clock[tid] = __atomic_load_n(&W->clock, __ATOMIC_RELAXED);

	mutex_lock(&W->drain_lock);

	/* (B)/(C) a drain started after (A) and finished: piggyback */
	gen = READ_ONCE(W->lru_drain_gen);
	if (this_gen != gen) {
		z11_stat(W, Z11_STAT_PIGGYBACK);
		goto done;
	}

	if (W->variant == Z11_V_FIX) {
		/* (D) before the loop: a caller that reads the old generation
		 * at (A) added its pages before it, and the loop below, which
		 * runs after this store, sees them */
		WRITE_ONCE(W->lru_drain_gen, gen + 1);
		smp_mb();
	}

	WEFT_LRU_DRAIN_CPUS(W, Z11_CPUS, z11_stat(W, Z11_STAT_WORK_QUEUED));

	if (W->variant == Z11_V_BUGGY) {
		/* the bug: the generation moves only now, after a loop that
		 * looked at each CPU's batches before a late caller's (A) */
		WRITE_ONCE(W->lru_drain_gen, gen + 1);
		smp_mb();
	}
done:
	mutex_unlock(&W->drain_lock);
}

/* --------------------------------------------------------------- ops */

static void z11_add(struct z11_world *W, unsigned tid, unsigned arg)
{
	unsigned s = arg % Z11_SLOTS;
	struct z11_mapping *m = &W->mapping;
	struct weft_page *p = weft_page_alloc(&W->mm);
	unsigned nr;

	if (!p)
		return;
	nr = weft_page_nr(&W->mm, p);
	spin_lock_irq(&m->i_pages_lock);
	if (READ_ONCE(m->slots[s])) {
		spin_unlock_irq(&m->i_pages_lock);
		z11_stat(W, Z11_STAT_ADD_EXISTS);
		z11_put_page(W, p);
		return;
	}
	weft_get_page(&W->mm, p);                       /* the page cache's */
	WRITE_ONCE(p->mapping, m);
	WRITE_ONCE(p->private, (unsigned long)s);
	WRITE_ONCE(m->slots[s], p);
	spin_unlock_irq(&m->i_pages_lock);
	weft_folio_add_lru(&W->b, p);                   /* the batch's */
	W->added_at[nr] = __atomic_add_fetch(&W->clock, 1, __ATOMIC_RELAXED);
	z11_stat(W, Z11_STAT_ADD);
	z11_put_page(W, p);                             /* the reader's */
}

/*
 * remove_mapping() as invalidate_inode_page() calls it: page_ref_freeze()
 * expects exactly the cache's reference and ours. When it fails, the
 * oracle asks whether the extra reference is a batch entry that was made
 * before this caller's lru_add_drain_all() began.
 */
static bool z11_remove_mapping(struct z11_world *W, unsigned tid, struct weft_page *p,
			       unsigned s)
{
	struct z11_mapping *m = &W->mapping;
	unsigned nr = weft_page_nr(&W->mm, p);
	unsigned long flags;

	spin_lock_irqsave(&m->i_pages_lock, flags);
	if (READ_ONCE(p->mapping) != m) {
		spin_unlock_irqrestore(&m->i_pages_lock, flags);
		return false;
	}
	if (!weft_page_ref_freeze(&W->mm, p, 2)) {
		int cpu = weft_lru_batch_cpu(&W->b, p);
		uint32_t at = __atomic_load_n(&W->added_at[nr], __ATOMIC_RELAXED);

		z11_stat(W, Z11_STAT_BUSY);
		if (cpu >= 0 && z11_batched_before(W, tid, nr, cpu, at)) {
			struct weft_access other = weft_last_write(&W->lru_drain_gen);

			spin_unlock_irqrestore(&m->i_pages_lock, flags);
			weft_report2(WEFT_KIND_ASSERT, &p->count,
				     WEFT_SITE(WEFT_EV_NOTE, "invalidate_bdev: page_ref_freeze(page, 2) "
					       "fails on a page lru_add_drain_all() had to drain"),
				     &other,
				     "page %u (slot %u) keeps CPU%d's lru_add batch reference (count "
				     "%d): it was batched before this lru_add_drain_all() read "
				     "lru_drain_gen, which returned without draining it", nr, s,
				     cpu, weft_page_peek_count(&W->mm, p));
			return false;
		}
		if (cpu >= 0)
			z11_stat(W, Z11_STAT_BUSY_BATCHED);
		spin_unlock_irqrestore(&m->i_pages_lock, flags);
		return false;
	}
	/* __delete_from_page_cache() */
	WRITE_ONCE(m->slots[s], NULL);
	WRITE_ONCE(p->mapping, NULL);
	spin_unlock_irqrestore(&m->i_pages_lock, flags);
	/* remove_mapping(): unfreezing to 1 drops the cache's reference */
	weft_page_ref_unfreeze(&W->mm, p, 1);
	return true;
}

/* invalidate_bdev(): make sure the lru add caches are flushed, then drop
 * every clean, unused cached page (invalidate_mapping_pages()). */
static void z11_invalidate_bdev(struct z11_world *W, unsigned tid, unsigned arg)
{
	z11_lru_add_drain_all(W, tid);
	for (unsigned s = 0; s < Z11_SLOTS; s++) {
		struct weft_page *p = z11_find_get_page(W, s);

		if (!p)
			continue;
		if (z11_remove_mapping(W, tid, p, s))
			z11_stat(W, Z11_STAT_INVALIDATED);
		z11_put_page(W, p);                     /* pagevec_release() */
	}
}

static void z11_read(struct z11_world *W, unsigned tid, unsigned arg)
{
	unsigned s = arg % Z11_SLOTS;
	struct weft_page *p = z11_find_get_page(W, s);

	if (p)
		W->held[tid][weft_page_nr(&W->mm, p)]++;
}

static void z11_put_held(struct z11_world *W, unsigned tid, unsigned arg)
{
	for (unsigned nr = 0; nr < Z11_PAGES; nr++) {
		if (!W->held[tid][nr])
			continue;
		W->held[tid][nr]--;
		z11_put_page(W, &W->mm.pages[nr]);
		return;
	}
}

/* the ops without an argument of their own */
static void z11_local_drain(struct z11_world *W, unsigned tid, unsigned arg)
{
	weft_lru_add_drain(&W->b);
}

static void z11_drain_all(struct z11_world *W, unsigned tid, unsigned arg)
{
	z11_lru_add_drain_all(W, tid);
}

static void z11_thread(void *w, unsigned tid)
{
	static void (*const handler[Z11_NR_OPS])(struct z11_world *, unsigned, unsigned) = {
		[Z11_OP_ADD] = z11_add, [Z11_OP_READ] = z11_read, [Z11_OP_PUT] = z11_put_held,
		[Z11_OP_LOCAL] = z11_local_drain, [Z11_OP_DRAIN] = z11_drain_all,
		[Z11_OP_INVAL] = z11_invalidate_bdev };
	struct z11_world *W = w;

	WEFT_RUN_OPS(W, tid, W->ops[tid], W->nr_ops[tid], "z11 workload op", handler, Z11_NR_OPS);
}

/* ------------------------------------------------------------- audits */

static unsigned z11_owners(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct z11_world *W = ctx;
	unsigned nr = weft_page_nr(mm, p), n = weft_lru_batch_refs(&W->b, p);

	for (unsigned s = 0; s < Z11_SLOTS; s++)
		n += weft_peek(W->mapping.slots[s]) == p;
	for (unsigned t = 0; t < Z11_THREADS; t++)
		n += W->held[t][nr];
	return n;
}

static void z11_quiesce(void *w)
{
	struct z11_world *W = w;

	if (weft_lru_audit(&W->lru))
		return;
	for (unsigned s = 0; s < Z11_SLOTS; s++) {
		struct weft_page *p = weft_peek(W->mapping.slots[s]);

		if (p && WEFT_LRU_AUDIT_ONE_HOME(&W->b, p, "audit: a cached page is on the LRU or batched",
						 "page %u in slot %u", weft_page_nr(&W->mm, p), s))
			return;
	}
	weft_mm_audit_leaks(&W->mm, z11_owners, W);
}

/* ------------------------------------------------- describe, buckets */

static void z11_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z11_world *W = w;
	uint32_t sl = (uint32_t)offsetof(struct z11_world, mapping.slots);
	uint32_t il = (uint32_t)offsetof(struct z11_world, mapping.i_pages_lock);

	if (off >= sl && off < sl + sizeof(W->mapping.slots))
		snprintf(buf, n, "bdev page cache slot %u",
			 (unsigned)((off - sl) / sizeof(W->mapping.slots[0])));
	else if (off >= il && off < il + sizeof(W->mapping.i_pages_lock))
		snprintf(buf, n, "mapping->i_pages lock");
	else if (off == offsetof(struct z11_world, lru_drain_gen))
		snprintf(buf, n, "lru_drain_gen");
	else
		WEFT_LRU_DRAIN_ALL_DESCRIBE(W, struct z11_world, off, buf, n);
}

WEFT_MM_STATS_FN(z11, Z11)

/* A batch counter: which CPU and how full; the generation: its value; a
 * slot: which page it names; a page field: the page model's bucket. */
static uint32_t z11_state_bucket(const void *w, uint32_t off)
{
	const struct z11_world *W = w;

	if (off == offsetof(struct z11_world, lru_drain_gen))
		return 0x30000u | (weft_peek(W->lru_drain_gen) & 0xff);
	uint32_t b = weft_lru_batches_state_bucket(&W->b, w, off);
	if (!b)
		b = weft_mm_slots_state_bucket(&W->mm, w, off, W->mapping.slots, Z11_SLOTS);
	return b ? b : weft_mm_state_bucket(&W->mm, w, off);
}

static const char *const z11_opnames[Z11_NR_OPS] = {
	"add", "read", "put", "local", "drain", "invalidate",
};

static const char *const z11_files[] = {
	"z11_lru_drain_all.c", "mm_lru_batch.c", "lru_batch.h", "mm_lru.c", "mm_page.c",
	NULL,
};

static const struct weft_variant z11_variants[Z11_NR_VARIANTS] = {
	{ "z11", "Z11", true,
	  "lru_add_drain_all() bumps lru_drain_gen after its per-CPU loop: a caller that "
	  "batched a page and read the old generation piggybacks on a drain that never saw "
	  "the page; invalidate_bdev() then finds the batch's extra reference",
	  "A. S. Darwish, \"mm/swap: Do not abuse the seqcount_t latching API\" (v5.10, 2020), "
	  "comment (D); K. Khlebnikov, \"mm/swap.c: piggyback lru_add_drain_all() calls\" "
	  "(v5.5, 2019)",
	  WEFT_KIND_ASSERT, 0, Z11_V_BUGGY },
	{ "fix", "Z11-fix", false,
	  "lru_drain_gen bumped (then smp_mb()) before the per-CPU loop",
	  "mm/swap.c __lru_add_drain_all(), v5.10", WEFT_KIND_NONE, 0, Z11_V_FIX },
};

/*
 * Trigger (bytes encoding, no schedule entries: the default schedule is
 * the race): T0 add 0, drain; T1 add 1, invalidate. T0's flush_work()
 * sleeps, T1 (the lowest runnable thread) batches page 1 on CPU1 and
 * waits for the mutex, kworker/0 drains CPU0, T0 bumps the generation
 * and T1 piggybacks. The fixed variant gets the same workload.
 */
WEFT_SCENARIO_ONE_TRIGGER(z11, Z11_NR_VARIANTS,
	4, 0x00 | Z11_OP_ADD, 0x00, 0x00 | Z11_OP_DRAIN, 0x00,
	0x10 | Z11_OP_ADD, 0x01, 0x10 | Z11_OP_INVAL, 0x00,
);

const struct weft_scenario weft_scn_z11_lru_drain_all = {
	.name = "z11-lru-drain-all",
	.summary = "Z11: lru_add_drain_all()'s piggyback skips a drain that never saw the "
		   "caller's batched page (generation bumped after the loop)",
	.source = "mm/swap.c __lru_add_drain_all() v5.5-v5.10; \"mm/swap.c: piggyback "
		  "lru_add_drain_all() calls\" (2019), \"mm/swap: Do not abuse the seqcount_t "
		  "latching API\" (2020)",
	WEFT_SCENARIO_ZOO(z11, Z11, Z11_CPUS, 1024, 1),
};
