/*
 * waitqueue.c - the channels nobody owns: wait queues (kernel/sched/wait.c,
 * include/linux/wait.h), completions (kernel/sched/completion.c), the
 * condition variables of <weft/pthread.h>, and bit locks and bit waits
 * (include/linux/wait_bit.h; mm/filemap.c folio_wait_bit_common(),
 * folio_wake_bit(), wake_page_function()), v6.8.
 *
 * A sleeper here has no owner to wait for: when every thread sleeps and
 * one of them sleeps on one of these, the machine reports a lost wakeup,
 * with the last write to the object as the other side (a wait queue's
 * first word is written only by wake-ups; a completion's by complete() and
 * reinit_completion(); a bit wait's word by whatever last stored it).
 * Bit waits are the exception: the holder of the bit a sleeper waits on
 * (test_and_set_bit_lock, or a handoff) is its owner, so an ABBA on two
 * page locks is a deadlock; a lock on another bit of the same word is not
 * (a PG_writeback sleeper nobody wakes is a lost wakeup even while its
 * page is locked).
 *
 * The open-coded pattern, as the kernel has it:
 *     prepare_to_wait(&wq, &wait, TASK_UNINTERRUPTIBLE);   on the list,
 *     if (!condition)                                       state set
 *             schedule();          sleeps unless already woken
 *     finish_wait(&wq, &wait);     TASK_RUNNING, off the list
 * A wake_up() between prepare_to_wait() and schedule() takes the thread off
 * the list and makes it TASK_RUNNING, so schedule() does not sleep; a
 * thread that tests the condition before prepare_to_wait() and not after
 * can miss a wake-up that came in between, and then sleeps for ever.
 */
#include <string.h>

#include <weft/kernel.h>
#include <weft/timer.h>
#include <weft/wait_bit.h>

#include "core_state.h"
#include "families.h"
#include "waiters.h"

static int no_owner(const void *chan)
{
	(void)chan;
	return -1;
}

/* --------------------------------------------------------------- completion */

static bool completion_busy(const void *chan, unsigned tid)
{
	(void)tid;
	return ((const struct weft_completion *)chan)->done == 0;
}

static const struct weft_wait_class completion_class =
	WL_CLASS("completion", true, no_owner, completion_busy);

void weft_init_completion(struct weft_completion *x, const struct weft_site *s)
{
	uint32_t loc, old;

	if (M.cur < 0 && !in_world(x, sizeof(*x), s))
		return;
	if (M.cur < 0) {
		x->done = 0;
		return;
	}
	sched_point_at(s, x, sizeof(*x), NULL);
	loc = obj_loc(x, sizeof(*x), s);
	old = x->done;
	x->done = 0;
	weft_trace(WEFT_EV_WRITE, loc, old, 0, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(*x), 0, s);
	obj_written(loc, s);
}

void weft_complete(struct weft_completion *x, bool all, const struct weft_site *s)
{
	uint32_t loc, old;
	uint64_t mask = 0;
	int w;

	if (M.cur < 0 && !in_world(x, sizeof(*x), s))
		return;
	if (M.cur < 0) {
		if (all)
			x->done = WEFT_COMPLETION_ALL;
		else if (x->done != WEFT_COMPLETION_ALL)
			x->done++;
		return;
	}
	sched_point_at(s, x, sizeof(*x), NULL);
	loc = obj_loc(x, sizeof(*x), s);
	old = x->done;
	weft_tsan_release(x);
	if (all)
		x->done = WEFT_COMPLETION_ALL;
	else if (x->done != WEFT_COMPLETION_ALL)
		x->done++;
	/* swake_up_locked() / swake_up_all_locked(): off the list, oldest first */
	while ((w = weft_wl_first(x, 0, 0)) >= 0) {
		weft_wl_del((unsigned)w);
		x->nr_waiters--;
		if (weft_wl_wake((unsigned)w, x))
			mask |= tbit((unsigned)w);
		if (!all)
			break;
	}
	weft_trace(WEFT_EV_RMW, loc, old, x->done, s);
	if (mask)
		weft_wl_trace_wake(x, mask, (unsigned)__builtin_popcountll(mask), s);
	weft_wl_step(WEFT_DEP_RELEASE, loc, sizeof(*x), s);
	obj_written(loc, s);
}

