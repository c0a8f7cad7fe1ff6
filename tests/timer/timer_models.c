/*
 * timer_models.c - kernel timers (<weft/timer.h>) in the shapes kernel code
 * gets wrong, each bug beside its fix, run through the weft command line
 * of this program (bin/weft-timers; tests/timer/CMakeLists.txt):
 *
 *  timer-teardown   an object whose timer callback writes it is torn
 *                   down: del_timer() then free races with a callback
 *                   already running (use-after-free); del_timer_sync(),
 *                   or timer_shutdown_sync() of a callback that re-arms
 *                   itself, waits for it; freeing with the timer still
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
 */
#include <weft/kernel.h>
#include <weft/timer.h>

static const char *const timer_files[] = { "timer_models.c", NULL };

#define kfree_obj(p) weft_poison((p), sizeof(*(p)), WEFT_SITE(WEFT_EV_FREE, "kfree(" #p ")"))

/* --------------------------------------------------------- timer-teardown */

enum { TD_DEL, TD_DEL_SYNC, TD_SHUTDOWN, TD_SHUTDOWN_ASYNC, TD_FREE_PENDING, TD_PERIODIC_SPIN,
       TD_PERIODIC_WAIT };

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

static void td_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct td_world *W = w;

	(void)wl;
	W->variant = variant;
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
	{ "del-timer", NULL, false, "del_timer() then kfree(): the callback may be running",
	  "tests/timer", WEFT_KIND_USE_AFTER_FREE, 0, TD_DEL },
	{ "del-timer-sync", NULL, true, "del_timer_sync() then kfree()",
	  "tests/timer", WEFT_KIND_NONE, 0, TD_DEL_SYNC },
	{ "shutdown-sync", NULL, true, "a periodic timer: stop flag, timer_shutdown_sync(), kfree()",
	  "tests/timer", WEFT_KIND_NONE, 0, TD_SHUTDOWN },
	{ "shutdown-async", NULL, false, "the same with timer_shutdown(): it does not wait",
	  "tests/timer", WEFT_KIND_USE_AFTER_FREE, 0, TD_SHUTDOWN_ASYNC },
	{ "free-pending", NULL, false, "kfree() with the timer still pending",
	  "tests/timer", WEFT_KIND_BAD_FREE, 0, TD_FREE_PENDING },
	{ "periodic-spin", NULL, true, "a spin until the periodic timer fired 3 times, then "
	  "timer_shutdown_sync()", "tests/timer", WEFT_KIND_NONE, 0, TD_PERIODIC_SPIN },
	{ "periodic-wait", NULL, true, "wait_for_completion() of its third firing, then "
	  "timer_shutdown_sync()", "tests/timer", WEFT_KIND_NONE, 0, TD_PERIODIC_WAIT },
};

static const struct weft_scenario timer_teardown = {
	.name = "timer-teardown",
	.summary = "test: tearing down an object with a timer",
	.source = "tests/timer",
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct td_world),
	.decision_hint = 256,
	.files = timer_files,
	.setup = td_setup,
	.thread = td_thread,
	.variants = td_variants,
	.nr_variants = 7,
};

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

static void tl_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct tl_world *W = w;

	(void)wl;
	W->variant = variant;
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
	{ "spin-lock", NULL, false, "the task takes the callback's lock with spin_lock()",
	  "tests/timer", WEFT_KIND_IRQ_LOCK_INVERSION, 0, TL_SPIN },
	{ "spin-lock-bh", NULL, true, "with spin_lock_bh()",
	  "tests/timer", WEFT_KIND_NONE, 0, TL_SPIN_BH },
};

static const struct weft_scenario timer_lock = {
	.name = "timer-lock",
	.summary = "test: a timer callback and a task on its CPU share a spinlock",
	.source = "tests/timer",
	.nr_cpus = 1,
	.nr_threads = 1,
	.world_size = sizeof(struct tl_world),
	.decision_hint = 128,
	.files = timer_files,
	.setup = tl_setup,
	.thread = tl_thread,
	.quiesce = tl_quiesce,
	.variants = tl_variants,
	.nr_variants = 2,
};

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

static void ta_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct ta_world *W = w;

	(void)wl;
	W->variant = variant;
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
	{ "check-then-add", NULL, false, "if (!timer_pending()) add_timer() on two CPUs",
	  "tests/timer", WEFT_KIND_BUG_ON, 0, TA_CHECK_ADD },
	{ "mod-timer", NULL, true, "mod_timer() on two CPUs, then del_timer_sync() on CPU1",
	  "tests/timer", WEFT_KIND_NONE, 0, TA_MOD },
	{ "self-sync", NULL, false, "the callback calls del_timer_sync() on its own timer",
	  "tests/timer", WEFT_KIND_DEADLOCK, 0, TA_SELF_SYNC },
	{ "free-armed", NULL, false, "T0 frees the timer it has just armed",
	  "tests/timer", WEFT_KIND_BAD_FREE, 0, TA_FREE_ARMED },
};

static const struct weft_scenario timer_arm = {
	.name = "timer-arm",
	.summary = "test: arming one timer from two CPUs",
	.source = "tests/timer",
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct ta_world),
	.decision_hint = 128,
	.files = timer_files,
	.setup = ta_setup,
	.thread = ta_thread,
	.variants = ta_variants,
	.nr_variants = 4,
};

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

static void dw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct dw_world *W = w;

	(void)wl;
	W->variant = variant;
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
	{ "cancel", NULL, false, "cancel_delayed_work() then kfree(): the work may be running",
	  "tests/timer", WEFT_KIND_USE_AFTER_FREE, 0, DW_CANCEL },
	{ "cancel-sync", NULL, true, "cancel_delayed_work_sync() then kfree()",
	  "tests/timer", WEFT_KIND_NONE, 0, DW_CANCEL_SYNC },
	{ "periodic", NULL, true, "a self-requeueing delayed work: stop flag, "
	  "cancel_delayed_work_sync(), kfree()", "tests/timer", WEFT_KIND_NONE, 0, DW_PERIODIC },
	{ "flush", NULL, true, "flush_delayed_work() runs it once and waits",
	  "tests/timer", WEFT_KIND_NONE, 0, DW_FLUSH },
	{ "mod", NULL, true, "mod_delayed_work() from two CPUs, then cancel_delayed_work_sync()",
	  "tests/timer", WEFT_KIND_NONE, 0, DW_MOD },
};

static const struct weft_scenario dwork_teardown = {
	.name = "dwork-teardown",
	.summary = "test: tearing down an object with a delayed work",
	.source = "tests/timer",
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct dw_world),
	.decision_hint = 256,
	.files = timer_files,
	.setup = dw_setup,
	.thread = dw_thread,
	.variants = dw_variants,
	.nr_variants = 5,
};

WEFT_DEFINE_REGISTRY(&timer_teardown, &timer_lock, &timer_arm, &dwork_teardown);
