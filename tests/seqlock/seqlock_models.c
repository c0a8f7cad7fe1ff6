/*
 * seqlock_models.c - sequence counters and seqlocks (<weft/seqlock.h>) in
 * the shapes kernel code gets wrong, each bug beside its fix, run through
 * the weft command line of this program (bin/weft-seqlock;
 * tests/seqlock/CMakeLists.txt):
 *
 *  seq-pair   T0 writes a pair of words that must stay equal, under the
 *             seqlock; T1 reads them. seqlock: read_seqbegin() ..
 *             read_seqretry() (clean under sc, tso and lkmm); no-retry:
 *             the reader trusts one pass (torn pair: assertion);
 *             begin-or-lock: read_seqbegin_or_lock()'s lockless pass,
 *             then a locked one (clean); open-no-rmb: the reader
 *             open-codes the begin and the retry with no smp_rmb()
 *             (torn under lkmm: assertion).
 *  seq-writers two writers of a bare seqcount_t: under a spinlock
 *             (locked, clean) or not (unlocked: the sequence goes even
 *             while a write is in progress; a torn pair, assertion).
 *  seq-irq    a timer interrupt on CPU0 reads what T0 writes under
 *             write_seqlock() on CPU0: with interrupts on (irq-on: the
 *             handler spins in read_seqbegin() on an odd sequence whose
 *             writer it interrupted, a livelock) or off (irq-off:
 *             write_seqlock_irq(), clean).
 *  seq-preempt T0 writes a pair under a bare seqcount_t, T1 on the other
 *             CPU reads it: preemptible (bug): write_seqcount_begin() with
 *             preemption on, the kernel's seqprop_assert()
 *             (lockdep_assert_preemption_disabled(): warn-on);
 *             preempt-off, spinlock, irq-off (clean): preempt_disable(),
 *             a spinlock or local_irq_disable() around the write; raw
 *             (clean): raw_write_seqcount_begin() asserts nothing;
 *             spinlock-type (clean): a seqcount_spinlock_t under its lock.
 */
#include <weft/kernel.h>
#include <weft/seqlock.h>

#define WEFT_TEST_SOURCE "tests/seqlock"
#define WEFT_TEST_FILE "seqlock_models.c"
#include "../model_driver.h"

static void pair_check(int a, int b, const void *where)
{
	if (a != b)
		weft_report(WEFT_KIND_ASSERT, where, WEFT_TEST_NOTE_SITE("pair"),
			    "torn read: a=%d b=%d (the writer keeps them equal)", a, b);
}

/* ---------------------------------------------------------------- seq-pair */

enum { SP_SEQLOCK, SP_NO_RETRY, SP_BEGIN_OR_LOCK, SP_OPEN_NO_RMB };

struct sp_world {
	unsigned variant;
	seqlock_t lock;
	int a, b;
};

WEFT_TEST_SETUP(sp, struct sp_world)
{
	seqlock_init(&W->lock);
}

static void sp_read(struct sp_world *W)
{
	unsigned seq;
	int a, b, lseq = 0;

	switch (W->variant) {
	case SP_SEQLOCK:
		do {
			seq = read_seqbegin(&W->lock);
			a = READ_ONCE(W->a);
			b = READ_ONCE(W->b);
		} while (read_seqretry(&W->lock, seq));
		break;
	case SP_NO_RETRY:
		seq = read_seqbegin(&W->lock);
		a = READ_ONCE(W->a);
		b = READ_ONCE(W->b);
		break;
	case SP_BEGIN_OR_LOCK:
again:
		read_seqbegin_or_lock(&W->lock, &lseq);
		a = READ_ONCE(W->a);
		b = READ_ONCE(W->b);
		if (need_seqretry(&W->lock, lseq)) {
			lseq = 1;
			goto again;
		}
		done_seqretry(&W->lock, lseq);
		break;
	default:   /* SP_OPEN_NO_RMB */
		do {
			while ((seq = READ_ONCE(W->lock.seqcount.sequence)) & 1)
				cpu_relax();
			a = READ_ONCE(W->a);
			b = READ_ONCE(W->b);
		} while (READ_ONCE(W->lock.seqcount.sequence) != seq);
		break;
	}
	pair_check(a, b, &W->a);
}