/* Takes one completion (none after complete_all()); x->done != 0. */
static void completion_take(struct weft_completion *x, uint32_t loc, const struct weft_site *s)
{
	uint32_t old = x->done;

	if (x->done != WEFT_COMPLETION_ALL)
		x->done--;
	weft_tsan_acquire(x);
	weft_trace(WEFT_EV_RMW, loc, old, x->done, s);
	weft_sched_step(WEFT_DEP_ACQUIRE, loc, sizeof(*x), 0, s);
	if (loc != WEFT_NO_LOC && old != x->done)
		shadow_write(loc, s);
}

void weft_wait_for_completion(struct weft_completion *x, const struct weft_site *s)
{
	uint32_t loc;

	if (M.cur < 0 && !in_world(x, sizeof(*x), s))
		return;
	if (M.cur < 0) {
		if (!x->done)
			weft_wl_host_sleeps(x, s);
		else if (x->done != WEFT_COMPLETION_ALL)
			x->done--;
		return;
	}
	sched_point_at(s, x, sizeof(*x), &completion_class);
	weft_wl_might_sleep(x, s);
	loc = obj_loc(x, sizeof(*x), s);
	/* do_wait_for_common(): on the list until done; a waiter woken for a
	 * completion another thread took first goes back to the tail */
	while (!x->done)
		loc = weft_wl_wait_turn(x, sizeof(*x), &x->nr_waiters, WL_EXCLUSIVE, &completion_class,
					0, s);
	completion_take(x, loc, s);
}

/* wait_for_completion_timeout() (do_wait_for_common() with
 * schedule_timeout()): on the completion's list, TASK_UNINTERRUPTIBLE,
 * asleep until complete() or its timer makes it running; 0 if the time ran
 * out with no completion to take, else the jiffies left (at least 1: a
 * completion found after the timeout is still taken, as the kernel's loop
 * looks at done once more). From setup: no time passes, 0 unless done. */
unsigned long weft_wait_for_completion_timeout(struct weft_completion *x, unsigned long timeout,
					       const struct weft_site *s)
{
	long left = timeout > (unsigned long)MAX_SCHEDULE_TIMEOUT ? MAX_SCHEDULE_TIMEOUT
								   : (long)timeout;
	unsigned me = (unsigned)M.cur;
	struct weft_waiter *w;
	uint32_t loc;

	if (M.cur < 0 && !in_world(x, sizeof(*x), s))
		return 0;
	if (M.cur < 0) {
		if (!x->done)
			return 0;
		if (x->done != WEFT_COMPLETION_ALL)
			x->done--;
		return left ? (unsigned long)left : 1;
	}
	sched_point_at(s, x, sizeof(*x), &completion_class);
	weft_wl_might_sleep(x, s);
	loc = obj_loc(x, sizeof(*x), s);
	while (!x->done && left > 0) {
		w = weft_wl_entry(me);
		bool joins = w->chan != x;
		if (joins) {
			weft_wl_add(me, x, WL_EXCLUSIVE | WL_TIMED);
			x->nr_waiters++;
		}
		/* done read as 0, and the first time the waiter count written:
		 * complete() depends on both (without a record the step that
		 * joins the list looked independent of it, and the reductions
		 * took complete() before it and after it for one order) */
		weft_sched_step(joins ? WEFT_DEP_WRITE : WEFT_DEP_READ, loc, sizeof(*x), 0, s);
		w->flags &= (uint8_t)~WL_TASK_WOKEN;
		weft_wl_task_sleeps(s);   /* and its WRITE record */
		left = weft_schedule_timeout(left, s);
	}
	uint32_t waiters = x->nr_waiters;
	weft_wl_taken(x, &x->nr_waiters);
	w = weft_wl_entry(me);
	w->task_state = TASK_RUNNING;
	w->flags &= (uint8_t)~WL_TASK_WOKEN;
	if (!x->done) {
		/* timed out: what it read was done == 0; off the list, it
		 * wrote the waiter count */
		M.next_flags |= WEFT_EVF_FAILED;
		weft_trace(WEFT_EV_READ, loc, 0, 0, s);
		weft_sched_step(waiters != x->nr_waiters ? WEFT_DEP_WRITE : WEFT_DEP_READ, loc,
				sizeof(*x), 0, s);
		return 0;
	}
	completion_take(x, loc, s);
	return left > 0 ? (unsigned long)left : 1;
}

