/*
 * z13_zonelist_seq.c - ZOO Z13: zonelist_update_seq (v6.0 .. v6.3). The
 * seqlock that made page allocation retry when memory hotplug rebuilds
 * the zonelists was written with interrupts enabled and with printk()
 * inside: an interrupt that allocates on the writer's CPU spins for ever
 * in read_seqbegin(), and so does a tty writer on another CPU whose port
 * lock the writer's printk() needs.
 *
 * Sources:
 *  - M. Gorman (for P. Daly's report), "mm/page_alloc: fix race condition
 *    between build_all_zonelists and page allocation" (3d36424b3b58,
 *    v6.0, Aug 2022; backported to stable): an allocation that computed
 *    ac->preferred_zoneref before a memory offline rebuilt the zonelist
 *    iterates from a zoneref that is now NULL and goes OOM although the
 *    zone it wanted has free pages. The fix: zonelist_update_seq, a
 *    seqlock written by __build_all_zonelists() (it replaced the plain
 *    spinlock of "mm, page_alloc: remove stop_machine from
 *    build_all_zonelists", 2017) and read by the allocator's slowpath
 *    (zonelist_iter_begin() at restart, check_retry_zonelist() before the
 *    OOM killer: restart if the zonelist changed).
 *  - T. Handa, "mm/page_alloc: fix potential deadlock on zonelist_update_seq
 *    seqlock" (1007843a9190, v6.4-rc1, Apr 2023; syzbot's circular locking
 *    report; backported with the printk prerequisites): (1) CPU0 in
 *    __build_all_zonelists() holds the seqlock (sequence odd), a timer
 *    interrupt on CPU0 calls kmalloc(GFP_ATOMIC) -> __alloc_pages_slowpath()
 *    -> read_seqbegin(), which "spins forever"; (2) pty_write() on CPU0
 *    holds port->lock and allocates with GFP_ATOMIC (spins on the odd
 *    sequence) while CPU1, the writer, calls printk() from
 *    build_zonelists(), whose console write wants port->lock. The fix:
 *    local_irq_save() and printk_deferred_enter() around write_seqlock()
 *    .. write_sequnlock() (the console output comes after).
 *  - mm/page_alloc.c of v6.1: __alloc_pages_slowpath() (restart:
 *    zonelist_iter_begin(), first_zones_zonelist(), get_page_from_freelist()
 *    from ac->preferred_zoneref; check_retry_cpuset()/check_retry_zonelist()
 *    before __alloc_pages_may_oom()), __build_all_zonelists(),
 *    build_zonelists() (the "Fallback order for Node" pr_info() after the
 *    zonerefs are written), build_zonerefs_node() (populated zones, highest
 *    first, then the NULL terminator); include/linux/seqlock.h.
 *
 * Variants:
 *   noseq  <= v5.19: a plain spinlock around the rebuild, no retry in the
 *          slowpath: a premature OOM (the 2022 race).
 *   z13    v6.0 .. v6.3: the seqlock, written with interrupts on and
 *          printk() inside it: both livelocks of the 2023 commit.
 *   fix    v6.4: local_irq_save() + printk_deferred_enter() around the
 *          write section; the console output after it.
 *
 * Threads and contexts: T0 on CPU0 (memory hotplug under mem_hotplug_lock:
 * offline/online of the movable zone, which rebuilds the zonelist; any
 * thread may, one at a time), T1 on CPU1 (GFP_KERNEL
 * allocations, frees, pty writes that allocate GFP_ATOMIC under
 * port->lock); the hard interrupt `timer` on CPU0 only (pending from the
 * start, raised again by `timer` ops) allocates GFP_ATOMIC and frees.
 * The allocation fast path (get_page_from_freelist() at the low
 * watermark) is not modelled: every allocation here is one that fell to
 * the slowpath, where the zonelist is read.
 *
 * The races:
 *  - noseq (trigger: T0 `offline`, T1 `alloc`): T1 finds ZONE_NORMAL at
 *    zoneref 1 of [MOVABLE, NORMAL] and is preempted (1 preemption); T0
 *    empties ZONE_MOVABLE and rebuilds [NORMAL, NULL]; T1 iterates from
 *    zoneref 1: nothing, and goes OOM with free pages in ZONE_NORMAL.
 *  - z13 (trigger: T0 `offline`): the timer interrupt is delivered on CPU0
 *    inside T0's write section (1 delivery, counted like a preemption):
 *    its read_seqbegin() spins on an odd sequence whose writer is the
 *    thread it interrupted. With T1 `tty` instead: T0 is preempted in the
 *    section (1), T1 takes port->lock and spins in read_seqbegin(), T0's
 *    printk() waits for port->lock.
 * The fix's writer cannot be interrupted, prints nothing under the
 * seqlock, and the readers' retry covers the rebuild: dfs bound 2 and
 * random stay silent.
 *
 * Detectors: livelock (a context spins alone in read_seqbegin(): no other
 * thread can run to end the write section; the kernel's symptom is a hard
 * or soft lockup); the premature-OOM oracle: a GFP_KERNEL allocation that
 * reaches the OOM killer while ZONE_NORMAL, which it may use, has free
 * pages is an `assertion` (no allocation here can exhaust ZONE_NORMAL).
 * Audits at quiescence: the zonelist names exactly the populated zones,
 * the sequence is even, no deferred console output is left, and pages are
 * conserved per zone (free + allocated == managed). lockdep-lite sees no
 * inversion: seqlock readers take no lock (the kernel's lockdep annotates
 * them; this model does not).
 *
 * Ops (per thread, up to Z13_MAX_OPS):
 *   offline    offline_pages() of ZONE_MOVABLE's last block, then
 *              build_all_zonelists() (nothing if it is offline)
 *   online     online_pages() of it, then build_all_zonelists()
 *   alloc      alloc_pages(GFP_KERNEL): keeps the page
 *   free       frees a page this thread keeps
 *   tty        pty_write(): port->lock (irqsave), kmalloc(GFP_ATOMIC)
 *              (its page freed at once), unlock
 *   timer      raises the timer interrupt (CPU0)
 *
 * Locks: mem_hotplug_lock (mutex) -> zone->lock; mem_hotplug_lock ->
 * zonelist_update_seq.lock (or the v5.19 build lock) -> port->lock (the
 * writer's printk(), all but the fix); port->lock -> zone->lock (pty
 * writes). zone->lock and port->lock are taken with interrupts off.
 */
