/*
 * spinlock.c - spin_lock/spin_trylock/spin_unlock under the two lock
 * models of a scenario run (enum weft_lock_model):
 *  - TAS: an unfair test-and-set lock; on release every waiter becomes
 *    runnable and they race for it (whoever runs first takes it);
 *  - TICKET: a FIFO ticket lock; release hands the lock to the waiter
 *    holding the next ticket (include/asm-generic/ticket_spinlock.h).
 * A spinning waiter is a blocked thread, not a thread burning steps: it
 * sleeps on the lock through weft_sched_block() and is woken by the
 * release, so all-blocked is a deadlock and never a livelock.
 *
 * struct weft_spinlock: locked = 1 + owner thread (0: free), next = the
 * ticket dispenser, serving = the ticket being served.
 */
#include <weft/kernel.h>

#include "families.h"

static int spin_owner(const void *chan)
{
	const struct weft_spinlock *l = chan;

	return l->locked == WEFT_HOST_OWNER ? WEFT_OWNER_HOST : (int)l->locked - 1;
}

static bool spin_busy(const void *chan, unsigned tid)
{
	const struct weft_spinlock *l = chan;

	(void)tid;
	return l->locked != 0 || (M.o->lock == WEFT_LOCK_TICKET && l->next != l->serving);
}

const struct weft_wait_class weft_spin_class = {
	.name = "spinlock",
	.sleeps = false,
	.owner = spin_owner,
	.busy = spin_busy,
};

/* A model thread's spin_lock(); lean: M.lean (sched.h), a constant */
static inline __attribute__((always_inline)) void spin_lock_op(struct weft_spinlock *l,
							       const struct weft_site *s,
							       bool lean)
{
	uint32_t loc;

	sched_point_at_f(s, l, sizeof(*l), &weft_spin_class, lean);
	loc = thread_loc(l, sizeof(*l), s);
	check_uaf(loc, s);
	bool owed = weft_ctx_preempt_inc_owing();   /* spins, then holds, non-preemptibly */
	if (weft_lockdep_on)
		weft_lockdep_acquire(l, false, s);   /* at the attempt, as lock_acquire() */
	struct wthread *t = &M.th[M.cur];
	if (M.o->lock == WEFT_LOCK_TICKET) {
		t->ticket = l->next++;
		t->has_ticket = true;
		while (l->serving != t->ticket || l->locked) {
			weft_trace(WEFT_EV_BLOCK, loc, l->locked, t->ticket, s);
			weft_sched_step_f(WEFT_DEP_BLOCKED, loc, sizeof(*l), 0, WEFT_STEP_SPIN, s);
			weft_sched_block(l, &weft_spin_class, s);
			M.step++;
			/* resumed: the lock was handed to us (or not yet) */
			if (l->locked == (uint32_t)M.cur + 1)
				break;
		}
		t->has_ticket = false;
	} else {
		while (l->locked) {
			weft_trace(WEFT_EV_BLOCK, loc, l->locked, 0, s);
			weft_sched_step_f(WEFT_DEP_BLOCKED, loc, sizeof(*l), 0, WEFT_STEP_SPIN, s);
			weft_sched_block(l, &weft_spin_class, s);
			M.step++;
		}
	}
	if (!lean && __builtin_expect(weft_mem_weak, 0))
		weft_mem_observe_lock(l, true);
	l->locked = (uint32_t)M.cur + 1;
	weft_tsan_acquire(l);
	weft_trace_f(WEFT_EV_LOCK, loc, 0, l->locked, s, lean ? WEFT_TRACE_LEAN : WEFT_TRACE_ANY);
	if (!lean)
		weft_sched_step_f(WEFT_DEP_ACQUIRE, loc, sizeof(*l), 0, WEFT_STEP_SPIN, s);
	if (owed)
		weft_rcu_ctx_edge((unsigned)M.cur, true);
	if (loc != WEFT_NO_LOC)
		shadow_write_f(loc, s, SHADOW_BY_THREAD);
	if (!lean && M.fb)
		fb_hit(0x4c00000000000000ull ^ site_id(s));
}

