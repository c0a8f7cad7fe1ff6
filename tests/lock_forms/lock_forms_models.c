/*
 * lock_forms_models.c - the everyday lock and wait forms beside the basic
 * ones (raw spinlocks, lockdep subclasses, killable and _io sleeps,
 * wait_event_lock_irq(), smp_cond_load_acquire()), each in a shape kernel
 * code gets wrong, run through the weft command line of this program
 * (bin/weft-lock-forms; tests/lock_forms/CMakeLists.txt):
 *
 *  raw-nested  T0 and T1 each take a parent and a child raw spinlock of
 *              one class, with raw_spin_lock_nested(child,
 *              SINGLE_DEPTH_NESTING): parent-first (clean: no report for
 *              one class taken twice); abba (T1 takes them the other way:
 *              a deadlock, which the deadlock detector reports, as
 *              lockdep-lite leaves one class taken twice to it).
 *  lock-irq    T0 waits with wait_event_lock_irq() for work T1 queues
 *              under the same spinlock: set-then-wake (clean); wake-first
 *              (T1 wakes before it sets the flag, and outside the lock:
 *              lost wakeup).
 *  cond-load   T0 waits with smp_cond_load_acquire() for a flag T1 sets
 *              with smp_store_release() after the data: acquire (clean
 *              under sc, tso and lkmm); relaxed (smp_cond_load_relaxed():
 *              the data read stale under lkmm, assertion).
 *  killable    mutex_lock_nested(), down_read_killable(),
 *              down_write_killable(), wait_for_completion_killable(),
 *              wait_event_killable() and mutex_lock_io() in a hand-off
 *              between two threads: handoff (clean); abba-rwsem (two
 *              rwsems taken in opposite orders with the killable forms:
 *              lock-order-inversion).
 *  is-locked   spin_is_locked() as a check: own (each thread asserts the
 *              lock it holds with assert_spin_locked(): clean); other (T1
 *              takes T0's lock for free when spin_is_locked() says so:
 *              assertion when T0 is inside; the reductions certified it
 *              clean while spin_is_locked() had no dependence record,
 *              spinlock.c).
 *  timeout-first  T0's timed wait (wait_for_completion_timeout(),
 *              schedule_timeout()) times out before T1 signals, and its
 *              timeout path frees the request twice: completion, schedule
 *              (double-free); completion-ok, schedule-ok (clean).
 *  query-held  T1 asks once, with a trylock or a state query, what T0 is
 *              doing with a mutex, semaphore, rwsem (downgrade_write()
 *              included), rwlock, spinlock, completion or wait queue, and
 *              reports when it saw T0's window: every variant is a bug
 *              that plain dfs finds in one order only, so a reduction that
 *              lacks the query's or T0's dependence record certifies it
 *              (dpor_vs_dfs runs them all).
 */
#include <weft/kernel.h>
#include <weft/rwlock.h>
#include <weft/slab.h>
#include <weft/timer.h>

#define WEFT_TEST_SOURCE "tests/lock_forms"
#define WEFT_TEST_FILE "lock_forms_models.c"
#include "../model_driver.h"

/* -------------------------------------------------------------- raw-nested */

enum { RN_PARENT_FIRST, RN_ABBA };

struct rn_node {
	raw_spinlock_t lock;
	int val;
};

struct rn_world {
	unsigned variant;
	struct rn_node n[2];
};

static void rn_init(struct rn_node *n)
{
	raw_spin_lock_init(&n->lock);   /* one init site: one lockdep class */
}

WEFT_TEST_SETUP(rn, struct rn_world)
{
	rn_init(&W->n[0]);
	rn_init(&W->n[1]);
}

static void rn_thread(void *w, unsigned tid)
{
	struct rn_world *W = w;
	struct rn_node *a = &W->n[0], *b = &W->n[1];
	unsigned long flags;

	if (W->variant == RN_ABBA && tid == 1) {
		a = &W->n[1];
		b = &W->n[0];
	}
	raw_spin_lock_irqsave(&a->lock, flags);
	raw_spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
	WRITE_ONCE(b->val, READ_ONCE(a->val) + 1);
	raw_spin_unlock(&b->lock);
	raw_spin_unlock_irqrestore(&a->lock, flags);
}