static void sp_thread(void *w, unsigned tid)
{
	struct sp_world *W = w;

	if (tid == 1) {
		sp_read(W);
		return;
	}
	for (int i = 1; i <= 2; i++) {
		write_seqlock(&W->lock);
		WRITE_ONCE(W->a, i);
		WRITE_ONCE(W->b, i);
		write_sequnlock(&W->lock);
	}
}

static const struct weft_variant sp_variants[] = {
	WEFT_TEST_FIX("seqlock", "read_seqbegin() .. read_seqretry()", SP_SEQLOCK),
	WEFT_TEST_BUG("no-retry", "one pass, no read_seqretry()", WEFT_KIND_ASSERT, SP_NO_RETRY),
	WEFT_TEST_FIX("begin-or-lock",
	              "read_seqbegin_or_lock(), need_seqretry(), done_seqretry()",
	              SP_BEGIN_OR_LOCK),
	WEFT_TEST_BUG("open-no-rmb",
	              "an open-coded reader with no smp_rmb() (lkmm)",
	              WEFT_KIND_ASSERT, SP_OPEN_NO_RMB),
};

WEFT_TEST_SCENARIO(seq_pair, "seq-pair",
		   "test: a seqlock reader of a pair a writer keeps equal",
		   struct sp_world, 2, 2, 48, sp,
		   .memory = WEFT_MEM_LKMM);

/* ------------------------------------------------------------- seq-writers */

enum { SW_LOCKED, SW_UNLOCKED };

struct sw_world {
	unsigned variant;
	seqcount_spinlock_t seq;
	spinlock_t lock;
	int a, b;
};

WEFT_TEST_SETUP(sw, struct sw_world)
{
	spin_lock_init(&W->lock);
	seqcount_spinlock_init(&W->seq, &W->lock);
}

static void sw_thread(void *w, unsigned tid)
{
	struct sw_world *W = w;
	unsigned seq;
	int a, b;

	if (tid == 2) {
		do {
			seq = read_seqcount_begin(&W->seq);
			a = READ_ONCE(W->a);
			b = READ_ONCE(W->b);
		} while (read_seqcount_retry(&W->seq, seq));
		pair_check(a, b, &W->a);
		return;
	}
	if (W->variant == SW_LOCKED)
		spin_lock(&W->lock);
	write_seqcount_begin(&W->seq);
	WRITE_ONCE(W->a, (int)tid + 1);
	WRITE_ONCE(W->b, (int)tid + 1);
	write_seqcount_end(&W->seq);
	if (W->variant == SW_LOCKED)
		spin_unlock(&W->lock);
}

static const struct weft_variant sw_variants[] = {
	WEFT_TEST_FIX("locked", "the writers serialised by a spinlock", SW_LOCKED),
	WEFT_TEST_BUG("unlocked",
	              "two writers of one seqcount_t with no lock",
	              WEFT_KIND_ASSERT, SW_UNLOCKED),
};

WEFT_TEST_SCENARIO(seq_writers, "seq-writers",
		   "test: two writers and a reader of a seqcount_t",
		   struct sw_world, 3, 3, 64, sw);

/* ----------------------------------------------------------------- seq-irq */

enum { SI_IRQ_ON, SI_IRQ_OFF };

struct si_world {
	unsigned variant;
	seqlock_t lock;
	int a, b;
};

WEFT_TEST_SETUP(si, struct si_world)
{
	seqlock_init(&W->lock);
}

static void si_timer(void *w, unsigned irq)
{
	struct si_world *W = w;
	unsigned seq;
	int a, b;

	(void)irq;
	do {
		seq = read_seqbegin(&W->lock);
		a = READ_ONCE(W->a);
		b = READ_ONCE(W->b);
	} while (read_seqretry(&W->lock, seq));
	pair_check(a, b, &W->a);
}

static void si_thread(void *w, unsigned tid)
{
	struct si_world *W = w;

	(void)tid;
	if (W->variant == SI_IRQ_OFF)
		write_seqlock_irq(&W->lock);
	else
		write_seqlock(&W->lock);
	WRITE_ONCE(W->a, 1);
	WRITE_ONCE(W->b, 1);
	if (W->variant == SI_IRQ_OFF)
		write_sequnlock_irq(&W->lock);
	else
		write_sequnlock(&W->lock);
}

static const struct weft_irq si_irqs[] = {
	{ "timer", WEFT_HARDIRQ, 1u << 0, si_timer, true },
};

