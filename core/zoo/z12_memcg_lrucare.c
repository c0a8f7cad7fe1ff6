/*
 * z12_memcg_lrucare.c - ZOO Z12: memcg's lrucare charge takes the
 * page_cgroup lock inside the irq-safe zone->lru_lock (v3.3-rc1, 2012),
 * while end-of-writeback rotates pages under zone->lru_lock from
 * interrupt context: an interrupt on the CPU that holds the page_cgroup
 * lock spins on lru_lock, whose holder spins on that page_cgroup lock.
 *
 * Sources:
 *  - KAMEZAWA Hiroyuki, "memcg: simplify corner case handling of LRU."
 *    (36b62ad53949, v3.3-rc1, Jan 2012): __mem_cgroup_commit_charge_lrucare()
 *    for a page that may already be on the LRU (swap cache at swapin,
 *    replace_page_cache_page()): spin_lock_irqsave(&zone->lru_lock), take
 *    the page off the LRU, __mem_cgroup_commit_charge() (which takes
 *    lock_page_cgroup()), put it back, unlock. With "memcg: simplify LRU
 *    handling by new rule" (38c5d72f3ebe): pc->mem_cgroup is only
 *    overwritten while the page is off the LRU.
 *  - H. Dickins, "memcg: fix deadlock by inverting lrucare nesting"
 *    (9ce70c0240d0, v3.3-rc2, Jan 2012): "We have forgotten the rules of
 *    lock nesting: the irq-safe ones must be taken inside the non-irq-safe
 *    ones"; CPU0 holds pc->lock, CPU1 disables interrupts, takes
 *    zone->lru_lock and waits for pc->lock, CPU0 is interrupted and its
 *    handler waits for zone->lru_lock. Found by lockdep once lock_page_cgroup()'s
 *    bit_spin_lock was shadowed by a spin_lock for a debugging session.
 *    The fix: lock_page_cgroup() first, then spin_lock_irq(&zone->lru_lock)
 *    inside __mem_cgroup_commit_charge(..., lrucare).
 *  - mm/swap.c of v3.3: rotate_reclaimable_page() from end_page_writeback()
 *    (interrupt context: bio completion) adds the page to the per-CPU
 *    lru_rotate_pvecs with interrupts masked; a full pagevec is moved with
 *    pagevec_move_tail() under zone->lru_lock (the kit's
 *    weft_folio_rotate_reclaimable(), the lru_move_tail batch; its size is
 *    1 here, so every rotation moves: in the kernel it is every 14th);
 *  - mm/memcontrol.c of v3.3-rc1: __mem_cgroup_uncharge_common() under
 *    lock_page_cgroup() with interrupts enabled (any holder of the page's
 *    pc->lock will do; this one is the model's).
 * The same shape, with mapping->tree_lock (taken by end_page_writeback()
 * from interrupts) in place of lru_lock, was fixed in 2009 by "memcg: fix
 * deadlock between lock_page_cgroup and mapping tree_lock" (e767e0561d7f).
 *
 * lock_page_cgroup() was bit_spin_lock(PCG_LOCK, &pc->flags): invisible
 * to lockdep. The model gives it a spinlock_t, as Hugh Dickins did to find
 * the bug, and as a spinning lock it has the same semantics (preemption
 * off, interrupts untouched).
 *
 * Variants:
 *   z12  lrucare: zone->lru_lock (irqsave) outside lock_page_cgroup().
 *   fix  lock_page_cgroup() outside spin_lock_irq(&zone->lru_lock).
 *
 * Threads and contexts: T0 on CPU0 and T1 on CPU1 (process context); the
 * hard interrupt end_page_writeback on CPU0 only (so plain dfs covers its
 * deliveries: an interrupt that may hit several CPUs picks one with a
 * weft_choose() dfs does not explore), pending from the start for page 3
 * (under writeback with PG_reclaim) and raised again by `writeback` ops.
 *
 * The race (z12; trigger: T0 `uncharge 0`, T1 `swapin 0`): T0 takes page
 * 0's pc->lock (interrupts on) and is preempted (1 preemption); T1 masks
 * interrupts, takes lru_lock, takes page 0 off the LRU and spins on
 * pc->lock; the interrupt is delivered on CPU0 (free: T1 is blocked, T0
 * can run) and rotate_reclaimable_page() of page 3 spins on lru_lock.
 * Deadlock: T1 waits for T0, T0's CPU is held by the handler, the handler
 * waits for T1. Deliveries count like preemptions; this one comes at a
 * switch that is free. Minimal bound 1; bound 0 covers the space.
 *
 * Detectors: the deadlock detector (every thread blocked in a cycle of
 * owners through the interrupt that holds CPU0). lockdep-lite stays
 * silent: lru_lock is never taken with interrupts on, pc->lock never in
 * an interrupt; the kernel's lockdep reports the order "HARDIRQ-safe ->
 * HARDIRQ-unsafe" (lru_lock -> pc->lock) without a deadlock, a rule
 * lockdep-lite does not implement. Audits at quiescence: memcg usage ==
 * the page_cgroups charged to it, pc->mem_cgroup overwritten only off the
 * LRU (checked where it is written), the LRU lists, page references.
 *
 * Ops (per thread, up to Z12_MAX_OPS; page = arg % Z12_PAGES):
 *   swapin p    mem_cgroup_commit_charge_swapin(): charge p to memcg 2
 *               with lrucare (p is on the LRU); nothing if p is charged
 *   uncharge p  __mem_cgroup_uncharge_common(): under lock_page_cgroup(),
 *               interrupts on
 *   writeback p pageout(): SetPageReclaim, set_page_writeback, submit: the
 *               completion interrupt is raised
 *   move p      mem_cgroup_move_account() to memcg 1 (force_empty):
 *               isolate p from the LRU (lru_lock, irq), lock_page_cgroup(),
 *               move the charge, unlock, put it back
 *
 * Locks: v3.3-rc1: lru_lock -> pc->lock (lrucare); fix: pc->lock ->
 * lru_lock. The handler takes lru_lock only (irqs masked).
 */
