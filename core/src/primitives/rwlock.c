/*
 * rwlock.c - reader-writer spinlocks (<weft/rwlock.h>; include/linux/
 * rwlock.h, kernel/locking/qrwlock.c, v6.12), on the scheduler interface
 * as spinlock.c: a waiter is a blocked thread that the unlock wakes to
 * try again, so a cycle of waiters is a deadlock, never a livelock.
 *
 * Invariants (struct weft_rwlock): writer != 0 implies readers == 0;
 * reader_mask has bit t exactly while thread t holds the lock for reading
 * (read_holds[] counts its nested holds); writers_waiting counts the
 * writers blocked in write_lock(), and while it is not 0 a process-context
 * reader blocks too (queued_read_lock_slowpath(): only an in_interrupt()
 * reader gets past a waiting writer).
 */
#include <weft/kernel.h>
#include <weft/rwlock.h>

#include "families.h"
#include "waiters.h"

/* Each thread's nested read holds of each rwlock in this execution; a
 * table that overflows keeps the mask only (a nested unlock then clears
 * the thread's bit early: its owner in a deadlock report is lost). */
static struct weft_hold read_holds[32];

static struct weft_hold *read_hold(const struct weft_rwlock *l, unsigned tid, bool make)
{
	return weft_hold_find(read_holds, sizeof(read_holds) / sizeof(read_holds[0]), l, tid, make,
			      NULL);
}

/* The holder a waiter waits for: the writer, else a reader. */
static int rw_owner(const void *chan)
{
	const struct weft_rwlock *l = chan;

	if (l->writer)
		return l->writer == WEFT_HOST_OWNER ? WEFT_OWNER_HOST : (int)l->writer - 1;
	return l->reader_mask ? __builtin_ctz(l->reader_mask) : -1;
}

static bool in_interrupt_ctx(void)
{
	return weft_in_hardirq() || weft_in_softirq();
}

static bool read_busy(const void *chan, unsigned tid)
{
	const struct weft_rwlock *l = chan;

	(void)tid;
	return l->writer || (l->writers_waiting && !in_interrupt_ctx());
}

static bool write_busy(const void *chan, unsigned tid)
{
	const struct weft_rwlock *l = chan;

	(void)tid;
	return l->writer || l->readers;
}

/* Named as the rw_semaphore's are: a deadlock report says "T0 waits for
 * L (rwlock of T1)", T1 its holder, writer or reader (it said "rwlock
 * (read) of T1" for a reader waiting on a writer T1). */
static const struct weft_wait_class read_class =
	WL_CLASS("rwlock", false, rw_owner, read_busy);

static const struct weft_wait_class write_class =
	WL_CLASS("rwlock", false, rw_owner, write_busy);

void weft_rwlock_init(struct weft_rwlock *l, const struct weft_site *s)
{
	if (!in_world(l, sizeof(*l), s))
		return;
	*l = (struct weft_rwlock){ 0 };
	weft_lockdep_init(l, s);
}

static void mask_on(unsigned mask)
{
	if (mask == WEFT_RW_IRQ)
		weft_ctx_irq_off();
	else if (mask == WEFT_RW_BH)
		weft_ctx_bh_add(1);
}

static void read_taken(struct weft_rwlock *l)
{
	struct weft_hold *h = read_hold(l, (unsigned)M.cur, true);

	l->readers++;
	l->reader_mask |= 1u << M.cur;
	if (h)
		h->depth++;
}

static void writer_taken(struct weft_rwlock *l)
{
	l->writer = (uint32_t)M.cur + 1;
}

unsigned long weft_rw_lock(struct weft_rwlock *l, bool write, unsigned mask,
			   const struct weft_site *s)
{
	const struct weft_wait_class *wc = write ? &write_class : &read_class;
	unsigned long flags;
	uint32_t loc;

	if (M.cur < 0) {   /* setup or an audit: at once */
		if (in_world(l, sizeof(*l), s)) {
			if (write)
				l->writer = WEFT_HOST_OWNER;
			else
				l->readers++;
		}
		return 0;
	}
	flags = M.th[M.cur].irq_off;
	mask_on(mask);
	sched_point_at(s, l, sizeof(*l), wc);
	loc = thread_loc(l, sizeof(*l), s);
	check_uaf(loc, s);
	bool owed = weft_ctx_preempt_inc_owing();
	if (weft_lockdep_on) {
		/* a read_lock() is a recursive read for lockdep only in
		 * interrupt context (read_lock_is_recursive(): with queued
		 * rwlocks a process-context reader waits behind a waiting
		 * writer, read_busy()), so a second one there is recursive
		 * locking, as the kernel's check_deadlock() reports */
		if (!write && weft_lockdep_held_reads && (l->reader_mask >> M.cur & 1) &&
		    !in_interrupt_ctx())
			weft_report(WEFT_KIND_DEADLOCK, l, s,
				    "T%d takes an rwlock for read that it already holds, in process "
				    "context: possible recursive locking (a write_lock() between the "
				    "two waits for the first, and the second waits behind it)", M.cur);
		if (write)
			weft_lockdep_acquire(l, false, s);
		else if (weft_lockdep_held_reads)
			weft_lockdep_acquire_read(l, false, s);
	}
	if (wc->busy(l, (unsigned)M.cur)) {
		if (write)
			l->writers_waiting++;
		while (wc->busy(l, (unsigned)M.cur)) {
			weft_trace(WEFT_EV_BLOCK, loc, l->writer, l->readers, s);
			weft_sched_step_f(WEFT_DEP_BLOCKED, loc, sizeof(*l), 0, WEFT_STEP_SPIN, s);
			weft_sched_block(l, wc, s);
			M.step++;
		}
		if (write)
			l->writers_waiting--;
	}
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_observe_lock(l, true);
	if (write)
		writer_taken(l);
	else
		read_taken(l);
	weft_tsan_acquire(l);
	weft_trace(WEFT_EV_LOCK, loc, write, write ? l->writer : l->readers, s);
	weft_sched_step_f(WEFT_DEP_ACQUIRE, loc, sizeof(*l), 0, WEFT_STEP_SPIN, s);
	if (owed)
		weft_rcu_ctx_edge((unsigned)M.cur, true);
	if (loc != WEFT_NO_LOC)
		shadow_write(loc, s);
	if (M.fb)
		fb_hit(0x5200000000000000ull ^ (uint64_t)write << 40 ^ site_id(s));
	return flags;
}

