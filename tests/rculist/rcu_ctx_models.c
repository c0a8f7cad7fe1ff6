/*
 * rcu_ctx_models.c - RCU and the CPU contexts, as a v6.12 kernel has them
 * (flavours consolidated since v5.0), each bug beside its fix, run through
 * the weft command line of this program (bin/weft-rcu-ctx;
 * tests/rculist/CMakeLists.txt). Found by a red team: Weft reported the
 * fixes of rcu-flavour and verified the bugs of rcu-cb-ctx.
 *
 *  rcu-flavour  T0 unpublishes gp, synchronize_rcu(), frees the object;
 *               T1 reads it through gp in a region where it cannot be
 *               preempted, which the grace period waits for:
 *               preempt (preempt_disable() + rcu_dereference_sched()),
 *               bh (local_bh_disable() + rcu_dereference_bh()), irq
 *               (local_irq_save() + rcu_dereference_sched()), spin (a
 *               spinlock held + rcu_dereference_sched()), preempt-ro
 *               (preempt_disable() + READ_ONCE()), nested (rcu_read_lock()
 *               ended inside preempt_disable(), the object used after it):
 *               clean. none (no protection) and early-enable (the object
 *               used after preempt_enable()): use-after-free.
 *               deref-preempt (rcu_dereference() under preempt_disable()
 *               only: v6.12's rcu_read_lock_held() is lockdep's
 *               rcu_lock_map) and bh-preempt (rcu_dereference_bh() with
 *               preemption off but bottom halves on): rcu-misuse.
 *  rcu-cb-ctx   T0 unpublishes the object and call_rcu()s its callback,
 *               which the kernel runs in softirq context (rcu_do_batch()):
 *               frees (clean), in-softirq (checks in_softirq(): clean),
 *               cb-sleeps (mutex_lock(): sleep-in-atomic); T1 reads in
 *               rcu_read_lock() and takes the lock the callback takes:
 *               lock-bh (spin_lock_bh(): clean), lock-nobh (spin_lock():
 *               irq-lock-inversion, SOFTIRQ-ON vs IN-SOFTIRQ).
 */
#include <weft/kernel.h>

#define WEFT_TEST_SOURCE "tests/rculist"
#define WEFT_TEST_FILE "rcu_ctx_models.c"
#include "../model_driver.h"

struct obj {
	int v;
	struct rcu_head rcu;
};

/* ------------------------------------------------------------ rcu-flavour */

/* in the order of fl_variants[] (the variant's number is its index) */
enum {
	FL_PREEMPT,
	FL_BH,
	FL_IRQ,
	FL_SPIN,
	FL_PREEMPT_RO,
	FL_NESTED,
	FL_NONE,
	FL_EARLY_ENABLE,
	FL_DEREF_PREEMPT,
	FL_BH_PREEMPT,
};

struct fl_world {
	unsigned variant;
	spinlock_t lock;
	struct obj o;
	struct obj *gp;
};

WEFT_TEST_SETUP(fl, struct fl_world)
{
	spin_lock_init(&W->lock);
	W->o.v = 1;
	W->gp = &W->o;
}

static void fl_reader(struct fl_world *W)
{
	struct obj *p = NULL;
	unsigned long flags;

	switch (W->variant) {
	case FL_NONE:
		p = READ_ONCE(W->gp);
		if (p)
			(void)READ_ONCE(p->v);
		break;
	case FL_PREEMPT:
		preempt_disable();
		p = rcu_dereference_sched(W->gp);
		if (p)
			(void)READ_ONCE(p->v);
		preempt_enable();
		break;
	case FL_BH:
		local_bh_disable();
		p = rcu_dereference_bh(W->gp);
		if (p)
			(void)READ_ONCE(p->v);
		local_bh_enable();
		break;
	case FL_IRQ:
		local_irq_save(flags);
		p = rcu_dereference_sched(W->gp);
		if (p)
			(void)READ_ONCE(p->v);
		local_irq_restore(flags);
		break;
	case FL_SPIN:
		spin_lock(&W->lock);
		p = rcu_dereference_sched(W->gp);
		if (p)
			(void)READ_ONCE(p->v);
		spin_unlock(&W->lock);
		break;
	case FL_PREEMPT_RO:
		preempt_disable();
		p = READ_ONCE(W->gp);
		if (p)
			(void)READ_ONCE(p->v);
		preempt_enable();
		break;
	case FL_NESTED:
		preempt_disable();
		rcu_read_lock();
		p = rcu_dereference(W->gp);
		rcu_read_unlock();
		if (p)
			(void)READ_ONCE(p->v);
		preempt_enable();
		break;
	case FL_EARLY_ENABLE:
		preempt_disable();
		p = rcu_dereference_sched(W->gp);
		preempt_enable();
		if (p)
			(void)READ_ONCE(p->v);
		break;
	case FL_DEREF_PREEMPT:
		preempt_disable();
		p = rcu_dereference(W->gp);
		if (p)
			(void)READ_ONCE(p->v);
		preempt_enable();
		break;
	case FL_BH_PREEMPT:
		preempt_disable();
		p = rcu_dereference_bh(W->gp);
		if (p)
			(void)READ_ONCE(p->v);
		preempt_enable();
		break;
	}
}

static void fl_thread(void *w, unsigned tid)
{
	struct fl_world *W = w;

	if (tid == 1) {
		fl_reader(W);
		return;
	}
	struct obj *old = READ_ONCE(W->gp);
	WRITE_ONCE(W->gp, NULL);
	synchronize_rcu();
	weft_kfree(old);
}

