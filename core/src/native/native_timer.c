/*
 * native_timer.c - <weft/timer.h> for weft stress: real threads, real
 * time. An armed timer fires on a thread of its own as soon as that thread
 * runs (a stress test wants the race now, not at the expiry); a deletion
 * that takes the pending bits first keeps it from firing; del_timer_sync()
 * polls until the firing thread has ended (a callback from another CPU is
 * never running then). jiffies is virtual as under Weft: a firing moves it
 * to the timer's expiry if it was behind.
 */
#include <sched.h>

#include <weft/timer.h>

#include "native_tasks.h"

/* Virtual, as under Weft: at least the expiry of every timer fired. */
static unsigned long native_jiffies = INITIAL_JIFFIES;

static void native_jiffies_reach(unsigned long expires)
{
	unsigned long now = __atomic_load_n(&native_jiffies, __ATOMIC_SEQ_CST);

	while (time_after(expires, now) &&
	       !__atomic_compare_exchange_n(&native_jiffies, &now, expires, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST))
		;
}

#define PENDING_MASK (~WEFT_TIMER_SHUTDOWN)

/* The timer's firing thread: fires while the timer is pending, then ends.
 * weft_running is 1 while it exists (so a re-arming from the callback is
 * fired by the same thread: a periodic timer spawns no thread per period). */