static const struct weft_variant rn_variants[] = {
	WEFT_TEST_FIX("parent-first",
	              "parent, then child with raw_spin_lock_nested()",
	              RN_PARENT_FIRST),
	WEFT_TEST_BUG("abba",
	              "the two nodes taken in opposite orders (one class: the deadlock detector's)",
	              WEFT_KIND_DEADLOCK, RN_ABBA),
};

WEFT_TEST_SCENARIO(raw_nested, "raw-nested",
		   "test: raw spinlocks of one class, nested with a subclass",
		   struct rn_world, 2, 2, 32, rn);

/* ---------------------------------------------------------------- lock-irq */

enum { LI_SET_THEN_WAKE, LI_WAKE_FIRST };

struct li_world {
	unsigned variant;
	spinlock_t lock;
	wait_queue_head_t wq;
	int queued;
};

WEFT_TEST_SETUP(li, struct li_world)
{
	spin_lock_init(&W->lock);
	init_waitqueue_head(&W->wq);
}

static void li_thread(void *w, unsigned tid)
{
	struct li_world *W = w;

	if (tid == 0) {
		spin_lock_irq(&W->lock);
		wait_event_lock_irq(W->wq, READ_ONCE(W->queued), W->lock);
		WRITE_ONCE(W->queued, 0);
		spin_unlock_irq(&W->lock);
		return;
	}
	if (W->variant == LI_WAKE_FIRST) {
		wake_up(&W->wq);
		spin_lock_irq(&W->lock);
		WRITE_ONCE(W->queued, 1);
		spin_unlock_irq(&W->lock);
		return;
	}
	spin_lock_irq(&W->lock);
	WRITE_ONCE(W->queued, 1);
	spin_unlock_irq(&W->lock);
	wake_up(&W->wq);
}

static const struct weft_variant li_variants[] = {
	WEFT_TEST_FIX("set-then-wake",
	              "the flag set under the lock, then wake_up()",
	              LI_SET_THEN_WAKE),
	WEFT_TEST_BUG("wake-first",
	              "wake_up() before the flag is set",
	              WEFT_KIND_LOST_WAKEUP, LI_WAKE_FIRST),
};

WEFT_TEST_SCENARIO(lock_irq, "lock-irq",
		   "test: wait_event_lock_irq() for work queued under the lock",
		   struct li_world, 2, 2, 48, li);

/* --------------------------------------------------------------- cond-load */

enum { CL_ACQUIRE, CL_RELAXED };

struct cl_world {
	unsigned variant;
	int data;
	int flag;
};

WEFT_TEST_SETUP_VARIANT_ONLY(cl, struct cl_world)

static void cl_thread(void *w, unsigned tid)
{
	struct cl_world *W = w;

	if (tid == 1) {
		WRITE_ONCE(W->data, 42);
		smp_store_release(&W->flag, 1);
		return;
	}
	if (W->variant == CL_ACQUIRE)
		smp_cond_load_acquire(&W->flag, VAL != 0);
	else
		smp_cond_load_relaxed(&W->flag, VAL != 0);
	if (READ_ONCE(W->data) != 42)
		weft_report(WEFT_KIND_ASSERT, &W->data, WEFT_TEST_NOTE_SITE("cl data"),
			    "the flag seen, the data not yet");
}

static const struct weft_variant cl_variants[] = {
	WEFT_TEST_FIX("acquire", "smp_cond_load_acquire()", CL_ACQUIRE),
	WEFT_TEST_BUG("relaxed",
	              "smp_cond_load_relaxed(), then the data (lkmm)",
	              WEFT_KIND_ASSERT, CL_RELAXED),
};

WEFT_TEST_SCENARIO(cond_load, "cond-load",
		   "test: spinning on a flag with smp_cond_load_acquire()",
		   struct cl_world, 2, 2, 32, cl,
		   .memory = WEFT_MEM_LKMM);

/* ---------------------------------------------------------------- killable */

enum { KL_HANDOFF, KL_ABBA_RWSEM };

struct kl_world {
	unsigned variant;
	struct weft_mutex m;
	struct weft_rw_semaphore r1, r2;
	struct weft_completion done;
	wait_queue_head_t wq;
	int stage;
};

WEFT_TEST_SETUP(kl, struct kl_world)
{
	mutex_init(&W->m);
	init_rwsem(&W->r1);
	init_rwsem(&W->r2);
	init_completion(&W->done);
	init_waitqueue_head(&W->wq);
}