bool weft_try_wait_for_completion(struct weft_completion *x, const struct weft_site *s)
{
	uint32_t loc;

	if (M.cur < 0 && !in_world(x, sizeof(*x), s))
		return false;
	if (M.cur < 0) {
		if (!x->done)
			return false;
		if (x->done != WEFT_COMPLETION_ALL)
			x->done--;
		return true;
	}
	sched_point_at(s, x, sizeof(*x), NULL);
	loc = obj_loc(x, sizeof(*x), s);
	if (!x->done) {
		M.next_flags |= WEFT_EVF_FAILED;
		weft_trace(WEFT_EV_READ, loc, 0, 0, s);
		weft_sched_step(WEFT_DEP_READ, loc, sizeof(*x), 0, s);
		return false;
	}
	completion_take(x, loc, s);
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_observe_lock(x, true);   /* an acquire (memory.c: orders_itself) */
	return true;
}

bool weft_completion_done(struct weft_completion *x, const struct weft_site *s)
{
	return weft_wl_query(x, sizeof(*x), &x->done, s);
}

/* -------------------------------------------------------------- wait queues */

static bool wq_busy(const void *chan, unsigned tid)
{
	(void)chan;
	return weft_wl_entry(tid)->task_state != TASK_RUNNING;
}

static const struct weft_wait_class wq_class = WL_CLASS("wait queue", true, no_owner, wq_busy);

/* schedule() after set_current_state() with no prepare_to_wait(): only a
 * timeout or a wake_up_process() wakes it */
static const struct weft_wait_class no_queue_class =
	WL_CLASS("schedule() on no wait queue: only wake_up_process() can wake it", true, no_owner,
		 wq_busy);

/* A sleeper of a hashed bit wait (wait_on_bit(), wait_bit.c) waits for
 * whoever holds the bit, if it was taken as a lock (wait_on_bit_lock(),
 * test_and_set_bit_lock()): an ABBA on two such bits is a deadlock. */
static int hashed_bit_owner(const void *chan, unsigned tid)
{
	return weft_bitlock_holder_bit(loc_of(chan), weft_wl_entry(tid)->bit);
}

static const struct weft_wait_class hashed_bit_class = {
	.name = "bit wait",
	.sleeps = true,
	.waiter_owner = hashed_bit_owner,
	.busy = wq_busy,
};

/* A sleeper of wait_var_event() (wait_bit.c): nobody owns a var */
static const struct weft_wait_class var_class = WL_CLASS("var wait", true, no_owner, wq_busy);

/* A sleeper of wait_for_completion_timeout(): complete() or its timer
 * makes it running */
static const struct weft_wait_class timed_completion_class =
	WL_CLASS("completion", true, no_owner, wq_busy);
/* ... and of down_timeout(): up() or its timer */
static const struct weft_wait_class timed_sema_class =
	WL_CLASS("semaphore", true, no_owner, wq_busy);

/* What schedule() sleeps on: a wait queue head, or the first byte of a
 * hashed wait's key (the var, the word: wait_bit.c) */
static uint32_t chan_size(const struct weft_waiter *w)
{
	if (w->flags & WL_TIMED)
		return (w->flags & WL_SEMA) ? sizeof(struct weft_semaphore)
					    : sizeof(struct weft_completion);
	return (w->flags & WL_HASHED) ? 1 : sizeof(struct weft_wait_queue_head);
}

static const struct weft_wait_class *sleep_class(const struct weft_waiter *w)
{
	if (!w->chan)
		return &no_queue_class;
	if (w->flags & WL_HASHED)
		return w->bit == WEFT_WAIT_VAR_BIT ? &var_class : &hashed_bit_class;
	if (w->flags & WL_TIMED)
		return (w->flags & WL_SEMA) ? &timed_sema_class : &timed_completion_class;
	return &wq_class;
}

