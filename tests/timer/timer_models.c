/*
 * timer_models.c - kernel timers (<weft/timer.h>) in the shapes kernel code
 * gets wrong, each bug beside its fix, run through the weft command line
 * of this program (bin/weft-timers; tests/timer/CMakeLists.txt):
 *
 *  timer-teardown   an object whose timer callback writes it is torn
 *                   down: del_timer() then free races with a callback
 *                   already running (use-after-free); del_timer_sync(),
 *                   or timer_shutdown_sync() of a callback that re-arms
 *                   itself, waits for it (del_timer_sync() of one that
 *                   always re-arms itself too: it detaches it again once
 *                   the callback returned); freeing with the timer still
 *                   pending is debugobjects' "free active object".
 *  timer-lock       a callback takes a spinlock the task on its CPU holds
 *                   with spin_lock(): the softirq interrupts the holder
 *                   (deadlock); spin_lock_bh() keeps it out.
 *  timer-arm        "if (!timer_pending()) add_timer()" from two CPUs
 *                   (BUG_ON in add_timer()); mod_timer() is the fix; a
 *                   callback that deletes itself synchronously (deadlock);
 *                   freeing a timer just armed (bad-free); jiffies seen by
 *                   a callback is at least an expiry; a callback re-armed
 *                   from another CPU while it runs never runs twice at once.
 *  dwork-teardown   the same with a delayed work (a work item and its
 *                   timer): cancel_delayed_work() then free races with a
 *                   run (use-after-free); cancel_delayed_work_sync(), of a
 *                   self-requeueing one too, flush_delayed_work() and
 *                   mod_delayed_work() from two CPUs are clean.
 *  work-publish     a work item and a timer callback see the stores made
 *                   before they were queued or armed, under every memory
 *                   model; the result read without flush_work() (assertion).
 *  timed-wait       wait_event_timeout() whose timeout is taken for the
 *                   event (the data is not there), handled right, and a
 *                   plain timed sleep; a sleep on no wait queue that
 *                   wake_up() cannot find (lost wakeup).
 *  timer-migrate    one migratable task arms its object's timer and tears
 *                   the object down: alone on its CPU the callback could
 *                   only interrupt it, but the task may migrate after
 *                   mod_timer(), the timer fires on the arming CPU, and
 *                   del_timer() on the new CPU returns while the callback
 *                   runs there (use-after-free); del_timer_sync() waits.
 *  dwork-flush      flush_work() of a delayed work whose timer is pending
 *                   returns at once (start_flush_work() finds the work on
 *                   no pool: it is not queued yet), so a result read after
 *                   it may not be there (assertion); flush_delayed_work()
 *                   queues it at once and waits.
 *  timer-xa         an xarray a timer callback erases from (xa_lock() in
 *                   softirq context) and the task on its CPU stores into:
 *                   with xa_store() (xa_lock(): irq-lock-inversion), with
 *                   xa_lock_bh() around __xa_store(), or xa_store_bh()
 *                   (clean: include/linux/xarray.h's _bh forms disable
 *                   bottom halves).
 */
#include <weft/kernel.h>
#include <weft/timer.h>
#include <weft/workqueue.h>
#include <weft/xarray.h>

#define WEFT_TEST_SOURCE "tests/timer"
#define WEFT_TEST_FILE "timer_models.c"
#include "../model_driver.h"

#define kfree_obj(p) weft_poison((p), sizeof(*(p)), WEFT_SITE(WEFT_EV_FREE, "kfree(" #p ")"))

/* --------------------------------------------------------- timer-teardown */

enum { TD_DEL, TD_DEL_SYNC, TD_SHUTDOWN, TD_SHUTDOWN_ASYNC, TD_FREE_PENDING, TD_PERIODIC_SPIN,
       TD_PERIODIC_WAIT, TD_REARM_DEL_SYNC };

#define TD_PERIODS 3   /* the periodic-* variants wait for this many firings */

struct td_obj {
	struct timer_list timer;
	int hits;
	int stop;
	struct completion periods;
};