static void kl_thread(void *w, unsigned tid)
{
	struct kl_world *W = w;

	if (W->variant == KL_ABBA_RWSEM) {
		struct weft_rw_semaphore *a = tid ? &W->r2 : &W->r1, *b = tid ? &W->r1 : &W->r2;
		if (down_write_killable(a))
			return;
		if (!down_read_killable(b))
			up_read(b);
		up_write(a);
		return;
	}
	if (tid == 1) {
		mutex_lock_nested(&W->m, 0);
		WRITE_ONCE(W->stage, 1);
		mutex_unlock(&W->m);
		wake_up(&W->wq);
		if (wait_for_completion_killable(&W->done))
			return;
		mutex_lock_io(&W->m);
		if (READ_ONCE(W->stage) != 2)
			weft_report(WEFT_KIND_ASSERT, &W->stage, WEFT_TEST_NOTE_SITE("kl stage"),
				    "completed before stage 2");
		mutex_unlock(&W->m);
		return;
	}
	if (wait_event_killable(W->wq, READ_ONCE(W->stage) == 1))
		return;
	if (down_write_killable(&W->r1))
		return;
	WRITE_ONCE(W->stage, 2);
	up_write(&W->r1);
	complete(&W->done);
}

static const struct weft_variant kl_variants[] = {
	WEFT_TEST_FIX("handoff",
	              "a two-stage hand-off with the killable and _io forms",
	              KL_HANDOFF),
	WEFT_TEST_BUG("abba-rwsem",
	              "two rwsems taken in opposite orders (killable forms)",
	              WEFT_KIND_LOCK_ORDER, KL_ABBA_RWSEM),
};

WEFT_TEST_SCENARIO(killable, "killable",
		   "test: the killable, _io and _nested sleeping forms",
		   struct kl_world, 2, 2, 64, kl);

/* ---------------------------------------------------- completion-timeout */

/* T0 hands a kmalloc()ed request to T1 and waits for its completion with
 * wait_for_completion_timeout(); T1 fills the result and completes it.
 * free-on-timeout (bug): T0 frees the request when the wait timed out, and
 * T1, late, writes it (use-after-free); wait-again (clean): after a
 * timeout T0 waits for the completion before it frees; either way a wait
 * that returned nonzero saw the result. */
enum { CT_FREE_ON_TIMEOUT, CT_WAIT_AGAIN };

struct ct_req {
	struct completion done;
	int result;
};

struct ct_world {
	unsigned variant;
	struct ct_req *req;
};

WEFT_TEST_SETUP(ct, struct ct_world)
{
	W->req = kzalloc(sizeof(*W->req), GFP_KERNEL);
	init_completion(&W->req->done);
}

static void ct_thread(void *w, unsigned tid)
{
	struct ct_world *W = w;
	struct ct_req *r = READ_ONCE(W->req);

	if (tid == 1) {
		WRITE_ONCE(r->result, 1);
		complete(&r->done);
		return;
	}
	if (wait_for_completion_timeout(&r->done, 2)) {
		if (READ_ONCE(r->result) != 1)
			weft_report(WEFT_KIND_ASSERT, &r->result, WEFT_TEST_NOTE_SITE("ct result"),
				    "completed, yet no result");
	} else if (W->variant == CT_WAIT_AGAIN) {
		wait_for_completion(&r->done);
	}
	kfree(r);
}

static const struct weft_variant ct_variants[] = {
	WEFT_TEST_BUG("free-on-timeout",
	              "the waiter frees the request when its wait timed out",
	              WEFT_KIND_USE_AFTER_FREE, CT_FREE_ON_TIMEOUT),
	WEFT_TEST_FIX("wait-again",
	              "after a timeout the waiter waits for the completion, then frees",
	              CT_WAIT_AGAIN),
};

WEFT_TEST_SCENARIO(completion_timeout, "completion-timeout",
		   "test: a request freed by a waiter whose wait timed out",
		   struct ct_world, 2, 2, 64, ct, .heap_size = 64);

/* ---------------------------------------------------------------- is-locked */

enum { IL_OWN, IL_OTHER };

struct il_world {
	unsigned variant;
	spinlock_t lock;
	int data;   /* under lock */
};

WEFT_TEST_SETUP(il, struct il_world)
{
	W->data = 1;
	spin_lock_init(&W->lock);
}