void weft_init_waitqueue_head(struct weft_wait_queue_head *wq, const struct weft_site *s)
{
	uint32_t loc;

	if (M.cur < 0 && !in_world(wq, sizeof(*wq), s))
		return;
	if (M.cur < 0) {
		wq->wakes = 0;
		wq->nr_queued = 0;
		return;
	}
	sched_point_at(s, wq, sizeof(*wq), NULL);
	loc = obj_loc(wq, sizeof(*wq), s);
	if (weft_wl_count(wq, 0, 0))
		weft_report(WEFT_KIND_ASSERT, wq, s, "init_waitqueue_head of a queue with entries");
	weft_trace(WEFT_EV_WRITE, loc, wq->nr_queued, 0, s);
	wq->wakes = 0;
	wq->nr_queued = 0;
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(*wq), 0, s);
	obj_written(loc, s);
}

/* The scheduling point of the calling thread's step at s on wq's list,
 * wq's location in *loc, and the thread's wait-list entry; NULL in the
 * host context, where nothing waits (wq is only checked to be in the
 * world). */
static struct weft_waiter *wq_point_self(struct weft_wait_queue_head *wq,
					 const struct weft_site *s, uint32_t *loc)
{
	if (M.cur < 0) {
		in_world(wq, sizeof(*wq), s);
		return NULL;
	}
	sched_point_at(s, wq, sizeof(*wq), NULL);
	*loc = obj_loc(wq, sizeof(*wq), s);
	return weft_wl_entry((unsigned)M.cur);
}

/* The end of such a step: wq's list went from old entries to its count
 * now, and the thread's task state was written. */
static void wq_self_written(struct weft_wait_queue_head *wq, uint32_t loc, uint32_t old,
			    const struct weft_site *s)
{
	weft_trace(WEFT_EV_WRITE, loc, old, wq->nr_queued, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(*wq), 0, s);
	weft_sched_step(WEFT_DEP_WRITE, weft_task_state_loc((unsigned)M.cur), 1, 0, s);
}

void weft_prepare_to_wait(struct weft_wait_queue_head *wq, struct weft_wait_entry *e,
			  int state, bool exclusive, const struct weft_site *s)
{
	uint32_t loc, old;
	struct weft_waiter *w = wq_point_self(wq, s, &loc);

	if (!w)
		return;
	if (w->chan && w->chan != wq)
		weft_report(WEFT_KIND_ASSERT, wq, s,
			    "T%d prepares to wait on a second wait queue: one list at a time is "
			    "modelled", M.cur);
	old = wq->nr_queued;
	if (w->chan != wq) {
		weft_wl_add((unsigned)M.cur, wq, exclusive ? WL_EXCLUSIVE : 0);
		wq->nr_queued++;
	}
	if (e)
		e->flags = exclusive ? WL_EXCLUSIVE : 0;
	w->task_state = (uint8_t)state;
	w->flags &= (uint8_t)~WL_TASK_WOKEN;
	/* set_current_state() is smp_store_mb(): a full barrier after the
	 * task state, so the condition the caller reads next cannot be older
	 * than a waker's store before a wake_up() that found no waiter
	 * (memory-barriers.txt, "Sleep and wake-up functions"; wake_up()'s
	 * point is a full barrier, memory.c: orders) */
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_fence(WEFT_FENCE_MB);
	wq_self_written(wq, loc, old, s);
}

void weft_finish_wait(struct weft_wait_queue_head *wq, struct weft_wait_entry *e,
		      const struct weft_site *s)
{
	uint32_t loc, old;
	struct weft_waiter *w = wq_point_self(wq, s, &loc);

	(void)e;
	if (!w)
		return;
	old = wq->nr_queued;
	w->task_state = TASK_RUNNING;
	if (w->chan == wq) {
		weft_wl_del((unsigned)M.cur);
		wq->nr_queued--;
	}
	wq_self_written(wq, loc, old, s);
}