#include <weft/kernel.h>
#include <weft/scenario.h>

#define Z13_CPUS 2
#define Z13_THREADS 2
#define Z13_MAX_OPS 4
#define Z13_ZONEREFS 3

enum { Z13_V_NOSEQ, Z13_V_BUGGY, Z13_V_FIX, Z13_NR_VARIANTS };

enum { Z13_OP_OFFLINE, Z13_OP_ONLINE, Z13_OP_ALLOC, Z13_OP_FREE, Z13_OP_TTY, Z13_OP_TIMER,
       Z13_NR_OPS };

/* zone ids (enum zone_type order); 0 is the zonelist's NULL terminator */
enum { Z13_ZONE_NONE, Z13_ZONE_NORMAL, Z13_ZONE_MOVABLE, Z13_NR_ZONES };

#define Z13_NORMAL_PAGES 16    /* more than the workload can allocate */
#define Z13_MOVABLE_PAGES 1

#define Z13_STATS(X)                                                           \
	X(ALLOC, "alloc_pages")                                               \
	X(ALLOC_ATOMIC, "alloc_pages_atomic")                                 \
	X(ATOMIC_FAILED, "atomic_allocation_failed")                          \
	X(RESTART, "slowpath_restart_zonelist_changed")                       \
	X(SEQ_SPINS, "read_seqbegin_spins")                                   \
	X(BUILD, "build_all_zonelists")                                       \
	X(PRINTK_CONSOLE, "printk_console_writes")                            \
	X(PRINTK_DEFERRED, "printk_deferred")