static void il_thread(void *w, unsigned tid)
{
	struct il_world *W = w;
	bool own = tid == 0 || W->variant == IL_OWN;

	/* other: "nobody holds it now", true only when T0 is not inside */
	if (!own && spin_is_locked(&W->lock))
		weft_report(WEFT_KIND_ASSERT, &W->lock, WEFT_TEST_NOTE_SITE("il free"),
			    "the lock T1 took for free is held");
	if (!own)
		return;
	spin_lock(&W->lock);
	assert_spin_locked(&W->lock);
	WRITE_ONCE(W->data, READ_ONCE(W->data) + 1);
	spin_unlock(&W->lock);
}

static const struct weft_variant il_variants[] = {
	WEFT_TEST_FIX("own", "each thread asserts the lock it holds", IL_OWN),
	WEFT_TEST_BUG("other", "T1 takes spin_is_locked() of T0's lock for \"free now\"",
		      WEFT_KIND_ASSERT, IL_OTHER),
};

WEFT_TEST_SCENARIO(is_locked, "is-locked",
		   "test: spin_is_locked() and assert_spin_locked()",
		   struct il_world, 2, 2, 64, il);

/* ------------------------------------------------------------ query-held */

enum {
	QH_MUTEX_TRYLOCK,
	QH_MUTEX_IS_LOCKED,
	QH_DOWN_TRYLOCK,
	QH_DOWN_READ_TRYLOCK,
	QH_DOWN_WRITE_TRYLOCK,
	QH_DOWNGRADE_WRITE,
	QH_READ_TRYLOCK,
	QH_WRITE_TRYLOCK,
	QH_SPIN_TRYLOCK_IRQSAVE,
	QH_COMPLETION_DONE,
	QH_TRY_WAIT_FOR_COMPLETION,
	QH_WAITQUEUE_ACTIVE,
};

struct qh_world {
	unsigned variant;
	struct mutex mutex;
	struct semaphore sem;
	struct rw_semaphore rwsem;
	rwlock_t rwlock;
	spinlock_t lock;
	struct completion done;
	wait_queue_head_t wq;
	int flag;
};

WEFT_TEST_SETUP(qh, struct qh_world)
{
	mutex_init(&W->mutex);
	sema_init(&W->sem, 1);
	init_rwsem(&W->rwsem);
	rwlock_init(&W->rwlock);
	spin_lock_init(&W->lock);
	init_completion(&W->done);
	init_waitqueue_head(&W->wq);
}

/* A lock's window is one hold, taken and given back (T0); a trylock that
 * succeeds gives the lock back at once (T1). */
#define QH_HOLD(take, give_back) \
	do {                     \
		take;            \
		give_back;       \
	} while (0)
#define QH_TRY(taken, give_back)   \
	do {                       \
		busy = !(taken);   \
		if (!busy)         \
			give_back; \
	} while (0)

/* Each variant's two sides together: T0's window, and T1's one query,
 * busy when it saw T0 inside the window (or not yet done). */
