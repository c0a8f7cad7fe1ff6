/*
 * timer.h - kernel timers (include/linux/timer.h, kernel/time/timer.c) and
 * jiffies. A family header of its own: a model includes it when it wants
 * timers (not included by kernel.h).
 *
 * The model:
 *  - A timer armed on a CPU (mod_timer() and add_timer() on the calling
 *    CPU, add_timer_on() on the one named) is pending there until it fires
 *    or is deleted. Re-arming a pending timer moves it to the calling CPU,
 *    except while its callback runs: then it stays on the CPU it runs on,
 *    so a timer's callback never runs twice at once (__mod_timer()).
 *  - Each CPU's pending timers fire from that CPU's timer softirq, a
 *    machine-made interrupt pseudo-thread ("timer/N"): delivered at a
 *    strategy-chosen scheduling point, like a preemption, on that CPU while
 *    its current context has interrupts and bottom halves enabled. So a
 *    callback can interrupt a task on its CPU that holds a spinlock taken
 *    without _bh - the classic softirq deadlock - and runs in softirq
 *    context: in_softirq() is true, sleeping in it is a `sleep-in-atomic`
 *    report.
 *  - Time is virtual: a pending timer may fire at any later point, however
 *    far off its expiry (a search must not miss the race of a timer that
 *    fires late); a CPU's timers fire in expiry order (ties: arming order),
 *    one per delivery. jiffies never goes backwards: it is at least the
 *    expiry of every timer that has fired, and msleep() of <weft/kernel.h>
 *    does not move it. time_after() and its kin compare as the kernel's do.
 *  - del_timer() / timer_delete() take a pending timer off its CPU and do
 *    not wait for a running callback: freeing the timer's object after it
 *    is the use-after-free del_timer_sync() exists for. del_timer_sync() /
 *    timer_delete_sync() also wait until the callback is not running
 *    (taking it off again if the callback re-armed it); called from the
 *    callback itself it is a `deadlock` report, from a hard interrupt a
 *    `warn-on`. timer_shutdown_sync() deletes and makes every later arming
 *    do nothing.
 *  - A timer that fires on freed memory is a `use-after-free` report at
 *    the firing (debugobjects would say "free active object").
 *  - Once every model thread has finished, a timer armed by a timer
 *    callback is left pending, not fired: a periodic timer would otherwise
 *    make the execution endless.
 *
 *   timer_setup(&t, fn, flags)        fn(struct timer_list *); flags accepted
 *   DEFINE_TIMER(name, fn)
 *   from_timer(var, t, field)         container_of() the callback's argument
 *   container_of(p, type, member)     (unless the model defines it)
 *   mod_timer(&t, expires)            1 if t was pending (re-armed), else 0
 *   mod_timer_pending(&t, expires)    only if pending
 *   timer_reduce(&t, expires)         only to an earlier expiry
 *   add_timer(&t), add_timer_on(&t, cpu)   t->expires; BUG if pending
 *   del_timer(&t), timer_delete(&t)   1 if t was pending
 *   del_timer_sync(&t), timer_delete_sync(&t)
 *   try_to_del_timer_sync(&t)         -1 while the callback runs
 *   timer_shutdown(&t), timer_shutdown_sync(&t)
 *   timer_pending(&t)                 a read of the pending state
 *   jiffies, HZ (250, Debian's), msecs_to_jiffies(), usecs_to_jiffies(),
 *   jiffies_to_msecs(), time_after(), time_before(), time_after_eq(),
 *   time_before_eq(), time_in_range(), round_jiffies() and kin (identity)
 *   struct delayed_work and its calls (below)
 *   schedule_timeout(), wait_event_timeout() and kin (below)
 *
 * Natively (weft stress) an armed timer fires on a thread of its own as
 * soon as it can; del_timer_sync() polls until the callback has ended.
 */
#ifndef WEFT_TIMER_H
#define WEFT_TIMER_H

#include <weft/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

struct timer_list {
	unsigned long expires;
	void (*function)(struct timer_list *);
	uint32_t flags;
	/* Weft's: 1 + the CPU it is pending on, or 0 (a world word every
	 * arming, deletion and firing writes through the access funnel, so
	 * timer_pending() races are real); bit 31: shut down */
	uint32_t weft_pending;
	uint32_t weft_running;   /* natively: 1 while the callback runs */
};