bool weft_schedule(const struct weft_site *s)
{
	struct weft_waiter *w;
	const void *wq;
	uint32_t loc, size;

	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s,
			    "%s from setup or an audit: no thread runs there to wake it", s->what);
		return false;
	}
	w = weft_wl_entry((unsigned)M.cur);
	wq = w->chan;
	size = chan_size(w);
	/* a wake_up_process() is the other side of a sleeper's schedule():
	 * with no wait queue the task's state is what it waits on */
	if (wq)
		sched_point_at(s, wq, size, sleep_class(w));
	else
		sched_point_at(s, &M.core->task[M.cur].weft_state, 1, NULL);
	w = weft_wl_entry((unsigned)M.cur);
	loc = wq ? obj_loc(wq, size, s) : WEFT_NO_LOC;
	uint32_t state_loc = weft_task_state_loc((unsigned)M.cur);
	if (w->task_state == TASK_RUNNING) {
		/* woken between prepare_to_wait() and here (or not preparing to
		 * wait at all): schedule() returns without sleeping */
		weft_trace(WEFT_EV_WAIT, loc, 0, 2, s);
		if (wq)
			weft_sched_step(WEFT_DEP_READ, loc, size, 0, s);
		weft_sched_step(WEFT_DEP_READ, state_loc, 1, 0, s);
		return true;
	}
	weft_might_sleep(s);   /* schedule_debug(): "scheduling while atomic" */
	while (w->task_state != TASK_RUNNING) {
		weft_wl_sleep(wq, size, sleep_class(w), 0, s);
		w = weft_wl_entry((unsigned)M.cur);
	}
	/* woken: the step it runs again in */
	weft_trace(WEFT_EV_WAIT, loc, 0, 1, s);
	weft_sched_step(WEFT_DEP_READ, loc, size, 0, s);
	weft_sched_step(WEFT_DEP_READ, state_loc, 1, 0, s);
	return true;
}

/* set_current_state() (s->ev WEFT_EV_BARRIER: smp_store_mb(), a full
 * barrier after the store under a weak memory model) and
 * __set_current_state() (a plain store): a step of its own that writes
 * the task's state, so a wake_up_process() can come before or after it. */
void weft_set_current_state(int state, const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	sched_point_at(s, &M.core->task[M.cur].weft_state, 1, NULL);
	struct weft_waiter *w = weft_wl_entry((unsigned)M.cur);
	uint8_t old = w->task_state;
	w->task_state = (uint8_t)state;
	if (state != TASK_RUNNING)
		w->flags &= (uint8_t)~WL_TASK_WOKEN;
	if (__builtin_expect(weft_mem_weak, 0) && s->ev == WEFT_EV_BARRIER)
		weft_mem_fence(WEFT_FENCE_MB);
	uint32_t loc = weft_task_state_loc((unsigned)M.cur);
	weft_trace(WEFT_EV_WRITE, loc, old, (uint64_t)state, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, 1, 0, s);
}

bool weft_task_wake(unsigned tid, unsigned state, const struct weft_site *s)
{
	struct weft_waiter *w = weft_wl_entry(tid);

	weft_sched_step(WEFT_DEP_WRITE, weft_task_state_loc(tid), 1, 0, s);
	if (w->task_state == TASK_RUNNING || !(w->task_state & state))
		return false;
	w->task_state = TASK_RUNNING;
	if (w->chan) {
		/* autoremove_wake_function() finds it running: left on the list
		 * for its finish_wait(), and no wake_up() counts it */
		w->flags |= WL_TASK_WOKEN;
		weft_sched_step(WEFT_DEP_WRITE, loc_of(w->chan), chan_size(w), 0, s);
	}
	weft_sched_wake_thread(tid);
	return true;
}

void weft_wq_wake_process(unsigned tid, const struct weft_site *s)
{
	const void *chan = weft_wl_entry(tid)->chan;

	if (weft_task_wake(tid, TASK_NORMAL, s))
		weft_trace(WEFT_EV_WAKE, chan ? loc_of(chan) : WEFT_NO_LOC, 1ull << tid, 1, s);
}

/* __wake_up_common() with autoremove_wake_function(): every non-exclusive
 * waiter and the oldest nr_exclusive exclusive ones (0: all) leave the
 * list and become TASK_RUNNING. Returns the mask of sleepers woken. */
static uint64_t wq_wake(struct weft_wait_queue_head *wq, unsigned nr_exclusive, unsigned *n)
{
	uint64_t mask = 0;
	uint64_t after = 0;
	bool all = nr_exclusive == 0;
	int t;

	*n = 0;
	/* the kernel keeps non-exclusive entries ahead of exclusive ones, so
	 * every non-exclusive waiter is woken whatever nr_exclusive says */
	while ((t = weft_wl_next(wq, WL_HASHED, 0, after)) >= 0) {
		struct weft_waiter *w = weft_wl_entry((unsigned)t);
		after = w->seq;
		if (w->flags & WL_TASK_WOKEN)
			continue;   /* try_to_wake_up() fails on a running task */
		if ((w->flags & WL_EXCLUSIVE) && !all) {
			if (nr_exclusive == 0)
				continue;   /* this call's exclusive wake-ups are spent */
			nr_exclusive--;
		}
		weft_wl_del((unsigned)t);
		wq->nr_queued--;
		(*n)++;
		if (weft_wl_wake((unsigned)t, wq))
			mask |= tbit((unsigned)t);
	}
	return mask;
}