struct td_world {
	unsigned variant;
	struct td_obj obj;
};

static unsigned td_variant(const struct td_obj *o)
{
	return ((const struct td_world *)((const char *)o - offsetof(struct td_world, obj)))->variant;
}

static void td_callback(struct timer_list *t)
{
	struct td_obj *o = from_timer(o, t, timer);

	if (time_before(jiffies, INITIAL_JIFFIES + HZ / 10))
		weft_report(WEFT_KIND_ASSERT, t, WEFT_SITE(WEFT_EV_NOTE, "fired early"),
			    "the callback ran at jiffies %lu, before its expiry", jiffies);
	int hits = READ_ONCE(o->hits) + 1;
	WRITE_ONCE(o->hits, hits);
	/* the shutdown and periodic variants' timer is periodic */
	unsigned v = td_variant(o);
	if (v == TD_PERIODIC_WAIT && hits == TD_PERIODS)
		complete(&o->periods);
	if (v >= TD_SHUTDOWN && v != TD_FREE_PENDING && !READ_ONCE(o->stop))
		mod_timer(t, jiffies + HZ);
}

WEFT_TEST_SETUP(td, struct td_world)
{
	timer_setup(&W->obj.timer, td_callback, 0);
	init_completion(&W->obj.periods);
}

static void td_thread(void *w, unsigned tid)
{
	struct td_world *W = w;
	struct td_obj *o = &W->obj;

	if (tid == 0) {   /* the owner arms the timer... */
		mod_timer(&o->timer, jiffies + HZ / 10);
		return;
	}
	/* ...and another CPU tears the object down once it is armed */
	while (!timer_pending(&o->timer) && !READ_ONCE(o->hits))
		cpu_relax();
	switch (W->variant) {
	case TD_DEL:
		del_timer(&o->timer);
		break;
	case TD_DEL_SYNC:
	case TD_REARM_DEL_SYNC:   /* deletes again what the callback re-armed */
		del_timer_sync(&o->timer);
		break;
	case TD_SHUTDOWN:
		WRITE_ONCE(o->stop, 1);
		timer_shutdown_sync(&o->timer);
		break;
	case TD_SHUTDOWN_ASYNC:
		WRITE_ONCE(o->stop, 1);
		timer_shutdown(&o->timer);
		break;
	case TD_FREE_PENDING:
		break;
	case TD_PERIODIC_SPIN:
	case TD_PERIODIC_WAIT:
		/* fires again only once this thread has run: no endless storm */
		if (W->variant == TD_PERIODIC_SPIN)
			while (READ_ONCE(o->hits) < TD_PERIODS)
				cpu_relax();
		else
			wait_for_completion(&o->periods);
		WRITE_ONCE(o->stop, 1);
		timer_shutdown_sync(&o->timer);
		break;
	}
	kfree_obj(o);
}

static const struct weft_variant td_variants[] = {
	WEFT_TEST_BUG("del-timer",
	              "del_timer() then kfree(): the callback may be running",
	              WEFT_KIND_USE_AFTER_FREE, TD_DEL),
	WEFT_TEST_FIX("del-timer-sync", "del_timer_sync() then kfree()", TD_DEL_SYNC),
	WEFT_TEST_FIX("shutdown-sync",
	              "a periodic timer: stop flag, timer_shutdown_sync(), kfree()",
	              TD_SHUTDOWN),
	WEFT_TEST_BUG("shutdown-async",
	              "the same with timer_shutdown(): it does not wait",
	              WEFT_KIND_USE_AFTER_FREE, TD_SHUTDOWN_ASYNC),
	WEFT_TEST_BUG("free-pending",
	              "kfree() with the timer still pending",
	              WEFT_KIND_BAD_FREE, TD_FREE_PENDING),
	WEFT_TEST_FIX("periodic-spin",
	              "a spin until the periodic timer fired 3 times, then timer_shutdown_sync()",
	              TD_PERIODIC_SPIN),
	WEFT_TEST_FIX("periodic-wait",
	              "wait_for_completion() of its third firing, then timer_shutdown_sync()",
	              TD_PERIODIC_WAIT),
	WEFT_TEST_FIX("rearm-del-sync",
	              "a timer that always re-arms itself: del_timer_sync(), kfree()",
	              TD_REARM_DEL_SYNC),
};