#define WEFT_TIMER_SHUTDOWN 0x80000000u
#define WEFT_TIMERS_MAX 16   /* pending timers per CPU */

enum weft_timer_arm {
	WEFT_TIMER_MOD,          /* mod_timer() */
	WEFT_TIMER_MOD_PENDING,  /* mod_timer_pending() */
	WEFT_TIMER_REDUCE,       /* timer_reduce() */
	WEFT_TIMER_ADD,          /* add_timer(): BUG if pending */
	WEFT_TIMER_ADD_ON,       /* add_timer_on() */
};

enum weft_timer_del {
	WEFT_TIMER_DEL,            /* del_timer() */
	WEFT_TIMER_DEL_SYNC,       /* del_timer_sync() */
	WEFT_TIMER_TRY_SYNC,       /* try_to_del_timer_sync() */
	WEFT_TIMER_SHUTDOWN_ASYNC, /* timer_shutdown() */
	WEFT_TIMER_SHUTDOWN_SYNC,  /* timer_shutdown_sync() */
};

void weft_timer_setup(struct timer_list *t, void (*fn)(struct timer_list *), unsigned flags);
/* timer_setup()'s stores (both builds): a timer nobody can see yet */
static inline void weft_timer_init_fields(struct timer_list *t, void (*fn)(struct timer_list *),
					  unsigned flags)
{
	t->expires = 0;
	t->function = fn;
	t->flags = flags;
	t->weft_pending = 0;
	t->weft_running = 0;
}
int weft_timer_arm(struct timer_list *t, unsigned long expires, enum weft_timer_arm how,
		   unsigned cpu, const struct weft_site *s);
int weft_timer_del(struct timer_list *t, enum weft_timer_del how, const struct weft_site *s);
unsigned long weft_jiffies(void);

#define HZ 250
/* the kernel's INITIAL_JIFFIES on 64 bits: five minutes before the 32-bit
 * wrap, so that code comparing jiffies without time_after() shows */
#define INITIAL_JIFFIES ((unsigned long)(unsigned int)(-300 * HZ))
#define MAX_JIFFY_OFFSET ((long)(~0ul >> 1) - 1)
#define jiffies weft_jiffies()

#define TIMER_DEFERRABLE 0x00080000u
#define TIMER_PINNED 0x00100000u
#define TIMER_IRQSAFE 0x00200000u

#define WEFT_TIMER_SITE(ev, what, t) WEFT_SITE(ev, what "(" #t ")")
#define timer_setup(t, fn, fl) weft_timer_setup((t), (fn), (fl))
#define DEFINE_TIMER(name, fn) struct timer_list name = { 0, (fn), 0, 0, 0 }
#ifndef container_of   /* the same text as <weft/linux/kernel_compat.h>'s */
#define container_of(p, t, m) ((t *)((char *)(p) - offsetof(t, m)))
#endif
#define from_timer(var, t, field) container_of(t, __typeof__(*(var)), field)
#define timer_pending(t) ((READ_ONCE((t)->weft_pending) & ~WEFT_TIMER_SHUTDOWN) != 0)
/* Each arm and delete operation as (op, event, name): the site is the
 * model's call, "name(t)". */
#define __weft_timer_arm_op(t, exp, cpu, how, ev, name) \
	weft_timer_arm((t), (exp), (how), (cpu), WEFT_TIMER_SITE(ev, name, t))
#define __weft_timer_del_op(t, how, ev, name) weft_timer_del((t), (how), WEFT_TIMER_SITE(ev, name, t))
#define mod_timer(t, exp) __weft_timer_arm_op(t, exp, 0, WEFT_TIMER_MOD, WEFT_EV_RMW, "mod_timer")
#define mod_timer_pending(t, exp) \
	__weft_timer_arm_op(t, exp, 0, WEFT_TIMER_MOD_PENDING, WEFT_EV_RMW, "mod_timer_pending")
#define timer_reduce(t, exp) __weft_timer_arm_op(t, exp, 0, WEFT_TIMER_REDUCE, WEFT_EV_RMW, "timer_reduce")
#define add_timer(t) ((void)__weft_timer_arm_op(t, (t)->expires, 0, WEFT_TIMER_ADD, WEFT_EV_RMW, "add_timer"))
#define add_timer_on(t, cpu) \
	((void)__weft_timer_arm_op(t, (t)->expires, cpu, WEFT_TIMER_ADD_ON, WEFT_EV_RMW, "add_timer_on"))
