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

static const char *const rwlock_files[] = { "rwlock_models.c", NULL };

#define WSITE(what) WEFT_SITE(WEFT_EV_NOTE, what)

/* ----------------------------------------------------------------- rw-pair */

enum { RP_LOCKED, RP_UNLOCKED };

struct rp_world {
	unsigned variant;
	rwlock_t lock;
	int a, b;
};

static void rp_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct rp_world *W = w;

	(void)wl;
	W->variant = variant;
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
		weft_report(WEFT_KIND_ASSERT, &W->a, WSITE("rp pair"), "torn read: a=%d b=%d", a, b);
}

static const struct weft_variant rp_variants[] = {
	{ "locked", NULL, false, "readers under read_lock(), the writer under write_lock()",
	  "tests/rwlock", WEFT_KIND_NONE, 0, RP_LOCKED },
	{ "unlocked", NULL, true, "one reader without the lock", "tests/rwlock",
	  WEFT_KIND_ASSERT, 0, RP_UNLOCKED },
};

static const struct weft_scenario rw_pair = {
	.name = "rw-pair",
	.summary = "test: readers and a writer of a pair under an rwlock",
	.source = "tests/rwlock",
	.nr_cpus = 3,
	.nr_threads = 3,
	.world_size = sizeof(struct rp_world),
	.decision_hint = 48,
	.files = rwlock_files,
	.setup = rp_setup,
	.thread = rp_thread,
	.variants = rp_variants,
	.nr_variants = 2,
};

/* ------------------------------------------------------------ rw-recursive */

enum { RR_NESTED_READ, RR_IRQ_READ };

struct rr_world {
	unsigned variant;
	rwlock_t lock;
	int holding;
	int data;
};

static void rr_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct rr_world *W = w;

	(void)wl;
	W->variant = variant;
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
	{ "nested-read", NULL, true, "read_lock() taken again in process context while a "
	  "writer waits", "tests/rwlock", WEFT_KIND_DEADLOCK, 0, RR_NESTED_READ },
	{ "irq-read", NULL, false, "the second read_lock() in an interrupt handler",
	  "tests/rwlock", WEFT_KIND_NONE, 0, RR_IRQ_READ },
};

static const struct weft_scenario rw_recursive = {
	.name = "rw-recursive",
	.summary = "test: a recursive read_lock() and a waiting writer",
	.source = "tests/rwlock",
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct rr_world),
	.decision_hint = 48,
	.files = rwlock_files,
	.setup = rr_setup,
	.thread = rr_thread,
	.irqs = rr_irqs,
	.nr_irqs = 1,
	.variants = rr_variants,
	.nr_variants = 2,
};

/* ---------------------------------------------------------------- rw-order */

enum { RO_SAME_ORDER, RO_ABBA };

struct ro_world {
	unsigned variant;
	rwlock_t a, b;
	int n;
};

static void ro_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct ro_world *W = w;

	(void)wl;
	W->variant = variant;
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
	{ "same-order", NULL, false, "both threads A then B", "tests/rwlock", WEFT_KIND_NONE, 0,
	  RO_SAME_ORDER },
	{ "abba", NULL, true, "T1 takes B then A", "tests/rwlock", WEFT_KIND_LOCK_ORDER, 0,
	  RO_ABBA },
};

static const struct weft_scenario rw_order = {
	.name = "rw-order",
	.summary = "test: two rwlocks taken for writing",
	.source = "tests/rwlock",
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct ro_world),
	.decision_hint = 32,
	.files = rwlock_files,
	.setup = ro_setup,
	.thread = ro_thread,
	.variants = ro_variants,
	.nr_variants = 2,
};

WEFT_DEFINE_REGISTRY(&rw_pair, &rw_recursive, &rw_order);