bool weft_rw_trylock(struct weft_rwlock *l, bool write, const struct weft_site *s)
{
	const struct weft_wait_class *wc = write ? &write_class : &read_class;
	uint32_t loc;
	bool ok, owed = false;

	if (M.cur < 0) {
		if (!in_world(l, sizeof(*l), s))
			return false;
		ok = write ? !l->writer && !l->readers : !l->writer;
		if (ok && write)
			l->writer = WEFT_HOST_OWNER;
		else if (ok)
			l->readers++;
		return ok;
	}
	sched_point_at(s, l, sizeof(*l), NULL);
	loc = thread_loc(l, sizeof(*l), s);
	check_uaf(loc, s);
	ok = !wc->busy(l, (unsigned)M.cur);
	if (ok) {
		if (__builtin_expect(weft_mem_weak, 0))
			weft_mem_observe_lock(l, true);
		owed = weft_ctx_preempt_inc_owing();
		if (write && weft_lockdep_on)
			weft_lockdep_acquire(l, true, s);
		else if (weft_lockdep_held_reads)
			weft_lockdep_acquire_read(l, true, s);
		if (write)
			writer_taken(l);
		else
			read_taken(l);
		weft_tsan_acquire(l);
		if (loc != WEFT_NO_LOC)
			shadow_write(loc, s);
	} else {
		M.next_flags |= WEFT_EVF_FAILED;
	}
	weft_trace(WEFT_EV_TRYLOCK, loc, ok, write, s);
	weft_sched_step(ok ? WEFT_DEP_ACQUIRE : WEFT_DEP_READ, loc, sizeof(*l), 0, s);
	if (owed)
		weft_rcu_ctx_edge((unsigned)M.cur, true);
	return ok;
}

void weft_rw_unlock(struct weft_rwlock *l, bool write, unsigned mask, unsigned long flags,
		    const struct weft_site *s)
{
	uint32_t loc;

	if (M.cur < 0) {
		if (in_world(l, sizeof(*l), s)) {
			if (write)
				l->writer = 0;
			else if (l->readers)
				l->readers--;
		}
		return;
	}
	sched_point_at(s, l, sizeof(*l), NULL);
	loc = thread_loc(l, sizeof(*l), s);
	check_uaf(loc, s);
	if (write) {
		if (weft_lockdep_on)
			weft_lockdep_release(l, s);
		if (l->writer != (uint32_t)M.cur + 1)
			weft_report(WEFT_KIND_ASSERT, l, s,
				    "write_unlock of an rwlock this thread does not hold for writing");
		l->writer = 0;
	} else {
		struct weft_hold *h = read_hold(l, (unsigned)M.cur, false);
		if (weft_lockdep_held_reads)
			weft_lockdep_release(l, s);
		if (!(l->reader_mask & (1u << M.cur)) || !l->readers)
			weft_report(WEFT_KIND_ASSERT, l, s,
				    "read_unlock of an rwlock this thread does not hold for reading");
		l->readers--;
		if (!h || !--h->depth)
			l->reader_mask &= ~(1u << M.cur);
	}
	weft_tsan_release(l);
	weft_sched_wake_all(l);
	weft_trace(WEFT_EV_UNLOCK, loc, write, write ? 0 : l->readers, s);
	weft_sched_step_f(WEFT_DEP_RELEASE, loc, sizeof(*l), 0, WEFT_STEP_SPIN, s);
	if (loc != WEFT_NO_LOC)
		shadow_write(loc, s);
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_unlock(l, s);
	weft_ctx_preempt_dec();
	if (mask == WEFT_RW_IRQ)
		weft_ctx_irq_set(flags);
	else if (mask == WEFT_RW_BH)
		weft_ctx_bh_add(-1);
}