#define del_timer(t) __weft_timer_del_op(t, WEFT_TIMER_DEL, WEFT_EV_RMW, "del_timer")
#define timer_delete(t) __weft_timer_del_op(t, WEFT_TIMER_DEL, WEFT_EV_RMW, "timer_delete")
#define del_timer_sync(t) __weft_timer_del_op(t, WEFT_TIMER_DEL_SYNC, WEFT_EV_WAIT, "del_timer_sync")
#define timer_delete_sync(t) __weft_timer_del_op(t, WEFT_TIMER_DEL_SYNC, WEFT_EV_WAIT, "timer_delete_sync")
#define try_to_del_timer_sync(t) \
	__weft_timer_del_op(t, WEFT_TIMER_TRY_SYNC, WEFT_EV_RMW, "try_to_del_timer_sync")
#define timer_shutdown(t) __weft_timer_del_op(t, WEFT_TIMER_SHUTDOWN_ASYNC, WEFT_EV_RMW, "timer_shutdown")
#define timer_shutdown_sync(t) \
	__weft_timer_del_op(t, WEFT_TIMER_SHUTDOWN_SYNC, WEFT_EV_WAIT, "timer_shutdown_sync")
#define destroy_timer_on_stack(t) ((void)(t))

#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)
#define time_before_eq(a, b) time_after_eq(b, a)
#define time_in_range(a, b, c) (time_after_eq(a, b) && time_before_eq(a, c))
#define time_is_before_jiffies(a) time_after(jiffies, a)
#define time_is_after_jiffies(a) time_before(jiffies, a)

static inline unsigned long msecs_to_jiffies(unsigned int m)
{
	return ((unsigned long)m * HZ + 999) / 1000;
}
static inline unsigned long usecs_to_jiffies(unsigned int u)
{
	return ((unsigned long)u * HZ + 999999) / 1000000;
}
static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return (unsigned int)(j * (1000 / HZ));
}
#define round_jiffies(j) (j)
#define round_jiffies_relative(j) (j)
#define round_jiffies_up(j) (j)

/*
 * Delayed work (include/linux/workqueue.h, kernel/workqueue.c): a work
 * item and the timer that queues it. Queueing takes the work's PENDING bit
 * (a second queueing while the timer or the work is pending does nothing)
 * and arms the timer on the CPU asked for (unbound: the caller's); the
 * timer's callback queues the work on that CPU's worker (unbound: the
 * CPU it fired on), still pending. A delay of 0 queues at once.
 *
 *   INIT_DELAYED_WORK(&dw, fn)        fn(struct work_struct *)
 *   DECLARE_DELAYED_WORK(name, fn)
 *   to_delayed_work(work)             the delayed_work of fn's argument
 *   queue_delayed_work_on(cpu, wq, &dw, delay), queue_delayed_work(wq, &dw, delay)
 *   schedule_delayed_work(&dw, delay), schedule_delayed_work_on(cpu, &dw, delay)
 *   mod_delayed_work(wq, &dw, delay), mod_delayed_work_on(cpu, wq, &dw, delay)
 *                                     re-arm with the new delay; true if it
 *                                     was pending (a cancel then a queueing:
 *                                     two steps, the kernel's are one)
 *   cancel_delayed_work(&dw)          the timer or the queued work; true if
 *                                     pending; does not wait for a run
 *   cancel_delayed_work_sync(&dw)     also waits for a run in progress
 *   flush_delayed_work(&dw)           queue it now if its timer is pending,
 *                                     then flush_work()
 *   delayed_work_pending(&dw)
 */
struct delayed_work {
	struct work_struct work;
	struct timer_list timer;
	struct workqueue_struct *wq;
	int cpu;                   /* -1: unbound */
};

void weft_delayed_work_timer_fn(struct timer_list *t);
void weft_init_delayed_work(struct delayed_work *dw, work_func_t fn);
/* on workqueue wq (NULL: system_wq); both libraries define these, and the
 * _on forms below are theirs on system_wq */
bool weft_queue_delayed_work(struct workqueue_struct *wq, int cpu, struct delayed_work *dw,
			     unsigned long delay, const struct weft_site *s);