enum z13_stat {
#define __Z13_STAT_ENUM(e, s) Z13_STAT_##e,
	Z13_STATS(__Z13_STAT_ENUM)
#undef __Z13_STAT_ENUM
	Z13_NR_STATS
};

static const char *const z13_stat_names[Z13_NR_STATS] = {
#define __Z13_STAT_NAME(e, s) s,
	Z13_STATS(__Z13_STAT_NAME)
#undef __Z13_STAT_NAME
};

struct z13_zone {
	spinlock_t lock;                /* zone->lock: free, managed */
	unsigned free;
	unsigned managed;
};

/* seqlock_t: the writers' spinlock and the sequence */
struct z13_seqlock {
	spinlock_t lock;
	unsigned sequence;
};

struct z13_world {
	unsigned variant;
	/* the decoded workload: written by setup, read-only afterwards */
	unsigned nr_ops[Z13_THREADS];
	struct weft_op ops[Z13_THREADS][Z13_MAX_OPS];
	struct z13_zone zones[Z13_NR_ZONES];
	/* NODE_DATA(0)->node_zonelists[ZONELIST_FALLBACK]._zonerefs */
	uint8_t zonerefs[Z13_ZONEREFS + 1];
	struct z13_seqlock zonelist_update_seq;     /* v6.0+ */
	spinlock_t build_lock;                      /* <= v5.19 */
	spinlock_t port_lock;                       /* the tty port's (console) */
	unsigned console_chars;                     /* what the console wrote */
	atomic_t printk_pending;                    /* deferred output (fix) */
	struct weft_mutex mem_hotplug_lock;         /* mem_hotplug_begin() */
	/* pages each context keeps (T0, T1; the handler frees its own): the
	 * allocator's bookkeeping, thread-private */
	unsigned held[Z13_THREADS];
	unsigned long stat[Z13_THREADS + 1][Z13_NR_STATS];
};

WEFT_SCENARIO_STAT_FNS_CTX(z13, Z13)

static void z13_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z13_world *W = w;

	WEFT_SCENARIO_SETUP_START(Z13, W, variant, wl, Z13_V_FIX);
	for (unsigned z = 1; z < Z13_NR_ZONES; z++)
		spin_lock_init(&W->zones[z].lock);
	W->zones[Z13_ZONE_NORMAL].free = W->zones[Z13_ZONE_NORMAL].managed = Z13_NORMAL_PAGES;
	W->zones[Z13_ZONE_MOVABLE].free = W->zones[Z13_ZONE_MOVABLE].managed = Z13_MOVABLE_PAGES;
	/* the fallback zonelist, highest zone first */
	W->zonerefs[0] = Z13_ZONE_MOVABLE;
	W->zonerefs[1] = Z13_ZONE_NORMAL;
	spin_lock_init(&W->zonelist_update_seq.lock);
	spin_lock_init(&W->build_lock);
	spin_lock_init(&W->port_lock);
	mutex_init(&W->mem_hotplug_lock);
}

/* ------------------------------------------------------------- seqlock */

/* read_seqbegin(): spin while a writer is inside (odd sequence). */
static unsigned z13_read_seqbegin(struct z13_world *W)
{
	unsigned seq;

	for (;;) {
		seq = READ_ONCE(W->zonelist_update_seq.sequence);
		if (!(seq & 1))
			break;
		z13_stat(W, Z13_STAT_SEQ_SPINS);
		cpu_relax();
	}
	smp_rmb();
	return seq;
}

static bool z13_read_seqretry(struct z13_world *W, unsigned start)
{
	smp_rmb();
	return READ_ONCE(W->zonelist_update_seq.sequence) != start;
}

/* zonelist_iter_begin() / check_retry_zonelist() of v6.0 (with
 * CONFIG_MEMORY_HOTREMOVE); nothing before. */