WEFT_TEST_SCENARIO(timer_teardown, "timer-teardown",
		   "test: tearing down an object with a timer",
		   struct td_world, 2, 2, 256, td);

/* ------------------------------------------------------------ timer-lock */

enum { TL_SPIN, TL_SPIN_BH };

struct tl_world {
	unsigned variant;
	struct weft_spinlock lock;
	struct timer_list timer;
	int count;
	int in_callback;
};

static void tl_callback(struct timer_list *t)
{
	struct tl_world *W = container_of(t, struct tl_world, timer);

	WRITE_ONCE(W->in_callback, 1);
	spin_lock(&W->lock);
	WRITE_ONCE(W->count, READ_ONCE(W->count) + 1);
	spin_unlock(&W->lock);
	WRITE_ONCE(W->in_callback, 0);
}

WEFT_TEST_SETUP(tl, struct tl_world)
{
	spin_lock_init(&W->lock);
	timer_setup(&W->timer, tl_callback, 0);
}

static void tl_thread(void *w, unsigned tid)
{
	struct tl_world *W = w;

	(void)tid;
	mod_timer(&W->timer, jiffies + 1);
	if (W->variant == TL_SPIN)
		spin_lock(&W->lock);
	else
		spin_lock_bh(&W->lock);
	WRITE_ONCE(W->count, READ_ONCE(W->count) + 1);
	if (W->variant == TL_SPIN)
		spin_unlock(&W->lock);
	else
		spin_unlock_bh(&W->lock);
	del_timer_sync(&W->timer);
	if (READ_ONCE(W->in_callback))
		weft_report(WEFT_KIND_ASSERT, &W->in_callback,
			    WEFT_SITE(WEFT_EV_NOTE, "del_timer_sync() waited"),
			    "the callback still runs after del_timer_sync()");
}

static void tl_quiesce(void *w)
{
	struct tl_world *W = w;
	int c = weft_peek(W->count);

	if (c < 1 || c > 2)
		weft_report(WEFT_KIND_ASSERT, &W->count, WEFT_SITE(WEFT_EV_NOTE, "audit: count"),
			    "count %d: neither the task alone nor both", c);
}

static const struct weft_variant tl_variants[] = {
	WEFT_TEST_BUG("spin-lock",
	              "the task takes the callback's lock with spin_lock()",
	              WEFT_KIND_IRQ_LOCK_INVERSION, TL_SPIN),
	WEFT_TEST_FIX("spin-lock-bh", "with spin_lock_bh()", TL_SPIN_BH),
};

WEFT_TEST_SCENARIO(timer_lock, "timer-lock",
		   "test: a timer callback and a task on its CPU share a spinlock",
		   struct tl_world, 1, 1, 128, tl,
		   .quiesce = tl_quiesce);

/* ------------------------------------------------------------- timer-arm */

enum { TA_CHECK_ADD, TA_MOD, TA_SELF_SYNC, TA_FREE_ARMED };

struct ta_world {
	unsigned variant;
	struct timer_list timer;
	int fired;
	int in_callback;
	int armed;
};