static __attribute__((noinline)) void spin_lock_full(struct weft_spinlock *l,
						     const struct weft_site *s)
{
	spin_lock_op(l, s, false);
}

void weft_spin_lock(struct weft_spinlock *l, const struct weft_site *s)
{
	if (M.cur < 0) {
		if (in_world(l, sizeof(*l), s))
			l->locked = WEFT_HOST_OWNER;   /* not T0's */
		return;
	}
	if (__builtin_expect(!M.lean, 0))
		spin_lock_full(l, s);
	else
		spin_lock_op(l, s, true);
}

bool weft_spin_trylock(struct weft_spinlock *l, const struct weft_site *s)
{
	uint32_t loc;
	bool ok, owed = false;

	if (M.cur < 0) {
		if (!in_world(l, sizeof(*l), s))
			return false;
		ok = !l->locked;
		if (ok)
			l->locked = WEFT_HOST_OWNER;
		return ok;
	}
	sched_point_at(s, l, sizeof(*l), NULL);
	loc = thread_loc(l, sizeof(*l), s);
	check_uaf(loc, s);
	if (M.o->lock == WEFT_LOCK_TICKET)
		ok = !l->locked && l->next == l->serving;
	else
		ok = !l->locked;
	if (ok && __builtin_expect(weft_mem_weak, 0))
		weft_mem_observe_lock(l, true);
	if (ok) {
		if (M.o->lock == WEFT_LOCK_TICKET)
			l->next++;
		owed = weft_ctx_preempt_inc_owing();
		if (weft_lockdep_on)
			weft_lockdep_acquire(l, true, s);
		l->locked = (uint32_t)M.cur + 1;
		weft_tsan_acquire(l);
		if (loc != WEFT_NO_LOC)
			shadow_write(loc, s);
	} else {
		M.next_flags |= WEFT_EVF_FAILED;
	}
	weft_trace(WEFT_EV_TRYLOCK, loc, ok, l->locked, s);
	weft_sched_step(ok ? WEFT_DEP_ACQUIRE : WEFT_DEP_READ, loc, sizeof(*l), 0, s);
	if (owed)
		weft_rcu_ctx_edge((unsigned)M.cur, true);
	if (M.fb)
		fb_hit(0x5400000000000000ull ^ (uint64_t)ok << 40 ^ site_id(s));
	return ok;
}

/* A model thread's spin_unlock(); lean as in spin_lock_op() */
static inline __attribute__((always_inline)) void spin_unlock_op(struct weft_spinlock *l,
								 const struct weft_site *s,
								 bool lean)
{
	uint32_t loc;

	sched_point_at_f(s, l, sizeof(*l), NULL, lean);
	loc = thread_loc(l, sizeof(*l), s);
	check_uaf(loc, s);
	if (weft_lockdep_on)
		weft_lockdep_release(l, s);   /* bad-unlock if not held */
	if (l->locked != (uint32_t)M.cur + 1)
		weft_report(WEFT_KIND_ASSERT, l, s, "spin_unlock of a lock this thread does not hold");
	weft_tsan_release(l);
	l->locked = 0;
	if (M.o->lock == WEFT_LOCK_TICKET) {
		l->serving++;
		for (unsigned i = 0; i < M.nr_threads; i++) {
			struct wthread *w = &M.th[i];
			if (w->state == T_BLOCKED && w->wait_chan == l && w->has_ticket &&
			    w->ticket == l->serving) {
				l->locked = i + 1;   /* handed over, FIFO */
				weft_sched_wake_thread(i);
			}
		}
	} else {
		weft_sched_wake_all(l);
	}
	weft_trace_f(WEFT_EV_UNLOCK, loc, (uint32_t)M.cur + 1, l->locked, s, lean ? WEFT_TRACE_LEAN : WEFT_TRACE_ANY);
	if (!lean)
		weft_sched_step_f(WEFT_DEP_RELEASE, loc, sizeof(*l), 0, WEFT_STEP_SPIN, s);
	if (loc != WEFT_NO_LOC)
		shadow_write_f(loc, s, SHADOW_BY_THREAD);
	if (!lean && __builtin_expect(weft_mem_weak, 0))
		weft_mem_unlock(l, s);
	weft_ctx_preempt_dec();
}