static unsigned z13_zonelist_iter_begin(struct z13_world *W)
{
	return W->variant == Z13_V_NOSEQ ? 0 : z13_read_seqbegin(W);
}

static bool z13_check_retry_zonelist(struct z13_world *W, unsigned seq)
{
	return W->variant != Z13_V_NOSEQ && z13_read_seqretry(W, seq);
}

/* --------------------------------------------------------- the console */

/* The console write of a printk(): the tty port's lock, interrupts off. */
static void z13_console_write(struct z13_world *W)
{
	unsigned long flags;

	spin_lock_irqsave(&W->port_lock, flags);
	WRITE_ONCE(W->console_chars, READ_ONCE(W->console_chars) + 1);
	spin_unlock_irqrestore(&W->port_lock, flags);
	z13_stat(W, Z13_STAT_PRINTK_CONSOLE);
}

/* pr_info("Fallback order for Node %d: ") of build_zonelists(): printed
 * now, or, inside printk_deferred_enter(), queued for later. */
static void z13_printk(struct z13_world *W)
{
	if (W->variant == Z13_V_FIX) {
		atomic_inc(&W->printk_pending);
		z13_stat(W, Z13_STAT_PRINTK_DEFERRED);
	} else {
		z13_console_write(W);
	}
}

/* ------------------------------------------------ build_all_zonelists */

/* build_zonelists() -> build_zonerefs_node(): populated zones, highest
 * first, then the terminator; then the fallback order is printed. */
static void z13_build_zonelists(struct z13_world *W)
{
	unsigned j = 0;

	for (unsigned z = Z13_NR_ZONES - 1; z >= 1; z--)
		if (READ_ONCE(W->zones[z].managed))
			WRITE_ONCE(W->zonerefs[j++], (uint8_t)z);
	while (j < Z13_ZONEREFS)
		WRITE_ONCE(W->zonerefs[j++], (uint8_t)Z13_ZONE_NONE);
	z13_printk(W);
}

static void z13_build_all_zonelists(struct z13_world *W)
{
	struct z13_seqlock *sl = &W->zonelist_update_seq;
	unsigned long flags = 0;

	z13_stat(W, Z13_STAT_BUILD);
	if (W->variant == Z13_V_NOSEQ) {
		/* v5.19 __build_all_zonelists(): static DEFINE_SPINLOCK(lock) */
		spin_lock(&W->build_lock);
		z13_build_zonelists(W);
		spin_unlock(&W->build_lock);
		return;
	}
	if (W->variant == Z13_V_FIX) {
		/* no interrupt handler may allocate (and spin) on this CPU
		 * while the sequence is odd; no printk() may need a console
		 * lock an allocator holds */
		local_irq_save(flags);
		/* printk_deferred_enter(): counted by printk_pending */
	}
	/* write_seqlock() */
	spin_lock(&sl->lock);
	WRITE_ONCE(sl->sequence, READ_ONCE(sl->sequence) + 1);
	smp_wmb();
	z13_build_zonelists(W);
	/* write_sequnlock() */
	smp_wmb();
	WRITE_ONCE(sl->sequence, READ_ONCE(sl->sequence) + 1);
	spin_unlock(&sl->lock);
	if (W->variant == Z13_V_FIX) {
		/* printk_deferred_exit(); local_irq_restore(): the deferred
		 * output reaches the console afterwards */
		local_irq_restore(flags);
		while (atomic_add_unless(&W->printk_pending, -1, 0))
			z13_console_write(W);
	}
}

/* offline_pages()/online_pages() of ZONE_MOVABLE's only block, under
 * mem_hotplug_lock (one hotplug operation at a time): the zone empties (or
 * fills) under zone->lock, then the zonelists are rebuilt. */