static const struct weft_variant fl_variants[] = {
	WEFT_TEST_FIX("preempt", "preempt_disable() + rcu_dereference_sched()", FL_PREEMPT),
	WEFT_TEST_FIX("bh", "local_bh_disable() + rcu_dereference_bh()", FL_BH),
	WEFT_TEST_FIX("irq", "local_irq_save() + rcu_dereference_sched()", FL_IRQ),
	WEFT_TEST_FIX("spin", "a spinlock held + rcu_dereference_sched()", FL_SPIN),
	WEFT_TEST_FIX("preempt-ro", "preempt_disable() + READ_ONCE()", FL_PREEMPT_RO),
	WEFT_TEST_FIX("nested", "rcu_read_lock() ended inside preempt_disable(), used before "
				"preempt_enable()", FL_NESTED),
	WEFT_TEST_BUG_AT("none", "a reader with no protection", WEFT_KIND_USE_AFTER_FREE, 1,
			 FL_NONE),
	WEFT_TEST_BUG_AT("early-enable", "the object used after preempt_enable()",
			 WEFT_KIND_USE_AFTER_FREE, 1, FL_EARLY_ENABLE),
	WEFT_TEST_BUG("deref-preempt", "rcu_dereference() under preempt_disable() only",
		      WEFT_KIND_RCU_MISUSE, FL_DEREF_PREEMPT),
	WEFT_TEST_BUG("bh-preempt", "rcu_dereference_bh() with preemption off, bottom halves on",
		      WEFT_KIND_RCU_MISUSE, FL_BH_PREEMPT),
};

WEFT_TEST_SCENARIO(rcu_flavour, "rcu-flavour",
		   "test: readers in non-preemptible regions against synchronize_rcu()",
		   struct fl_world, 2, 2, 64, fl);

/* ------------------------------------------------------------- rcu-cb-ctx */

/* in the order of cb_variants[] */
enum { CB_FREES, CB_IN_SOFTIRQ, CB_LOCK_BH, CB_SLEEPS, CB_LOCK_NOBH };

struct cb_world {
	unsigned variant;
	struct mutex m;
	spinlock_t lock;
	int n;
	struct obj o;
	struct obj *gp;
};

WEFT_TEST_SETUP(cb, struct cb_world)
{
	mutex_init(&W->m);
	spin_lock_init(&W->lock);
	W->o.v = 1;
	W->gp = &W->o;
}

static void cb_func(struct rcu_head *head)
{
	struct cb_world *W = weft_list_entry(head, struct cb_world, o.rcu);

	switch (W->variant) {
	case CB_IN_SOFTIRQ:
		if (!in_softirq())
			weft_report(WEFT_KIND_ASSERT, &W->o, WEFT_TEST_NOTE_SITE("cb in_softirq"),
				    "an RCU callback runs outside softirq context");
		break;
	case CB_SLEEPS:
		mutex_lock(&W->m);
		mutex_unlock(&W->m);
		break;
	case CB_LOCK_BH:
	case CB_LOCK_NOBH:
		spin_lock(&W->lock);
		WRITE_ONCE(W->n, READ_ONCE(W->n) + 1);
		spin_unlock(&W->lock);
		break;
	}
	weft_kfree(&W->o);
}

static void cb_thread(void *w, unsigned tid)
{
	struct cb_world *W = w;

	if (tid == 0) {
		struct obj *old = READ_ONCE(W->gp);
		WRITE_ONCE(W->gp, NULL);
		call_rcu(&old->rcu, cb_func);
		return;
	}
	rcu_read_lock();
	struct obj *p = rcu_dereference(W->gp);
	if (p)
		(void)READ_ONCE(p->v);
	rcu_read_unlock();
	if (W->variant == CB_LOCK_BH) {
		spin_lock_bh(&W->lock);
		WRITE_ONCE(W->n, READ_ONCE(W->n) + 1);
		spin_unlock_bh(&W->lock);
	} else if (W->variant == CB_LOCK_NOBH) {
		spin_lock(&W->lock);
		WRITE_ONCE(W->n, READ_ONCE(W->n) + 1);
		spin_unlock(&W->lock);
	}
}

static const struct weft_variant cb_variants[] = {
	WEFT_TEST_FIX("frees", "the callback only frees", CB_FREES),
	WEFT_TEST_FIX("in-softirq", "the callback checks in_softirq()", CB_IN_SOFTIRQ),
	WEFT_TEST_FIX("lock-bh", "a lock the callback takes, taken with spin_lock_bh() by T1",
		      CB_LOCK_BH),
	WEFT_TEST_BUG("cb-sleeps", "mutex_lock() in the callback", WEFT_KIND_SLEEP_IN_ATOMIC,
		      CB_SLEEPS),
	WEFT_TEST_BUG("lock-nobh", "a lock the callback takes, taken with spin_lock() by T1",
		      WEFT_KIND_IRQ_LOCK_INVERSION, CB_LOCK_NOBH),
};

WEFT_TEST_SCENARIO(rcu_cb_ctx, "rcu-cb-ctx", "test: the context RCU callbacks run in",
		   struct cb_world, 2, 2, 64, cb);

WEFT_DEFINE_REGISTRY(&rcu_flavour, &rcu_cb_ctx);