#include <weft/mm/lru_batch.h>
#include <weft/scenario.h>

#define Z12_CPUS 2
#define Z12_THREADS 2
#define Z12_MAX_OPS 4
#define Z12_PAGES 4
#define Z12_MEMCGS 3            /* 0: none, 1: the parent, 2: the child */
#define Z12_WB_PAGE 3           /* under writeback at setup */

#define PCG_USED 0

enum { Z12_V_BUGGY, Z12_V_FIX, Z12_NR_VARIANTS };

enum { Z12_OP_SWAPIN, Z12_OP_UNCHARGE, Z12_OP_WRITEBACK, Z12_OP_MOVE, Z12_NR_OPS };

#define Z12_STATS(X)                                                           \
	X(CHARGE, "commit_charge_lrucare")                                    \
	X(CHARGE_CANCEL, "commit_charge_already_used")                        \
	X(LRUCARE_OFF, "lrucare_took_off_lru")                                \
	X(UNCHARGE, "uncharge")                                               \
	X(MOVE, "move_account")                                               \
	X(WRITEBACK, "writeback_submitted")                                   \
	X(END_WRITEBACK, "end_page_writeback")                                \
	X(ROTATE, "rotate_reclaimable_page")

enum z12_stat {
#define __Z12_STAT_ENUM(e, s) Z12_STAT_##e,
	Z12_STATS(__Z12_STAT_ENUM)
#undef __Z12_STAT_ENUM
	Z12_NR_STATS
};

static const char *const z12_stat_names[Z12_NR_STATS] = {
#define __Z12_STAT_NAME(e, s) s,
	Z12_STATS(__Z12_STAT_NAME)
#undef __Z12_STAT_NAME
};

/* struct page_cgroup of v3.3: flags (PCG_USED; PCG_LOCK is the spinlock
 * here) and the owner, both under lock. */
struct z12_page_cgroup {
	spinlock_t lock;                /* lock_page_cgroup() */
	unsigned long flags;
	unsigned mem_cgroup;            /* 0 none */
};

struct z12_world {
	unsigned variant;
	/* the decoded workload: written by setup, read-only afterwards */
	unsigned nr_ops[Z12_THREADS];
	struct weft_op ops[Z12_THREADS][Z12_MAX_OPS];
	struct weft_mm mm;
	struct weft_lru lru;            /* lru.lock is zone->lru_lock */
	struct weft_lru_batches b;      /* lru_rotate_pvecs */
	struct z12_page_cgroup pc[Z12_PAGES];
	atomic_t usage[Z12_MEMCGS];     /* res_counter usage, in pages */
	unsigned long stat[Z12_THREADS + 1][Z12_NR_STATS];   /* + the handler */
};