static void z13_hotplug(struct z13_world *W, bool online)
{
	struct z13_zone *z = &W->zones[Z13_ZONE_MOVABLE];
	unsigned long flags;
	bool changed = false;

	mutex_lock(&W->mem_hotplug_lock);               /* mem_hotplug_begin() */
	spin_lock_irqsave(&z->lock, flags);
	if (online && !READ_ONCE(z->managed)) {
		WRITE_ONCE(z->managed, Z13_MOVABLE_PAGES);
		WRITE_ONCE(z->free, Z13_MOVABLE_PAGES);
		changed = true;
	} else if (!online && READ_ONCE(z->managed)) {
		/* its one page is free: nothing of the movable zone is
		 * ever allocated here (GFP_KERNEL and GFP_ATOMIC may not) */
		WRITE_ONCE(z->free, 0u);
		WRITE_ONCE(z->managed, 0u);
		changed = true;
	}
	spin_unlock_irqrestore(&z->lock, flags);
	if (changed)
		z13_build_all_zonelists(W);
	mutex_unlock(&W->mem_hotplug_lock);             /* mem_hotplug_done() */
}

/* ------------------------------------------------------ the allocator */

/* rmqueue() from one zone: zone->lock with interrupts off. */
static bool z13_rmqueue(struct z13_world *W, unsigned zid)
{
	struct z13_zone *z = &W->zones[zid];
	unsigned long flags;
	bool got = false;
	unsigned free;

	spin_lock_irqsave(&z->lock, flags);
	free = READ_ONCE(z->free);
	if (free) {
		WRITE_ONCE(z->free, free - 1);
		got = true;
	}
	spin_unlock_irqrestore(&z->lock, flags);
	return got;
}

static void z13_free_page(struct z13_world *W)
{
	struct z13_zone *z = &W->zones[Z13_ZONE_NORMAL];
	unsigned long flags;

	spin_lock_irqsave(&z->lock, flags);
	WRITE_ONCE(z->free, READ_ONCE(z->free) + 1);
	spin_unlock_irqrestore(&z->lock, flags);
}

/*
 * __alloc_pages_slowpath() for an order-0 allocation whose highest zone
 * is ZONE_NORMAL (GFP_KERNEL, GFP_ATOMIC). Returns whether it got a page.
 */
static bool z13_alloc(struct z13_world *W, bool atomic)
{
	for (;;) {
		/* restart: */
		unsigned cookie = z13_zonelist_iter_begin(W);
		unsigned pref = 0;
		uint8_t zid;

		/* first_zones_zonelist(): the first zone we may use */
		while (pref < Z13_ZONEREFS) {
			zid = READ_ONCE(W->zonerefs[pref]);
			if (zid == Z13_ZONE_NONE || zid <= Z13_ZONE_NORMAL)
				break;
			pref++;
		}
		/* get_page_from_freelist() from ac->preferred_zoneref (the
		 * direct reclaim and compaction retries walk the same way
		 * and free nothing here) */
		for (unsigned i = pref; i < Z13_ZONEREFS; i++) {
			zid = READ_ONCE(W->zonerefs[i]);
			if (zid == Z13_ZONE_NONE)
				break;
			if (zid <= Z13_ZONE_NORMAL && z13_rmqueue(W, zid)) {
				z13_stat(W, atomic ? Z13_STAT_ALLOC_ATOMIC : Z13_STAT_ALLOC);
				return true;
			}
		}
		if (atomic) {
			/* GFP_ATOMIC: no reclaim, no OOM killer, no retry */
			z13_stat(W, Z13_STAT_ATOMIC_FAILED);
			return false;
		}
		/* before the OOM killer: check_retry_cpuset() ||
		 * check_retry_zonelist() -> goto restart */
		if (z13_check_retry_zonelist(W, cookie)) {
			z13_stat(W, Z13_STAT_RESTART);
			continue;
		}
		break;
	}
	/* __alloc_pages_may_oom(): the oracle asks whether this OOM is
	 * premature (ZONE_NORMAL has pages no allocation here can exhaust) */
	unsigned free = weft_peek(W->zones[Z13_ZONE_NORMAL].free);
	if (free) {
		struct weft_access other = weft_last_write(&W->zonerefs[1]);

		weft_report2(WEFT_KIND_ASSERT, &W->zonerefs[1],
			     WEFT_SITE(WEFT_EV_NOTE, "__alloc_pages_may_oom: a GFP_KERNEL allocation "
				       "goes OOM with free pages in ZONE_NORMAL"),
			     &other,
			     "premature OOM: the allocation walked the zonelist from a zoneref the "
			     "rebuild emptied; ZONE_NORMAL has %u free pages", free);
	}
	return false;
}

