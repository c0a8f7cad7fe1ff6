/*
 * waiters.h - the wait lists of the sleeping primitives (sleep.c,
 * waitqueue.c), on the scheduler interface of sched.h.
 *
 * A thread is on at most one wait list (the kernel's wait_list of a mutex
 * or rwsem, a semaphore's, a completion's swait queue, a wait queue, a bit
 * wait queue): its entry records the object, its position (lower sequence
 * number = older) and what it waits for. The wait list of an object is the
 * set of threads whose entry names it; the machine's blocked state says
 * which of them sleep. An entry is valid only in the execution (M.epoch)
 * that wrote it, so nothing is reset between executions.
 *
 * Invariants:
 *  - A thread blocked on one of these classes has its entry's chan equal to
 *    its machine wait_chan (it sleeps only while on the list).
 *  - task_state is TASK_RUNNING except between prepare_to_wait() or
 *    set_current_state() and the wake-up, finish_wait() or
 *    __set_current_state(TASK_RUNNING) that ends it, and while a wait
 *    loop (weft_wl_sleep(): a sleeping lock's, a completion's, a page
 *    lock's), an RCU, workqueue or timer wait (weft_wl_block()) or
 *    kthread_stop() sleeps: TASK_UNINTERRUPTIBLE from its block to the
 *    wake-up (weft_wl_wake()), both steps recording a WRITE of the state,
 *    which task_is_running() reads (kthread.c). A wake_up_process()
 *    (kthread.c) makes it TASK_RUNNING without taking the thread off its
 *    list: WL_TASK_WOKEN marks it until it prepares to wait again, and
 *    wake_up() passes over it, as try_to_wake_up() fails on a running task.
 *  - A waker that hands an object over (a semaphore, a ticket-model mutex
 *    or rwsem, a completion, a lock bit) takes the waiter off the list and
 *    sets WL_GRANTED; the waiter then owns it when it runs again.
 */
#ifndef WEFT_WAITERS_H
#define WEFT_WAITERS_H

#include "sched.h"

enum {
	WL_EXCLUSIVE = 1,   /* woken one at a time (wake_up's nr_exclusive) */
	WL_WRITE = 2,       /* an rwsem writer */
	WL_GRANTED = 4,     /* handed the object by its waker */
	WL_LOCK = 8,        /* a bit-lock waiter: takes the bit */
	WL_TASK_WOKEN = 16, /* a wait-queue waiter wake_up_process() made running */
	WL_HASHED = 32,     /* on a hashed wait queue (wait_bit.c): chan is its key's
			     * address, bit its bit (WEFT_WAIT_VAR_BIT: a var) */
	WL_TIMED = 64,      /* a completion's waiter asleep in schedule_timeout()
			     * (wait_for_completion_timeout()): its task state is
			     * what it waits on, as a wait queue's waiter */
	WL_SEMA = 128,      /* with WL_TIMED: a semaphore's (down_timeout()) */
};

struct weft_waiter {
	uint32_t epoch;
	uint8_t flags;          /* WL_* */
	uint8_t task_state;     /* TASK_* */
	uint8_t bit;            /* bit waits: the bit waited for */
	const void *chan;       /* the object whose wait list it is on, or NULL */
	uint64_t seq;           /* position on the list: lower is older */
};


/* The entry of thread tid in this execution. */
struct weft_waiter *weft_wl_entry(unsigned tid);
/* Put tid at the tail of chan's list (no-op if it is on it already). */
void weft_wl_add(unsigned tid, const void *chan, uint8_t flags);
/* Take tid off its list. */
void weft_wl_del(unsigned tid);
/* The oldest thread on chan's list whose flags & mask == want, after
 * position `after` (0: from the start); -1 if none. */
int weft_wl_next(const void *chan, uint8_t mask, uint8_t want, uint64_t after);
static inline int weft_wl_first(const void *chan, uint8_t mask, uint8_t want)
{
	return weft_wl_next(chan, mask, want, 0);
}
unsigned weft_wl_count(const void *chan, uint8_t mask, uint8_t want);
/* Make tid TASK_RUNNING and, if it sleeps on chan, runnable. True if it
 * was asleep (a wake-up the trace shows). */
bool weft_wl_wake(unsigned tid, const void *chan);
/* The record of a step that may have woken threads with weft_wl_wake()
 * (a release, a complete(), a wake-up): weft_sched_step(kind, loc, size),
 * then a WRITE of the task state of each thread whose state it made
 * TASK_RUNNING (after the step's own record, which is its kind). */
void weft_wl_step(unsigned kind, uint32_t loc, uint32_t size, const struct weft_site *s);
/* Those WRITEs alone, for a step that made its own record before it woke
 * anyone. */
void weft_wl_woken_step(const struct weft_site *s);
/* After the step's own record: weft_wl_wake() of every thread asleep on
 * chan (the waits outside the wait lists, which weft_wl_block() put to
 * sleep), and their WRITEs (weft_wl_woken_step()). How many it woke. */
