/*
 * lockdep_models.c - lockdep-lite (core/src/primitives/lockdep.c) on the
 * usages the kernel's lockdep reports from the first serial run, before
 * any schedule deadlocks, each bug beside its fix, run through the weft
 * command line of this program (bin/weft-lockdep;
 * tests/lockdep/CMakeLists.txt):
 *
 *  irq-held   T0 updates a device's counters under its lock with
 *             interrupts off; the device's hard interrupt takes the lock
 *             too. reenable (T0 turns interrupts back on with
 *             local_irq_enable() before it unlocks) and nested-irq (an
 *             inner lock taken with spin_lock_irq() inside
 *             spin_lock_irqsave() of the device lock: its
 *             spin_unlock_irq() turns them on with the outer one still
 *             held): irq-lock-inversion at once, the kernel's
 *             "inconsistent {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage" (its
 *             mark_held_locks() on trace_hardirqs_on()), which only an
 *             interrupt at that point turns into a deadlock. unlock-first
 *             and nested-plain (the inner lock taken plainly) are clean.
 *  bh-held    the same with bottom halves: T0 holds the lock a tasklet
 *             (softirq) takes when it calls local_bh_enable()
 *             (reenable: {IN-SOFTIRQ-W} -> {SOFTIRQ-ON-W}); unlock-first
 *             is clean.
 *  irq-reader an rwlock_t read by a hard interrupt and by T0 with
 *             interrupts on, written by T1. write-plain: write_lock()
 *             with interrupts on, irq-lock-inversion at once
 *             ({IN-HARDIRQ-R} -> {HARDIRQ-ON-W}: the interrupt's reader
 *             spins on the writer it interrupted); write-irq:
 *             write_lock_irq(), clean (a read in the interrupt and a read
 *             with it on are consistent: interrupt readers are recursive).
 *  nested-read a read lock taken again by the thread that holds it, with
 *             no writer anywhere. rwsem-twice (down_read() is not
 *             recursive for lockdep) and rwlock-twice (neither is a
 *             process-context read_lock() of queued rwlocks): deadlock at
 *             once, lockdep's "possible recursive locking" (a writer
 *             queued between the two holds would wait for the first and
 *             the second behind it); rwsem-once and rwlock-irq-twice (a
 *             read_lock() nested in an interrupt handler: recursive) are
 *             clean.
 */
#include <weft/kernel.h>
#include <weft/rwlock.h>

#define WEFT_TEST_SOURCE "tests/lockdep"
#define WEFT_TEST_FILE "lockdep_models.c"
#include "../model_driver.h"

/* ---------------------------------------------------------------- irq-held */

enum { IH_REENABLE, IH_NESTED_IRQ, IH_UNLOCK_FIRST, IH_NESTED_PLAIN };

struct ih_world {
	unsigned variant;
	spinlock_t dev_lock;     /* the device's: its interrupt takes it */
	spinlock_t stats_lock;   /* T0's inner lock */
	int rx, tx, dropped;
};

WEFT_TEST_SETUP(ih, struct ih_world)
{
	spin_lock_init(&W->dev_lock);
	spin_lock_init(&W->stats_lock);
}

/* the device's interrupt on CPU0: counts a received packet */
static void ih_rx_irq(void *w, unsigned irq)
{
	struct ih_world *W = w;

	(void)irq;
	spin_lock(&W->dev_lock);
	WRITE_ONCE(W->rx, READ_ONCE(W->rx) + 1);
	spin_unlock(&W->dev_lock);
}

static void ih_thread(void *w, unsigned tid)
{
	struct ih_world *W = w;
	unsigned long flags;

	(void)tid;
	switch (W->variant) {
	case IH_REENABLE:
	case IH_UNLOCK_FIRST:
		local_irq_disable();
		spin_lock(&W->dev_lock);
		WRITE_ONCE(W->tx, READ_ONCE(W->tx) + 1);
		if (W->variant == IH_REENABLE) {
			local_irq_enable();   /* dev_lock still held */
			spin_unlock(&W->dev_lock);
		} else {
			spin_unlock(&W->dev_lock);
			local_irq_enable();
		}
		break;
	default:
		spin_lock_irqsave(&W->dev_lock, flags);
		if (W->variant == IH_NESTED_IRQ) {
			spin_lock_irq(&W->stats_lock);
			WRITE_ONCE(W->dropped, READ_ONCE(W->dropped) + 1);
			spin_unlock_irq(&W->stats_lock);   /* interrupts on, dev_lock held */
		} else {
			spin_lock(&W->stats_lock);
			WRITE_ONCE(W->dropped, READ_ONCE(W->dropped) + 1);
			spin_unlock(&W->stats_lock);
		}
		WRITE_ONCE(W->tx, READ_ONCE(W->tx) + 1);
		spin_unlock_irqrestore(&W->dev_lock, flags);
		break;
	}
}