WEFT_SCENARIO_STAT_FNS_CTX(z12, Z12)

static void z12_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z12_world *W = w;

	WEFT_SCENARIO_SETUP_START(Z12, W, variant, wl, Z12_V_FIX);
	weft_lru_batches_setup(&W->b, &W->lru, &W->mm, Z12_PAGES, 1);
	for (unsigned i = 0; i < Z12_PAGES; i++) {
		/* swap-cache pages on the inactive list, charged to memcg 1;
		 * the allocation's reference is the swap cache's */
		struct weft_page *p = weft_page_alloc_at(&W->mm, i);

		weft_page_set(p, lru);
		weft_list_add(&p->lru, &W->lru.inactive);
		spin_lock_init(&W->pc[i].lock);
		set_bit(PCG_USED, &W->pc[i].flags);
		WRITE_ONCE(W->pc[i].mem_cgroup, 1u);
		atomic_inc(&W->usage[1]);
	}
	/* page 3 is being written out by reclaim: its completion is pending */
	weft_page_set(&W->mm.pages[Z12_WB_PAGE], reclaim);
	weft_page_set(&W->mm.pages[Z12_WB_PAGE], writeback);
}

/* ----------------------------------------------------------- the LRU */

/* del_page_from_lru_list() + ClearPageLRU (zone->lru_lock held). */
static void z12_del_from_lru(struct z12_world *W, struct weft_page *p)
{
	(void)W;
	weft_page_clear(p, lru);
	weft_list_del(&p->lru);
}

/* SetPageLRU + add_page_to_lru_list() (zone->lru_lock held). */
static void z12_add_to_lru(struct z12_world *W, struct weft_page *p)
{
	weft_page_set(p, lru);
	weft_list_add(&p->lru, weft_page_test(p, active) ? &W->lru.active : &W->lru.inactive);
}

/* pc->mem_cgroup = memcg; "when pc->mem_cgroup is overwritten, page must
 * not be on LRU" (38c5d72f3ebe). */
static void z12_set_owner(struct z12_world *W, struct weft_page *p, unsigned memcg)
{
	struct z12_page_cgroup *pc = &W->pc[weft_page_nr(&W->mm, p)];

	VM_BUG_ON_OBJ(weft_page_test(p, lru), p);
	WRITE_ONCE(pc->mem_cgroup, memcg);
}

/* ------------------------------------------------------------ charges */

/*
 * __mem_cgroup_commit_charge() (lock_page_cgroup() held by the caller in
 * the model, so both nestings share it): false if pc is already used (the
 * charge is cancelled).
 */
static bool z12_commit_locked(struct z12_world *W, struct weft_page *p, unsigned memcg)
{
	struct z12_page_cgroup *pc = &W->pc[weft_page_nr(&W->mm, p)];

	if (test_bit(PCG_USED, &pc->flags)) {
		z12_stat(W, Z12_STAT_CHARGE_CANCEL);
		return false;
	}
	z12_set_owner(W, p, memcg);
	smp_wmb();
	set_bit(PCG_USED, &pc->flags);
	atomic_inc(&W->usage[memcg]);
	z12_stat(W, Z12_STAT_CHARGE);
	return true;
}

/* v3.3-rc1 __mem_cgroup_commit_charge_lrucare(): the irq-safe lock
 * outside the page_cgroup lock. */
static void z12_commit_lrucare_buggy(struct z12_world *W, struct weft_page *p, unsigned memcg)
{
	struct z12_page_cgroup *pc = &W->pc[weft_page_nr(&W->mm, p)];
	unsigned long flags;
	bool removed = false;

	spin_lock_irqsave(&W->lru.lock, flags);
	if (weft_page_test(p, lru)) {
		z12_del_from_lru(W, p);
		removed = true;
		z12_stat(W, Z12_STAT_LRUCARE_OFF);
	}
	spin_lock(&pc->lock);                           /* lock_page_cgroup() */
	z12_commit_locked(W, p, memcg);
	spin_unlock(&pc->lock);
	if (removed)
		z12_add_to_lru(W, p);
	spin_unlock_irqrestore(&W->lru.lock, flags);
}