static void ta_callback(struct timer_list *t)
{
	struct ta_world *W = container_of(t, struct ta_world, timer);

	/* every arming is at least HZ after INITIAL_JIFFIES (t->expires itself
	 * may be a later re-arming's by now, as in the kernel) */
	if (time_before(jiffies, INITIAL_JIFFIES + HZ))
		weft_report(WEFT_KIND_ASSERT, t, WEFT_SITE(WEFT_EV_NOTE, "fired early"),
			    "the callback ran at jiffies %lu, before any expiry", jiffies);
#ifndef WEFT_NATIVE   /* weft stress does not model contexts */
	if (!in_serving_softirq())
		weft_report(WEFT_KIND_ASSERT, t, WEFT_SITE(WEFT_EV_NOTE, "softirq context"),
			    "a timer callback outside softirq context");
#endif
	if (READ_ONCE(W->in_callback))
		weft_report(WEFT_KIND_ASSERT, t, WEFT_SITE(WEFT_EV_NOTE, "one run at a time"),
			    "the callback runs twice at once");
	WRITE_ONCE(W->in_callback, 1);
	WRITE_ONCE(W->fired, READ_ONCE(W->fired) + 1);
	if (W->variant == TA_SELF_SYNC)
		del_timer_sync(t);
	WRITE_ONCE(W->in_callback, 0);
}

WEFT_TEST_SETUP(ta, struct ta_world)
{
	timer_setup(&W->timer, ta_callback, 0);
}

static void ta_thread(void *w, unsigned tid)
{
	struct ta_world *W = w;
	unsigned long now = jiffies;

	switch (W->variant) {
	case TA_CHECK_ADD:
		if (!timer_pending(&W->timer)) {
			W->timer.expires = now + HZ * (tid + 1);
			add_timer(&W->timer);
		}
		break;
	case TA_MOD:
		if (tid == 1)   /* after T0's arming, so that none comes later */
			while (!READ_ONCE(W->armed))
				cpu_relax();
		mod_timer(&W->timer, now + HZ * (tid + 1));
		WRITE_ONCE(W->armed, 1);
		if (tid == 1) {   /* a callback on CPU0 is over when this returns */
			del_timer_sync(&W->timer);
			if (READ_ONCE(W->in_callback))
				weft_report(WEFT_KIND_ASSERT, &W->in_callback,
					    WEFT_SITE(WEFT_EV_NOTE, "del_timer_sync() waited"),
					    "the callback still runs after del_timer_sync()");
		}
		break;
	case TA_SELF_SYNC:
		mod_timer(&W->timer, now + HZ * (tid + 1));
		break;
	case TA_FREE_ARMED:   /* T0 arms, then frees the timer it armed */
		if (tid == 0) {
			mod_timer(&W->timer, now + HZ);
			kfree_obj(&W->timer);
		}
		break;
	}
	if (time_before(jiffies, now))
		weft_report(WEFT_KIND_ASSERT, NULL, WEFT_SITE(WEFT_EV_NOTE, "jiffies went back"),
			    "jiffies went backwards");
}

static const struct weft_variant ta_variants[] = {
	WEFT_TEST_BUG("check-then-add",
	              "if (!timer_pending()) add_timer() on two CPUs",
	              WEFT_KIND_BUG_ON, TA_CHECK_ADD),
	WEFT_TEST_FIX("mod-timer",
	              "mod_timer() on two CPUs, then del_timer_sync() on CPU1",
	              TA_MOD),
	WEFT_TEST_BUG("self-sync",
	              "the callback calls del_timer_sync() on its own timer",
	              WEFT_KIND_DEADLOCK, TA_SELF_SYNC),
	WEFT_TEST_BUG("free-armed",
	              "T0 frees the timer it has just armed",
	              WEFT_KIND_BAD_FREE, TA_FREE_ARMED),
};

WEFT_TEST_SCENARIO(timer_arm, "timer-arm",
		   "test: arming one timer from two CPUs",
		   struct ta_world, 2, 2, 128, ta);

/* ----------------------------------------------------------- dwork-teardown */

enum { DW_CANCEL, DW_CANCEL_SYNC, DW_PERIODIC, DW_FLUSH, DW_MOD };

struct dw_obj {
	struct delayed_work dw;
	int runs;
	int stop;
	int in_fn;
};

struct dw_world {
	unsigned variant;
	struct dw_obj obj;
};