static const struct weft_variant si_variants[] = {
	WEFT_TEST_BUG("irq-on",
	              "write_seqlock() with interrupts on: the handler spins on the odd sequence of "
	              "the writer it interrupted",
	              WEFT_KIND_LIVELOCK, SI_IRQ_ON),
	WEFT_TEST_FIX("irq-off", "write_seqlock_irq()", SI_IRQ_OFF),
};

WEFT_TEST_SCENARIO(seq_irq, "seq-irq",
		   "test: a seqlock reader in an interrupt on the writer's CPU",
		   struct si_world, 1, 1, 32, si,
		   .irqs = si_irqs,
		   .nr_irqs = 1);

/* ------------------------------------------------------------- seq-preempt */

enum { SQ_PREEMPTIBLE, SQ_PREEMPT_OFF, SQ_SPINLOCK, SQ_IRQ_OFF, SQ_RAW, SQ_SPINLOCK_TYPE };

struct sq_world {
	unsigned variant;
	seqcount_t seq;
	seqcount_spinlock_t lseq;
	spinlock_t lock;
	int a, b;
};

WEFT_TEST_SETUP(sq, struct sq_world)
{
	spin_lock_init(&W->lock);
	seqcount_init(&W->seq);
	seqcount_spinlock_init(&W->lseq, &W->lock);
}

static void sq_thread(void *w, unsigned tid)
{
	struct sq_world *W = w;
	unsigned v = W->variant, seq;
	int a, b;

	if (tid == 1) {
		do {
			seq = v == SQ_SPINLOCK_TYPE ? read_seqcount_begin(&W->lseq)
						    : read_seqcount_begin(&W->seq);
			a = READ_ONCE(W->a);
			b = READ_ONCE(W->b);
		} while (v == SQ_SPINLOCK_TYPE ? read_seqcount_retry(&W->lseq, seq)
					       : read_seqcount_retry(&W->seq, seq));
		pair_check(a, b, &W->a);
		return;
	}
	switch (v) {
	case SQ_PREEMPT_OFF:
		preempt_disable();
		break;
	case SQ_SPINLOCK:
	case SQ_SPINLOCK_TYPE:
		spin_lock(&W->lock);
		break;
	case SQ_IRQ_OFF:
		local_irq_disable();
		break;
	}
	if (v == SQ_RAW)
		raw_write_seqcount_begin(&W->seq);
	else if (v == SQ_SPINLOCK_TYPE)
		write_seqcount_begin(&W->lseq);
	else
		write_seqcount_begin(&W->seq);
	WRITE_ONCE(W->a, 1);
	WRITE_ONCE(W->b, 1);
	if (v == SQ_RAW)
		raw_write_seqcount_end(&W->seq);
	else if (v == SQ_SPINLOCK_TYPE)
		write_seqcount_end(&W->lseq);
	else
		write_seqcount_end(&W->seq);
	switch (v) {
	case SQ_PREEMPT_OFF:
		preempt_enable();
		break;
	case SQ_SPINLOCK:
	case SQ_SPINLOCK_TYPE:
		spin_unlock(&W->lock);
		break;
	case SQ_IRQ_OFF:
		local_irq_enable();
		break;
	}
}

static const struct weft_variant sq_variants[] = {
	WEFT_TEST_BUG("preemptible",
	              "write_seqcount_begin() of a bare seqcount_t with preemption on",
	              WEFT_KIND_WARN_ON, SQ_PREEMPTIBLE),
	WEFT_TEST_FIX("preempt-off", "preempt_disable() around the write", SQ_PREEMPT_OFF),
	WEFT_TEST_FIX("spinlock", "a spinlock around the write", SQ_SPINLOCK),
	WEFT_TEST_FIX("irq-off", "local_irq_disable() around the write", SQ_IRQ_OFF),
	WEFT_TEST_FIX("raw", "raw_write_seqcount_begin(), which asserts nothing", SQ_RAW),
	WEFT_TEST_FIX("spinlock-type", "a seqcount_spinlock_t under its spinlock",
	              SQ_SPINLOCK_TYPE),
};

WEFT_TEST_SCENARIO(seq_preempt, "seq-preempt",
		   "test: a bare seqcount_t writer and preemption",
		   struct sq_world, 2, 2, 48, sq);

WEFT_DEFINE_REGISTRY(&seq_pair, &seq_writers, &seq_irq, &seq_preempt);