/* "memcg: fix deadlock by inverting lrucare nesting": lock_page_cgroup()
 * first, zone->lru_lock (with interrupts off) inside it. */
static void z12_commit_lrucare_fixed(struct z12_world *W, struct weft_page *p, unsigned memcg)
{
	struct z12_page_cgroup *pc = &W->pc[weft_page_nr(&W->mm, p)];
	bool was_on_lru = false;

	spin_lock(&pc->lock);                           /* lock_page_cgroup() */
	if (test_bit(PCG_USED, &pc->flags)) {
		spin_unlock(&pc->lock);
		z12_stat(W, Z12_STAT_CHARGE_CANCEL);
		return;
	}
	spin_lock_irq(&W->lru.lock);
	if (weft_page_test(p, lru)) {
		z12_del_from_lru(W, p);
		was_on_lru = true;
		z12_stat(W, Z12_STAT_LRUCARE_OFF);
	}
	z12_commit_locked(W, p, memcg);
	if (was_on_lru)
		z12_add_to_lru(W, p);
	spin_unlock_irq(&W->lru.lock);
	spin_unlock(&pc->lock);
}

/* mem_cgroup_commit_charge_swapin() of a swap-cache page to memcg 2. */
static void z12_swapin(struct z12_world *W, unsigned tid, unsigned arg)
{
	struct weft_page *p = &W->mm.pages[arg % Z12_PAGES];

	if (W->variant == Z12_V_BUGGY)
		z12_commit_lrucare_buggy(W, p, 2);
	else
		z12_commit_lrucare_fixed(W, p, 2);
}

/* __mem_cgroup_uncharge_common(): the page_cgroup lock with interrupts
 * on. pc->mem_cgroup stays (the LRU accounting still uses it). */
static void z12_uncharge(struct z12_world *W, unsigned tid, unsigned arg)
{
	struct weft_page *p = &W->mm.pages[arg % Z12_PAGES];
	struct z12_page_cgroup *pc = &W->pc[weft_page_nr(&W->mm, p)];
	unsigned memcg;

	spin_lock(&pc->lock);                           /* lock_page_cgroup() */
	if (!test_bit(PCG_USED, &pc->flags)) {
		spin_unlock(&pc->lock);
		return;
	}
	memcg = READ_ONCE(pc->mem_cgroup);
	clear_bit(PCG_USED, &pc->flags);
	atomic_dec(&W->usage[memcg % Z12_MEMCGS]);
	spin_unlock(&pc->lock);
	z12_stat(W, Z12_STAT_UNCHARGE);
}

/* mem_cgroup_move_parent() -> mem_cgroup_move_account() of v3.3: the page
 * is isolated from the LRU first (isolate_lru_page(): lru_lock, irq), the
 * charge moved under lock_page_cgroup(), then putback_lru_page(). Both
 * variants: it never nests the two locks. */
static void z12_move(struct z12_world *W, unsigned tid, unsigned arg)
{
	struct weft_page *p = &W->mm.pages[arg % Z12_PAGES];
	struct z12_page_cgroup *pc = &W->pc[weft_page_nr(&W->mm, p)];
	bool isolated = false;
	unsigned from;

	spin_lock_irq(&W->lru.lock);
	if (weft_page_test(p, lru)) {
		z12_del_from_lru(W, p);
		isolated = true;
	}
	spin_unlock_irq(&W->lru.lock);
	if (!isolated)
		return;
	spin_lock(&pc->lock);                           /* lock_page_cgroup() */
	from = READ_ONCE(pc->mem_cgroup);
	if (test_bit(PCG_USED, &pc->flags) && from != 1) {
		z12_set_owner(W, p, 1);
		atomic_dec(&W->usage[from % Z12_MEMCGS]);
		atomic_inc(&W->usage[1]);
		z12_stat(W, Z12_STAT_MOVE);
	}
	spin_unlock(&pc->lock);
	spin_lock_irq(&W->lru.lock);                    /* putback_lru_page() */
	z12_add_to_lru(W, p);
	spin_unlock_irq(&W->lru.lock);
}

/* pageout() of a reclaim candidate: PG_reclaim, then the writepage that
 * sets PG_writeback and submits; the completion interrupt is raised. */
