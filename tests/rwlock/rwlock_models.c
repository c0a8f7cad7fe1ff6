/*
 * rwlock_models.c - reader-writer spinlocks (<weft/rwlock.h>) in the
 * shapes kernel code gets wrong, each bug beside its fix, run through the
 * weft command line of this program (bin/weft-rwlock;
 * tests/rwlock/CMakeLists.txt):
 *
 *  rw-pair       T0 writes a pair of words that must stay equal under
 *                write_lock(); T1 and T2 read it. locked: under
 *                read_lock() (clean under sc, tso and lkmm); unlocked:
 *                T1 reads without the lock (torn pair: assertion).
 *  rw-recursive  T0 holds the lock for reading and takes it again; T1
 *                wants it for writing. nested-read: T0's second
 *                read_lock() in process context queues behind the waiting
 *                writer, which waits for T0 (deadlock, the qrwlock
 *                fairness rule); irq-read: the second read_lock() is an
 *                interrupt handler's on T0's CPU, which the kernel lets
 *                past a waiting writer (clean).
 *  rw-order      two rwlocks taken for writing: both threads A then B
 *                (same-order, clean) or T1 B then A (abba:
 *                lock-order-inversion, from lockdep-lite).
 */
#include <weft/kernel.h>
#include <weft/rwlock.h>

#define WEFT_TEST_SOURCE "tests/rwlock"
#define WEFT_TEST_FILE "rwlock_models.c"
#include "../model_driver.h"

/* ----------------------------------------------------------------- rw-pair */

enum { RP_LOCKED, RP_UNLOCKED };

struct rp_world {
	unsigned variant;
	rwlock_t lock;
	int a, b;
};

WEFT_TEST_SETUP(rp, struct rp_world)
{
	rwlock_init(&W->lock);
}

static void rp_thread(void *w, unsigned tid)
{
	struct rp_world *W = w;
	int a, b;

	if (tid == 0) {
		unsigned long flags;
		write_lock_irqsave(&W->lock, flags);
		WRITE_ONCE(W->a, 1);
		WRITE_ONCE(W->b, 1);
		write_unlock_irqrestore(&W->lock, flags);
		return;
	}
	bool lock = W->variant == RP_LOCKED || tid == 2;
	if (lock)
		read_lock(&W->lock);
	a = READ_ONCE(W->a);
	b = READ_ONCE(W->b);
	if (lock)
		read_unlock(&W->lock);
	if (a != b)
		weft_report(WEFT_KIND_ASSERT, &W->a, WEFT_TEST_NOTE_SITE("rp pair"),
			    "torn read: a=%d b=%d", a, b);
}

static const struct weft_variant rp_variants[] = {
	WEFT_TEST_FIX("locked",
	              "readers under read_lock(), the writer under write_lock()",
	              RP_LOCKED),
	WEFT_TEST_BUG("unlocked", "one reader without the lock", WEFT_KIND_ASSERT, RP_UNLOCKED),
};

WEFT_TEST_SCENARIO(rw_pair, "rw-pair",
		   "test: readers and a writer of a pair under an rwlock",
		   struct rp_world, 3, 3, 48, rp);

/* ------------------------------------------------------------ rw-recursive */

enum { RR_NESTED_READ, RR_IRQ_READ };

struct rr_world {
	unsigned variant;
	rwlock_t lock;
	int holding;
	int data;
};

WEFT_TEST_SETUP(rr, struct rr_world)
{
	rwlock_init(&W->lock);
}

/* the timer interrupt on CPU0: reads while T0 holds the lock, if it does */
static void rr_timer(void *w, unsigned irq)
{
	struct rr_world *W = w;

	(void)irq;
	if (W->variant != RR_IRQ_READ || !READ_ONCE(W->holding))
		return;
	read_lock(&W->lock);
	(void)READ_ONCE(W->data);
	read_unlock(&W->lock);
}

static void rr_thread(void *w, unsigned tid)
{
	struct rr_world *W = w;

	if (tid == 1) {
		write_lock_irq(&W->lock);
		WRITE_ONCE(W->data, 1);
		write_unlock_irq(&W->lock);
		return;
	}
	read_lock(&W->lock);
	WRITE_ONCE(W->holding, 1);
	if (W->variant == RR_NESTED_READ) {
		read_lock(&W->lock);
		(void)READ_ONCE(W->data);
		read_unlock(&W->lock);
	} else {
		cpu_relax();   /* the interrupt may come here */
	}
	WRITE_ONCE(W->holding, 0);
	read_unlock(&W->lock);
}

static const struct weft_irq rr_irqs[] = {
	{ "timer", WEFT_HARDIRQ, 1u << 0, rr_timer, true },
};

static const struct weft_variant rr_variants[] = {
	WEFT_TEST_BUG("nested-read",
	              "read_lock() taken again in process context while a writer waits",
	              WEFT_KIND_DEADLOCK, RR_NESTED_READ),
	WEFT_TEST_FIX("irq-read", "the second read_lock() in an interrupt handler", RR_IRQ_READ),
};

WEFT_TEST_SCENARIO(rw_recursive, "rw-recursive",
		   "test: a recursive read_lock() and a waiting writer",
		   struct rr_world, 2, 2, 48, rr,
		   .irqs = rr_irqs,
		   .nr_irqs = 1);

/* ---------------------------------------------------------------- rw-order */

enum { RO_SAME_ORDER, RO_ABBA };

struct ro_world {
	unsigned variant;
	rwlock_t a, b;
	int n;
};

WEFT_TEST_SETUP(ro, struct ro_world)
{
	rwlock_init(&W->a);
	rwlock_init(&W->b);
}

static void ro_thread(void *w, unsigned tid)
{
	struct ro_world *W = w;
	rwlock_t *first = &W->a, *second = &W->b;

	if (W->variant == RO_ABBA && tid == 1) {
		first = &W->b;
		second = &W->a;
	}
	write_lock_bh(first);
	write_lock(second);
	WRITE_ONCE(W->n, READ_ONCE(W->n) + 1);
	write_unlock(second);
	write_unlock_bh(first);
}

static const struct weft_variant ro_variants[] = {
	WEFT_TEST_FIX("same-order", "both threads A then B", RO_SAME_ORDER),
	WEFT_TEST_BUG("abba", "T1 takes B then A", WEFT_KIND_LOCK_ORDER, RO_ABBA),
};

WEFT_TEST_SCENARIO(rw_order, "rw-order",
		   "test: two rwlocks taken for writing",
		   struct ro_world, 2, 2, 32, ro);

WEFT_DEFINE_REGISTRY(&rw_pair, &rw_recursive, &rw_order);