/* A wake-up of obj's wait queue wq (wake_up(), a condition's signal or
 * broadcast): one RELEASE step on obj that wakes the waiters wq_wake()
 * picks; nothing in the host context (nobody sleeps there). */
static void wq_wake_up(void *obj, uint32_t size, struct weft_wait_queue_head *wq,
		       unsigned nr_exclusive, const struct weft_site *s)
{
	uint32_t loc;
	uint64_t mask;
	unsigned n;

	if (M.cur < 0) {
		in_world(obj, size, s);
		return;
	}
	sched_point_at(s, obj, size, NULL);
	loc = obj_loc(obj, size, s);
	weft_tsan_release(obj);
	mask = wq_wake(wq, nr_exclusive, &n);
	wq->wakes++;
	weft_wl_trace_wake(obj, mask, n, s);
	weft_wl_step(WEFT_DEP_RELEASE, loc, size, s);
	obj_written(loc, s);
}

void weft_wake_up(struct weft_wait_queue_head *wq, unsigned nr_exclusive, const struct weft_site *s)
{
	wq_wake_up(wq, sizeof(*wq), wq, nr_exclusive, s);
}

bool weft_waitqueue_active(struct weft_wait_queue_head *wq, const struct weft_site *s)
{
	return weft_wl_query(wq, sizeof(*wq), &wq->nr_queued, s);
}

/* ------------------------------------------------------ condition variables */

static bool cond_busy(const void *chan, unsigned tid)
{
	(void)chan;
	(void)tid;
	return true;   /* a wait always sleeps (unless a spurious wake-up is chosen) */
}

static const struct weft_wait_class cond_class =
	WL_CLASS("condition variable", true, no_owner, cond_busy);

void weft_cond_init(struct weft_pthread_cond *c, bool spurious, const struct weft_site *s)
{
	uint32_t loc;

	if (M.cur < 0 && !in_world(c, sizeof(*c), s))
		return;
	if (M.cur < 0) {
		memset(c, 0, sizeof(*c));
		c->spurious = spurious;
		return;
	}
	sched_point_at(s, c, sizeof(*c), NULL);
	loc = obj_loc(c, sizeof(*c), s);
	if (weft_wl_count(c, 0, 0))
		weft_report(WEFT_KIND_ASSERT, c, s, "pthread_cond_init of a condition with waiters");
	memset(c, 0, sizeof(*c));
	c->spurious = spurious;
	weft_trace(WEFT_EV_WRITE, loc, 0, spurious, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(*c), 0, s);
	obj_written(loc, s);
}