static void dw_fn(struct work_struct *w)
{
	struct dw_obj *o = container_of(to_delayed_work(w), struct dw_obj, dw);
	struct dw_world *W = container_of(o, struct dw_world, obj);

	if (READ_ONCE(o->in_fn))
		weft_report(WEFT_KIND_ASSERT, o, WEFT_SITE(WEFT_EV_NOTE, "one run at a time"),
			    "the work function runs twice at once");
	WRITE_ONCE(o->in_fn, 1);
	WRITE_ONCE(o->runs, READ_ONCE(o->runs) + 1);
	/* vmstat_update()'s shape: it re-queues itself until stopped */
	if (W->variant == DW_PERIODIC && !READ_ONCE(o->stop))
		schedule_delayed_work(&o->dw, HZ);
	WRITE_ONCE(o->in_fn, 0);
}

WEFT_TEST_SETUP(dw, struct dw_world)
{
	INIT_DELAYED_WORK(&W->obj.dw, dw_fn);
}

static void dw_thread(void *w, unsigned tid)
{
	struct dw_world *W = w;
	struct dw_obj *o = &W->obj;

	if (tid == 0) {
		if (W->variant == DW_MOD)
			mod_delayed_work(system_wq, &o->dw, HZ);
		else
			schedule_delayed_work(&o->dw, HZ / 2);
		return;
	}
	while (!delayed_work_pending(&o->dw) && !READ_ONCE(o->runs))
		cpu_relax();
	switch (W->variant) {
	case DW_CANCEL:
		cancel_delayed_work(&o->dw);
		break;
	case DW_CANCEL_SYNC:
		cancel_delayed_work_sync(&o->dw);
		break;
	case DW_PERIODIC:
		WRITE_ONCE(o->stop, 1);
		cancel_delayed_work_sync(&o->dw);
		break;
	case DW_FLUSH:
		flush_delayed_work(&o->dw);
		if (READ_ONCE(o->runs) != 1)
			weft_report(WEFT_KIND_ASSERT, o, WEFT_SITE(WEFT_EV_NOTE, "flushed"),
				    "flush_delayed_work() returned with %d runs", READ_ONCE(o->runs));
		break;
	case DW_MOD:
		mod_delayed_work(system_wq, &o->dw, 2 * HZ);
		cancel_delayed_work_sync(&o->dw);
		break;
	}
	kfree_obj(o);
}

static const struct weft_variant dw_variants[] = {
	WEFT_TEST_BUG("cancel",
	              "cancel_delayed_work() then kfree(): the work may be running",
	              WEFT_KIND_USE_AFTER_FREE, DW_CANCEL),
	WEFT_TEST_FIX("cancel-sync", "cancel_delayed_work_sync() then kfree()", DW_CANCEL_SYNC),
	WEFT_TEST_FIX("periodic",
	              "a self-requeueing delayed work: stop flag, cancel_delayed_work_sync(), kfree()",
	              DW_PERIODIC),
	WEFT_TEST_FIX("flush", "flush_delayed_work() runs it once and waits", DW_FLUSH),
	WEFT_TEST_FIX("mod",
	              "mod_delayed_work() from two CPUs, then cancel_delayed_work_sync()",
	              DW_MOD),
};

WEFT_TEST_SCENARIO(dwork_teardown, "dwork-teardown",
		   "test: tearing down an object with a delayed work",
		   struct dw_world, 2, 2, 256, dw);

/* ------------------------------------------------------------ timed-wait */

enum { TW_TIMEOUT_OK, TW_TIMEOUT_AS_SUCCESS, TW_NO_TIMEOUT, TW_SLEEP, TW_NOT_QUEUED };

struct tw_world {
	unsigned variant;
	struct weft_wait_queue_head wq;
	int data;
	int done;
};

WEFT_TEST_SETUP(tw, struct tw_world)
{
	init_waitqueue_head(&W->wq);
}