static void native_timer_fire(void *world, void *arg)
{
	struct timer_list *t = arg;

	(void)world;
	for (;;) {
		uint32_t old = __atomic_load_n(&t->weft_pending, __ATOMIC_SEQ_CST);
		/* the firing takes the pending bits, or a deletion took them */
		while (old & PENDING_MASK) {
			if (__atomic_compare_exchange_n(&t->weft_pending, &old, old & ~PENDING_MASK,
							false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
				native_jiffies_reach(t->expires);
				if (t->function)
					t->function(t);
				old = __atomic_load_n(&t->weft_pending, __ATOMIC_SEQ_CST);
			}
		}
		__atomic_store_n(&t->weft_running, 0, __ATOMIC_SEQ_CST);
		/* an arming that saw this thread still there relies on it */
		uint32_t zero = 0;
		if (!(__atomic_load_n(&t->weft_pending, __ATOMIC_SEQ_CST) & PENDING_MASK) ||
		    !__atomic_compare_exchange_n(&t->weft_running, &zero, 1, false,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return;
	}
}

void weft_timer_setup(struct timer_list *t, void (*fn)(struct timer_list *), unsigned flags)
{
	weft_timer_init_fields(t, fn, flags);
}

int weft_timer_arm(struct timer_list *t, unsigned long expires, enum weft_timer_arm how,
		   unsigned cpu, const struct weft_site *s)
{
	uint32_t old = __atomic_load_n(&t->weft_pending, __ATOMIC_SEQ_CST);
	bool pending = (old & PENDING_MASK) != 0;

	weft_native_poll();
	if ((old & WEFT_TIMER_SHUTDOWN) || (how == WEFT_TIMER_MOD_PENDING && !pending) ||
	    (how == WEFT_TIMER_REDUCE && pending && !time_before(expires, t->expires)))
		return pending;
	t->expires = expires;
	old = __atomic_fetch_or(&t->weft_pending, 1u + weft_native_cpu, __ATOMIC_SEQ_CST);
	if ((old & PENDING_MASK) && (how == WEFT_TIMER_ADD || how == WEFT_TIMER_ADD_ON)) {
		weft_report(WEFT_KIND_BUG_ON, t, s, "%s of a pending timer: BUG_ON(timer_pending())",
			    how == WEFT_TIMER_ADD ? "add_timer()" : "add_timer_on()");
		return 0;
	}
	if (old & PENDING_MASK)
		return 1;   /* its firing thread is on its way */
	uint32_t zero = 0;
	if (!__atomic_compare_exchange_n(&t->weft_running, &zero, 1, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return 0;   /* its firing thread is still there: it fires this too */
	if (how != WEFT_TIMER_ADD_ON)
		cpu = weft_native_cpu;
	if (weft_thread_spawn(native_timer_fire, t, cpu, s) < 0)
		__atomic_store_n(&t->weft_running, 0, __ATOMIC_SEQ_CST);
	return 0;
}

int weft_timer_del(struct timer_list *t, enum weft_timer_del how, const struct weft_site *s)
{
	bool sync = how == WEFT_TIMER_DEL_SYNC || how == WEFT_TIMER_SHUTDOWN_SYNC;
	uint32_t set = how == WEFT_TIMER_SHUTDOWN_ASYNC || how == WEFT_TIMER_SHUTDOWN_SYNC
			       ? WEFT_TIMER_SHUTDOWN : 0;
	int ret;

	(void)s;
	weft_native_poll();
	if (how == WEFT_TIMER_TRY_SYNC && __atomic_load_n(&t->weft_running, __ATOMIC_SEQ_CST))
		return -1;
	for (unsigned spins = 0;; spins++) {
		uint32_t old = __atomic_fetch_and(&t->weft_pending, WEFT_TIMER_SHUTDOWN,
						  __ATOMIC_SEQ_CST);
		__atomic_fetch_or(&t->weft_pending, set, __ATOMIC_SEQ_CST);
		ret = (old & PENDING_MASK) != 0;
		if (!sync || !__atomic_load_n(&t->weft_running, __ATOMIC_SEQ_CST)) {
			if (spins)
				weft_native_task_polls(false);
			return ret;
		}
		if (!spins)
			weft_native_task_polls(true);
		weft_native_poll();
		if (spins % 64 == 63)
			sched_yield();
	}
}

unsigned long weft_jiffies(void)
{
	return __atomic_load_n(&native_jiffies, __ATOMIC_SEQ_CST);
}

/* A native timed sleep timed out: its timeout went by. */
void weft_native_jiffies_pass(unsigned long delta)
{
	native_jiffies_reach(weft_jiffies() + delta);
}

/* Delayed work natively: the timer's thread queues the work (its own
 * thread); no PENDING bit is held while the timer is pending. */
void weft_delayed_work_timer_fn(struct timer_list *t)
{
	struct delayed_work *dw = container_of(t, struct delayed_work, timer);

	weft_queue_work(dw->wq, dw->cpu, &dw->work, WEFT_SITE(WEFT_EV_RMW, "delayed_work_timer_fn()"));
}

void weft_init_delayed_work(struct delayed_work *dw, work_func_t fn)
{
	weft_init_work(&dw->work, fn);
	weft_timer_setup(&dw->timer, weft_delayed_work_timer_fn, TIMER_IRQSAFE);
	dw->wq = NULL;
	dw->cpu = -1;
}

bool weft_queue_delayed_work(struct workqueue_struct *wq, int cpu, struct delayed_work *dw,
			     unsigned long delay, const struct weft_site *s)
{
	if (__atomic_load_n(&dw->work.data, __ATOMIC_SEQ_CST) & 1ul << WEFT_WORK_PENDING)
		return false;
	dw->cpu = cpu;
	dw->wq = wq;
	if (!delay)
		return weft_queue_work(wq, cpu, &dw->work, s);
	return !weft_timer_arm(&dw->timer, weft_jiffies() + delay, WEFT_TIMER_MOD, 0, s);
}

bool weft_cancel_delayed_work(struct delayed_work *dw, bool sync, const struct weft_site *s)
{
	int t = weft_timer_del(&dw->timer, sync ? WEFT_TIMER_DEL_SYNC : WEFT_TIMER_DEL, s);

	return weft_cancel_work(&dw->work, sync, s) || t > 0;
}

bool weft_mod_delayed_work(struct workqueue_struct *wq, int cpu, struct delayed_work *dw,
			   unsigned long delay, const struct weft_site *s)
{
	bool was = weft_cancel_delayed_work(dw, false, s);

	weft_queue_delayed_work(wq, cpu, dw, delay, s);
	return was;
}

bool weft_flush_delayed_work(struct delayed_work *dw, const struct weft_site *s)
{
	if (weft_timer_del(&dw->timer, WEFT_TIMER_DEL_SYNC, s) > 0)
		weft_queue_work(dw->wq, dw->cpu, &dw->work, s);
	return weft_flush_work(&dw->work, s);
}