bool weft_mod_delayed_work(struct workqueue_struct *wq, int cpu, struct delayed_work *dw,
			   unsigned long delay, const struct weft_site *s);
static inline bool weft_queue_delayed_work_on(int cpu, struct delayed_work *dw,
					      unsigned long delay, const struct weft_site *s)
{
	return weft_queue_delayed_work(NULL, cpu, dw, delay, s);
}
static inline bool weft_mod_delayed_work_on(int cpu, struct delayed_work *dw,
					    unsigned long delay, const struct weft_site *s)
{
	return weft_mod_delayed_work(NULL, cpu, dw, delay, s);
}
bool weft_cancel_delayed_work(struct delayed_work *dw, bool sync, const struct weft_site *s);
bool weft_flush_delayed_work(struct delayed_work *dw, const struct weft_site *s);

#define WEFT_DWORK_SITE(ev, what, dw) WEFT_SITE(ev, what "(" #dw ")")
#define INIT_DELAYED_WORK(dw, fn) weft_init_delayed_work((dw), (fn))
#define DECLARE_DELAYED_WORK(name, fn)                                         \
	struct delayed_work name = { { 0, (fn), 0, 0 },                          \
				     { 0, weft_delayed_work_timer_fn, TIMER_IRQSAFE, 0, 0 }, \
				     0, -1 }
#define to_delayed_work(w) container_of(w, struct delayed_work, work)
#define delayed_work_pending(dw) work_pending(&(dw)->work)
/* Each pair of names below is one operation, "_on" a CPU or not (-1);
 * the site is the model's call, "name(dw)". */
#define __weft_queue_dwork(wq, cpu, dw, delay, name) \
	weft_queue_delayed_work((wq), (int)(cpu), (dw), (delay), WEFT_DWORK_SITE(WEFT_EV_RMW, name, dw))
#define __weft_schedule_dwork(cpu, dw, delay, name) \
	weft_queue_delayed_work_on((int)(cpu), (dw), (delay), WEFT_DWORK_SITE(WEFT_EV_RMW, name, dw))
#define __weft_mod_dwork(wq, cpu, dw, delay, name) \
	weft_mod_delayed_work((wq), (int)(cpu), (dw), (delay), WEFT_DWORK_SITE(WEFT_EV_RMW, name, dw))
#define __weft_cancel_dwork(dw, sync, ev, name) \
	weft_cancel_delayed_work((dw), (sync), WEFT_DWORK_SITE(ev, name, dw))
#define queue_delayed_work_on(cpu, wq, dw, delay) __weft_queue_dwork(wq, cpu, dw, delay, "queue_delayed_work_on")
#define queue_delayed_work(wq, dw, delay) __weft_queue_dwork(wq, -1, dw, delay, "queue_delayed_work")
#define schedule_delayed_work(dw, delay) __weft_schedule_dwork(-1, dw, delay, "schedule_delayed_work")
#define schedule_delayed_work_on(cpu, dw, delay) \
	__weft_schedule_dwork(cpu, dw, delay, "schedule_delayed_work_on")
#define mod_delayed_work_on(cpu, wq, dw, delay) __weft_mod_dwork(wq, cpu, dw, delay, "mod_delayed_work_on")
#define mod_delayed_work(wq, dw, delay) __weft_mod_dwork(wq, -1, dw, delay, "mod_delayed_work")
#define cancel_delayed_work(dw) __weft_cancel_dwork(dw, false, WEFT_EV_RMW, "cancel_delayed_work")
#define cancel_delayed_work_sync(dw) __weft_cancel_dwork(dw, true, WEFT_EV_WAIT, "cancel_delayed_work_sync")
#define flush_delayed_work(dw) \
	weft_flush_delayed_work((dw), WEFT_DWORK_SITE(WEFT_EV_WAIT, "flush_delayed_work", dw))

/*
 * Timed sleeps (kernel/time/sleep_timeout.c, include/linux/wait.h): a
 * sleeper's own timer wakes it (process_timeout()); it fires whenever the
 * strategy delivers it, so a timed sleep is never a lost wakeup and every
 * race of an early or a late wake-up is searched. The return values are
 * the kernel's: schedule_timeout() the jiffies left (0 when the timer woke
 * it), wait_event_timeout() 0 if the condition is still false at the
 * timeout, else at least 1. Timed sleeps are for the first
 * WEFT_SLEEP_TIMERS threads of an execution (a `limit-reached` report
 * beyond).
 *
 *   set_current_state(TASK_UNINTERRUPTIBLE), __set_current_state(TASK_RUNNING)
 *   schedule_timeout(t), schedule_timeout_uninterruptible(t),
 *   schedule_timeout_interruptible(t), schedule_timeout_killable(t),
 *   schedule_timeout_idle(t), MAX_SCHEDULE_TIMEOUT
 *   wait_event_timeout(wq, cond, t), wait_event_interruptible_timeout(wq, cond, t)
 */
