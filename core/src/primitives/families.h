/*
 * families.h - what the primitive families call of each other (primitives/
 * only): the CPU contexts of context.c (the preempt count a spinlock
 * implies, the masking of the _irq/_bh forms) and lockdep-lite's hooks in
 * every lock. The machine calls a family only through its hooks
 * (sched.h, struct weft_family; the table is families.c).
 */
#ifndef WEFT_FAMILIES_H
#define WEFT_FAMILIES_H

#include "sched.h"

/* A wait class (sched.h) of the common shape: waiters on a channel that
 * owner_() names the owner of and busy_() says a thread would block on,
 * sleeping or (sleeps_ false) spinning. */
#define WL_CLASS(name_, sleeps_, owner_, busy_)                                \
	{ .name = (name_), .sleeps = (sleeps_), .owner = (owner_), .busy = (busy_) }

/* ------------------------------------------------------------ contexts */

/* context.c: the current thread entered or left a non-preemptible state
 * (its counters changed); keeps the CPU stacks and the exclusion mask. */
void weft_ctx_update(struct wthread *t, unsigned tid);
/* The masking of spin_lock_irq*() and spin_lock_bh() (no event). */
void weft_ctx_irq_off(void);
void weft_ctx_irq_set(unsigned long on);
void weft_ctx_bh_add(int d);

/* The CPU argument of an _on() form (queue_work_on(), add_timer_on(),
 * kthread_create_on_cpu() ...) that names no CPU of the scenario: the
 * kernel indexes per-CPU data with it unchecked, so it is reported (an
 * `assertion`: a misuse of the API, as per_cpu() of a CPU with no slot)
 * and true is returned. call names the operation. */
bool weft_ctx_cpu_bad(unsigned cpu, const char *call, const struct weft_site *s);

/* rcu.c: thread tid (the current one) entered (atomic) or left every
 * non-preemptible context (its ctx_flags became non-zero or zero): since
 * v5.0 such a region is an RCU read-side critical section for
 * synchronize_rcu() and call_rcu() (include/linux/rcupdate.h,
 * rcu_read_lock_sched()): its dependence record, and its end of a grace
 * period. context.c and the two functions below call it on every change. */
void weft_rcu_ctx_edge(unsigned tid, bool atomic);

/* Spinlocks imply preempt_disable() (and the _irq/_bh forms masking):
 * the counter and the event flag always, the CPU stack only when some CPU
 * is shared or interrupts exist (ctx_active), so one-thread-per-CPU
 * scenarios pay two stores per lock (and RCU's edge when the thread was
 * preemptible before or is after). */
/* A lock's: true if the thread was preemptible before, and then the
 * caller owes weft_rcu_ctx_edge(cur, true) after its own record (the first
 * record of a step is the operation's, which weft_thread_pending() names
 * and the reductions learn the lock from). */
static inline bool weft_ctx_preempt_inc_owing(void)
{
	struct wthread *t = &M.th[M.cur];

	if (t->preempt++ == 0) {
		uint8_t before = t->ctx_flags;
		t->ctx_flags |= WEFT_EVF_NOPREEMPT;
		if (M.ctx_active)
			weft_ctx_update(t, (unsigned)M.cur);
		return !before;
	}
	return false;
}

/* Where the step's own record came before. */
static inline void weft_ctx_preempt_inc(void)
{
	if (weft_ctx_preempt_inc_owing())
		weft_rcu_ctx_edge((unsigned)M.cur, true);
}

static inline void weft_ctx_preempt_dec(void)
{
	struct wthread *t = &M.th[M.cur];

	if (t->preempt && --t->preempt == 0) {
		t->ctx_flags &= (uint8_t)~WEFT_EVF_NOPREEMPT;
		if (!t->ctx_flags)
			weft_rcu_ctx_edge((unsigned)M.cur, false);
		if (M.ctx_active)
			weft_ctx_update(t, (unsigned)M.cur);
	}
}

/* context.c: the current thread runs an RCU callback (rcu.c's callback
 * kthread, rcu_do_batch()): serving a softirq (RCU_SOFTIRQ) from enter to
 * exit, as a timer's softirq handler: in_softirq(), not preemptible,
 * lockdep's IN-SOFTIRQ usage; s names the step in the trace. */
void weft_ctx_softirq_enter(const struct weft_site *s);
void weft_ctx_softirq_exit(const struct weft_site *s);

/* context.c: machine-made softirq pseudo-threads (timer.c's timer/N). */
int weft_ctx_softirq_spawn(unsigned cpu, const struct weft_irq *desc, const char *label,
			   bool raise, const struct weft_site *s);
void weft_ctx_softirq_raise(unsigned tid);

/* timer.c: arming and deleting a timer inside the step of another
 * primitive (delayed work's queueing and cancelling, workqueue.c) */
struct timer_list;
int weft_timer_arm_step(struct timer_list *t, unsigned long expires, unsigned how, unsigned cpu,
			const struct weft_site *s);   /* how: enum weft_timer_arm */
bool weft_timer_del_step(struct timer_list *t, const struct weft_site *s);

/* waitqueue.c: wake_up_process() of a thread sleeping in schedule() (a
 * schedule_timeout() timer, timer.c), traced as a wake-up when it woke it */
void weft_wq_wake_process(unsigned tid, const struct weft_site *s);
/* waitqueue.c: try_to_wake_up() in the caller's step (kthread.c's
 * wake_up_process()): if thread tid's task state is one of `state`, it
 * becomes TASK_RUNNING and, if it sleeps in schedule(), runnable; a
 * wait-queue waiter stays on its list until finish_wait() and no
 * wake_up() counts it. Records the task's state as written. True if it
 * woke it; traces nothing. */
bool weft_task_wake(unsigned tid, unsigned state, const struct weft_site *s);

/* ------------------------------------------------------- lockdep-lite */

/* lockdep.c; every lock primitive calls these when weft_lockdep_on. */
extern bool weft_lockdep_on;
/* and its rules of WEFT_CHECK_LOCKDEP_HELD_READS: the held locks marked
 * when interrupts come back on, rwlock reads, recursive reads */
extern bool weft_lockdep_held_reads;
void weft_lockdep_init(const void *lock, const struct weft_site *s);
void weft_lockdep_acquire(const void *lock, bool trylock, const struct weft_site *s);
/* read_lock() of an rwlock_t: usage with lockdep's _READ bits, no order
 * edges; released with weft_lockdep_release() */
void weft_lockdep_acquire_read(const void *lock, bool trylock, const struct weft_site *s);
bool weft_lockdep_release(const void *lock, const struct weft_site *s);
/* The current context enabled interrupts or bottom halves (context.c):
 * the locks it holds get the usage (s: where they were enabled). */
void weft_lockdep_irqs_on(const struct weft_site *s);
/* A thread or an interrupt handler ends: it must hold nothing. */
void weft_lockdep_exit(unsigned tid);

#endif