static void z12_writeback(struct z12_world *W, unsigned tid, unsigned arg)
{
	struct weft_page *p = &W->mm.pages[arg % Z12_PAGES];

	if (weft_page_test(p, writeback))
		return;
	weft_page_set(p, reclaim);
	weft_page_set(p, writeback);
	z12_stat(W, Z12_STAT_WRITEBACK);
	WEFT_IRQ_RAISE(0);
}

/* ------------------------------------------------- the interrupt handler */

/* The bio's completion: end_page_writeback() of every page under
 * writeback (v3.3: TestClearPageReclaim -> rotate_reclaimable_page(), then
 * test_clear_page_writeback()). Hard interrupt context on CPU0. */
static void z12_end_io(void *w, unsigned irq)
{
	struct z12_world *W = w;

	(void)irq;
	for (unsigned i = 0; i < Z12_PAGES; i++) {
		struct weft_page *p = &W->mm.pages[i];

		if (!weft_page_test(p, writeback))
			continue;
		z12_stat(W, Z12_STAT_END_WRITEBACK);
		if (weft_page_test_clear(p, reclaim)) {
			z12_stat(W, Z12_STAT_ROTATE);
			weft_folio_rotate_reclaimable(&W->b, p);
		}
		if (!weft_page_test_clear(p, writeback))
			BUG_ON(1);
	}
}

static void z12_thread(void *w, unsigned tid)
{
	static void (*const handler[Z12_NR_OPS])(struct z12_world *, unsigned, unsigned) = {
		[Z12_OP_SWAPIN] = z12_swapin, [Z12_OP_UNCHARGE] = z12_uncharge,
		[Z12_OP_WRITEBACK] = z12_writeback, [Z12_OP_MOVE] = z12_move };
	struct z12_world *W = w;

	WEFT_RUN_OPS(W, tid, W->ops[tid], W->nr_ops[tid], "z12 workload op", handler, Z12_NR_OPS);
}

/* ------------------------------------------------------------- audits */

static unsigned z12_owners(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct z12_world *W = ctx;

	(void)mm;
	return 1 + weft_lru_batch_refs(&W->b, p);       /* the swap cache's */
}

static void z12_quiesce(void *w)
{
	struct z12_world *W = w;
	unsigned charged[Z12_MEMCGS] = { 0 };

	if (weft_lru_audit(&W->lru))
		return;
	for (unsigned i = 0; i < Z12_PAGES; i++)
		if (weft_peek(W->pc[i].flags) >> PCG_USED & 1)
			charged[weft_peek(W->pc[i].mem_cgroup) % Z12_MEMCGS]++;
	for (unsigned m = 1; m < Z12_MEMCGS; m++) {
		int usage = weft_peek(W->usage[m].counter);

		if (usage == (int)charged[m])
			continue;
		weft_report(WEFT_KIND_ASSERT, &W->usage[m],
			    WEFT_SITE(WEFT_EV_NOTE, "audit: memcg usage == page_cgroups charged to it"),
			    "memcg %u: usage %d, %u pages charged", m, usage, charged[m]);
		return;
	}
	weft_mm_audit_leaks(&W->mm, z12_owners, W);
}

/* ------------------------------------------------- describe, buckets */

static void z12_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z12_world *W = w;
	uint32_t pc = (uint32_t)offsetof(struct z12_world, pc);
	uint32_t us = (uint32_t)offsetof(struct z12_world, usage);

	if (off >= pc && off < pc + sizeof(W->pc)) {
		unsigned i = (unsigned)((off - pc) / sizeof(W->pc[0]));
		uint32_t f = off - pc - i * (uint32_t)sizeof(W->pc[0]);

		snprintf(buf, n, "page %u page_cgroup%s", i,
			 f < sizeof(spinlock_t) ? " lock (PCG_LOCK)"
			 : f < offsetof(struct z12_page_cgroup, mem_cgroup) ? " ->flags"
									 : " ->mem_cgroup");
	} else if (off >= us && off < us + sizeof(W->usage)) {
		snprintf(buf, n, "memcg %u usage", (unsigned)((off - us) / sizeof(W->usage[0])));
	} else if (off >= offsetof(struct z12_world, lru.lock) &&
		   off < offsetof(struct z12_world, lru.lock) + sizeof(spinlock_t)) {
		snprintf(buf, n, "zone->lru_lock");
	} else if (!weft_lru_batches_describe(&W->b, w, off, buf, n) &&
		   !weft_lru_describe(&W->lru, w, off, buf, n)) {
		weft_mm_describe(&W->mm, w, off, buf, n);
	}
}