#define WEFT_SLEEP_TIMERS 16
#define MAX_SCHEDULE_TIMEOUT ((long)(~0ul >> 1))

long weft_schedule_timeout(long timeout, const struct weft_site *s);
void weft_set_current_state(int state, const struct weft_site *s);
#ifdef WEFT_NATIVE
void weft_native_jiffies_pass(unsigned long delta);   /* a native timeout went by */
#endif

#define set_current_state(st) \
	weft_set_current_state((st), WEFT_SITE(WEFT_EV_BARRIER, "set_current_state(" #st ")"))
#define __set_current_state(st) \
	weft_set_current_state((st), WEFT_SITE(WEFT_EV_WRITE, "__set_current_state(" #st ")"))
#define schedule_timeout(t) \
	weft_schedule_timeout((long)(t), WEFT_SITE(WEFT_EV_WAIT, "schedule_timeout(" #t ")"))
#define __weft_schedule_timeout_state(t, st, name)                              \
	({                                                                      \
		weft_set_current_state((st), WEFT_SITE(WEFT_EV_BARRIER, name "(" #t ")")); \
		weft_schedule_timeout((long)(t), WEFT_SITE(WEFT_EV_WAIT, name "(" #t ")")); \
	})
#define schedule_timeout_uninterruptible(t) \
	__weft_schedule_timeout_state(t, TASK_UNINTERRUPTIBLE, "schedule_timeout_uninterruptible")
#define schedule_timeout_interruptible(t) \
	__weft_schedule_timeout_state(t, TASK_INTERRUPTIBLE, "schedule_timeout_interruptible")
#define schedule_timeout_killable(t) \
	__weft_schedule_timeout_state(t, TASK_UNINTERRUPTIBLE, "schedule_timeout_killable")
#define schedule_timeout_idle(t) \
	__weft_schedule_timeout_state(t, TASK_UNINTERRUPTIBLE, "schedule_timeout_idle")

/* ___wait_cond_timeout(): true to stop; a condition true at the timeout
 * still counts (the result is then 1) */
#define __weft_wait_cond_timeout(condition, ret)                                \
	({                                                                      \
		bool __weft_c = (condition);                                    \
		if (__weft_c && !(ret))                                         \
			(ret) = 1;                                              \
		__weft_c || !(ret);                                             \
	})
#define __weft_wait_event_timeout(wq, condition, timeout, name)                 \
	({                                                                      \
		long __weft_ret = (long)(timeout);                              \
		might_sleep();                                                  \
		if (!__weft_wait_cond_timeout(condition, __weft_ret)) {        \
			struct weft_wait_entry __weft_we = { 0 };               \
			for (;;) {                                              \
				weft_prepare_to_wait(&(wq), &__weft_we, TASK_UNINTERRUPTIBLE, \
						     false, WEFT_SITE(WEFT_EV_WRITE, \
						     name "(" #wq ") prepare_to_wait")); \
				if (__weft_wait_cond_timeout(condition, __weft_ret)) \
					break;                                  \
				__weft_ret = weft_schedule_timeout(__weft_ret,  \
					WEFT_SITE(WEFT_EV_WAIT, name "(" #wq ") schedule_timeout()")); \
			}                                                       \
			weft_finish_wait(&(wq), &__weft_we, WEFT_SITE(WEFT_EV_WRITE, \
					 name "(" #wq ") finish_wait"));        \
		}                                                               \
		__weft_ret;                                                     \
	})
#define wait_event_timeout(wq, condition, timeout) \
	__weft_wait_event_timeout(wq, condition, timeout, "wait_event_timeout")
#define wait_event_interruptible_timeout(wq, condition, timeout) \
	__weft_wait_event_timeout(wq, condition, timeout, "wait_event_interruptible_timeout")

#ifdef __cplusplus
}
#endif
#endif