static void qh_thread(void *w, unsigned tid)
{
	struct qh_world *W = w;
	bool t0 = tid == 0, busy = false;
	unsigned long flags;

	switch (W->variant) {
	case QH_MUTEX_TRYLOCK:
		if (t0)
			QH_HOLD(mutex_lock(&W->mutex), mutex_unlock(&W->mutex));
		else
			QH_TRY(mutex_trylock(&W->mutex), mutex_unlock(&W->mutex));
		break;
	case QH_MUTEX_IS_LOCKED:
		if (t0)
			QH_HOLD(mutex_lock(&W->mutex), mutex_unlock(&W->mutex));
		else
			busy = mutex_is_locked(&W->mutex);
		break;
	case QH_DOWN_TRYLOCK:
		if (t0)
			QH_HOLD(down(&W->sem), up(&W->sem));
		else
			QH_TRY(down_trylock(&W->sem) == 0, up(&W->sem));
		break;
	case QH_DOWN_READ_TRYLOCK:
		if (t0)
			QH_HOLD(down_write(&W->rwsem), up_write(&W->rwsem));
		else
			QH_TRY(down_read_trylock(&W->rwsem), up_read(&W->rwsem));
		break;
	case QH_DOWN_WRITE_TRYLOCK:
		if (t0)
			QH_HOLD(down_read(&W->rwsem), up_read(&W->rwsem));
		else
			QH_TRY(down_write_trylock(&W->rwsem), up_write(&W->rwsem));
		break;
	case QH_DOWNGRADE_WRITE:
		if (t0) {
			down_write(&W->rwsem);
			downgrade_write(&W->rwsem);   /* readers may enter from here on */
			up_read(&W->rwsem);
		} else {
			QH_TRY(down_read_trylock(&W->rwsem), up_read(&W->rwsem));
		}
		break;
	case QH_READ_TRYLOCK:
		if (t0)
			QH_HOLD(write_lock(&W->rwlock), write_unlock(&W->rwlock));
		else
			QH_TRY(read_trylock(&W->rwlock), read_unlock(&W->rwlock));
		break;
	case QH_WRITE_TRYLOCK:
		if (t0)
			QH_HOLD(read_lock(&W->rwlock), read_unlock(&W->rwlock));
		else
			QH_TRY(write_trylock(&W->rwlock), write_unlock(&W->rwlock));
		break;
	case QH_SPIN_TRYLOCK_IRQSAVE:
		if (t0)
			QH_HOLD(spin_lock(&W->lock), spin_unlock(&W->lock));
		else
			QH_TRY(spin_trylock_irqsave(&W->lock, flags),
			       spin_unlock_irqrestore(&W->lock, flags));
		break;
	case QH_COMPLETION_DONE:
		if (t0)
			complete(&W->done);
		else
			busy = !completion_done(&W->done);
		break;
	case QH_TRY_WAIT_FOR_COMPLETION:
		if (t0)
			complete(&W->done);
		else
			busy = !try_wait_for_completion(&W->done);
		break;
	case QH_WAITQUEUE_ACTIVE:
		if (t0) {
			wait_event(W->wq, READ_ONCE(W->flag));
		} else {
			busy = waitqueue_active(&W->wq);
			WRITE_ONCE(W->flag, 1);
			wake_up(&W->wq);
		}
		break;
	}
	if (busy)
		weft_report(WEFT_KIND_ASSERT, W, WEFT_TEST_NOTE_SITE("qh busy"),
			    "the query saw the other thread's window");
}

#define QH_BUG(name, what, id) WEFT_TEST_BUG(name, what, WEFT_KIND_ASSERT, id)

static const struct weft_variant qh_variants[] = {
	QH_BUG("mutex-trylock", "mutex_trylock() while T0 may hold the mutex", QH_MUTEX_TRYLOCK),
	QH_BUG("mutex-is-locked", "mutex_is_locked() while T0 may hold the mutex",
	       QH_MUTEX_IS_LOCKED),
	QH_BUG("down-trylock", "down_trylock() while T0 may hold the semaphore", QH_DOWN_TRYLOCK),
	QH_BUG("down-read-trylock", "down_read_trylock() while T0 may hold the rwsem for write",
	       QH_DOWN_READ_TRYLOCK),
	QH_BUG("down-write-trylock", "down_write_trylock() while T0 may hold the rwsem for read",
	       QH_DOWN_WRITE_TRYLOCK),
	QH_BUG("downgrade-write", "down_read_trylock() before T0's downgrade_write() lets it in",
	       QH_DOWNGRADE_WRITE),
	QH_BUG("read-trylock", "read_trylock() while T0 may hold the rwlock for write",
	       QH_READ_TRYLOCK),
	QH_BUG("write-trylock", "write_trylock() while T0 may hold the rwlock for read",
	       QH_WRITE_TRYLOCK),
	QH_BUG("spin-trylock-irqsave", "spin_trylock_irqsave() while T0 may hold the lock",
	       QH_SPIN_TRYLOCK_IRQSAVE),
	QH_BUG("completion-done", "completion_done() before T0 may have completed",
	       QH_COMPLETION_DONE),
	QH_BUG("try-wait-for-completion", "try_wait_for_completion() before T0 may have completed",
	       QH_TRY_WAIT_FOR_COMPLETION),
	QH_BUG("waitqueue-active", "waitqueue_active() while T0 may be queued", QH_WAITQUEUE_ACTIVE),
};

WEFT_TEST_SCENARIO(query_held, "query-held",
		   "test: trylocks and state queries racing with another thread's lock, "
		   "completion or wait",
		   struct qh_world, 2, 2, 64, qh);


/* ------------------------------------------------------------ timeout-first */