static void tw_thread(void *w, unsigned tid)
{
	struct tw_world *W = w;

	if (tid == 1) {   /* the producer */
		WRITE_ONCE(W->data, 42);
		smp_store_release(&W->done, 1);
		wake_up(&W->wq);
		return;
	}
	unsigned long start = jiffies;
	long ret;
	switch (W->variant) {
	case TW_TIMEOUT_OK:   /* a timeout is handled as one */
		ret = wait_event_timeout(W->wq, smp_load_acquire(&W->done), HZ);
		if (ret > 0 && READ_ONCE(W->data) != 42)
			weft_report(WEFT_KIND_ASSERT, &W->data, WEFT_SITE(WEFT_EV_NOTE, "data"),
				    "woken with time left but the data is not there");
		if (!ret && time_before(jiffies, start + HZ))
			weft_report(WEFT_KIND_ASSERT, NULL, WEFT_SITE(WEFT_EV_NOTE, "timeout"),
				    "timed out before the timeout went by");
		break;
	case TW_TIMEOUT_AS_SUCCESS:   /* the bug: the timeout taken for the event */
		wait_event_timeout(W->wq, smp_load_acquire(&W->done), HZ);
		if (READ_ONCE(W->data) != 42)
			weft_report(WEFT_KIND_ASSERT, &W->data, WEFT_SITE(WEFT_EV_NOTE, "data"),
				    "data read before it was set (the wait timed out)");
		break;
	case TW_NO_TIMEOUT:
		wait_event(W->wq, smp_load_acquire(&W->done));
		if (READ_ONCE(W->data) != 42)
			weft_report(WEFT_KIND_ASSERT, &W->data, WEFT_SITE(WEFT_EV_NOTE, "data"),
				    "data read before it was set");
		break;
	case TW_SLEEP:   /* msleep()'s shape: a pure timed sleep */
		ret = schedule_timeout_uninterruptible(HZ);
		if (ret || time_before(jiffies, start + HZ))
			weft_report(WEFT_KIND_ASSERT, NULL, WEFT_SITE(WEFT_EV_NOTE, "slept"),
				    "schedule_timeout_uninterruptible(HZ) returned %ld at +%lu", ret,
				    jiffies - start);
		break;
	case TW_NOT_QUEUED:   /* the bug: sleeping on no wait queue */
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (!smp_load_acquire(&W->done))
			schedule_timeout(MAX_SCHEDULE_TIMEOUT);
		__set_current_state(TASK_RUNNING);
		break;
	}
}

static const struct weft_variant tw_variants[] = {
	WEFT_TEST_FIX("timeout-ok",
	              "wait_event_timeout(): 0 is a timeout, more is the event",
	              TW_TIMEOUT_OK),
	WEFT_TEST_BUG("timeout-as-success",
	              "the data used after a wait that may have timed out",
	              WEFT_KIND_ASSERT, TW_TIMEOUT_AS_SUCCESS),
	WEFT_TEST_FIX("no-timeout", "wait_event(): no timeout", TW_NO_TIMEOUT),
	WEFT_TEST_FIX("sleep",
	              "schedule_timeout_uninterruptible(HZ) sleeps a second of jiffies",
	              TW_SLEEP),
	WEFT_TEST_BUG("not-queued",
	              "set_current_state() and schedule() with no wait queue: wake_up() cannot find "
	              "the sleeper",
	              WEFT_KIND_LOST_WAKEUP, TW_NOT_QUEUED),
};

WEFT_TEST_SCENARIO(timed_wait, "timed-wait",
		   "test: timed sleeps and their timeouts",
		   struct tw_world, 2, 2, 128, tw);

/* ----------------------------------------------------------- work-publish */

/* include/linux/workqueue.h, queue_work_on(): "all stores preceding the
 * call to queue_work() in the program order will be visible from the CPU
 * which will execute work by the time such work executes"; flush_work()
 * returns after the run, its stores visible. Under --memory tso and lkmm
 * the ordering is the primitives' own, so these are the weak-memory
 * tests of the workqueue and timer families' release/acquire. */
enum { WP_FLUSH, WP_NO_FLUSH, WP_TIMER };

struct wp_world {
	unsigned variant;
	struct work_struct work;
	struct timer_list timer;
	int data;
	int result;
	int fired;
};