void weft_cond_wait(struct weft_pthread_cond *c, struct weft_mutex *m, const struct weft_site *s)
{
	unsigned me = (unsigned)M.cur;
	uint32_t loc;
	bool spurious = false;

	if (M.cur < 0 && !in_world(c, sizeof(*c), s))
		return;
	if (M.cur < 0 && !in_world(m, sizeof(*m), s))
		return;
	if (M.cur < 0) {
		weft_wl_host_sleeps(c, s);
		return;
	}
	sched_point_at(s, c, sizeof(*c), &cond_class);
	weft_wl_might_sleep(c, s);
	loc = obj_loc(c, sizeof(*c), s);
	/* A spurious wake-up is a choice (value 1) at every wait. Under fair
	 * scheduling the first since another thread changed something is a
	 * free alternative; a waiter woken spuriously again with nothing
	 * changed since would, under the good-samaritan assumption
	 * (docs/strategies.md "Fairness"), only re-check the same state and
	 * wait again, but its locals are not seen: a waiter that counts its
	 * wake-ups gives up after a few. So the repeat is an unfair choice
	 * (weft_choice_unfair(), as a yield loop's repeated iteration is):
	 * dfs's fairness bound prunes it and the search is then not
	 * complete, pct passes it over, random may draw it. (A free choice
	 * at every wait made a wait loop endless for dfs; a repeat not
	 * offered at all made dfs --bound none call a counting waiter's
	 * give-up path covered.) */
	struct wthread *t = &M.th[me];
	if (c->spurious) {
		bool again = M.fair && t->spur_loc == loc && weft_fair_others(me) == t->spur_wr;
		spurious = weft_choose_unfair(2, again ? 2u : 0u, s) != 0;
		if (spurious && M.fair) {
			t->spur_loc = loc;
			t->spur_wr = weft_fair_others(me);
		}
	}
	/* one step: on the condition's list, the mutex released (its owner
	 * checked, a waiter of it woken), asleep */
	if (!spurious) {
		weft_wl_add(me, c, WL_EXCLUSIVE);
		c->wq.nr_queued++;
	}
	weft_mutex_release(m, s);
	weft_wl_step(WEFT_DEP_RELEASE, loc_of(m), sizeof(*m), s);
	if (spurious) {
		weft_trace(WEFT_EV_WAIT, loc, 0, 2, s);
		weft_sched_step(WEFT_DEP_READ, loc, sizeof(*c), 0, s);
		/* the re-lock is a step of its own */
		sched_point_at(s, m, sizeof(*m), NULL);
	} else {
		weft_wl_sleep(c, sizeof(*c), &cond_class, 0, s);
	}
	/* running again (woken, or spuriously): re-take the mutex */
	weft_mutex_acquire(m, s);
}

void weft_cond_wake(struct weft_pthread_cond *c, bool all, const struct weft_site *s)
{
	wq_wake_up(c, sizeof(*c), &c->wq, all ? 0 : 1, s);
}

/* --------------------------------------------------------- bit locks, waits */

bool weft_test_and_set_bit_lock(unsigned nr, unsigned long *addr, const struct weft_site *s)
{
	unsigned long bit = 1ul << nr;
	bool was = (weft_access(addr, sizeof(*addr), WEFT_A_OR, bit, 0, s) & bit) != 0;

	if (!was && M.cur >= 0)
		weft_bitlock_set(loc_of(addr), nr, (unsigned)M.cur);
	return was;
}

void weft_clear_bit_unlock(unsigned nr, unsigned long *addr, const struct weft_site *s)
{
	(void)weft_clear_bit_unlock_fetch(nr, addr, s);
}

unsigned long weft_clear_bit_unlock_fetch(unsigned nr, unsigned long *addr,
					  const struct weft_site *s)
{
	unsigned long old = weft_access(addr, sizeof(*addr), WEFT_A_ANDNOT, 1ul << nr, 0, s);

	weft_bitlock_clear(loc_of(addr), nr);
	return old;
}

/* A sleeper waits for whoever holds the bit it waits on: a lock held on
 * another bit of the word (PG_locked while it waits for PG_writeback, or
 * the other way round) is not what keeps it asleep. */
static int bit_waiter_owner(const void *chan, unsigned tid)
{
	return weft_bitlock_holder_bit(loc_of(chan), weft_wl_entry(tid)->bit);
}

/* Would tid sleep on the bit now? Not if a wake-up handed the bit to it. */
static bool bit_busy(const void *chan, unsigned tid)
{
	const struct weft_waiter *w = weft_wl_entry(tid);

	return !(w->flags & WL_GRANTED) &&
	       ((weft_peek(*(const unsigned long *)chan) >> w->bit) & 1ul);
}

static const struct weft_wait_class bit_class = {
	.name = "bit lock",
	.sleeps = true,
	.waiter_owner = bit_waiter_owner,
	.busy = bit_busy,
};

static inline void word_store(unsigned long *word, unsigned long v)
{
	__atomic_store_n(word, v, __ATOMIC_RELAXED);
}