/* pty_write() -> tty_insert_flip_string_and_push_buffer(): port->lock
 * held, a GFP_ATOMIC buffer allocation (freed by the consumer: here at
 * once). */
static void z13_tty_write(struct z13_world *W)
{
	unsigned long flags;
	bool got;

	spin_lock_irqsave(&W->port_lock, flags);
	got = z13_alloc(W, true);
	spin_unlock_irqrestore(&W->port_lock, flags);
	if (got)
		z13_free_page(W);
}

/* The timer interrupt: kmalloc(GFP_ATOMIC) that falls to the page
 * allocator's slowpath, and the kfree() of it. */
static void z13_timer(void *w, unsigned irq)
{
	struct z13_world *W = w;

	(void)irq;
	if (z13_alloc(W, true))
		z13_free_page(W);
}

static void z13_thread(void *w, unsigned tid)
{
	struct z13_world *W = w;

	WEFT_FOR_EACH_OP(op, W->ops[tid], W->nr_ops[tid], "z13 workload op") {
		switch (op->code % Z13_NR_OPS) {
		case Z13_OP_OFFLINE:
			z13_hotplug(W, false);
			break;
		case Z13_OP_ONLINE:
			z13_hotplug(W, true);
			break;
		case Z13_OP_ALLOC:
			if (z13_alloc(W, false))
				W->held[tid]++;
			break;
		case Z13_OP_FREE:
			if (W->held[tid]) {
				W->held[tid]--;
				z13_free_page(W);
			}
			break;
		case Z13_OP_TTY:
			z13_tty_write(W);
			break;
		case Z13_OP_TIMER:
			WEFT_IRQ_RAISE(0);
			break;
		}
	}
}

/* ------------------------------------------------------------- audits */

static void z13_quiesce(void *w)
{
	struct z13_world *W = w;
	unsigned j = 0, held = 0;

	if (weft_peek(W->zonelist_update_seq.sequence) & 1) {
		weft_report(WEFT_KIND_ASSERT, &W->zonelist_update_seq.sequence,
			    WEFT_SITE(WEFT_EV_NOTE, "audit: zonelist_update_seq is even"),
			    "zonelist_update_seq ends odd: a write section never closed");
		return;
	}
	if (weft_peek(W->printk_pending.counter)) {
		weft_report(WEFT_KIND_ASSERT, &W->printk_pending,
			    WEFT_SITE(WEFT_EV_NOTE, "audit: deferred printk output reached the console"),
			    "%d deferred printk() lines were never written",
			    weft_peek(W->printk_pending.counter));
		return;
	}
	for (unsigned z = Z13_NR_ZONES - 1; z >= 1; z--) {
		if (!weft_peek(W->zones[z].managed))
			continue;
		if (weft_peek(W->zonerefs[j]) != z) {
			weft_report(WEFT_KIND_ASSERT, &W->zonerefs[j],
				    WEFT_SITE(WEFT_EV_NOTE, "audit: the zonelist names the populated zones"),
				    "zoneref %u is zone %u, populated zone %u expected", j,
				    weft_peek(W->zonerefs[j]), z);
			return;
		}
		j++;
	}
	if (j < Z13_ZONEREFS && weft_peek(W->zonerefs[j]) != Z13_ZONE_NONE) {
		weft_report(WEFT_KIND_ASSERT, &W->zonerefs[j],
			    WEFT_SITE(WEFT_EV_NOTE, "audit: the zonelist names the populated zones"),
			    "zoneref %u names zone %u after the populated zones", j,
			    weft_peek(W->zonerefs[j]));
		return;
	}
	for (unsigned t = 0; t < Z13_THREADS; t++)
		held += W->held[t];
	if (weft_peek(W->zones[Z13_ZONE_NORMAL].free) + held != Z13_NORMAL_PAGES)
		weft_report(WEFT_KIND_PAGE_LEAK, &W->zones[Z13_ZONE_NORMAL].free,
			    WEFT_SITE(WEFT_EV_NOTE, "audit: ZONE_NORMAL free + allocated == managed"),
			    "ZONE_NORMAL: %u free, %u allocated, %u managed",
			    weft_peek(W->zones[Z13_ZONE_NORMAL].free), held, Z13_NORMAL_PAGES);
}