static void wp_work(struct work_struct *work)
{
	struct wp_world *W = container_of(work, struct wp_world, work);

	if (READ_ONCE(W->data) != 42)
		weft_report(WEFT_KIND_ASSERT, &W->data, WEFT_SITE(WEFT_EV_NOTE, "wp data"),
			    "the work function saw data %d: a store before queue_work() was "
			    "not visible", READ_ONCE(W->data));
	WRITE_ONCE(W->result, 7);
}

static void wp_timer(struct timer_list *t)
{
	struct wp_world *W = from_timer(W, t, timer);

	if (READ_ONCE(W->data) != 42)
		weft_report(WEFT_KIND_ASSERT, &W->data, WEFT_SITE(WEFT_EV_NOTE, "wp timer data"),
			    "the timer callback saw data %d: a store before add_timer_on() was "
			    "not visible", READ_ONCE(W->data));
	WRITE_ONCE(W->fired, 1);
}

WEFT_TEST_SETUP(wp, struct wp_world)
{
	INIT_WORK(&W->work, wp_work);
	timer_setup(&W->timer, wp_timer, 0);
}

static void wp_thread(void *w, unsigned tid)
{
	struct wp_world *W = w;

	(void)tid;
	WRITE_ONCE(W->data, 42);
	if (W->variant == WP_TIMER) {
		W->timer.expires = jiffies + 1;
		add_timer_on(&W->timer, 1);
		del_timer_sync(&W->timer);
		return;
	}
	queue_work_on(1, system_wq, &W->work);
	if (W->variant == WP_FLUSH)
		flush_work(&W->work);
	if (READ_ONCE(W->result) != 7)
		weft_report(WEFT_KIND_ASSERT, &W->result, WEFT_SITE(WEFT_EV_NOTE, "wp result"),
			    "the work's result read before it ran (%d)", READ_ONCE(W->result));
}

static const struct weft_variant wp_variants[] = {
	WEFT_TEST_FIX("flush", "data, queue_work_on(CPU1), flush_work(), the result", WP_FLUSH),
	WEFT_TEST_BUG("no-flush",
	              "the result read with no flush_work()",
	              WEFT_KIND_ASSERT, WP_NO_FLUSH),
	WEFT_TEST_FIX("timer", "data, add_timer_on(CPU1), del_timer_sync()", WP_TIMER),
};

WEFT_TEST_SCENARIO(work_publish, "work-publish",
		   "test: a work item or timer callback sees what was stored before it was queued",
		   struct wp_world, 2, 1, 64, wp);

/* ---------------------------------------------------------- timer-migrate */

enum { TM_DEL, TM_DEL_SYNC };

struct tm_world {
	unsigned variant;
	struct td_obj obj;
};

static void tm_callback(struct timer_list *t)
{
	struct td_obj *o = from_timer(o, t, timer);

	WRITE_ONCE(o->hits, READ_ONCE(o->hits) + 1);
}

WEFT_TEST_SETUP(tm, struct tm_world)
{
	timer_setup(&W->obj.timer, tm_callback, 0);
}

/* The lone task: arms, deletes, frees. Bound to one CPU this is safe (the
 * callback can only interrupt it and run to completion); a user task may
 * be moved to the other CPU at any preemption point. */
static void tm_thread(void *w, unsigned tid)
{
	struct tm_world *W = w;
	struct td_obj *o = &W->obj;

	(void)tid;
	mod_timer(&o->timer, jiffies + 1);
	if (W->variant == TM_DEL)
		del_timer(&o->timer);
	else
		del_timer_sync(&o->timer);
	kfree_obj(o);
}

static const struct weft_variant tm_variants[] = {
	WEFT_TEST_BUG("del-timer",
	              "a migratable task: mod_timer(), del_timer(), kfree()",
	              WEFT_KIND_USE_AFTER_FREE, TM_DEL),
	WEFT_TEST_FIX("del-timer-sync", "the same with del_timer_sync()", TM_DEL_SYNC),
};

WEFT_TEST_SCENARIO(timer_migrate, "timer-migrate",
		   "test: a lone migratable task tears down an object with a timer",
		   struct tm_world, 2, 1, 64, tm,
		   .migratable = 1u << 0);