static const struct weft_irq ih_irqs[] = {
	{ "rx", WEFT_HARDIRQ, 1u << 0, ih_rx_irq, true },
};

static const struct weft_variant ih_variants[] = {
	WEFT_TEST_BUG("reenable", "local_irq_enable() with the device lock held",
	              WEFT_KIND_IRQ_LOCK_INVERSION, IH_REENABLE),
	WEFT_TEST_BUG("nested-irq", "spin_unlock_irq() of an inner lock inside spin_lock_irqsave()",
	              WEFT_KIND_IRQ_LOCK_INVERSION, IH_NESTED_IRQ),
	WEFT_TEST_FIX("unlock-first", "the device lock released before interrupts come back",
	              IH_UNLOCK_FIRST),
	WEFT_TEST_FIX("nested-plain", "the inner lock taken plainly inside spin_lock_irqsave()",
	              IH_NESTED_PLAIN),
};

WEFT_TEST_SCENARIO(irq_held, "irq-held",
		   "test: a lock an interrupt takes, held when interrupts come back on",
		   struct ih_world, 1, 1, 32, ih,
		   .irqs = ih_irqs,
		   .nr_irqs = 1);

/* ----------------------------------------------------------------- bh-held */

enum { BH_REENABLE, BH_UNLOCK_FIRST };

struct bh_world {
	unsigned variant;
	spinlock_t queue_lock;   /* the tasklet takes it */
	int queued, done;
};

WEFT_TEST_SETUP(bh, struct bh_world)
{
	spin_lock_init(&W->queue_lock);
}

/* the tasklet on CPU0: completes what is queued */
static void bh_tasklet(void *w, unsigned irq)
{
	struct bh_world *W = w;

	(void)irq;
	spin_lock(&W->queue_lock);
	WRITE_ONCE(W->done, READ_ONCE(W->queued));
	spin_unlock(&W->queue_lock);
}

static void bh_thread(void *w, unsigned tid)
{
	struct bh_world *W = w;

	(void)tid;
	local_bh_disable();
	spin_lock(&W->queue_lock);
	WRITE_ONCE(W->queued, READ_ONCE(W->queued) + 1);
	if (W->variant == BH_REENABLE) {
		local_bh_enable();   /* queue_lock still held */
		spin_unlock(&W->queue_lock);
	} else {
		spin_unlock(&W->queue_lock);
		local_bh_enable();
	}
}

static const struct weft_irq bh_irqs[] = {
	{ "tasklet", WEFT_SOFTIRQ, 1u << 0, bh_tasklet, true },
};

static const struct weft_variant bh_variants[] = {
	WEFT_TEST_BUG("reenable", "local_bh_enable() with the tasklet's lock held",
	              WEFT_KIND_IRQ_LOCK_INVERSION, BH_REENABLE),
	WEFT_TEST_FIX("unlock-first", "the lock released before bottom halves come back",
	              BH_UNLOCK_FIRST),
};

WEFT_TEST_SCENARIO(bh_held, "bh-held",
		   "test: a lock a softirq takes, held when bottom halves come back on",
		   struct bh_world, 1, 1, 32, bh,
		   .irqs = bh_irqs,
		   .nr_irqs = 1);

/* -------------------------------------------------------------- irq-reader */

enum { IR_WRITE_PLAIN, IR_WRITE_IRQ };

struct ir_world {
	unsigned variant;
	rwlock_t routes;   /* read by the packet interrupt and by T0, written by T1 */
	int gateway;
};

WEFT_TEST_SETUP(ir, struct ir_world)
{
	rwlock_init(&W->routes);
}

/* the packet interrupt on CPU1: looks the route up */
static void ir_packet_irq(void *w, unsigned irq)
{
	struct ir_world *W = w;

	(void)irq;
	read_lock(&W->routes);
	(void)READ_ONCE(W->gateway);
	read_unlock(&W->routes);
}