unsigned weft_wl_wake_all(const void *chan, const struct weft_site *s);
/* The current thread is about to sleep in a wait loop: TASK_UNINTERRUPTIBLE
 * and a WRITE record of its state, if it was TASK_RUNNING (schedule()
 * comes with the state its caller set). */
void weft_wl_task_sleeps(const struct weft_site *s);
/* weft_wl_task_sleeps(), then weft_sched_block(chan, wc, s): the sleep of
 * every wait (weft_wl_sleep()'s, and the RCU, workqueue and timer waits
 * that block outside the wait lists; their wakers use weft_wl_wake() or
 * weft_wl_wake_all()), after the step's BLOCKED record. */
void weft_wl_block(const void *chan, const struct weft_wait_class *wc, const struct weft_site *s);
/*
 * The current thread falls asleep on chan (it is on chan's list): a WAIT
 * event (old: 1 + the thread it waits for, or 0), a BLOCKED record over
 * [chan, chan+size), TASK_UNINTERRUPTIBLE and a WRITE record of its task
 * state if it was TASK_RUNNING (every caller but schedule()), and the
 * block. Returns when it runs again, as a new
 * step whose operation the caller performs (re-check, or take what was
 * handed over).
 */
void weft_wl_sleep(const void *chan, uint32_t size, const struct weft_wait_class *wc,
		   uint64_t holder, const struct weft_site *s);

/* A model thread's operand (the host context checked it at its branch),
 * and its store. */
static inline uint32_t obj_loc(const void *p, size_t size, const struct weft_site *s)
{
	uint32_t loc = thread_loc(p, size, s);

	check_uaf(loc, s);
	return loc;
}

static inline void obj_written(uint32_t loc, const struct weft_site *s)
{
	if (loc != WEFT_NO_LOC)
		shadow_write(loc, s);
}

/*
 * The wait loop of every sleeping primitive (__mutex_lock_common(),
 * rwsem_down_read_slowpath(), rwsem_down_write_slowpath(), __down_common(),
 * do_wait_for_common()), written once: each primitive's own test says
 * whether the thread may go on (it took the object, or a waker handed it
 * over while it slept), and until then
 *     loc = weft_wl_wait_turn(obj, sizeof(*obj), &obj->nr_waiters, ...);
 * queues it once on obj's list (flags; counted in *nr_waiters) and sleeps
 * until woken (holder: what the WAIT event records of the owner). Returns
 * obj's location checked again: it may have been freed meanwhile.
 */
uint32_t weft_wl_wait_turn(void *obj, uint32_t size, uint32_t *nr_waiters, uint8_t flags,
			   const struct weft_wait_class *wc, uint64_t holder, const struct weft_site *s);
/* The current thread took obj itself: off obj's list if it slept on it. */
void weft_wl_taken(void *obj, uint32_t *nr_waiters);
/* The WAKE event of an operation that woke the threads in mask. */
void weft_wl_trace_wake(const void *chan, uint64_t mask, unsigned n, const struct weft_site *s);
/* Before anything that may sleep (might_sleep()): reports a thread that is
 * not TASK_RUNNING (the kernel's "do not call blocking ops when
 * !TASK_RUNNING") or that is on another object's wait list. */
void weft_wl_might_sleep(const void *chan, const struct weft_site *s);
/* A query of an object's state word (mutex_is_locked(),
 * completion_done(), waitqueue_active()): in a model thread a scheduling
 * point and a READ of the whole object, then *word read after it; in the
 * host context *word, or 0 for an object outside the world. True if
 * *word is not 0. */
bool weft_wl_query(const void *obj, uint32_t size, const uint32_t *word,
		   const struct weft_site *s);
/* Setup or an audit would have to sleep on obj: an assertion report. */
void weft_wl_host_sleeps(const void *obj, const struct weft_site *s);

/* Bit-lock holders: who took (loc, bit) with test_and_set_bit_lock() or
 * a handoff, for the owner of a bit wait in deadlock reports. */
void weft_bitlock_set(uint32_t loc, unsigned bit, unsigned tid);
void weft_bitlock_clear(uint32_t loc, unsigned bit);
int weft_bitlock_holder(uint32_t loc);
/* The holder of bit `bit` at loc, or -1. */
int weft_bitlock_holder_bit(uint32_t loc, unsigned bit);

/* A thread's nested holds of a lock whose holders the lock itself does
 * not list (the read sides of rwsems, sleep.c, and rwlocks, rwlock.c):
 * valid in the execution (epoch) that wrote them; depth 0 frees a slot. */
struct weft_hold {
	uint32_t epoch;
	const void *obj;
	uint32_t depth;
	uint8_t tid;
};
/* The entry of (obj, tid) in table[n]; with make, a free slot if it has
 * none (NULL when the table is full, and *full_epoch set to this
 * execution's, if given). */
struct weft_hold *weft_hold_find(struct weft_hold *table, unsigned n, const void *obj,
				 unsigned tid, bool make, uint32_t *full_epoch);

/* The mutex internals pthread_cond_wait() shares (sleep.c). */
void weft_mutex_acquire(struct weft_mutex *m, const struct weft_site *s);
void weft_mutex_release(struct weft_mutex *m, const struct weft_site *s);

#endif