/* ------------------------------------------------------------ dwork-flush */

enum { DF_FLUSH_WORK, DF_FLUSH_DELAYED };

struct df_world {
	unsigned variant;
	struct delayed_work dw;
	int result;
};

static void df_fn(struct work_struct *w)
{
	struct df_world *W = container_of(to_delayed_work(w), struct df_world, dw);

	WRITE_ONCE(W->result, 1);
}

WEFT_TEST_SETUP(df, struct df_world)
{
	INIT_DELAYED_WORK(&W->dw, df_fn);
}

static void df_thread(void *w, unsigned tid)
{
	struct df_world *W = w;

	(void)tid;
	schedule_delayed_work(&W->dw, HZ);
	if (W->variant == DF_FLUSH_WORK)
		flush_work(&W->dw.work);
	else
		flush_delayed_work(&W->dw);
	if (!READ_ONCE(W->result))
		weft_report(WEFT_KIND_ASSERT, &W->result, WEFT_SITE(WEFT_EV_NOTE, "df result"),
			    "the flush returned before the delayed work ran");
}

static const struct weft_variant df_variants[] = {
	WEFT_TEST_BUG("flush-work",
	              "flush_work() of a delayed work whose timer is pending, then its result",
	              WEFT_KIND_ASSERT, DF_FLUSH_WORK),
	WEFT_TEST_FIX("flush-delayed", "the same with flush_delayed_work()", DF_FLUSH_DELAYED),
};

WEFT_TEST_SCENARIO(dwork_flush, "dwork-flush",
		   "test: flushing a delayed work whose timer is pending",
		   struct df_world, 2, 1, 64, df);

/* --------------------------------------------------------------- timer-xa */

enum { TX_STORE, TX_LOCK_BH, TX_STORE_BH };

struct tx_world {
	unsigned variant;
	struct xarray xa;
	struct timer_list timer;
};

static void tx_callback(struct timer_list *t)
{
	struct tx_world *W = container_of(t, struct tx_world, timer);

	xa_erase(&W->xa, 2);   /* xa_lock(), in softirq context */
}

WEFT_TEST_SETUP(tx, struct tx_world)
{
	xa_init(&W->xa);
	timer_setup(&W->timer, tx_callback, 0);
}

static void tx_thread(void *w, unsigned tid)
{
	struct tx_world *W = w;

	(void)tid;
	mod_timer(&W->timer, jiffies + 1);
	switch (W->variant) {
	case TX_STORE:
		xa_store(&W->xa, 2, xa_mk_value(1), GFP_KERNEL);
		break;
	case TX_LOCK_BH:
		xa_lock_bh(&W->xa);
		__xa_store(&W->xa, 2, xa_mk_value(1), GFP_ATOMIC);
		xa_unlock_bh(&W->xa);
		break;
	default:
		xa_store_bh(&W->xa, 2, xa_mk_value(1), GFP_KERNEL);
		break;
	}
	del_timer_sync(&W->timer);
}

static const struct weft_variant tx_variants[] = {
	WEFT_TEST_BUG("xa-store",
	              "the task stores with xa_store() (xa_lock(), bottom halves on)",
	              WEFT_KIND_IRQ_LOCK_INVERSION, TX_STORE),
	WEFT_TEST_FIX("xa-lock-bh", "xa_lock_bh(), __xa_store(), xa_unlock_bh()", TX_LOCK_BH),
	WEFT_TEST_FIX("xa-store-bh", "xa_store_bh()", TX_STORE_BH),
};

WEFT_TEST_SCENARIO(timer_xa, "timer-xa",
		   "test: a timer callback and a task on its CPU share an xarray",
		   struct tx_world, 1, 1, 128, tx);

WEFT_DEFINE_REGISTRY(&timer_teardown, &timer_lock, &timer_arm, &dwork_teardown, &timed_wait,
		     &work_publish, &timer_migrate, &dwork_flush, &timer_xa);