static void ir_thread(void *w, unsigned tid)
{
	struct ir_world *W = w;

	if (tid == 0) {   /* a reader with interrupts on: consistent with the IRQ's reads */
		read_lock(&W->routes);
		(void)READ_ONCE(W->gateway);
		read_unlock(&W->routes);
		return;
	}
	if (W->variant == IR_WRITE_PLAIN) {
		write_lock(&W->routes);
		WRITE_ONCE(W->gateway, 1);
		write_unlock(&W->routes);
	} else {
		write_lock_irq(&W->routes);
		WRITE_ONCE(W->gateway, 1);
		write_unlock_irq(&W->routes);
	}
}

static const struct weft_irq ir_irqs[] = {
	{ "packet", WEFT_HARDIRQ, 1u << 1, ir_packet_irq, true },
};

static const struct weft_variant ir_variants[] = {
	WEFT_TEST_BUG("write-plain", "write_lock() with interrupts on, read_lock() in the interrupt",
	              WEFT_KIND_IRQ_LOCK_INVERSION, IR_WRITE_PLAIN),
	WEFT_TEST_FIX("write-irq", "write_lock_irq(); readers with interrupts on and in the interrupt",
	              IR_WRITE_IRQ),
};

WEFT_TEST_SCENARIO(irq_reader, "irq-reader",
		   "test: an rwlock read in a hard interrupt and written elsewhere",
		   struct ir_world, 2, 2, 32, ir,
		   .irqs = ir_irqs,
		   .nr_irqs = 1);

/* ------------------------------------------------------------- nested-read */

enum { NR_RWSEM_TWICE, NR_RWSEM_ONCE, NR_RWLOCK_TWICE, NR_RWLOCK_IRQ_TWICE };

struct nr_world {
	unsigned variant;
	struct rw_semaphore sb_lock;
	rwlock_t map_lock;
	int mounted, mapped;
};

WEFT_TEST_SETUP(nr, struct nr_world)
{
	init_rwsem(&W->sb_lock);
	rwlock_init(&W->map_lock);
}

static int nr_lookup(struct nr_world *W)
{
	int m;

	down_read(&W->sb_lock);
	m = READ_ONCE(W->mounted);
	up_read(&W->sb_lock);
	return m;
}

static int nr_map(struct nr_world *W)
{
	int m;

	read_lock(&W->map_lock);
	m = READ_ONCE(W->mapped);
	read_unlock(&W->map_lock);
	return m;
}

/* the timer interrupt on CPU0: the mapping looked up twice, nested (a
 * recursive read in interrupt context) */
static void nr_timer(void *w, unsigned irq)
{
	struct nr_world *W = w;

	(void)irq;
	if (W->variant != NR_RWLOCK_IRQ_TWICE)
		return;
	read_lock(&W->map_lock);
	(void)nr_map(W);
	read_unlock(&W->map_lock);
}

static void nr_thread(void *w, unsigned tid)
{
	struct nr_world *W = w;

	(void)tid;
	switch (W->variant) {
	case NR_RWSEM_TWICE:   /* a lookup called with the superblock read-held */
		down_read(&W->sb_lock);
		(void)nr_lookup(W);
		up_read(&W->sb_lock);
		break;
	case NR_RWSEM_ONCE:
		(void)nr_lookup(W);
		break;
	case NR_RWLOCK_TWICE:
		read_lock(&W->map_lock);
		(void)nr_map(W);
		read_unlock(&W->map_lock);
		break;
	default:
		(void)nr_map(W);
		break;
	}
}

static const struct weft_irq nr_irqs[] = {
	{ "timer", WEFT_HARDIRQ, 1u << 0, nr_timer, true },
};

static const struct weft_variant nr_variants[] = {
	WEFT_TEST_BUG("rwsem-twice", "down_read() of an rwsem the thread holds for read, no writer",
	              WEFT_KIND_DEADLOCK, NR_RWSEM_TWICE),
	WEFT_TEST_FIX("rwsem-once", "one down_read() at a time", NR_RWSEM_ONCE),
	WEFT_TEST_BUG("rwlock-twice", "read_lock() of an rwlock held for read, in process context",
	              WEFT_KIND_DEADLOCK, NR_RWLOCK_TWICE),
	WEFT_TEST_FIX("rwlock-irq-twice", "read_lock() nested in an interrupt handler (recursive)",
	              NR_RWLOCK_IRQ_TWICE),
};

WEFT_TEST_SCENARIO(nested_read, "nested-read",
		   "test: a read lock taken again by its holder, no writer present",
		   struct nr_world, 1, 1, 32, nr,
		   .irqs = nr_irqs,
		   .nr_irqs = 1);

WEFT_DEFINE_REGISTRY(&irq_held, &bh_held, &irq_reader, &nested_read);