void weft_wait_on_bit_waiters(unsigned long *word, unsigned bit, unsigned waiters_bit, bool lock,
			      const struct weft_site *s)
{
	unsigned long old, nv, b = 1ul << bit;
	unsigned me = (unsigned)M.cur;
	uint32_t loc;
	bool done;

	if (M.cur < 0 && !in_world(word, sizeof(*word), s))
		return;
	if (M.cur < 0) {
		old = weft_peek(*word);
		if (old & b)
			weft_wl_host_sleeps(word, s);
		else if (lock)
			word_store(word, old | b);
		return;
	}
	weft_wl_entry(me)->bit = (uint8_t)bit;
	sched_point_at(s, word, sizeof(*word), &bit_class);
	weft_wl_might_sleep(word, s);
	loc = obj_loc(word, sizeof(*word), s);
	/* folio_wait_bit_common(), under the wait queue's lock: the sign
	 * that someone waits first, then the bit itself */
	old = weft_peek(*word);
	nv = old | 1ul << waiters_bit;
	done = !(old & b);
	if (done && lock)
		nv |= b;
	word_store(word, nv);
	if (done)
		weft_tsan_acquire(word);
	weft_trace(WEFT_EV_RMW, loc, old, nv, s);
	if (loc != WEFT_NO_LOC && nv != old)
		shadow_write(loc, s);
	if (done) {
		if (lock)
			weft_bitlock_set(loc, bit, me);
		weft_sched_step(lock ? WEFT_DEP_ACQUIRE : WEFT_DEP_WRITE, loc, sizeof(*word), 0, s);
		return;
	}
	weft_wl_add(me, word, lock ? WL_EXCLUSIVE | WL_LOCK : 0);
	weft_wl_entry(me)->bit = (uint8_t)bit;
	/* until weft_wake_up_bit_waiters() says done (WQ_FLAG_DONE): a
	 * wake_up_process() of the sleeper sends it back to sleep */
	do
		weft_wl_sleep(word, sizeof(*word), &bit_class,
			      (uint64_t)(weft_bitlock_holder(loc) + 1), s);
	while (!(weft_wl_entry(me)->flags & WL_GRANTED));
	/* woken by weft_wake_up_bit_waiters(): a lock waiter holds the bit
	 * (handed over), a plain waiter saw it clear */
	weft_wl_entry(me)->flags &= (uint8_t)~WL_GRANTED;
	weft_trace(WEFT_EV_WAIT, loc, 0, 1, s);
	weft_sched_step(lock ? WEFT_DEP_ACQUIRE : WEFT_DEP_READ, loc, sizeof(*word), 0, s);
}

void weft_wake_up_bit_waiters(unsigned long *word, unsigned bit, unsigned waiters_bit,
			      const struct weft_site *s)
{
	unsigned long old, nv, b = 1ul << bit;
	uint32_t loc;
	uint64_t mask = 0;
	uint64_t after = 0;
	unsigned n = 0;
	int t;

	if (M.cur < 0 && !in_world(word, sizeof(*word), s))
		return;
	if (M.cur < 0)
		return;
	sched_point_at(s, word, sizeof(*word), NULL);
	loc = obj_loc(word, sizeof(*word), s);
	old = nv = weft_peek(*word);
	weft_tsan_release(word);
	/* __wake_up_locked_key(.., nr_exclusive 1) with wake_page_function() */
	while ((t = weft_wl_next(word, WL_HASHED, 0, after)) >= 0) {
		struct weft_waiter *w = weft_wl_entry((unsigned)t);
		bool excl = (w->flags & WL_LOCK) != 0;
		after = w->seq;
		if (w->bit != bit)
			continue;
		if (excl) {
			if (nv & b)
				break;          /* taken meanwhile: it stays queued */
			nv |= b;
			weft_bitlock_set(loc, bit, (unsigned)t);
		}
		w->flags |= WL_GRANTED;         /* done waiting (WQ_FLAG_WOKEN) */
		weft_wl_del((unsigned)t);
		n++;
		if (weft_wl_wake((unsigned)t, word))
			mask |= tbit((unsigned)t);
		if (excl)
			break;                  /* one exclusive waiter per wake-up */
	}
	/* folio_wake_bit(): nobody left waiting on this word */
	if (weft_wl_first(word, WL_HASHED, 0) < 0)
		nv &= ~(1ul << waiters_bit);
	word_store(word, nv);
	weft_wl_trace_wake(word, mask, n, s);
	if (nv != old) {
		weft_trace(WEFT_EV_RMW, loc, old, nv, s);
		obj_written(loc, s);
	}
	weft_wl_step(WEFT_DEP_RELEASE, loc, sizeof(*word), s);
}