/* T0 waits with a timeout for T1, which takes a mutex, stores its result
 * and signals; T0's timeout path is wrong: it frees the request and the
 * common exit frees it again (double free), whether or not T1 has run.
 * The kernel's timer may fire whenever T1 is slow, so the timeout before
 * T1 signals is an alternative every strategy must reach: the sleeper's
 * timer is the timer softirq's pseudo-thread (timer.c), a fair
 * alternative once T0 sleeps (dfs finds it at bound 0), which pct ranks
 * like any other thread, so pct finds it within a few executions (a red
 * team's report that pct missed such a bug did not reproduce here; the
 * mutant timeout-unfair makes the timeout unfair, and pct misses it).
 * completion (bug):
 * wait_for_completion_timeout(); schedule (bug): prepare_to_wait() and
 * schedule_timeout() on a wait queue; completion-ok and schedule-ok
 * (clean): the timeout path leaves the free to the common exit, after
 * waiting for T1. */
enum { TF_COMPLETION, TF_SCHEDULE, TF_COMPLETION_OK, TF_SCHEDULE_OK };

struct tf_req {
	int result;
};

struct tf_world {
	unsigned variant;
	struct mutex m;
	struct completion done;
	struct weft_wait_queue_head wq;
	int flag;
	struct tf_req *req;
};

WEFT_TEST_SETUP(tf, struct tf_world)
{
	mutex_init(&W->m);
	init_completion(&W->done);
	init_waitqueue_head(&W->wq);
	W->req = kzalloc(sizeof(*W->req), GFP_KERNEL);
}

static void tf_thread(void *w, unsigned tid)
{
	struct tf_world *W = w;
	struct tf_req *r = READ_ONCE(W->req);
	bool timed_out;

	if (tid == 1) {
		mutex_lock(&W->m);
		WRITE_ONCE(r->result, 1);
		mutex_unlock(&W->m);
		if (W->variant == TF_COMPLETION || W->variant == TF_COMPLETION_OK) {
			complete(&W->done);
		} else {
			smp_store_release(&W->flag, 1);
			wake_up(&W->wq);
		}
		return;
	}
	if (W->variant == TF_COMPLETION || W->variant == TF_COMPLETION_OK) {
		timed_out = !wait_for_completion_timeout(&W->done, 2);
	} else {
		DEFINE_WAIT(wait);
		long left = 2;
		prepare_to_wait(&W->wq, &wait, TASK_UNINTERRUPTIBLE);
		if (!smp_load_acquire(&W->flag))
			left = schedule_timeout(left);
		finish_wait(&W->wq, &wait);
		timed_out = !left && !smp_load_acquire(&W->flag);
	}
	if (timed_out) {
		if (W->variant == TF_COMPLETION || W->variant == TF_SCHEDULE) {
			kfree(r);   /* the bug: the exit below frees it again */
		} else if (W->variant == TF_COMPLETION_OK) {
			wait_for_completion(&W->done);
		} else {
			wait_event(W->wq, smp_load_acquire(&W->flag));
		}
	}
	kfree(r);
}

static const struct weft_variant tf_variants[] = {
	WEFT_TEST_BUG("completion",
	              "wait_for_completion_timeout()'s timeout path frees the request twice",
	              WEFT_KIND_DOUBLE_FREE, TF_COMPLETION),
	WEFT_TEST_BUG("schedule",
	              "schedule_timeout()'s timeout path frees the request twice",
	              WEFT_KIND_DOUBLE_FREE, TF_SCHEDULE),
	WEFT_TEST_FIX("completion-ok",
	              "after a wait_for_completion_timeout() timeout the waiter waits, then frees once",
	              TF_COMPLETION_OK),
	WEFT_TEST_FIX("schedule-ok",
	              "after a schedule_timeout() timeout the waiter waits, then frees once",
	              TF_SCHEDULE_OK),
};

WEFT_TEST_SCENARIO(timeout_first, "timeout-first",
		   "test: a timed wait that times out before the signaller runs",
		   struct tf_world, 2, 2, 128, tf, .heap_size = 64);

/* sem_timeout_models.c */
extern const struct weft_scenario weft_sem_timeout;

WEFT_DEFINE_REGISTRY(&raw_nested, &lock_irq, &cond_load, &killable, &completion_timeout,
		     &is_locked, &query_held, &timeout_first, &weft_sem_timeout);
