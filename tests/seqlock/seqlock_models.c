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
 */
#include <weft/kernel.h>
#include <weft/seqlock.h>

static const char *const seqlock_files[] = { "seqlock_models.c", NULL };

#define SSITE(what) WEFT_SITE(WEFT_EV_NOTE, what)

static void pair_check(int a, int b, const void *where)
{
	if (a != b)
		weft_report(WEFT_KIND_ASSERT, where, SSITE("pair"),
			    "torn read: a=%d b=%d (the writer keeps them equal)", a, b);
}

/* ---------------------------------------------------------------- seq-pair */

enum { SP_SEQLOCK, SP_NO_RETRY, SP_BEGIN_OR_LOCK, SP_OPEN_NO_RMB };

struct sp_world {
	unsigned variant;
	seqlock_t lock;
	int a, b;
};

static void sp_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct sp_world *W = w;

	(void)wl;
	W->variant = variant;
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
	{ "seqlock", NULL, false, "read_seqbegin() .. read_seqretry()", "tests/seqlock",
	  WEFT_KIND_NONE, 0, SP_SEQLOCK },
	{ "no-retry", NULL, true, "one pass, no read_seqretry()", "tests/seqlock",
	  WEFT_KIND_ASSERT, 0, SP_NO_RETRY },
	{ "begin-or-lock", NULL, false, "read_seqbegin_or_lock(), need_seqretry(), "
	  "done_seqretry()", "tests/seqlock", WEFT_KIND_NONE, 0, SP_BEGIN_OR_LOCK },
	{ "open-no-rmb", NULL, true, "an open-coded reader with no smp_rmb() (lkmm)",
	  "tests/seqlock", WEFT_KIND_ASSERT, 0, SP_OPEN_NO_RMB },
};

static const struct weft_scenario seq_pair = {
	.name = "seq-pair",
	.summary = "test: a seqlock reader of a pair a writer keeps equal",
	.source = "tests/seqlock",
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct sp_world),
	.decision_hint = 48,
	.files = seqlock_files,
	.setup = sp_setup,
	.thread = sp_thread,
	.variants = sp_variants,
	.nr_variants = 4,
	.memory = WEFT_MEM_LKMM,
};

/* ------------------------------------------------------------- seq-writers */

enum { SW_LOCKED, SW_UNLOCKED };

struct sw_world {
	unsigned variant;
	seqcount_spinlock_t seq;
	spinlock_t lock;
	int a, b;
};

static void sw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct sw_world *W = w;

	(void)wl;
	W->variant = variant;
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
	{ "locked", NULL, false, "the writers serialised by a spinlock", "tests/seqlock",
	  WEFT_KIND_NONE, 0, SW_LOCKED },
	{ "unlocked", NULL, true, "two writers of one seqcount_t with no lock",
	  "tests/seqlock", WEFT_KIND_ASSERT, 0, SW_UNLOCKED },
};

static const struct weft_scenario seq_writers = {
	.name = "seq-writers",
	.summary = "test: two writers and a reader of a seqcount_t",
	.source = "tests/seqlock",
	.nr_cpus = 3,
	.nr_threads = 3,
	.world_size = sizeof(struct sw_world),
	.decision_hint = 64,
	.files = seqlock_files,
	.setup = sw_setup,
	.thread = sw_thread,
	.variants = sw_variants,
	.nr_variants = 2,
};

/* ----------------------------------------------------------------- seq-irq */

enum { SI_IRQ_ON, SI_IRQ_OFF };

struct si_world {
	unsigned variant;
	seqlock_t lock;
	int a, b;
};

static void si_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct si_world *W = w;

	(void)wl;
	W->variant = variant;
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
	{ "irq-on", NULL, true, "write_seqlock() with interrupts on: the handler spins on the "
	  "odd sequence of the writer it interrupted", "tests/seqlock", WEFT_KIND_LIVELOCK, 0,
	  SI_IRQ_ON },
	{ "irq-off", NULL, false, "write_seqlock_irq()", "tests/seqlock", WEFT_KIND_NONE, 0,
	  SI_IRQ_OFF },
};

static const struct weft_scenario seq_irq = {
	.name = "seq-irq",
	.summary = "test: a seqlock reader in an interrupt on the writer's CPU",
	.source = "tests/seqlock",
	.nr_cpus = 1,
	.nr_threads = 1,
	.world_size = sizeof(struct si_world),
	.decision_hint = 32,
	.files = seqlock_files,
	.setup = si_setup,
	.thread = si_thread,
	.irqs = si_irqs,
	.nr_irqs = 1,
	.variants = si_variants,
	.nr_variants = 2,
};

WEFT_DEFINE_REGISTRY(&seq_pair, &seq_writers, &seq_irq);