/* A page_cgroup: used and owner; a page field: the page model's bucket. */
static uint32_t z12_state_bucket(const void *w, uint32_t off)
{
	const struct z12_world *W = w;
	uint32_t pc = (uint32_t)offsetof(struct z12_world, pc);

	if (off >= pc && off < pc + sizeof(W->pc)) {
		unsigned i = (unsigned)((off - pc) / sizeof(W->pc[0]));

		return 0x10000u | i << 8 | (unsigned)(weft_peek(W->pc[i].flags) & 1) << 4 |
		       (weft_peek(W->pc[i].mem_cgroup) & 0xf);
	}
	return weft_mm_state_bucket(&W->mm, w, off);
}

static const struct weft_irq z12_irqs[] = {
	{ "end_page_writeback", WEFT_HARDIRQ, 1u << 0, z12_end_io, true },
};

static const char *const z12_opnames[Z12_NR_OPS] = {
	"swapin", "uncharge", "writeback", "move",
};

static const char *const z12_files[] = {
	"z12_memcg_lrucare.c", "mm_lru_batch.c", "lru_batch.h", "mm_lru.c", "mm_page.c",
	NULL,
};

static const struct weft_variant z12_variants[Z12_NR_VARIANTS] = {
	{ "z12", "Z12", true,
	  "__mem_cgroup_commit_charge_lrucare() takes lock_page_cgroup() inside the irq-safe "
	  "zone->lru_lock; end_page_writeback()'s rotation takes lru_lock in an interrupt on "
	  "the CPU holding that page_cgroup lock",
	  "KAMEZAWA H., \"memcg: simplify corner case handling of LRU.\" (v3.3-rc1, 2012); fixed "
	  "by H. Dickins, \"memcg: fix deadlock by inverting lrucare nesting\" (v3.3-rc2)",
	  /* what lockdep-lite (on by default) reports in the first execution,
	   * as the kernel's lockdep did; the deadlock itself needs
	   * --no-lockdep and one preemption (tests/mm_z12) */
	  WEFT_KIND_IRQ_LOCK_INVERSION, 0, Z12_V_BUGGY },
	{ "fix", "Z12-fix", false,
	  "lock_page_cgroup() outside spin_lock_irq(&zone->lru_lock)",
	  "H. Dickins, \"memcg: fix deadlock by inverting lrucare nesting\", mm/memcontrol.c v3.3",
	  WEFT_KIND_NONE, 0, Z12_V_FIX },
};

/*
 * Trigger (bytes encoding): T0 uncharge 0, T1 swapin 0. At decision 5
 * (T0 holds page 0's page_cgroup lock, interrupts on) run T1 instead (the
 * preemption): T1 masks interrupts, takes lru_lock and spins on the
 * page_cgroup lock; at decision 15 (T1 blocked: a free switch) deliver
 * the pending end_page_writeback on CPU0 instead of resuming T0: its
 * rotation spins on lru_lock. The fixed variant gets the same workload.
 */
WEFT_SCENARIO_ONE_TRIGGER(z12, Z12_NR_VARIANTS,
	2, 0x00 | Z12_OP_UNCHARGE, 0x00, 0x10 | Z12_OP_SWAPIN, 0x00,
	0x05, 0x00, 0x00, 0x0f, 0x00, 0x00,
);

const struct weft_scenario weft_scn_z12_memcg_lrucare = {
	.name = "z12-memcg-lrucare",
	.summary = "Z12: memcg lrucare charge nests page_cgroup lock inside zone->lru_lock; "
		   "end_page_writeback rotates under lru_lock from an interrupt (v3.3-rc1)",
	.source = "mm/memcontrol.c __mem_cgroup_commit_charge_lrucare() v3.3-rc1; \"memcg: fix "
		  "deadlock by inverting lrucare nesting\" (2012); mm/swap.c rotate_reclaimable_page()",
	WEFT_SCENARIO_ZOO(z12, Z12, Z12_CPUS, 1024, 1),
	.irqs = z12_irqs,
	.nr_irqs = 1,
};