static __attribute__((noinline)) void spin_unlock_full(struct weft_spinlock *l,
						       const struct weft_site *s)
{
	spin_unlock_op(l, s, false);
}

void weft_spin_unlock(struct weft_spinlock *l, const struct weft_site *s)
{
	if (M.cur < 0) {
		if (in_world(l, sizeof(*l), s))
			l->locked = 0;
		return;
	}
	if (__builtin_expect(!M.lean, 0))
		spin_unlock_full(l, s);
	else
		spin_unlock_op(l, s, true);
}

/* ------------------------------------------------- masking forms */

void weft_spin_lock_irq(struct weft_spinlock *l, const struct weft_site *s)
{
	if (M.cur >= 0)
		weft_ctx_irq_off();
	weft_spin_lock(l, s);
}

void weft_spin_unlock_irq(struct weft_spinlock *l, const struct weft_site *s)
{
	weft_spin_unlock(l, s);
	if (M.cur >= 0)
		weft_ctx_irq_set(0);
}

unsigned long weft_spin_lock_irqsave(struct weft_spinlock *l, const struct weft_site *s)
{
	unsigned long f = M.cur >= 0 ? M.th[M.cur].irq_off : 0;

	weft_spin_lock_irq(l, s);
	return f;
}

void weft_spin_unlock_irqrestore(struct weft_spinlock *l, unsigned long flags,
				 const struct weft_site *s)
{
	weft_spin_unlock(l, s);
	if (M.cur >= 0)
		weft_ctx_irq_set(flags);
}

bool weft_spin_trylock_irqsave(struct weft_spinlock *l, unsigned long *flags,
			       const struct weft_site *s)
{
	*flags = M.cur >= 0 ? M.th[M.cur].irq_off : 0;
	if (M.cur >= 0)
		weft_ctx_irq_off();
	if (weft_spin_trylock(l, s))
		return true;
	if (M.cur >= 0)
		weft_ctx_irq_set(*flags);
	return false;
}

void weft_spin_lock_bh(struct weft_spinlock *l, const struct weft_site *s)
{
	if (M.cur >= 0)
		weft_ctx_bh_add(1);
	weft_spin_lock(l, s);
}

void weft_spin_unlock_bh(struct weft_spinlock *l, const struct weft_site *s)
{
	weft_spin_unlock(l, s);
	if (M.cur >= 0)
		weft_ctx_bh_add(-1);
}

void weft_spin_lock_init(struct weft_spinlock *l, const struct weft_site *s)
{
	if (!in_world(l, sizeof(*l), s))
		return;
	l->locked = 0;
	l->next = 0;
	l->serving = 0;
	weft_lockdep_init(l, s);
}

bool weft_spin_is_locked(const struct weft_spinlock *l)
{
	static struct weft_site site = { __FILE__, "weft_spin_is_locked", "spin_is_locked()",
					 __LINE__, WEFT_EV_READ, 0, WEFT_SITE_SC };

	if (!in_world(l, sizeof(*l), &site))
		return false;
	if (__builtin_expect(weft_mem_weak, 0) && M.cur >= 0)
		weft_mem_observe_lock(l, false);
	/* no scheduling point (a test inside the caller's step), but a read
	 * of the lock all the same: without this record the reductions took
	 * it for independent of every lock and unlock, and certified a model
	 * that tests another thread's lock (weft-lock-forms is-locked:other) */
	if (M.cur >= 0)
		weft_sched_step(WEFT_DEP_READ, loc_of(l), sizeof(*l), 0, &site);
	return __atomic_load_n(&l->locked, __ATOMIC_RELAXED) != 0;
}