/* ------------------------------------------------- describe, buckets */

static void z13_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	static const char *const zone_names[Z13_NR_ZONES] = { "?", "Normal", "Movable" };
	const struct z13_world *W = w;
	uint32_t zo = (uint32_t)offsetof(struct z13_world, zones);
	uint32_t zr = (uint32_t)offsetof(struct z13_world, zonerefs);
	uint32_t sq = (uint32_t)offsetof(struct z13_world, zonelist_update_seq);

	if (off >= zo && off < zo + sizeof(W->zones)) {
		unsigned z = (unsigned)((off - zo) / sizeof(W->zones[0]));
		uint32_t f = off - zo - z * (uint32_t)sizeof(W->zones[0]);

		snprintf(buf, n, "zone %s %s", zone_names[z],
			 f < sizeof(spinlock_t) ? "->lock"
			 : f < offsetof(struct z13_zone, managed) ? "->free" : "->managed");
	} else if (off >= zr && off < zr + sizeof(W->zonerefs)) {
		snprintf(buf, n, "zonelist zoneref %u", off - zr);
	} else if (off >= sq && off < sq + sizeof(W->zonelist_update_seq)) {
		snprintf(buf, n, "zonelist_update_seq%s",
			 off - sq < sizeof(spinlock_t) ? ".lock" : ".sequence");
	} else if (off >= offsetof(struct z13_world, build_lock) &&
		   off < offsetof(struct z13_world, build_lock) + sizeof(spinlock_t)) {
		snprintf(buf, n, "__build_all_zonelists lock");
	} else if (off >= offsetof(struct z13_world, port_lock) &&
		   off < offsetof(struct z13_world, port_lock) + sizeof(spinlock_t)) {
		snprintf(buf, n, "tty port->lock");
	} else if (off == offsetof(struct z13_world, console_chars)) {
		snprintf(buf, n, "console output");
	} else if (off == offsetof(struct z13_world, printk_pending)) {
		snprintf(buf, n, "deferred printk output");
	}
}

/* The sequence's parity, the zonerefs' contents, a zone's free count. */
static uint32_t z13_state_bucket(const void *w, uint32_t off)
{
	const struct z13_world *W = w;
	uint32_t zr = (uint32_t)offsetof(struct z13_world, zonerefs);
	uint32_t zo = (uint32_t)offsetof(struct z13_world, zones);

	if (off == offsetof(struct z13_world, zonelist_update_seq.sequence))
		return 0x10000u | (weft_peek(W->zonelist_update_seq.sequence) & 1);
	if (off >= zr && off < zr + sizeof(W->zonerefs))
		return 0x20000u | (uint32_t)weft_peek(W->zonerefs[0]) << 8 |
		       (uint32_t)weft_peek(W->zonerefs[1]) << 4 | weft_peek(W->zonerefs[2]);
	if (off >= zo && off < zo + sizeof(W->zones)) {
		unsigned z = (unsigned)((off - zo) / sizeof(W->zones[0]));
		unsigned free = weft_peek(W->zones[z].free);

		return 0x30000u | z << 8 | (free > 3 ? 3u : free);
	}
	return 0;
}

static const struct weft_irq z13_irqs[] = {
	{ "timer", WEFT_HARDIRQ, 1u << 0, z13_timer, true },
};

static const char *const z13_opnames[Z13_NR_OPS] = {
	"offline", "online", "alloc", "free", "tty", "timer",
};

static const char *const z13_files[] = { "z13_zonelist_seq.c", NULL };

static const struct weft_variant z13_variants[Z13_NR_VARIANTS] = {
	{ "noseq", "Z13-noseq", true,
	  "no zonelist_update_seq: an allocation walks the zonelist from a preferred zoneref "
	  "that a memory offline's rebuild emptied and goes OOM with free pages",
	  "P. Daly's report in M. Gorman, \"mm/page_alloc: fix race condition between "
	  "build_all_zonelists and page allocation\" (v6.0, 2022); v5.19 __alloc_pages_slowpath()",
	  WEFT_KIND_ASSERT, 1, Z13_V_NOSEQ },
	{ "z13", "Z13", true,
	  "write_seqlock(&zonelist_update_seq) with interrupts on and printk() inside: a "
	  "GFP_ATOMIC allocation in an interrupt on the writer's CPU, or under a port->lock the "
	  "writer's printk() needs, spins for ever in read_seqbegin()",
	  "T. Handa, \"mm/page_alloc: fix potential deadlock on zonelist_update_seq seqlock\" "
	  "(v6.4-rc1, 2023); v6.0-v6.3 __build_all_zonelists()",
	  WEFT_KIND_LIVELOCK, 1, Z13_V_BUGGY },
	{ "fix", "Z13-fix", false,
	  "local_irq_save() + printk_deferred_enter() around the write section; the readers "
	  "retry the slowpath when the zonelist changed",
	  "mm/page_alloc.c __build_all_zonelists(), __alloc_pages_slowpath(), v6.4",
	  WEFT_KIND_NONE, 0, Z13_V_FIX },
};

/*
 * Triggers (bytes encoding). noseq: T0 offline, T1 alloc; T1 runs first
 * (decision 0: a free choice at the start) and at decision 2, after it
 * found ZONE_NORMAL at zoneref 1, T0 runs instead (the preemption) and
 * rebuilds the zonelist. z13: T0 offline; at decision 18 (T0 holds the
 * seqlock, the sequence odd) the pending timer interrupt is delivered on
 * CPU0 instead (the delivery); the entry at 19 picks among the spinner's
 * yields (free). The fixed variant gets z13's workload.
 */
static const uint8_t z13_noseq_trigger[] = {
	2, 0x00 | Z13_OP_OFFLINE, 0x00, 0x10 | Z13_OP_ALLOC, 0x00,
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00,
};
static const uint8_t z13_trigger[] = {
	1, 0x00 | Z13_OP_OFFLINE, 0x00,
	0x12, 0x00, 0x00, 0x13, 0x00, 0x00,
};
WEFT_SCENARIO_TRIGGERS(z13, Z13_NR_VARIANTS, z13_noseq_trigger, z13_trigger, z13_trigger);

const struct weft_scenario weft_scn_z13_zonelist_seq = {
	.name = "z13-zonelist-seq",
	.summary = "Z13: zonelist_update_seq written with interrupts on and printk() inside: "
		   "read_seqbegin() spins for ever in an interrupt or under port->lock (v6.0-v6.3)",
	.source = "mm/page_alloc.c __build_all_zonelists(), __alloc_pages_slowpath() v5.19-v6.4; "
		  "\"mm/page_alloc: fix race condition between build_all_zonelists and page "
		  "allocation\" (2022), \"mm/page_alloc: fix potential deadlock on "
		  "zonelist_update_seq seqlock\" (2023)",
	WEFT_SCENARIO_ZOO(z13, Z13, Z13_CPUS, 1024, 1),
	.step_budget = 4000,
	.irqs = z13_irqs,
	.nr_irqs = 1,
};
